import ArgumentParser
import Foundation
import TraceLog

/// `marbles export TRACE -o out.json`: a trace for viewers people already use.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a trace to Chrome trace-event JSON for Perfetto or chrome://tracing.",
        discussion: """
        Writes Chrome trace-event JSON that https://ui.perfetto.dev and chrome://tracing open: \
        one track per thread of the trace, named uniquely (the thread's logical name, then \
        "· scheduler S" when a scheduler ran the work, then "· os TID" or "· thread ID" when \
        that name is already taken, as when the main thread runs outside and inside the main \
        scheduler); each event a zero-length slice named by node and \
        value (category: the operator's name; arguments: sequence number, causes, value); \
        causality that crosses threads as flow arrows; each subscription an async slice from \
        subscribe to dispose; each thread hop's queue wait a slice on the thread it hopped \
        to; marks as global instants. Timestamps are microseconds with three decimals.

        The export streams: a trace of any size is converted in bounded memory.

        \(OutputFile.helpParagraph)

        Exit status: 0 on success, 2 when the trace is missing or malformed, an option is \
        invalid, or the output cannot be written.

        Example:
          marbles export traces/twitter-instant.trace -o twitter-instant.json
        """
    )

    @Option(name: .long, help: "The format to write; perfetto is Chrome trace-event JSON, which Perfetto and chrome://tracing open.")
    var format: ExportFormat = .perfetto

    @Flag(name: .long, help: "The same as --format perfetto (the default), as earlier versions required.")
    var perfetto = false

    @Argument(help: "The trace file to export (JSON Lines or binary, see traces/FORMAT.md).")
    var trace: PathName

    @OptionGroup var output: OutputOption

    func run() throws {
        let input = try InputFile(trace)
        let file = try OutputFile(output.output, option: "-o", inputs: [input])
        let reader = try input.traceReader()
        let pending = try file.begin()
        let summary: PerfettoExport.Summary
        switch format {
        case .perfetto: summary = try PerfettoExport.export(reader) { try pending.write($0) }
        }
        Console.warn(reader.warnings)
        try Console.print("wrote \(output.output.shown): \(summary.traceEvents) trace events, \(summary.flows) flow arrows\n")
        try pending.commit()
    }
}
