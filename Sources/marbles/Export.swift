import ArgumentParser
import Foundation
import TraceLog

/// `marbles export --perfetto TRACE -o out.json`: a trace for viewers people already use.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a trace to Chrome trace-event JSON for Perfetto or chrome://tracing.",
        discussion: """
        Writes Chrome trace-event JSON that https://ui.perfetto.dev and chrome://tracing open: \
        one track per thread of the trace; each event a zero-length slice named by node and \
        value (category: the operator's name; arguments: sequence number, causes, value); \
        causality that crosses threads as flow arrows; each subscription an async slice from \
        subscribe to dispose; each thread hop's queue wait a slice on the thread it hopped \
        to; marks as global instants. Timestamps are microseconds with three decimals.

        The export streams: a trace of any size is converted in bounded memory.

        Exit status: 0 on success, 2 when the trace is missing or malformed, no format was \
        chosen, or the output cannot be written.

        Example:
          marbles export --perfetto traces/twitter-instant.trace -o twitter-instant.json
        """
    )

    @Flag(name: .long, help: "Write Chrome trace-event JSON (the format Perfetto and chrome://tracing open).")
    var perfetto = false

    @Argument(help: "The trace file to export (JSON Lines, see traces/FORMAT.md).")
    var trace: String

    @Option(name: .shortAndLong, help: "The JSON file to write (created or replaced).")
    var output: String

    func run() throws {
        guard perfetto else {
            FileHandle.standardError.write(Data("marbles export: error: choose an output format: --perfetto (Chrome trace-event JSON)\n".utf8))
            throw ExitCode(2)
        }
        do {
            let reader = try TraceReader(url: URL(fileURLWithPath: trace))
            let summary = try PerfettoExport.export(reader, to: URL(fileURLWithPath: output))
            for warning in reader.warnings { FileHandle.standardError.write(Data("\(warning)\n".utf8)) }
            print("wrote \(output): \(summary.traceEvents) trace events, \(summary.flows) flow arrows")
        } catch let error as TraceError {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(2)
        } catch {
            FileHandle.standardError.write(Data("\(output): error: cannot write the export: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}
