import Foundation
import XCTest

/// A test running the built `marbles` executable as a child process, in a temporary folder of
/// its own (the child's current folder, removed afterwards).
class CommandLineTestCase: XCTestCase {
    /// The repository's top folder.
    let top = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    private(set) var directory: URL!

    /// What a run of `marbles` did.
    struct Run {
        var status: Int32
        var out: String
        var err: String
    }

    /// The user id of `nobody`, to run a child without root's right to write anywhere.
    static let nobody = "65534"

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
    }

    override func tearDownWithError() throws {
        // A test may leave a folder read-only; make it removable again.
        if let names = FileManager.default.enumerator(atPath: directory.path) {
            for case let name as String in names {
                _ = chmod(path(name), 0o755)
            }
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The `marbles` built next to this test bundle.
    var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("marbles")
    }

    /// Runs `marbles arguments` in the test's folder. `input` is a file for standard input,
    /// `output` a file standard output is written to instead of being captured, and
    /// `asNobody` runs the child as the user nobody (through `setpriv`; only root may).
    func marbles(_ arguments: [String], input: String? = nil, output: String? = nil,
                 asNobody: Bool = false) throws -> Run {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            XCTFail("no marbles executable at \(executable.path); build with `swift build --build-tests`")
            return Run(status: -1, out: "", err: "")
        }
        let process = try start(arguments, input: input, output: output, asNobody: asNobody)
        let out = process.standardOutput as? Pipe, err = process.standardError as? Pipe
        let outData = out?.fileHandleForReading.readDataToEndOfFile() ?? Data()
        let errData = err?.fileHandleForReading.readDataToEndOfFile() ?? Data()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self),
                   err: String(decoding: errData, as: UTF8.self))
    }

    /// Runs `marbles` with `arguments` given as bytes, in the test's folder: a file name that
    /// is not UTF-8 (`Process` passes arguments as text, which cannot hold one). Standard
    /// input is /dev/null; standard output and error go to files outside the test's folder.
    func marbles(bytes arguments: [[UInt8]]) throws -> Run {
        let captured = (1...2).map { _ in FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString)").path }
        defer { for file in captured { unlink(file) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, captured[0], O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, captured[1], O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Through env -C, which runs it in the test's folder (Swift does not import
        // posix_spawn_file_actions_addchdir_np).
        let program = ["/usr/bin/env", "-C", directory.path, executable.path].map { Array($0.utf8) }
        let argv: [UnsafeMutablePointer<CChar>?] = (program + arguments).map { bytes in
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
            pointer[bytes.count] = 0
            return pointer
        } + [nil]
        defer { for pointer in argv { pointer?.deallocate() } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        let read = { (file: String) in String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data(), as: UTF8.self) }
        return Run(status: signal == 0 ? (status >> 8) & 0xff : 128 + signal, out: read(captured[0]), err: read(captured[1]))
    }

    /// The names in the test's folder as the bytes the system holds, hidden ones included
    /// (`names()` decodes them as text, a byte that is not UTF-8 as U+FFFD).
    func byteNames() throws -> Set<[UInt8]> {
        guard let folder = opendir(directory.path) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { closedir(folder) }
        var names: Set<[UInt8]> = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix(while: { $0 != 0 })) }
            if name != Array(".".utf8) && name != Array("..".utf8) { names.insert(name) }
        }
        return names
    }

    /// The contents of the file named by the bytes `name` in the test's folder, or nil when
    /// there is none.
    func contents(ofByteName name: [UInt8]) -> [UInt8]? {
        let path = Array(directory.path.utf8) + Array("/".utf8) + name + [0]
        let descriptor = path.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY) }
        }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { return bytes }
            bytes += chunk[..<count]
        }
    }

    /// Copies the file named by the bytes `from` in the test's folder to the bytes `name`.
    func copy(byteName from: [UInt8], to name: [UInt8]) throws {
        let bytes = try XCTUnwrap(contents(ofByteName: from))
        let path = Array(directory.path.utf8) + Array("/".utf8) + name + [0]
        let descriptor = path.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        }
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        XCTAssertEqual(bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }, bytes.count)
    }

    /// Starts `marbles arguments` in the test's folder with standard output and error on
    /// pipes (or standard output to the file `output`).
    func start(_ arguments: [String], input: String? = nil, output: String? = nil,
               asNobody: Bool = false) throws -> Process {
        let process = Process()
        if asNobody {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.currentDirectoryURL = directory
        if let input { process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: path(input))) }
        if let output {
            process.standardOutput = try XCTUnwrap(FileHandle(forWritingAtPath: output))
        } else {
            process.standardOutput = Pipe()
        }
        process.standardError = Pipe()
        try process.run()
        return process
    }

    /// The absolute path of `name` in the test's folder.
    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Writes `text` to `name` in the test's folder.
    func write(_ text: String, to name: String) throws {
        try Data(text.utf8).write(to: directory.appendingPathComponent(name))
    }

    /// Copies the repository file `source` to `name` in the test's folder.
    func copy(_ source: String, to name: String) throws {
        try FileManager.default.copyItem(at: top.appendingPathComponent(source), to: directory.appendingPathComponent(name))
    }

    /// The bytes of `name` in the test's folder.
    func bytes(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// The names in the test's folder (or its subfolder `folder`), hidden ones included.
    func names(in folder: String = "") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path(folder)).sorted()
    }

    /// Whether `name` in the test's folder is a character device.
    func isCharacterDevice(_ name: String) -> Bool {
        var status = stat()
        return lstat(path(name), &status) == 0 && status.st_mode & S_IFMT == S_IFCHR
    }

    /// Makes a character device node `name` in the test's folder with the numbers of
    /// /dev/null (1, 3) or /dev/full (1, 7); skips the test where device nodes cannot be made.
    func makeDevice(_ name: String, minor: UInt32) throws {
        guard mknod(path(name), S_IFCHR | 0o666, Self.device(major: 1, minor: minor)) == 0 else {
            throw XCTSkip("cannot make a device node with mknod here (\(String(cString: strerror(errno)))); "
                + "run the suite as root to test device targets")
        }
    }

    /// A device number (`makedev`, a C macro Swift does not import) for numbers below 256.
    static func device(major: UInt32, minor: UInt32) -> dev_t {
        #if os(Linux)
        return dev_t(major << 8 | minor)
        #else
        return dev_t(major << 24 | minor)
        #endif
    }

    /// Skips the test unless a child can run without the right to write to a read-only
    /// folder: as a user other than root, or as root through `setpriv` as nobody.
    func requireReadOnlyFolders() throws -> Bool {
        guard geteuid() == 0 else { return false }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
              try marbles(["--help"], asNobody: true).status == 0 else {
            throw XCTSkip("running as root without setpriv (or nobody cannot run marbles): root writes into any folder, "
                + "so a read-only folder cannot be tested")
        }
        return true
    }
}
