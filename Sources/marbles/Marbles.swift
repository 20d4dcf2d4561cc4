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
        bidi characters as escapes (\\u{1B}).
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
            try requireUTF8Arguments()
            var command = try parseAsRoot()
            try command.run()
        } catch {
            stop(error)
        }
    }

    /// Refuses an argument that is not UTF-8, a file name with a byte such as 0xFF: Swift
    /// reads arguments as text and would replace the byte with U+FFFD, naming another file —
    /// one that a verb would then read or replace. The byte is shown as `\xFF`.
    private static func requireUTF8Arguments() throws {
        for index in 1..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[index] else { continue }
            let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(argument).assumingMemoryBound(to: UInt8.self),
                                                  count: strlen(argument)))
            guard let shown = PathName.escapingInvalidUTF8(bytes) else { continue }
            throw CLIError("marbles: error: argument \(index) (\(shown)) is not UTF-8 text; marbles reads file names "
                + "as UTF-8 and would name another file. Rename the file, or give a link to it with a UTF-8 name; "
                + "nothing was read or written")
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
            let message = fullMessage(for: error)
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
