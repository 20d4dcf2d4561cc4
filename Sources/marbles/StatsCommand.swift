import ArgumentParser
import Foundation
import TraceLog

/// `marbles stats TRACE`: timing analysis of a trace, streamed.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Summarise a trace's timing: events, stage latency, queue waits, drops, end-to-end latency.",
        discussion: """
        Reads the trace in one streaming pass (memory grows with its nodes, subscriptions and \
        threads, not with its events: any number of events) and prints, per node: \
        events by kind (values, failed, done = completed, intr = interrupted); stage latency \
        (time from each event's primary cause to the event) as p50 / p95 / p99 / max; and \
        values dropped (upstream values that caused none of the node's values: what filter, \
        throttle, debounce swallow; "-" where that is not meaningful). Sinks have a line too: \
        the events delivered to them. Then the queue wait of each thread hop per node and \
        scheduler; then, per retry operator, its starts, the attempts of its upstream they made \
        (per start and the most), and the starts that gave up; then end-to-end from each source to each sink: the latency of the values \
        the source triggered (from the root of their primary causes: "triggered" counts them), \
        and beside it the data age (from the newest event of the source among all causes of a \
        value, followed along every data path: "fed" counts the values). For a value sampled \
        by a timer or combined from several inputs the timer or newest input is the trigger, \
        while the data age says how old the data shown is (the reading a dashboard displays); \
        along a chain of single causes the two are equal. Last, the slowest stage (highest p95), leaving out operators that wait on purpose (debounce, throttle, audit, delay, timeout, sample).

        With --edges, a last section says what crossed each edge of the pipeline: the values, \
        failures and interruptions that went from each upstream node into each node that \
        observed it, the counts the pipeline figure (draw --kind pipeline) labels its edges \
        with, from the same index. "as" is the upstream's role (data, trigger, inner, ...; \
        "linked" for an inner stream into the operator that observed it, or a <~ binding into \
        its property); "counted" says whether the recorder's observation links counted the \
        edge exactly, or it was inferred from causes (a trace recorded before links were \
        written). --edges reads the whole trace into memory.

        With --json, each node has its kind ("sink" for sinks); each path has "source", \
        "sink", "latency" (absent when the source triggered no value of that sink) and \
        "dataAge" (absent when every value it fed had a cause outside the window), each with \
        count, p50, p95, p99 and max.

        Times are integer nanoseconds in the trace; the table prints them as ns, µs, ms or s.
        Percentiles are exact up to 4096 samples per node, then within 1%.

        Exit status: 0 on success, 2 when the trace is missing or malformed (the message \
        names file, line and column), an option is invalid, or standard output cannot be \
        written.

        Example:
          marbles stats traces/twitter-instant.trace
          marbles stats --json traces/twitter-instant.replay.trace > stats.json
          marbles stats --edges traces/sign-in.trace
        """
    )

    @Argument(help: "The trace file to analyse (JSON Lines or binary, see traces/FORMAT.md).")
    var trace: PathName

    @Flag(name: .long, help: "Print one JSON document (integer nanoseconds, fixed key order) instead of the table.")
    var json = false

    @Flag(name: .long, help: "Also say what crossed each edge of the pipeline (the counts the pipeline figure labels its edges with; reads the trace into memory).")
    var edges = false

    @Option(name: .long, help: ArgumentHelp(
        "How many recent events are kept to resolve causes (memory bound, about 56 bytes each, more for values combined from several sources: 16 to 4194304); older causes are counted as unresolved.",
        valueName: "events"))
    var window: Int = 1 << 18

    /// The largest window: about 224 MiB of kept events.
    static let windowLimit = 1 << 22

    func validate() throws {
        guard (16...Self.windowLimit).contains(window) else {
            throw ValidationError("--window must be between 16 and \(Self.windowLimit) events; found \(window)")
        }
    }

    func run() throws {
        let input = try InputFile(trace)
        var stats = try TraceStats.compute(input.traceReader(), window: window)
        if edges { stats.edges = try TraceEdges(Trace(reader: input.traceReader(), leavingOut: [.hops, .marks])).edges }
        Console.warn(stats.warnings)
        try json ? Console.printJSON(stats.json) : Console.print(stats.text)
    }
}
