import Locks
import Foundation
import Signals
import TraceLog
import Recording

/// Re-runs a pipeline from a recorded trace in virtual time and records the run as a new,
/// virtual trace.
///
/// ```swift
/// let replayer = try Replayer(contentsOf: url)
/// let result = try replayer.replay { environment in buildSearch(in: environment) }
/// try Data(result.bytes).write(to: out)
/// ```
///
/// The pipeline is built against a `ReplayEnvironment`, so its inputs and calls re-emit what
/// the trace recorded and its schedulers are lanes of one `TestScheduler`. Pure operator work
/// runs anew. The clock is run to the end of the recording (its summary's duration, or its
/// last event), then the pipeline is disposed — recorded, as a live run's teardown is — and
/// the recording stops. Nothing depends on the
/// wall clock or on threads, so replaying the same trace gives byte-identical traces.
///
/// The replay's recording is scoped to the replaying thread and the replay's `TestScheduler`:
/// work other threads do meanwhile (a live pipeline winding down, another replay) stays out
/// of its trace, and out of any other recording's.
public struct Replayer: Sendable {
    /// The recorded trace.
    public var trace: Trace
    /// The trace's name in error messages (its path, as the URL was made from it).
    public var name: String

    /// How long thread hops wait: at once (the default) or as recorded.
    public var hopLatency: ReplayEnvironment.HopLatency

    /// What a call made with a request the trace never recorded does: a `ReplayError` (the
    /// default), a failure of the call, or an empty result.
    public var unrecordedRequests: ReplayEnvironment.UnrecordedRequests

    /// A replayer of `trace`; `name` stands for its file in errors.
    public init(trace: Trace, name: String = "<trace>", hopLatency: ReplayEnvironment.HopLatency = .zero,
                unrecordedRequests: ReplayEnvironment.UnrecordedRequests = .error) {
        self.trace = trace
        self.name = name
        self.hopLatency = hopLatency
        self.unrecordedRequests = unrecordedRequests
    }

    /// A replayer of the trace at `url`. Throws `TraceError` when it is missing or malformed.
    public init(contentsOf url: URL, hopLatency: ReplayEnvironment.HopLatency = .zero,
                unrecordedRequests: ReplayEnvironment.UnrecordedRequests = .error) throws {
        self.init(trace: try Trace(contentsOf: url), name: url.relativePath, hopLatency: hopLatency,
                  unrecordedRequests: unrecordedRequests)
    }

    /// The virtual time the replay runs to: the recording's end (its summary's duration, or
    /// its latest event when it was cut off).
    public var end: Int64 {
        max(trace.summary?.duration ?? 0, trace.events.latestTime ?? 0)
    }

    /// Replays the trace through the pipeline `build` makes (returning what tears it down).
    /// Throws the first `ReplayError` when the trace does not fit the pipeline.
    public func replay(_ build: (Environment) -> Disposable) throws -> ReplayResult {
        let scheduler = TestScheduler(name: "replay")
        let environment = ReplayEnvironment(trace: trace, scheduler: scheduler, name: name, hopLatency: hopLatency,
                                            unrecordedRequests: unrecordedRequests)
        let recorder = Recorder(clock: .virtual(scheduler))
        recorder.reserveEvents(trace.events.count)
        recorder.start()
        let noting = environment.hopWaits.map { HopNotingProbe(recorder: recorder, waits: $0) }
        if let noting {
            // The noting probe forwards to the recorder: the recorder hears it through it only.
            Instrumentation.detach(recorder)
            Instrumentation.attach(noting)
        }
        let pipeline = build(environment)
        scheduler.advance(toNanoseconds: end)
        pipeline.dispose()
        if let noting { Instrumentation.detach(noting) }
        // An in-memory recorder has no file to fail writing; stop() cannot throw here.
        _ = try? recorder.stop()
        if let error = environment.errors.first { throw error }
        // The trace straight from the recorder's records; its bytes are formatted when asked for.
        return ReplayResult(trace: try recorder.trace(name: "replay of \(name)"), recorder: recorder,
                            unrecordedCalls: environment.unrecordedCalls)
    }
}

/// The trace a replay produced: its bytes (a virtual trace, deterministic) and the same
/// trace in memory.
public struct ReplayResult: Sendable {
    /// The trace file's contents, formatted from the recording the first time they are asked for.
    public var bytes: [UInt8] { output.bytes }
    /// The trace in memory.
    public let trace: Trace
    /// The calls made with a request the trace never recorded that `unrecordedRequests` let
    /// fail or complete empty, in the order met (none with the default, which throws).
    public let unrecordedCalls: [ReplayError]
    private let output: Output

    init(trace: Trace, recorder: Recorder, unrecordedCalls: [ReplayError]) {
        self.trace = trace
        self.unrecordedCalls = unrecordedCalls
        self.output = Output(recorder: recorder)
    }

    /// The recording until its bytes are asked for, then its bytes.
    private final class Output: Sendable {
        private enum State {
            case recorded(Recorder)
            case formatted([UInt8])
        }
        private let state: Protected<State>

        init(recorder: Recorder) { state = Protected(.recorded(recorder)) }

        var bytes: [UInt8] {
            state.modify { state in
                switch state {
                case let .formatted(bytes):
                    return bytes
                case let .recorded(recorder):
                    let bytes = recorder.bytes
                    state = .formatted(bytes)
                    return bytes
                }
            }
        }
    }
}
