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
        as if it were not there. Each node's events are aligned as sequences. The report \
        lists, first divergence in causal order first: nodes only in one trace; changed \
        nodes; per node, values that differ, events missing from B or extra in B, terminal \
        events that differ (completed, failed, interrupted), times shifted beyond the \
        tolerance, and threads that differ (by scheduler name, else thread name).

        A node only in one trace that truly ran inside a boundary call both traces have (the \
        fake service behind `call`, which a replay does not run) is listed under "not \
        compared" rather than counted as a difference.

        Times: with both traces virtual the default tolerance is 0, so any shift is a \
        difference. When either trace is real (a live recording against its replay), times \
        are compared but not judged unless --time-tolerance is given; the report says by how \
        much they differ.

        Both traces are read into memory.

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
    var a: String

    @Argument(help: "The actual trace (B), compared against A.")
    var b: String

    @Option(name: .long, help: ArgumentHelp(
        "Largest time shift that is not a difference: a number with ns, us, ms or s (bare numbers are ns).",
        valueName: "duration"))
    var timeTolerance: String?

    @Flag(name: .long, help: "A node whose code only moved to another line of its file is not a difference (as for golden traces).")
    var ignoreLineShifts = false

    @Flag(name: .long, help: "Print the report as one JSON document (sorted keys, integer nanoseconds).")
    var json = false

    @Option(name: .customLong("draw"), help: ArgumentHelp(
        "Also draw both traces as one marble diagram, each lane of A above the same lane of B, differences marked ≠; the extension picks the format: .svg, .png, .pdf or .txt.",
        valueName: "file"))
    var drawPath: String?

    func run() throws {
        var tolerance: Int64?
        if let timeTolerance {
            guard let parsed = TraceDiff.parseDuration(timeTolerance) else {
                throw fail("marbles diff: error: --time-tolerance: expected a duration such as 0, 500us, 2ms or 1.5s; found \"\(timeTolerance)\"")
            }
            tolerance = parsed
        }
        let format = drawPath.map { MarbleFormat(rawValue: URL(fileURLWithPath: $0).pathExtension.lowercased()) }
        if let drawPath, format == .some(nil) {
            throw fail("\(drawPath): error: --draw needs a file ending in .svg, .png, .pdf or .txt")
        }
        let traceA: Trace, traceB: Trace
        do {
            traceA = try Trace(contentsOf: URL(fileURLWithPath: a))
            traceB = try Trace(contentsOf: URL(fileURLWithPath: b))
        } catch {
            throw fail("\(error)")
        }
        for warning in traceA.warnings + traceB.warnings {
            FileHandle.standardError.write(Data("\(warning)\n".utf8))
        }
        let diff = TraceDiff(traceA, traceB, nameA: a, nameB: b, timeTolerance: tolerance,
                             ignoringLineShifts: ignoreLineShifts)
        if let drawPath, let format = format ?? nil {
            do {
                let data = try MarbleRenderer.render(DiffFigure.make(traceA, traceB, diff: diff), format: format)
                try data.write(to: URL(fileURLWithPath: drawPath))
            } catch {
                throw fail("\(drawPath): error: cannot draw the diff: \(error)")
            }
        }
        print(json ? diff.json : diff.text, terminator: "")
        if !diff.isSame { throw ExitCode(1) }
    }

    private func fail(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        return ExitCode(2)
    }
}
