import ArgumentParser
import Foundation
import TraceLog

/// `marbles stats TRACE`: timing analysis of a trace, streamed.
struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Summarise a trace's timing: events, stage latency, queue waits, drops, end-to-end latency.",
        discussion: """
        Reads the trace in one streaming pass (constant memory, any size) and prints, per node:
        events by kind (values, failed, done = completed, intr = interrupted); stage latency \
        (time from each event's primary cause to the event) as p50 / p95 / p99 / max; and \
        values dropped (upstream values that caused none of the node's values: what filter, \
        throttle, debounce swallow; "-" where that is not meaningful). Then the queue wait of \
        each thread hop per node and scheduler, the end-to-end latency from each source to \
        each sink along causality, and the slowest stage (highest p95).

        Times are integer nanoseconds in the trace; the table prints them as ns, µs, ms or s.
        Percentiles are exact up to 4096 samples per node, then within 1%.

        Exit status: 0 on success, 2 when the trace is missing or malformed (the message \
        names file, line and column).

        Example:
          marbles stats traces/twitter-instant.trace
          marbles stats --json traces/twitter-instant.replay.trace > stats.json
        """
    )

    @Argument(help: "The trace file to analyse (JSON Lines, see traces/FORMAT.md).")
    var trace: String

    @Flag(name: .long, help: "Print one JSON document (integer nanoseconds, fixed key order) instead of the table.")
    var json = false

    @Option(name: .long, help: "How many recent events are kept to resolve causes (memory bound); older causes are counted as unresolved.")
    var window: Int = 1 << 18

    func run() throws {
        do {
            let reader = try TraceReader(url: URL(fileURLWithPath: trace))
            let stats = try TraceStats.compute(reader, window: window)
            for warning in stats.warnings { FileHandle.standardError.write(Data("\(warning)\n".utf8)) }
            print(json ? stats.json : stats.text, terminator: "")
        } catch let error as TraceError {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}
