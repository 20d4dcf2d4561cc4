import ArgumentParser
import Foundation
import Replay
import TraceLog
import Tutorials

/// `marbles replay IN.trace --scenario NAME -o OUT.trace`: re-run a tutorial scenario from a
/// recorded trace in virtual time.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Re-run a tutorial scenario from a recorded trace, deterministically, in virtual time.",
        discussion: """
        Builds the scenario's pipeline against a replay environment: its inputs re-emit the \
        values the trace recorded (decoded from the trace's JSON) at the recorded times; each \
        call (a fake network request) returns its recorded result after its recorded \
        latency without running the service; every scheduler is a virtual-time lane with the \
        recorded thread's name, so hops still show. Operators run anew. The result is a new \
        trace marked as produced in virtual time; replaying the same trace always writes the \
        same bytes. Compare it with the recording with `marbles diff`.

        Scenarios: \(Scenarios.names.joined(separator: ", ")).

        Exit status: 0 on success; 2 when the trace is missing or malformed, the scenario is \
        unknown, the trace does not fit the scenario (an input or call it lacks, more calls \
        than recorded, a value that does not decode: the message names the node and the \
        record), or the output cannot be written.

        Example:
          marbles record --scenario twitter-instant -o live.trace
          marbles replay live.trace --scenario twitter-instant -o replay.trace
          marbles diff live.trace replay.trace
        """
    )

    @Argument(help: "The recorded trace to replay (JSON Lines, see traces/FORMAT.md).")
    var trace: String

    @Option(name: .long, help: "The scenario whose pipeline the trace was recorded from: \(Scenarios.names.joined(separator: ", ")).")
    var scenario: String

    @Option(name: [.short, .customLong("output")], help: "The trace file to write (created or replaced).")
    var output: String

    @Option(name: .long, help: ArgumentHelp(
        "How long each hop onto a scheduler waits: zero (at once, the default) or recorded (the queue wait the trace recorded for the same node's same hop).",
        valueName: "zero|recorded"))
    var hopLatency: String = "zero"

    func run() throws {
        guard let scenario = Scenarios.named(self.scenario) else {
            throw fail("marbles replay: error: unknown scenario \"\(self.scenario)\"; expected one of \(Scenarios.names.joined(separator: ", "))")
        }
        let latency: ReplayEnvironment.HopLatency
        switch hopLatency {
        case "zero": latency = .zero
        case "recorded": latency = .asRecorded
        default: throw fail("marbles replay: error: --hop-latency: expected zero or recorded; found \"\(hopLatency)\"")
        }
        let result: ReplayResult
        do {
            let replayer = try Replayer(contentsOf: URL(fileURLWithPath: trace), hopLatency: latency)
            for warning in replayer.trace.warnings { FileHandle.standardError.write(Data("\(warning)\n".utf8)) }
            result = try replayer.replay { scenario.build(in: $0) }
        } catch {
            throw fail("\(error)")
        }
        do {
            try Data(result.bytes).write(to: URL(fileURLWithPath: output))
        } catch {
            throw fail("\(output): error: cannot write the trace: \(error.localizedDescription)")
        }
        let summary = result.trace.summary
        print("replayed \(self.scenario) from \(trace): \(summary?.events ?? 0) events, \(summary?.nodes ?? 0) nodes "
              + "in \(TraceDiff.duration(summary?.duration ?? 0)) of virtual time → \(output)")
    }

    private func fail(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        return ExitCode(2)
    }
}
