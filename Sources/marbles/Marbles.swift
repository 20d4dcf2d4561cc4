import ArgumentParser
import Foundation
import Replay
import Signals
import Spec
import TraceLog

@main
struct Marbles: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "marbles",
        abstract: "Record, replay and draw reactive event streams.",
        discussion: """
        Every verb exits 0 on success and 2 on bad input (a usage mistake too) or an output \
        (a file, standard output) that cannot be written; `diff` and `demo` exit 1 when \
        traces disagree. No verb replaces one of its inputs, a device or a file it did not \
        finish (see each verb's help). Text printed from traces and specs shows control and \
        bidi characters as escapes (\\u{1B}). A file name is used byte for byte as given, one \
        that is not UTF-8 too, and messages show such a byte as \\xFF; text that is not a file \
        name (a title, node names) must be UTF-8.
        """,
        subcommands: [StatsCommand.self, ExportCommand.self, PlayCommand.self, RecordCommand.self, DrawCommand.self,
                      DiffCommand.self, DemoCommand.self, ReplayCommand.self, ViewCommand.self,
                      ConvertCommand.self]
    )

    /// Parses and runs the verb: the one place where how a verb ended becomes a message and
    /// an exit status.
    static func main() {
        // A reader that went away (`marbles stats T | head -1`) makes a write to standard output
        // fail with EPIPE, which `Console` reports (exit 2, temporary files removed), instead of
        // SIGPIPE ending the process without a word and leaving them behind.
        signal(SIGPIPE, SIG_IGN)
        Interruption.install()
        do {
            var command = try parseAsRoot(arguments())
            try command.run()
        } catch {
            stop(error)
        }
    }

    /// The arguments after the program's name, each as `PathName.argumentText` of its bytes:
    /// a file name that is not UTF-8 (`$'\xff.json'`) reaches its verb as those bytes, which
    /// the verb uses as given, instead of as text with U+FFFD in their place (`CommandLine
    /// .arguments`), which names another file.
    private static func arguments() -> [String] {
        (1..<Int(CommandLine.argc)).map { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return "" }
            return PathName.argumentText(PathName(cString: argument).bytes)
        }
    }

    /// Reports how the verb ended and exits. Help is printed to standard output (exit 0); a
    /// disagreement of traces exits 1 with nothing more to say; everything else exits 2 after
    /// its message: a `CLIError` as it is, a located error from reading a trace or a spec or
    /// from a replay as it describes itself, and a usage mistake (a missing argument, an
    /// unknown option, a value out of range) with the usage, as the argument parser words it.
    private static func stop(_ error: Error) -> Never {
        switch error {
        case let error as CLIError:
            if let message = error.message { Console.error(message) }
            Foundation.exit(error.status)
        case is TraceError, is SpecError, is ReplayError:
            Console.error("\(error)")
        default:
            // The parser's message may quote an argument, a byte that is not UTF-8 shown as `\xFF`.
            let message = PathName.showingArgumentBytes(fullMessage(for: error))
            if exitCode(for: error) == .success {
                do {
                    try Console.print(message + "\n")
                } catch {
                    stop(error)
                }
                Foundation.exit(0)
            }
            if !message.isEmpty { Console.error(message) }
        }
        Foundation.exit(2)
    }
}
