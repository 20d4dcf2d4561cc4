import Locks
import Foundation
import Signals
import TraceLog
import Recording

/// Re-runs a pipeline from a recorded trace in virtual time and records the run as a new,
/// virtual trace.
///
/// ```swift
/// func doubling(in environment: Environment) -> Disposable {
///     environment.input("count", of: Int.self).map { $0 * 2 }.observeValues { print($0) }
///         ?? AnyDisposable()
/// }
/// let replayer = try Replayer(contentsOf: URL(fileURLWithPath: "traces/count.trace"))
/// let result = try replayer.replay(doubling)   // prints what the recording's inputs make
/// try Data(result.bytes).write(to: URL(fileURLWithPath: "count.replay.trace"))
/// if let pastEnd = result.pastEnd { print(pastEnd) }   // work that ran after the recording's end
/// ```
///
/// The pipeline is built against a `ReplayEnvironment`, so its inputs and calls re-emit what
/// the trace recorded and its schedulers are lanes of one `TestScheduler`. Pure operator work
/// runs anew. The clock is run to the end of the recording (its summary's duration, or its
/// last event), then on while work is still waiting — a backoff that edited code moved past
/// the recorded end still runs, in virtual time, and the result says so (`pastEnd`), up to
/// `pastEndLimit` past the end — then the pipeline is disposed — recorded, as a live run's
/// teardown is — and the recording stops. Nothing depends on the
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

    /// How long thread hops wait: as recorded (the default for a recording made in real time,
    /// whose queues took time) or at once (the default for one made in virtual time, where a
    /// hop took none).
    public var hopLatency: ReplayEnvironment.HopLatency

    /// The hop latency a replay of `trace` uses when none is asked for: `asRecorded` for a
    /// real-time recording, `zero` for a virtual-time one. On 1,020 live recordings of
    /// generated pipelines, replays agreed with 845 as recorded against 834 at once.
    public static func defaultHopLatency(for trace: Trace) -> ReplayEnvironment.HopLatency {
        trace.header.clock == .virtual ? .zero : .asRecorded
    }

    /// What a call made with a request the trace never recorded does: a `ReplayError` (the
    /// default), a failure of the call, or an empty result.
    public var unrecordedRequests: ReplayEnvironment.UnrecordedRequests

    /// How long past the recording's end a replay goes on running work still waiting (a
    /// retry's backoff, a delay, a debounce), in nanoseconds; nil (the default) is the
    /// recording's own duration, at least a minute. What still waits then is left, and the
    /// result says so. A repeating timer is not waited for: it ticks while other work runs.
    public var pastEndLimit: Int64?

    /// A replayer of `trace`; `name` stands for its file in errors.
    public init(trace: Trace, name: String = "<trace>", hopLatency: ReplayEnvironment.HopLatency? = nil,
                unrecordedRequests: ReplayEnvironment.UnrecordedRequests = .error) {
        self.trace = trace
        self.name = name
        self.hopLatency = hopLatency ?? Self.defaultHopLatency(for: trace)
        self.unrecordedRequests = unrecordedRequests
    }

    /// A replayer of the trace at `url`. Throws `TraceError` when it is missing or malformed.
    public init(contentsOf url: URL, hopLatency: ReplayEnvironment.HopLatency? = nil,
                unrecordedRequests: ReplayEnvironment.UnrecordedRequests = .error) throws {
        self.init(trace: try Trace(contentsOf: url), name: url.relativePath, hopLatency: hopLatency,
                  unrecordedRequests: unrecordedRequests)
    }

    /// A replayer of the trace at `path` (its bytes used as given, a name that is not UTF-8
    /// too), named `name` in messages (the path as shown when nil).
    package init(path: PathName, name: String? = nil, hopLatency: ReplayEnvironment.HopLatency? = nil,
                 unrecordedRequests: ReplayEnvironment.UnrecordedRequests = .error) throws {
        let name = name ?? path.shown
        self.init(trace: try Trace(path: path, name: name), name: name, hopLatency: hopLatency,
                  unrecordedRequests: unrecordedRequests)
    }

    /// The virtual time the replay runs to: the recording's end (its summary's duration, or
    /// its latest event when it was cut off).
    public var end: Int64 { Self.end(of: trace) }

    /// `end` for any trace: what a replay runs to, and what a timer that never ran live waits
    /// past (`TimerDecisions`).
    static func end(of trace: Trace) -> Int64 {
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
        let end = self.end
        scheduler.advance(toNanoseconds: end)
        let pastEnd = runPastEnd(scheduler, from: end)
        pipeline.dispose()
        if let noting { Instrumentation.detach(noting) }
        // An in-memory recorder has no file to fail writing; stop() cannot throw here.
        _ = try? recorder.stop()
        if let error = environment.errors.first { throw error }
        // The trace straight from the recorder's records; its bytes are formatted when asked for.
        let replayed = try recorder.trace(name: "replay of \(name)")
        return ReplayResult(trace: replayed, recorder: recorder, unrecordedCalls: environment.unrecordedCalls,
                            pastEnd: pastEnd.map { PastEnd(ranTo: $0.ranTo, recordedEnd: end, stillWaiting: $0.stillWaiting,
                                                           events: Self.events(after: end, in: replayed)) },
                            simulatedTimers: environment.simulatedTimers,
                            timersRunLate: environment.timerDecisions?.counts ?? (0, 0))
    }

    /// Runs the work still waiting at the recording's end, each action at its own virtual
    /// time, until none waits (a repeating timer's ticks aside: they never end by themselves,
    /// and tick meanwhile) or `pastEndLimit` is reached; nil when nothing waited.
    private func runPastEnd(_ scheduler: TestScheduler, from end: Int64) -> (ranTo: Int64, stillWaiting: Int64?)? {
        guard var next = scheduler.nextDue(includingPeriodic: false) else { return nil }
        let limit = end.saturatingAdding(pastEndLimit ?? max(end, 60_000_000_000))
        var ranTo = end
        while next <= limit {
            scheduler.advance(toNanoseconds: next)
            ranTo = next
            guard let following = scheduler.nextDue(includingPeriodic: false) else { return (ranTo, nil) }
            next = following
        }
        return (ranTo, next)
    }

    /// How many of `trace`'s events happened after `end`.
    private static func events(after end: Int64, in trace: Trace) -> Int {
        let events = trace.events
        var count = 0
        for position in 0..<events.count where events.time(at: position) > end { count += 1 }
        return count
    }
}

/// What a replay ran after the recording's end: work still waiting when the recorded run
/// stopped (a retry's backoff that edited code moved later, a debounce, a delay), run in
/// virtual time rather than cut off.
///
/// ```swift
/// func delaying(in environment: Environment) -> Disposable {
///     environment.input("count", of: Int.self).delay(5, on: environment.scheduler("main"))
///         .observeValues { print("late", $0) } ?? AnyDisposable()
/// }
/// let result = try Replayer(contentsOf: URL(fileURLWithPath: "traces/count.trace")).replay(delaying)
/// if let pastEnd = result.pastEnd {
///     print(pastEnd.events, "events came after the recording's end at", pastEnd.recordedEnd, "ns")
/// }
/// ```
public struct PastEnd: Sendable, Equatable, CustomStringConvertible {
    /// The virtual time of the last action run, in nanoseconds.
    public var ranTo: Int64
    /// The recording's end, in nanoseconds.
    public var recordedEnd: Int64
    /// When work still waited at the replay's limit (a timer that never stops), the time of
    /// the next action, which did not run.
    public var stillWaiting: Int64?
    /// The events the replay recorded after the recording's end.
    public var events: Int

    public var description: String {
        var text = "the replay ran \(TraceDiff.duration(ranTo - recordedEnd)) past the recording's end "
            + "(\(TraceDiff.duration(recordedEnd))): \(events) event\(events == 1 ? "" : "s") happened after it"
        if let stillWaiting {
            text += "; work still waited at \(TraceDiff.duration(stillWaiting)) and was not run (the limit is the recording's "
                + "duration past its end, at least a minute)"
        }
        return text
    }
}

/// The trace a replay produced: its bytes (a virtual trace, deterministic) and the same
/// trace in memory.
///
/// ```swift
/// func doubling(in environment: Environment) -> Disposable {
///     environment.input("count", of: Int.self).map { $0 * 2 }.observeValues { print($0) } ?? AnyDisposable()
/// }
/// let result = try Replayer(contentsOf: URL(fileURLWithPath: "traces/count.trace")).replay(doubling)
/// print(result.trace.events.count, "events;", result.notes)   // notes: past the end, unrecorded calls…
/// try Data(result.bytes).write(to: URL(fileURLWithPath: "count.replay.trace"))
/// ```
public struct ReplayResult: Sendable {
    /// The trace file's contents, formatted from the recording the first time they are asked for.
    public var bytes: [UInt8] { output.bytes }
    /// The trace in memory.
    public let trace: Trace
    /// The calls made with a request the trace never recorded that `unrecordedRequests` let
    /// fail or complete empty, in the order met (none with the default, which throws).
    public let unrecordedCalls: [ReplayError]
    /// What ran after the recording's end, nil when nothing waited then.
    public let pastEnd: PastEnd?
    /// The timers whose timing the replayed code changed: their ticks were simulated at the
    /// new timing in virtual time, not re-sent as recorded.
    public let simulatedTimers: [SimulatedTimer]
    /// How many operator timers (a debounce's, a delay's, a retry's backoff…) the replay ran
    /// as late as the live recording's ran (`HopRecord.due`), and how many of those had never
    /// run live and so waited until past the recording's end. Zero for a virtual trace.
    public let timersRunLate: (matched: Int, neverRanLive: Int)
    private let output: Output

    init(trace: Trace, recorder: Recorder, unrecordedCalls: [ReplayError], pastEnd: PastEnd?,
         simulatedTimers: [SimulatedTimer], timersRunLate: (matched: Int, neverRanLive: Int) = (0, 0)) {
        self.trace = trace
        self.unrecordedCalls = unrecordedCalls
        self.pastEnd = pastEnd
        self.simulatedTimers = simulatedTimers
        self.timersRunLate = timersRunLate
        self.output = Output(recorder: recorder)
    }

    /// What a reader of the replay should know beyond its trace: each timer simulated at a
    /// new timing, the operator timers run as late as recorded, and what ran past the
    /// recording's end, one line each.
    public var notes: [String] {
        var late: [String] = []
        if timersRunLate.matched > 0 {
            let (matched, never) = timersRunLate
            late = ["\(matched) operator timer\(matched == 1 ? "" : "s") ran as late as live"
                    + (never > 0 ? " (\(never) that never ran live, cancelled first, were held past the recording's end)" : "")]
        }
        return simulatedTimers.map(\.description) + late + (pastEnd.map { [$0.description] } ?? [])
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
