import ArgumentParser
import Diagrams
import Foundation
import Replay
import TraceLog

/// `marbles diff A.trace B.trace`: how two traces differ.
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two traces node by node and event by event.",
        discussion: """
        Nodes are aligned by the pipelines' structure, never by numeric id: sources by kind \
        and label, then each node by operator name, label and edge role under its aligned \
        upstream nodes. Parameters and call site are attributes: an aligned node whose \
        parameters or call site differ is reported once as "node changed", and its events \
        and everything downstream are still compared. A node inserted or removed (a new \
        map, a dropped filter) is "only in A" or "only in B", and the nodes below it align \
        as if it were not there. Each node's events are aligned as sequences. The \
        differences are nodes only in one trace; changed nodes; per node, values that \
        differ, events missing from B or extra in B, terminal events that differ \
        (completed, failed, interrupted), times shifted beyond the tolerance, and threads \
        that differ (by scheduler name, else thread name).

        The report leads with root causes: each changed node, and each other difference \
        that nothing upstream of it explains (a node or call in one trace only, a race, a \
        changed input). Under each root cause come the differences downstream of it, the \
        first \(TraceDiff.listedConsequences) listed and the rest counted per node (--all \
        lists them all; --json gives each its "consequenceOf"). The first line after the \
        headers names the first root cause, the next the first divergence in causal order.

        A live trace's threads race. A replay runs each cascade (what one delivered event \
        set off on its thread) whole, so where a root cause or the first divergence ran \
        while another thread was delivering a cascade of its own, the report adds "a race: \
        on X while Y was delivering the cascade that began at NODE" ("race" in --json). It \
        is still a difference.

        A node only in one trace that truly ran inside a boundary call both traces have (the \
        fake service behind `call`, which a replay does not run) is listed under "not \
        compared" rather than counted as a difference.

        Times: with both traces virtual the default tolerance is 0, so any shift is a \
        difference. When either trace is real (a live recording against its replay), times \
        are compared but not judged unless --time-tolerance is given; the report says by how \
        much they differ.

        Without --draw, the traces are read as streams and compared one pair of aligned \
        nodes at a time, a big trace's events kept in a temporary file (32 bytes each): \
        2 M events take under 100 MB. With --draw, both traces are read into memory for \
        the figure.

        \(OutputFile.helpParagraph)

        Exit status: 0 the traces are the same, 1 they differ, 2 a trace is missing or \
        malformed or an option is invalid.

        Examples:
          marbles diff traces/twitter-instant.trace traces/twitter-instant.replay.trace
          marbles diff --time-tolerance 2ms traces/twitter-instant.trace traces/twitter-instant.replay.trace
          marbles diff --json traces/twitter-instant.trace traces/twitter-instant.replay.trace > diff.json
          marbles diff traces/twitter-instant.trace traces/twitter-instant.replay.trace --draw diff.svg
        """
    )

    @Argument(help: "The expected trace (A).")
    var a: PathName

    @Argument(help: "The actual trace (B), compared against A.")
    var b: PathName

    @OptionGroup(title: "Comparing two traces")
    var comparison: ComparisonOptions

    @Flag(name: .long, help: "Print the report as one JSON document (sorted keys, integer nanoseconds).")
    var json = false

    @Flag(name: .long, help: "List every difference a root cause explains, not only the first \(TraceDiff.listedConsequences) (the rest are counted per node).")
    var all = false

    @Option(name: .customLong("draw"), help: ArgumentHelp(
        "Also draw both traces as one marble diagram, each lane of A above the same lane of B, differences marked ≠; the extension picks the format: .svg, .png, .pdf or .txt.",
        valueName: "file"))
    var drawPath: PathName?

    @Flag(name: .customLong("no-cuts"), help: "With --draw: draw time linearly, every wait at its true length, without cutting out long idle gaps.")
    var noCuts = false

    func validate() throws {
        if let drawPath, MarbleDrawing.format(of: drawPath) == nil {
            throw ValidationError("\(MarbleDrawing.expected); found \(drawPath)")
        }
        if noCuts && drawPath == nil { throw ValidationError("--no-cuts goes with --draw FILE") }
    }

    func run() throws {
        let inputA = try InputFile(a), inputB = try InputFile(b)
        let diff: TraceDiff
        var pending: PendingOutput?
        if let drawPath {
            // The figure draws both whole traces: they are read into memory, without the hops
            // and marks neither the diff nor the figure uses.
            let drawing = try MarbleDrawing(drawPath, inputs: [inputA, inputB], cuts: !noCuts)
            let traceA = try Trace(reader: inputA.traceReader(), leavingOut: [.hops, .marks])
            let traceB = try Trace(reader: inputB.traceReader(), leavingOut: [.hops, .marks])
            Console.warn(traceA.warnings + traceB.warnings)
            diff = TraceDiff(traceA, traceB, nameA: a.shown, nameB: b.shown, timeTolerance: comparison.timeTolerance,
                             ignoringLineShifts: comparison.ignoreLineShifts)
            pending = try drawing.begin { try DiffFigure.make(traceA, traceB, diff: diff) }
        } else {
            diff = try TraceDiff(path: a, b, fileNames: (inputA.name, inputB.name), nameA: a.shown, nameB: b.shown, timeTolerance: comparison.timeTolerance,
                                 ignoringLineShifts: comparison.ignoreLineShifts)
            Console.warn(diff.warnings)
        }
        try json ? Console.printJSON(diff.json) : Console.print(diff.text(listingAll: all))
        try pending?.commit()
        if !diff.isSame { throw CLIError.disagreement }
    }
}
