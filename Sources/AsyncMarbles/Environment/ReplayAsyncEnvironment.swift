import Foundation
import Locks
import Recording
import Replay
import Signals
import TraceLog

/// An `AsyncEnvironment` that re-drives an async pipeline's boundaries from a recorded trace,
/// in virtual time on a `VirtualTimeDriver` (run the pipeline with `driver.run`).
///
/// - `input(label)` re-sends the recorded values of the trace's `input` node with that label
///   (decoded from their JSON into the requested type), then its end, at their recorded times,
///   each on the recorded thread's lane.
/// - `call(label, request:)` gets the next unused recorded call with that label whose
///   recorded request equals `request` (decoded into its type, compared with `==`), and
///   answers after the recorded latency: the recorded value (decoded), or a
///   `ReplayedCallFailure` carrying the recorded error's text, or, for a call that was
///   interrupted live, no answer until the caller is cancelled. `perform` is never called.
///   A request the trace never recorded (or whose recorded calls are all used) throws a
///   `ReplayError` from the call, and is kept in `errors`.
/// - `clock` is the driver's virtual clock.
///
/// Like a live environment it records its inputs and calls into a running recorder, so the
/// replay's trace has the live trace's nodes and can be compared with it (`TraceDiff`).
///
/// Recorded times are offsets from the recording's start; they are replayed from the driver's
/// time when the environment is made. The driver's jobs show on the thread most of the
/// recording's work was on (`VirtualTimeDriver.threadName`): a live recording's tasks ran on
/// the global concurrent executor's queue, and so do the replay's, in its trace.
///
/// ```swift
/// let driver = VirtualTimeDriver()
/// let replay = ReplayAsyncEnvironment(trace: try Trace(contentsOf: URL(fileURLWithPath: "search.trace")), driver: driver)
/// let lengths = replay.input("typed", of: String.self).map(\.count)
/// try driver.run { for await length in lengths { print(length) } }   // the recorded values, at their times
/// print(replay.errors)   // what did not fit the trace
/// ```
public final class ReplayAsyncEnvironment: AsyncEnvironment, @unchecked Sendable {  // mutable state under `lock`
    /// The trace re-driven.
    public let trace: Trace
    /// The trace's name in error messages.
    public let traceName: String
    public let clock: EnvironmentClock
    private let driver: VirtualTimeDriver
    private let origin: Int64
    private let lock = Lock()
    private var inputs: [String: AnyInputPipe] = [:]
    /// The recorded calls served, by call node.
    private var served: Set<UInt64> = []
    private var problems: [ReplayError] = []
    private let decoder = JSONDecoder()

    /// An environment re-driving `trace` on `driver`.
    public init(trace: Trace, driver: VirtualTimeDriver, name: String = "<trace>") {
        self.trace = trace
        self.driver = driver
        self.traceName = name
        clock = .virtual(driver.clock)
        origin = driver.scheduler.now
        if let tasks = Self.tasksThread(of: trace) { driver.threadName = tasks }
    }

    /// The thread most of the recording's work (its events but the inputs') was on: live, the
    /// global concurrent executor's queue, where the tasks ran; under a driver, its thread.
    /// The replay's jobs show on it, so that they agree with the recording's.
    private static func tasksThread(of trace: Trace) -> String? {
        let inputs = Set(trace.nodes.filter { $0.name == "input" }.map(\.id))
        var counts: [UInt64: Int] = [:]
        for event in trace.events where !inputs.contains(event.node) { counts[event.thread, default: 0] += 1 }
        // The most events; a tie to the thread first met.
        guard let busiest = counts.max(by: { ($0.value, $1.key) < ($1.value, $0.key) })?.key,
              let thread = trace.thread(busiest) else { return nil }
        return thread.scheduler ?? thread.name
    }

    /// What did not fit the trace so far, in the order met.
    public var errors: [ReplayError] { lock.withLock { problems } }

    public func input<Value: Codable & Sendable>(_ label: String, of type: Value.Type, file: StaticString,
                                                 line: UInt) -> EnvironmentInput<Value> {
        let (pipe, made): (InputPipe<Value>, Bool) = lock.withLock {
            if let existing = inputs[label] as? InputPipe<Value> { return (existing, false) }
            let pipe = InputPipe<Value>(label: label, file: file, line: line)
            inputs[label] = pipe
            return (pipe, true)
        }
        if made { schedule(pipe, label: label) }
        return pipe.input
    }

    /// Schedules the recorded events of the input `label` on the driver's clock.
    private func schedule<Value: Codable & Sendable>(_ pipe: InputPipe<Value>, label: String) {
        let recorded = recordedNodes(named: "input", label: label, node: pipe.node)
        guard !recorded.isEmpty else {
            let known = trace.nodes.filter { $0.name == "input" }.compactMap(\.label)
            fail(.missingInput, pipe.node, record: nil,
                 message: "expected an input labelled \"\(label)\" in the trace; it has "
                    + (known.isEmpty ? "none" : "only " + known.map { "\"\($0)\"" }.joined(separator: ", ")))
            // Finished at once, so that the replay runs to its end and reports the error,
            // instead of waiting for values no recording will send.
            pipe.finish()
            return
        }
        let events = recorded.flatMap { trace.events(of: $0.id) }.sorted { $0.sequence < $1.sequence }
        for event in events {
            let lane = driver.scheduler.lane(threadName(event.thread))
            switch event.kind {
            case .value:
                guard let value = try? decode(Value.self, event, pipe.node) else { continue }
                lane.schedule(after: date(event.time)) { pipe.send(value) }
            case .completed, .interrupted:
                lane.schedule(after: date(event.time)) { pipe.finish() }
            case .pull:
                // The consumer's demand: the replayed consumer pulls by itself.
                continue
            case .failed:
                fail(.unexpectedEvent, pipe.node, record: "event seq \(event.sequence)",
                     message: "expected values and an end; an input cannot end with \(event.kind)")
            }
        }
    }

    /// The recorded ticks of the timer `label`, each start's at its recorded times; ticks at
    /// the new interval in virtual time when the code asks for another interval than the
    /// recording's (a what-if replay; the diff names the changed node), or when the trace has
    /// no such timer (a `ReplayError` too).
    public func timer(_ label: String, every interval: Duration, file: StaticString, line: UInt) -> EnvironmentTimer {
        let node = Node.asyncTimer(label, every: interval, file: file, line: line)
        let recorded = recordedNodes(named: "timer", label: label, node: node)
        let same = recorded.filter { $0.parameters == node.parameters }
        guard !same.isEmpty else {
            if recorded.isEmpty {
                fail(.missingTimer, node, record: nil, message: "expected a timer labelled \"\(label)\" in the trace; it has none")
            }
            return EnvironmentTimer(node: node, interval: interval, clock: clock, recorded: nil)
        }
        let ids = Set(same.map(\.id))
        var ticksBySubscription: [UInt64: [(time: Int64, instant: EnvironmentClock.Instant)]] = [:]
        for event in same.flatMap({ trace.events(of: $0.id) }) where event.kind == .value {
            guard let instant = try? decode(EnvironmentClock.Instant.self, event, node) else { continue }
            ticksBySubscription[event.subscription, default: []].append((origin + event.time, instant))
        }
        let starts = trace.subscriptions.filter { ids.contains($0.node) }.map { ticksBySubscription[$0.id] ?? [] }
        return EnvironmentTimer(node: node, interval: interval, clock: clock, recorded: RecordedTicks(starts))
    }

    public func call<Request: Codable & Equatable & Sendable, Value: Codable & Sendable>(
        _ label: String, request: Request, file: StaticString, line: UInt,
        _ perform: () async throws -> Value
    ) async throws -> Value {
        let node = Node.call(label, file: file, line: line)
        let started = driver.scheduler.now
        let subscription = BoundaryEvents.startCall(node, request: request)
        do {
            let value = try await answer(node, label: label, request: request, as: Value.self, started: started)
            BoundaryEvents.endCall(node, subscription: subscription, .success(value))
            return value
        } catch let error as ReplayError {
            // No recorded answer: the call ends without events, and the replay is in error.
            Instrumentation.probe?.didDispose(node, subscription: subscription)
            throw error
        } catch {
            BoundaryEvents.endCall(node, subscription: subscription, Result<Value, any Error>.failure(error))
            throw error
        }
    }

    /// The recorded answer to the call `node` with `request`, after its recorded latency.
    private func answer<Request: Codable & Equatable, Value: Codable>(
        _ node: Node, label: String, request: Request, as type: Value.Type, started: Int64
    ) async throws -> Value {
        let recorded = recordedNodes(named: "call", label: label, node: node)
        guard !recorded.isEmpty else {
            throw fail(.missingCall, node, record: nil, message: "expected a call labelled \"\(label)\" in the trace; it has none")
        }
        guard let start = serve(recorded, request: request) else {
            let json = Recorder.requestJSON(request) ?? "\(request)"
            let requests = recorded.flatMap { node in trace.subscriptions.filter { $0.node == node.id } }.compactMap(\.requestKey)
            throw fail(.unrecordedRequest, node, record: nil,
                       message: "expected an unused recorded call of \"\(label)\" with the request \(json); the trace records "
                        + (requests.isEmpty ? "none" : requests.joined(separator: ", ")),
                       request: json)
        }
        let events = trace.events.filter { $0.subscription == start.id && $0.kind.isSent }
        let end = events.first { $0.kind != .value } ?? events.last
        let latency = max((end?.time ?? start.time) - start.time, 0)
        let clock = driver.clock
        guard let end, end.kind != .interrupted else {
            // Interrupted live before it answered: it does not answer until its caller stops.
            try await clock.sleep(until: VirtualClock.Instant(nanoseconds: .max))
            throw CancellationError()
        }
        try await clock.sleep(until: VirtualClock.Instant(nanoseconds: started + latency))
        if end.kind == .failed {
            throw ReplayedCallFailure(label: label, recorded: end)
        }
        guard let valueEvent = events.first(where: { $0.kind == .value }) else {
            throw fail(.missingPayload, node, record: "subscription \(start.id)",
                       message: "expected the call's recorded value; it completed without one")
        }
        return try decode(Value.self, valueEvent, node)
    }

    /// The first recorded call among `nodes` with a request equal to `request` not served yet,
    /// marked served.
    private func serve<Request: Codable & Equatable>(_ nodes: [NodeRecord], request: Request) -> SubscriptionRecord? {
        let ids = Set(nodes.map(\.id))
        let json = Recorder.requestJSON(request).map(RequestDigest.key(of:))
        return lock.withLock {
            for subscription in trace.subscriptions where ids.contains(subscription.node) && !served.contains(subscription.id) {
                guard let recorded = subscription.requestKey else { continue }
                let equal = recorded == json
                    || (subscription.request.flatMap { try? decoder.decode(Request.self, from: Data($0.utf8)) } == request)
                if equal {
                    served.insert(subscription.id)
                    return subscription
                }
            }
            return nil
        }
    }

    /// The trace's nodes named `name` and labelled `label`, at `node`'s call site if any are.
    private func recordedNodes(named name: String, label: String, node: Node) -> [NodeRecord] {
        trace.recordedNodes(named: name, label: label, at: node)
    }

    private func threadName(_ id: UInt64) -> String {
        trace.thread(id)?.scheduler ?? trace.thread(id)?.name ?? driver.scheduler.name
    }

    /// A recorded time as the date the driver's scheduler takes.
    private func date(_ time: Int64) -> Date {
        Date(timeIntervalSinceReferenceDate: Double(origin + time) / 1e9)
    }

    /// The recorded value of `record`; a value without JSON, or whose JSON does not decode,
    /// is a replay error (kept in `errors`, and thrown).
    private func decode<T: Decodable>(_ type: T.Type, _ record: EventRecord, _ node: Node) throws(ReplayError) -> T {
        guard let json = record.json else {
            throw fail(.missingPayload, node, record: "event seq \(record.sequence)",
                       message: "expected the value's JSON to re-send; it was not recorded (text: \(record.text ?? "none"))")
        }
        do {
            return try decoder.decode(T.self, from: Data(json.utf8))
        } catch {
            throw fail(.undecodable, node, record: "event seq \(record.sequence)",
                       message: "expected a value of type \(T.self); the JSON \(json) does not decode: \(error)")
        }
    }

    @discardableResult
    private func fail(_ kind: ReplayError.Kind, _ node: Node, record: String?, message: String,
                      request: String? = nil) -> ReplayError {
        let label = node.label.map { " \"\($0)\"" } ?? ""
        let error = ReplayError(kind: kind, trace: traceName, node: "\(node.name)\(label) @\(node.file):\(node.line)",
                                record: record, message: message, request: request)
        lock.withLock { problems.append(error) }
        return error
    }
}

/// What a replayed call throws where the recorded call failed: the recorded error's text and
/// JSON (an error of any type cannot be made again from a trace). It describes itself as the
/// recorded error did and encodes to the same JSON, and a recorder records it as the live run
/// recorded the error: with no `json` when that error was not `Encodable`, with its
/// `jsonError` when its encoding threw.
///
/// ```swift
/// func shown(_ error: any Error) -> String {
///     if let failure = error as? ReplayedCallFailure { return "\(failure.label) failed: \(failure)" }
///     return "\(error)"
/// }
/// ```
public struct ReplayedCallFailure: Error, Equatable, Sendable, CustomStringConvertible, Encodable {
    /// The call's label.
    public let label: String
    /// The recorded error, as `String(describing:)` wrote it.
    public let description: String
    /// The recorded error's JSON, when it was `Encodable`.
    public let json: String?
    /// The recorded failure's fields, recorded again as they were.
    private let recorded: RecordedForm

    init(label: String, recorded event: EventRecord) {
        self.label = label
        description = event.text ?? ""
        json = event.json
        recorded = RecordedForm(text: description, json: event.json,
                                omittedJSONBytes: event.omittedJSONBytes == 0 ? nil : Int(event.omittedJSONBytes),
                                jsonError: event.jsonError)
    }

    public func encode(to encoder: any Encoder) throws {
        guard let json, let value = try? JSONValue(parsing: json) else {
            var container = encoder.singleValueContainer()
            return try container.encode(description)
        }
        try value.encode(to: encoder)
    }
}

extension ReplayedCallFailure: RecordedStandIn {
    package var recordedForm: RecordedForm { recorded }
}
