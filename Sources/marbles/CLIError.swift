import ArgumentParser
import TraceLog

/// Why a verb stopped: the message for standard error (nil when the verb already said
/// everything on standard output) and the exit status. Every verb stops this way; `main`
/// prints the message and exits with the status. Bad input, an unusable file and a failed
/// write exit 2, like a usage mistake; traces that disagree exit 1.
struct CLIError: Error, CustomStringConvertible {
    /// The whole message, without the final newline.
    let message: String?
    let status: Int32

    /// Exit status 2 with `message`.
    init(_ message: String) {
        self.message = message
        status = 2
    }

    private init(status: Int32) {
        message = nil
        self.status = status
    }

    /// A verb that ends with another program's exit status (`record -- PROGRAM`), having said
    /// what it has to say.
    static func exit(_ status: Int32) -> CLIError {
        CLIError(status: status)
    }

    /// `diff` and `demo`: the traces disagree (the report says how); exit status 1.
    static let disagreement = CLIError(status: 1)

    /// A verb that finished its work early, cleanly, because of `signal` (a recording
    /// stopped by Ctrl-C): `message`, and the status a shell gives a process the signal ended,
    /// 128 plus its number.
    static func stopped(by signal: Int32, _ message: String) -> CLIError {
        CLIError(message: message, status: 128 + signal)
    }

    private init(message: String, status: Int32) {
        self.message = message
        self.status = status
    }

    /// A problem with the file at `path`: `path: error: what`, on one line (a newline in a
    /// name, the path's or a folder's in `what`, shows as ⏎).
    static func file(_ path: String, _ what: String) -> CLIError {
        CLIError("\(path): error: \(what)".reportLine)
    }

    /// A problem with the file at `path`, named as given, a byte that is not UTF-8 as `\xFF`.
    static func file(_ path: PathName, _ what: String) -> CLIError {
        file(path.shown, what)
    }

    var description: String { message ?? "exit status \(status)" }
}

extension ParsableCommand {
    /// A problem with how the verb was asked to run: `marbles <verb>: error: what`.
    static func failure(_ what: String) -> CLIError {
        CLIError("marbles \(configuration.commandName ?? "marbles"): error: \(what)")
    }
}
