import ArgumentParser
import Foundation
import Replay
import TraceLog
import Viewer

/// `marbles view TRACE [TRACE_B] -o run.html`: an interactive page of a trace, or of two.
struct ViewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Write one self-contained HTML page to explore a trace (or compare two) in a browser.",
        discussion: """
        The page opens from disk with no network and no server. It shows a lane per node in \
        pipeline order (inner streams under the operator that started them), each event \
        drawn with the marble figure's marks and coloured by its thread: a dot a value, '|' \
        completed, a red cross failed, a double bar interrupted, '^' subscribed.

        Zoom with the wheel or + and -, pan by dragging or with the arrow keys, 0 shows the \
        whole run; events closer than a few pixels are drawn as one with a count. Clicking \
        an event highlights its causes back to the sources and its effects down to the sinks \
        and shows it beside the lanes (value, JSON, thread, time, node, call site). The \
        search box finds lanes by label, name or node id and events by value, JSON, request \
        or thread. The panel also lists the chain of primary causes back to the source \
        with the time each stage took.

        Deep links: run.html#t=1.2s&span=500ms&node=9&q=magi&seq=42 (t centres that time, \
        span is the width shown, node scrolls to its lane, q searches, seq selects that \
        event of A, or of B with &trace=b).

        With two traces, the lane of each node of B follows the lane of the node of A it is \
        aligned with (as 'marbles diff' aligns them, by the pipelines' structure), \
        and the differences 'marbles diff' reports (with the same --time-tolerance and \
        --ignore-line-shifts) are listed; clicking one selects its event.

        The trace is embedded as columnar arrays with a table of texts; the same input gives \
        the same bytes.

        \(OutputFile.helpParagraph)

        Exit status: 0 on success, 2 when a trace is missing or malformed or the output \
        cannot be written.

        Examples:
          marbles view traces/twitter-instant.replay.trace -o twitter-instant.html
          marbles view traces/twitter-instant.trace traces/twitter-instant.replay.trace -o diff.html
        """
    )

    @Argument(help: "The trace to show (A when a second is given).")
    var a: PathName

    @Argument(help: "A second trace (B) to compare with A.")
    var b: PathName?

    @Option(name: .shortAndLong, help: ArgumentHelp("The HTML file to write.", valueName: "file"))
    var output: PathName

    @Option(name: .long, help: "The page's title (default: the trace's file name).", transform: textArgument)
    var title: String?

    @OptionGroup(title: "Comparing two traces")
    var comparison: ComparisonOptions

    func validate() throws {
        if b == nil, comparison.isSet {
            throw ValidationError("--time-tolerance and --ignore-line-shifts compare two traces; give a second trace")
        }
    }

    func run() throws {
        let inputs = try ([a] + (b.map { [$0] } ?? [])).map { try InputFile($0) }
        let target = try OutputFile(output, option: "-o", inputs: inputs)
        // The page shows no hops or marks, and one trace's page no ends of subscriptions (a
        // diff of two reads them).
        let unused: Trace.Parts = b == nil ? [.hops, .marks, .disposals] : [.hops, .marks]
        let traceA = try Trace(reader: inputs[0].traceReader(), leavingOut: unused)
        let traceB = try b.map { _ in try Trace(reader: inputs[1].traceReader(), leavingOut: unused) }
        Console.warn(traceA.warnings + (traceB?.warnings ?? []))
        // The per-node statistics shown on hover: `marbles stats`' own streaming pass.
        func stats(_ input: InputFile) throws -> TraceStats {
            try TraceStats.compute(input.traceReader())
        }
        var pages = [TracePage.Input(name: a.shown, trace: traceA, stats: try stats(inputs[0]))]
        var differences: [TracePage.Difference] = []
        var partners: [UInt64: UInt64]?
        if let b, let traceB {
            pages.append(TracePage.Input(name: b.shown, trace: traceB, stats: try stats(inputs[1])))
            let diff = TraceDiff(traceA, traceB, nameA: a.shown, nameB: b.shown, timeTolerance: comparison.timeTolerance,
                                 ignoringLineShifts: comparison.ignoreLineShifts)
            differences = diff.differences.map {
                TracePage.Difference(text: TraceDiff.line($0), eventA: $0.a?.seq, eventB: $0.b?.seq)
            }
            partners = Dictionary(diff.alignment.pairs.map { ($0.a, $0.b) }, uniquingKeysWith: { first, _ in first })
        }
        let name = a.lastComponent.shown + (b.map { " vs " + $0.lastComponent.shown } ?? "")
        let html = try TracePage.html(pages, differences: differences, partners: partners, title: title ?? name)
        try target.write(Array(html.utf8))
    }
}
