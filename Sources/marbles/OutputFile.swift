import Foundation
import Locks
import TraceLog
import Recording

/// A file a verb writes: `-o`, `--draw`, `--trace`, and the demo's recordings and figures.
/// Every verb writes its files through this one path, so none can destroy a file:
///
/// - made before the verb reads or runs anything, it refuses (exit 2) a target that is one
///   of the verb's inputs — the same device and inode, so also through `./`, a symbolic link
///   or a hard link — a directory, a socket, a block device, a symbolic link to nothing, and
///   a folder that is missing or that the user may not write;
/// - a regular target, or none yet, is written to a temporary file in the same folder
///   (`.NAME.marbles-XXXXXXXX`) that is renamed over it only once complete and synced: a run
///   that fails, on bad input or a full disk, leaves an existing target as it was;
/// - a character device or a named pipe (`/dev/null`, `/dev/stdout`, a FIFO) is written in
///   place, never replaced;
/// - `-` is standard output, written in place; the verb's own lines then go to standard error;
/// - a live recording to a target that does not exist yet is written there directly
///   (`beginRecording()`), so a killed process leaves its partial trace under the name asked
///   for.
struct OutputFile {
    /// The path as given, its bytes used as they are (a name that is not UTF-8 too).
    let path: PathName
    /// How the verb names it in messages: `-o`, `--draw`, `--trace`.
    let option: String
    private let mode: Mode
    /// The absolute path written once symbolic links are resolved, and the existing file's
    /// device and inode, to tell two outputs apart.
    private let canonical: PathName
    private let identity: FileIdentity?

    private enum Mode {
        /// Replace (or create) the regular file at `resolved`, the path with symbolic links
        /// followed; `existing` is its status when there is one, to keep its mode and owner.
        case replace(resolved: PathName, existing: stat?)
        /// Write into the device or pipe.
        case inPlace
        /// Write to standard output (`-`), which then is the verb's output: its other text
        /// goes to standard error.
        case standardOutput
    }

    /// The paragraph every verb that writes files shows in its help.
    static let helpParagraph = """
        Output files are written to a temporary file beside the target and renamed over it \
        only once complete, so a run that fails leaves an existing file as it was (an \
        interrupted run removes its temporary file .NAME.marbles-XXXXXXXX; kill -9 leaves \
        it). A character \
        device or named pipe (/dev/null, /dev/stdout) is written in place. An output that \
        is one of the inputs (also through ./, a symbolic link or a hard link), a \
        directory, a socket or a block device is refused before anything runs, and so is a \
        file another run is writing (a record still running: its file is locked).
        """

    /// Checks `path` as the target of `option` for a verb reading `inputs`; throws the reason
    /// it cannot be written.
    init(_ path: PathName, option: String, inputs: [InputFile] = []) throws {
        self.path = path
        self.option = option
        if path.is("-") {
            mode = .standardOutput
            canonical = PathName("<stdout>")
            identity = nil
            Console.outputTaken()
            return
        }
        guard !path.isEmpty, !path.endsInSlash else {
            throw CLIError.file(path, "cannot write: \(option) needs a file name, not \(path.isEmpty ? "an empty one" : "a folder")")
        }
        var status = stat()
        if path.withCString({ stat($0, &status) }) != 0 {
            guard errno == ENOENT else { throw CLIError.file(path, "cannot write: \(errnoReason())") }
            var link = stat()
            if path.withCString({ lstat($0, &link) }) == 0 {
                throw CLIError.file(path, "cannot write: it is a symbolic link to a file that does not exist")
            }
            let folder = path.folder
            try Self.checkFolder(folder, for: path)
            mode = .replace(resolved: path, existing: nil)
            identity = nil
            canonical = (Self.realPath(folder) ?? folder).appending(path.lastComponent)
            return
        }
        let identity = FileIdentity(status)
        self.identity = identity
        if let input = inputs.first(where: { $0.identity == identity }) {
            throw CLIError.file(path, "\(option) is the same file as the input \(input.name); "
                + "nothing was written")
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            guard let target = Self.realPath(path) else { throw CLIError.file(path, "cannot write: \(errnoReason())") }
            try Self.checkFolder(target.folder, for: path)
            // Replacing goes through a rename, which only the folder's permission governs: a
            // file its owner made read-only, or one the user may not write, is refused here,
            // as cp refuses to write it (root too, who may write anything, when the file has
            // no write bit at all: that says "keep this").
            let writeBits = mode_t(S_IWUSR) | mode_t(S_IWGRP) | mode_t(S_IWOTH)
            if status.st_mode & writeBits == 0 || path.withCString({ access($0, W_OK) }) != 0 {
                let mode = String(format: "%04o", status.st_mode & 0o7777)
                let why = status.st_mode & writeBits == 0 ? "the file is read-only (mode \(mode))"
                    : "you may not write the file (mode \(mode))"
                throw CLIError.file(path, "cannot write: \(why); make it writable (chmod u+w) to replace it; nothing was written")
            }
            mode = .replace(resolved: target, existing: status)
            canonical = target
        case S_IFCHR, S_IFIFO:
            guard path.withCString({ access($0, W_OK) }) == 0 else { throw CLIError.file(path, "cannot write: \(errnoReason())") }
            mode = .inPlace
            canonical = Self.realPath(path) ?? path
        default:
            throw CLIError.file(path, "cannot write: it is \(kindName(status)); \(option) needs a file "
                + "(or a character device or named pipe, written in place)")
        }
    }

    /// Refuses two outputs of one run that name the same regular file: the second would
    /// replace the first.
    static func requireDistinct(_ outputs: [OutputFile?]) throws {
        let files = outputs.compactMap { $0 }.filter {
            switch $0.mode {
            case .replace, .standardOutput: return true
            case .inPlace: return false
            }
        }
        for (index, file) in files.enumerated() {
            let same = files[..<index].first { earlier in
                earlier.canonical == file.canonical || (earlier.identity != nil && earlier.identity == file.identity)
            }
            if let earlier = same {
                throw CLIError.file(file.path, "\(earlier.option) and \(file.option) name the same file; nothing was written")
            }
        }
    }

    /// Writes `bytes` as the whole file.
    func write(_ bytes: [UInt8]) throws {
        let pending = try begin()
        try pending.write(bytes)
        try pending.commit()
    }

    /// Starts writing: makes the temporary file (or, in place, prepares to open the target).
    /// Nothing reaches the target until `commit()`; a pending output dropped before then
    /// removes its temporary file.
    func begin() throws -> PendingOutput {
        switch mode {
        case .inPlace:
            return PendingOutput(name: path.shown, writing: path, descriptor: nil, ending: .inPlace)
        case .standardOutput:
            let descriptor = dup(STDOUT_FILENO)
            guard descriptor >= 0 else { throw CLIError.file("<stdout>", "cannot write: \(errnoReason())") }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            return PendingOutput(name: "<stdout>", writing: PathName("/dev/stdout"), descriptor: descriptor, ending: .inPlace)
        case let .replace(resolved, existing):
            // An existing target is locked while this run writes its replacement: another run
            // writing it (a `record` still running) holds the lock, and this one is refused
            // rather than one of the two traces being lost without a word.
            let lock = try existing.map { _ in try Self.lockExisting(resolved, for: path) }
            switch ReplacementFile.make(beside: resolved, keeping: existing) {
            case let .failure(error):
                if let lock { close(lock) }
                throw CLIError.file(path, "cannot write: cannot create a file in the folder "
                                    + "\(resolved.folder.shown): \(error.reason)")
            case let .success((temporary, descriptor)):
                Interruption.register(temporary)
                let pending = PendingOutput(name: path.shown, writing: temporary, descriptor: descriptor,
                                            ending: .rename(over: resolved, existed: existing != nil))
                pending.lockDescriptor = lock
                return pending
            }
        }
    }

    /// Opens the existing target at `resolved` and takes an exclusive lock on it without
    /// waiting; the descriptor holds the lock until closed. Throws when another process holds
    /// it (a run writing the same file).
    static func lockExisting(_ resolved: PathName, for path: PathName) throws -> Int32 {
        let descriptor = resolved.withCString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw CLIError.file(path, "cannot write: \(errnoReason())") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = busy ? "another run is writing this file now (a marbles record still running?)" : errnoReason()
            close(descriptor)
            throw CLIError.file(path, "cannot write: \(reason); nothing was written")
        }
        return descriptor
    }

    /// Starts writing a live recording, which a killed process should leave readable where
    /// it was asked for: an absent target is created (exclusively) and written directly —
    /// there was nothing to destroy — and removed again if the run fails; an existing target
    /// is replaced through a temporary file, as `begin()` does.
    func beginRecording() throws -> PendingOutput {
        guard case .replace(let resolved, existing: nil) = mode else { return try begin() }
        let descriptor = resolved.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666) }
        guard descriptor >= 0 else { throw CLIError.file(path, "cannot write: \(errnoReason())") }
        // Locked while recorded into (the recorder's copy of the descriptor shares the lock), so
        // a second run to the same name is refused instead of replacing it mid-recording.
        _ = flock(descriptor, LOCK_EX | LOCK_NB)
        return PendingOutput(name: path.shown, writing: resolved, descriptor: descriptor, ending: .created)
    }


    /// Checks that files can be made in `folder`.
    private static func checkFolder(_ folder: PathName, for path: PathName) throws {
        var status = stat()
        guard folder.withCString({ stat($0, &status) }) == 0 else {
            let reason = errno == ENOENT ? "the folder \(folder) does not exist" : "\(folder): \(errnoReason())"
            throw CLIError.file(path, "cannot write: \(reason)")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw CLIError.file(path, "cannot write: \(folder) is \(kindName(status)), not a folder")
        }
        guard folder.withCString({ access($0, W_OK | X_OK) }) == 0 else {
            throw CLIError.file(path, "cannot write: cannot create a file in the folder \(folder): \(errnoReason())")
        }
    }

    /// `path` with symbolic links resolved and made absolute (`realpath`), or nil with `errno`
    /// set.
    static func realPath(_ path: PathName) -> PathName? {
        guard let resolved = path.withCString({ realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        return PathName(cString: resolved)
    }
}

/// An output being written: to a temporary file renamed over the target by `commit()`, to a
/// file it created, or to a device or pipe in place. Dropped without a commit, it removes the
/// file it made.
final class PendingOutput {
    /// How the output ends.
    enum Ending {
        /// A temporary file, renamed over `over` on commit; `existed` says whether there was
        /// a file to keep.
        case rename(over: PathName, existed: Bool)
        /// A new file at the target, kept on commit and removed otherwise.
        case created
        /// A device or pipe, written in place.
        case inPlace
    }

    /// The target as messages name it: its path as given, shown (or `<stdout>`).
    private let name: String
    /// The file written: the temporary file, the created file, or the device or pipe.
    let writingPath: PathName
    private var descriptor: Int32?
    private let ending: Ending
    private var finished = false
    /// A descriptor holding the lock on the file being replaced, closed when done.
    fileprivate var lockDescriptor: Int32?

    fileprivate init(name: String, writing: PathName, descriptor: Int32?, ending: Ending) {
        self.name = name
        writingPath = writing
        self.descriptor = descriptor
        self.ending = ending
    }

    /// A live recorder writing this output, on `clock`. A file this output made (a temporary
    /// file or a created target) is handed to the recorder open — a copy of its descriptor —
    /// rather than opened again by path, which could make the file anew after an interruption
    /// removed it; a device or pipe is opened by the recorder, by its path's bytes.
    func recorder(clock: Recorder.Clock = .real) throws -> Recorder {
        // What the recorder's messages name: the file as given (the command line's own
        // messages name it so, `failure(_:)`).
        let url = URL(fileURLWithPath: writingPath.shown)
        guard let descriptor else {
            do {
                return try Recorder(to: writingPath, url: url, clock: clock)
            } catch let error as TraceError {
                throw failure(error.message)
            }
        }
        let copy = dup(descriptor)
        guard copy >= 0 else { throw failure(errnoReason()) }
        _ = fcntl(copy, F_SETFD, FD_CLOEXEC)
        return Recorder(writingTo: copy, url: url, clock: clock)
    }

    deinit {
        if let lockDescriptor { close(lockDescriptor) }
        if case .rename = ending { Interruption.unregister(writingPath) }
        guard !finished else { return }
        if let descriptor { close(descriptor) }
        if case .inPlace = ending { return }
        _ = writingPath.withCString(unlink)
    }

    /// Appends `bytes`.
    func write(_ bytes: [UInt8]) throws {
        if descriptor == nil {
            let opened = writingPath.withCString { open($0, O_WRONLY | O_NOCTTY | O_CLOEXEC) }
            guard opened >= 0 else { throw failure(errnoReason()) }
            descriptor = opened
        }
        guard let descriptor else { return }
        do {
            try Console.writeAll(bytes, to: descriptor)
        } catch let error as Console.WriteError {
            throw failure(error.reason)
        }
    }

    /// Finishes the file: syncs it and renames a temporary file over the target, or closes
    /// the device or pipe.
    func commit() throws {
        guard let descriptor else {
            // In place, written by a writer that opened it itself.
            finished = true
            return
        }
        if case .inPlace = ending {
            finished = true
            guard close(descriptor) == 0 else { throw failure(errnoReason()) }
            return
        }
        guard fsync(descriptor) == 0 else { throw failure(errnoReason()) }
        if case let .rename(target, _) = ending,
           writingPath.withCString({ temporary in target.withCString { rename(temporary, $0) } }) != 0 {
            throw failure(errnoReason())
        }
        finished = true
        close(descriptor)
    }

    /// A failed write, for this output or a writer using `url`: the reason, and what became
    /// of the target.
    func failure(_ reason: String) -> CLIError {
        let outcome: String
        switch ending {
        case .rename(_, existed: true): outcome = "; the file was left as it was"
        case .rename(_, existed: false), .created: outcome = "; no file was made"
        case .inPlace: outcome = ""
        }
        return CLIError.file(name, "cannot write: \(reason)\(outcome)")
    }
}

/// The temporary files of outputs not yet renamed over their targets, removed when the
/// process is interrupted (SIGINT, SIGTERM, SIGHUP), so an interrupted run leaves no
/// `.NAME.marbles-XXXXXXXX` behind. (A `kill -9` cannot be caught: its temporary file stays,
/// and for a recording holds the partial trace.) A file the run created as its target
/// (`beginRecording()`) is not temporary and stays, readable up to its last flush.
enum Interruption {
    private static let pending = Protected<Set<PathName>>([])
    private static let sources = Protected<[DispatchSourceSignal]>([])
    /// The signal a verb that ends gracefully took instead of the default (`interceptOnce`),
    /// 0 while none came.
    private static let intercepted = Protected<Int32>(0)
    /// Whether the next signal is intercepted rather than handled by default.
    private static let intercepting = Protected(false)

    /// The next SIGINT, SIGTERM or SIGHUP does not end the process: it is noted (`interrupted`)
    /// for the verb to finish what it is doing cleanly (a recording stops and keeps a whole
    /// trace). A second one ends the process as usual.
    static func interceptOnce() {
        intercepting.modify { $0 = true }
    }

    /// The signal taken by `interceptOnce()`, or nil.
    static var interrupted: Int32? {
        let signal = intercepted.current
        return signal == 0 ? nil : signal
    }

    /// Removes `path` if the process is interrupted before `unregister(path)`.
    static func register(_ path: PathName) {
        pending.modify { _ = $0.insert(path) }
    }

    /// `path` was renamed or removed: an interruption leaves it alone.
    static func unregister(_ path: PathName) {
        pending.modify { _ = $0.remove(path) }
    }

    /// From now on, an interruption removes the pending temporary files, then ends the
    /// process as the signal would have. Call before any other thread starts: the signals
    /// are blocked for every thread and taken by a dispatch source instead.
    static func install() {
        let signals = [SIGINT, SIGTERM, SIGHUP]
        #if os(Linux)
        // libdispatch on Linux reads signals through signalfd, which sees only blocked ones.
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for signal in signals { sigaddset(&blocked, signal) }
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        #else
        for signal in signals { Foundation.signal(signal, SIG_IGN) }
        #endif
        for signal in signals {
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
            source.setEventHandler {
                let intercept = intercepting.modify { intercepting -> Bool in
                    defer { intercepting = false }
                    return intercepting
                }
                if intercept {
                    intercepted.modify { $0 = signal }
                    return
                }
                for path in pending.current { _ = path.withCString(unlink) }
                Foundation.signal(signal, SIG_DFL)
                #if os(Linux)
                var raised = sigset_t()
                sigemptyset(&raised)
                sigaddset(&raised, signal)
                pthread_sigmask(SIG_UNBLOCK, &raised, nil)
                #endif
                raise(signal)
            }
            source.resume()
            sources.modify { $0.append(source) }
        }
    }
}
