import ArgumentParser
import Foundation
import Replay
import TraceLog
import Tutorials
import Demo

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

        \(OutputFile.helpParagraph)

        A call that carries a request (a search text, a photo id) is served the response \
        recorded for an equal request, never another request's. A request the trace never \
        recorded (the pipeline changed since the recording) stops the replay with an error \
        naming the call, the request and the nearest recorded requests; with \
        --unrecorded-requests empty such a call completes at once without a value instead, \
        and each one is listed as a warning.

        Exit status: 0 on success; 2 when the trace is missing or malformed, the scenario is \
        unknown, the trace does not fit the scenario (an input or call it lacks, more calls \
        than recorded, a request never recorded, a value that does not decode: the message \
        names the node and the record), or the output cannot be written.

        Example:
          marbles record --scenario twitter-instant -o live.trace
          marbles replay live.trace --scenario twitter-instant -o replay.trace
          marbles diff live.trace replay.trace
        """
    )

    @Argument(help: "The recorded trace to replay (JSON Lines or binary, see traces/FORMAT.md).")
    var trace: PathName

    @Option(name: .customLong("scenario"), help: ArgumentHelp("The tutorial scenario whose pipeline runs.", valueName: "name"))
    var scenarioChoice: ReplayScenarioChoice

    @OptionGroup var output: OutputOption

    @Option(name: .long, help: ArgumentHelp(
        "How long each hop onto a scheduler waits: recorded (the queue wait the trace recorded for the same node's same hop, the default for a real-time recording) or zero (at once, the default for a virtual-time one).",
        valueName: "zero|recorded"))
    var hopLatency: HopLatencyChoice?

    @Option(name: .long, help: ArgumentHelp(
        "What a call whose request the trace never recorded does: error (stop, the default) or empty (complete without a value, with a warning).",
        valueName: "error|empty"))
    var unrecordedRequests: UnrecordedRequestsChoice = .error

    func validate() throws {
        // The async search's replay serves its calls by request and has no hops to delay.
        if case .asyncSearch = scenarioChoice, hopLatency != nil || unrecordedRequests != .error {
            throw ValidationError("--hop-latency and --unrecorded-requests apply to the Signals scenarios, "
                                  + "not to \(AsyncSearchScenario.name)")
        }
    }

    func run() throws {
        let input = try InputFile(trace)
        let file = try OutputFile(output.output, option: "-o", inputs: [input])
        guard case let .signals(scenario) = scenarioChoice else { return try replayAsyncSearch(input, into: file) }
        let replayer = try Replayer(path: input.path, name: input.name,
                                    hopLatency: hopLatency.map { $0 == .recorded ? .asRecorded : .zero },
                                    unrecordedRequests: unrecordedRequests == .empty ? .empty : .error)
        Console.warn(replayer.trace.warnings)
        let result = try replayer.replay { scenario.build(in: $0) }
        // Each call let through empty, as a warning rather than the error it would be.
        Console.warn(result.unrecordedCalls.map { call in
            "\(call.trace): warning: \(call.node): \(call.message); it completed without a value (--unrecorded-requests empty)"
        })
        Console.warn(result.notes.map { "\(input.name): note: \($0)" })
        try write(result.bytes, of: scenario.name, summary: result.trace.summary, from: input, to: file)
    }

    /// Writes the replay's `bytes` to `file` and says what was replayed.
    private func write(_ bytes: [UInt8], of name: String, summary: SummaryRecord?, from input: InputFile,
                       to file: OutputFile) throws {
        let pending = try file.begin()
        try pending.write(bytes)
        try Console.print("replayed \(name) from \(input.name): \(summary?.events ?? 0) events, \(summary?.nodes ?? 0) nodes "
            + "in \(TraceDiff.duration(summary?.duration ?? 0)) of virtual time → \(output.output.shown)\n")
        try pending.commit()
    }

    /// The async search (`AsyncSearchScenario`), written with AsyncSequence: replayed under a
    /// virtual-time driver from the recording's inputs and answers.
    private func replayAsyncSearch(_ input: InputFile, into file: OutputFile) throws {
        let recording = try input.contents()
        Console.warn(try Trace(bytes: recording, name: input.name).warnings)
        let bytes: [UInt8]
        do {
            bytes = try AsyncSearchScenario.replay(recording)
        } catch var error as ReplayError {
            // Named after the file given, as the Signals replay's errors are.
            error.trace = input.name
            throw error
        }
        try write(bytes, of: AsyncSearchScenario.name, summary: try Trace(bytes: bytes, name: output.output.shown).summary,
                  from: input, to: file)
    }
}

/// A scenario `marbles replay` re-runs: a `Signals` tutorial, or the async search.
enum ReplayScenarioChoice: ExpressibleByArgument {
    case signals(Scenario)
    case asyncSearch

    init?(argument: String) {
        if argument == AsyncSearchScenario.name {
            self = .asyncSearch
        } else if let scenario = Scenarios.named(argument) {
            self = .signals(scenario)
        } else {
            return nil
        }
    }

    static var allValueStrings: [String] { Scenarios.names + [AsyncSearchScenario.name] }
}
