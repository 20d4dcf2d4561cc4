import Foundation
import TraceLog

/// Which file a path names: its device and inode, so two paths naming the same file (through
/// `./`, a symbolic link or a hard link) compare equal.
struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}

/// Why the last system call failed: `errno`'s text ("Permission denied").
func errnoReason() -> String {
    String(cString: strerror(errno))
}

/// What kind of file a status describes, as a message says it: "a directory".
func kindName(_ status: stat) -> String {
    switch status.st_mode & S_IFMT {
    case S_IFREG: return "a regular file"
    case S_IFDIR: return "a directory"
    case S_IFCHR: return "a character device"
    case S_IFBLK: return "a block device"
    case S_IFIFO: return "a named pipe"
    case S_IFSOCK: return "a socket"
    default: return "a special file"
    }
}

/// A file a verb reads, named on its command line (`-` is standard input where a verb
/// accepts it). Made before anything runs: a missing file, a directory, a device, a socket
/// or a file the user may not read is refused with that reason. Its identity lets the
/// verb's outputs refuse to overwrite it.
struct InputFile {
    /// The path as given, its bytes used as they are (a name that is not UTF-8 too).
    let path: PathName
    /// The file's device and inode.
    let identity: FileIdentity
    /// A regular file, which can be read more than once (not a pipe or standard input).
    let isRegularFile: Bool
    /// Whether the file is standard input (`-`).
    let isStandardInput: Bool

    /// How messages name the file: the path as shown (a byte that is not UTF-8 as `\xFF`), or
    /// `<stdin>`.
    var name: String { isStandardInput ? "<stdin>" : path.shown }

    /// Checks that `path` can be read as a file. A regular file and a named pipe (a shell's
    /// `<(…)`) can; with `allowStandardInput`, `-` is standard input.
    init(_ path: PathName, allowStandardInput: Bool = false) throws {
        self.path = path
        var status = stat()
        if allowStandardInput && path.is("-") {
            guard fstat(STDIN_FILENO, &status) == 0 else {
                throw CLIError.file("<stdin>", "cannot read standard input: \(errnoReason())")
            }
            identity = FileIdentity(status)
            isRegularFile = false
            isStandardInput = true
            return
        }
        isStandardInput = false
        guard path.withCString({ stat($0, &status) }) == 0 else {
            let reason = errno == ENOENT ? "no such file" : errnoReason()
            throw CLIError.file(path, "cannot read: \(reason)")
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG, S_IFIFO: break
        default: throw CLIError.file(path, "cannot read: it is \(kindName(status)), not a file")
        }
        guard path.withCString({ access($0, R_OK) }) == 0 else {
            throw CLIError.file(path, "cannot read: \(errnoReason())")
        }
        identity = FileIdentity(status)
        isRegularFile = status.st_mode & S_IFMT == S_IFREG
    }

    /// The file's whole contents.
    func contents() throws -> [UInt8] {
        let descriptor = isStandardInput ? STDIN_FILENO : path.withCString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw CLIError.file(path, "cannot read: \(errnoReason())") }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIError.file(name, "cannot read: \(errnoReason())")
            }
            bytes += chunk[..<count]
        }
    }

    /// A reader of the trace in the file (a regular file or a named pipe), named as messages
    /// name the file.
    func traceReader() throws -> TraceReader {
        try TraceReader(path: path, name: name)
    }
}
