import Locks
import Foundation
import Recording
import Signals
import TraceLog

/// An `Environment` that re-drives a pipeline's boundaries from a recorded trace, in
/// virtual time on a `TestScheduler`.
///
/// - `input(label)` re-emits the recorded events of the trace's `input` node with that label
///   (values decoded from their JSON into the requested type, then completion or
///   interruption) at their recorded times, each on a lane named after the thread it was
///   recorded on.
/// - `scheduler(name)` is the test scheduler's lane of that name, so hops show the same
///   thread names as the recording; with `HopLatency.asRecorded`, each hop onto it waits
///   the queue wait recorded for it. A `SignalProducer.timer(interval:on:)` started on it
///   re-sends the ticks the trace recorded for that timer, as `timer(label…)` does (below).
/// - `call(label)`: each start of the call gets the next unused recorded subscription of the
///   trace's `call` node with that label, in order, and re-delivers its events at their
///   recorded offsets from that subscription's start (the recorded latency), on the recorded
///   threads' lanes; a start made up to 5 ms earlier than recorded (a cascade that took no
///   time here) answers at the recorded times themselves. The real `perform` is never called.
/// - `call(label, request:)`: each start gets the next unused recorded subscription with that
///   label whose recorded request equals the request (decoded into the request's type and
///   compared with `==`). A request the trace never recorded (or whose recorded starts are
///   all used) is a `ReplayError` by default, naming the nearest recorded requests; never
///   another request's result. `unrecordedRequests` may instead let such a start fail with an
///   error of the call's type, or complete at once. A trace recorded before requests were
///   (format 1.0) has none: its starts are paired in order, as without a request.
/// - `timer(label, …)`: the k-th start of the timer gets the k-th recorded subscription of
///   the trace's `timer` node with that label, and re-sends its ticks (their recorded dates)
///   at their recorded times (never before the start), on the recorded threads' lanes, so
///   they keep their order with the inputs. The interval and scheduler the pipeline asks for are not used: the ticks are
///   what happened.
///
/// A start of a call or a timer is paired with a recorded one as its subscription is made,
/// in the order the trace records subscriptions, not as its work begins: an operator may
/// begin its inputs in another order than it made them (`take(until:)` begins its trigger
/// first), and the k-th start to begin may be the recording's (k+1)-th.
///
/// A trace that does not fit (a label it lacks, more calls than recorded, a payload that does
/// not decode) is recorded in `errors` and the boundary concerned stays silent; `Replayer`
/// throws the first error after the run. Nothing traps.
///
/// When both a trace node at the requesting call site and others with the same label exist,
/// the one at the call site is used; otherwise every node with the label is (a pipeline whose
/// lines moved still replays).
///
/// ```swift
/// let trace = try Trace(contentsOf: URL(fileURLWithPath: "traces/count.trace"))
/// let scheduler = TestScheduler()
/// let environment = ReplayEnvironment(trace: trace, scheduler: scheduler)
/// environment.input("count", of: Int.self).observeValues { print("recorded", $0) }
/// scheduler.run()              // re-sends the recorded values at their recorded times
/// print(environment.errors)    // what did not fit the trace (a label it lacks…)
/// ```
public final class ReplayEnvironment: Environment, @unchecked Sendable {  // mutable state only under `lock`
    /// How long a thread hop (`observe(on:)`, `start(on:)`) onto one of the environment's
    /// schedulers waits before it runs. A `Replayer` asks `asRecorded` for a real-time trace
    /// and `zero` for a virtual-time one unless told (`Replayer.defaultHopLatency(for:)`).
    ///
    /// ```swift
    /// let replayer = try Replayer(contentsOf: URL(fileURLWithPath: "traces/search.trace"),
    ///                             hopLatency: .zero)   // every observe(on:) at once
    /// ```
    public enum HopLatency: String, Sendable, Equatable {
        /// Hops run at once, in the same virtual instant.
        case zero
        /// Each hop waits the queue wait the trace recorded for the matching hop: same node
        /// (name, parameters, call site), same position among that node's hops. Hops the
        /// trace lacks run at once. A hop the replay enqueues a little earlier than live (its
        /// cause's cascade took no time) starts no earlier than the recorded one started
        /// (`HopWaits`). Needs the replay's probe to say which node is hopping, which
        /// `Replayer` arranges.
        case asRecorded
    }

    /// What a call made with a request the trace never recorded does: a request no recorded
    /// start of its call had, or any request of a call the trace never made at all.
    ///
    /// ```swift
    /// struct SearchError: Error, Codable { var reason: String }
    /// var replayer = try Replayer(contentsOf: URL(fileURLWithPath: "traces/search.trace"))
    /// // A search for a text the recording never searched for fails as the service would:
    /// replayer.unrecordedRequests = .fail { error in SearchError(reason: error.description) }
    /// ```
    public enum UnrecordedRequests: Sendable {
        /// The replay fails with a `ReplayError` (`unrecordedRequest`) naming the call, its
        /// request and the nearest recorded requests; the call stays silent meanwhile.
        case error
        /// The call fails with the error `makeError` returns for the `ReplayError` describing
        /// it; an error that is not of the call's `Failure` type is a replay error
        /// (`undecodable`) instead.
        case fail(_ makeError: @Sendable (ReplayError) -> any Swift.Error)
        /// The call completes at once, without a value.
        case empty
    }

    /// The trace re-driven.
    public let trace: Trace
    /// The virtual clock everything runs on.
    public let testScheduler: TestScheduler
    /// The trace's name in error messages.
    public let traceName: String
    public let hopLatency: HopLatency
    /// What a call made with a request the trace never recorded does.
    public let unrecordedRequests: UnrecordedRequests
    /// The recorded waits, when hops keep them.
    let hopWaits: HopWaits?
    /// When the live run's operator timers ran (nil for a trace without timer hops).
    let timerDecisions: TimerDecisions?

    private let lock = Lock()
    private var inputs: [String: AnyObject] = [:]
    private var schedulers: [String: DateScheduler] = [:]
    /// Which recorded subscriptions a start was served from, per recorded node set.
    private var served: [String: Served] = [:]
    private var boundaryRecordings: [String: BoundaryRecording] = [:]
    private let decoder = JSONDecoder()
    private var problems: [ReplayError] = []
    private var unserved: [ReplayError] = []
    private var simulating: [SimulatedTimer] = []
    private var decisions: DecisionTimes?
    /// The boundary event being delivered now (an input's value, a call's answer): its
    /// sequence number and how much later than live the replay delivers it (0 but for a call
    /// that edited code moved). A call that this delivery's cascade started live (its request
    /// leads back to the event) answers at its recorded times moved by that much, not at its
    /// latency from the replay's start: the replay runs a cascade in no time, so live the call
    /// started later than in the replay by the cascade's work, and answers counted from the
    /// replay's start would overtake another thread's events that came first live. Touched
    /// only on the test scheduler's thread.
    private var delivering: (sequence: UInt64, shift: Int64)?
    /// The virtual time the replay began at: a start made then, outside any delivery, was
    /// made as the pipeline was set up.
    private let startedAt: Int64

    /// When to deliver each recorded boundary event, computed once, when first needed.
    private var decisionTimes: DecisionTimes {
        if let known = lock.withLock({ decisions }) { return known }
        let computed = DecisionTimes(trace: trace)
        lock.withLock { decisions = computed }
        return computed
    }

    /// An environment re-driving `trace` on `scheduler`.
    public init(trace: Trace, scheduler: TestScheduler, name: String = "<trace>", hopLatency: HopLatency = .zero,
                unrecordedRequests: UnrecordedRequests = .error) {
        self.trace = trace
        self.testScheduler = scheduler
        self.traceName = name
        self.hopLatency = hopLatency
        self.unrecordedRequests = unrecordedRequests
        self.hopWaits = hopLatency == .asRecorded ? HopWaits(trace: trace) : nil
        self.timerDecisions = TimerDecisions(trace: trace)
        startedAt = scheduler.now
    }

    /// What did not fit so far, in the order met.
    public var errors: [ReplayError] { lock.withLock { problems } }

    /// The calls made with a request the trace never recorded that `unrecordedRequests` let
    /// fail or complete instead of being errors, in the order met.
    public var unrecordedCalls: [ReplayError] { lock.withLock { unserved } }

    /// The timers whose timing the replayed code changed, which tick at the new timing in
    /// virtual time instead of re-sending the recorded ticks, in the order met.
    public var simulatedTimers: [SimulatedTimer] { lock.withLock { simulating } }

    // MARK: Environment

    public func input<Value: Codable>(_ label: String, of type: Value.Type, file: StaticString, line: UInt) -> Signal<Value, Never> {
        // The commonest payloads get code made for their type: through the generic path every
        // re-sent value pays for looking its types up at run time.
        if Value.self == Int.self { return makeInput(label, of: Int.self, file: file, line: line) as! Signal<Value, Never> }
        if Value.self == String.self { return makeInput(label, of: String.self, file: file, line: line) as! Signal<Value, Never> }
        if Value.self == Double.self { return makeInput(label, of: Double.self, file: file, line: line) as! Signal<Value, Never> }
        if Value.self == Bool.self { return makeInput(label, of: Bool.self, file: file, line: line) as! Signal<Value, Never> }
        return makeInput(label, of: Value.self, file: file, line: line)
    }

    private func makeInput<Value: Codable>(_ label: String, of type: Value.Type, file: StaticString, line: UInt) -> Signal<Value, Never> {
        let node = Node.input(label, file: file, line: line)
        // One signal per label, as live: a second request shares the first's re-emitted events.
        var made: Signals.Observer<Value, Never>?
        let signal: Signal<Value, Never> = lock.withLock {
            if let box = inputs[label] as? InputBox<Value> { return box.signal }
            let pipe = Signal<Value, Never>.pipe(node: node)
            inputs[label] = InputBox(signal: pipe.output)
            made = pipe.input
            return pipe.output
        }
        guard let observer = made else { return signal }
        let recorded = recordedNodes(named: "input", label: label, node: node)
        guard !recorded.isEmpty else {
            fail(.missingInput, node, record: nil, message: "expected an input labelled \"\(label)\" in the trace; it has none"
                    + Self.inputsRecorded(trace.nodes.filter { $0.name == "input" }.compactMap(\.label), near: label))
            return signal
        }
        let events = trace.events
        let decided = decisionTimes
        let positions = mergedEventPositions(of: recorded)
        var sent: [Event<Value, Never>] = []
        var dues: [Int64] = [], lanes: [Int] = []
        var sequences: [UInt64] = []
        sent.reserveCapacity(positions.count)
        dues.reserveCapacity(positions.count)
        lanes.reserveCapacity(positions.count)
        // One lane per recorded thread, not per event; the last thread's lane answers again
        // without hashing (an input's events mostly come from one thread).
        var laneNumbers: [UInt64: Int] = [:]
        var names: [String] = []
        var last: (thread: UInt64, lane: Int)?
        for position in positions {
            switch events.kind(at: position) {
            case .value:
                guard let value = decode(Value.self, at: position, of: events, node) else { return signal }
                sent.append(.value(value))
            case .completed:
                sent.append(.completed)
            case .interrupted:
                sent.append(.interrupted)
            case .pull:
                // Demand (a tapped `AsyncSequence`'s): nothing an input sends.
                continue
            case .failed:
                fail(.unexpectedEvent, node, record: "event seq \(events.sequence(at: position))",
                     message: "expected values, completion or interruption from an input; the trace records a failure")
                return signal
            }
            let thread = events.thread(at: position)
            let lane: Int
            if let last, last.thread == thread {
                lane = last.lane
            } else if let known = laneNumbers[thread] {
                lane = known
            } else {
                lane = names.count
                laneNumbers[thread] = lane
                names.append(trace.logicalThreadName(thread))
            }
            lanes.append(lane)
            last = (thread, lane)
            // When its consequences met another thread's, at the time they met (see DecisionTimes).
            dues.append(TestScheduler.time(of: Self.date(decided.time(at: position))))
            sequences.append(events.sequence(at: position))
        }
        // Each at its recorded time on its thread's lane, as if scheduled one by one.
        testScheduler.schedule(series: dues, lanes: lanes, names: names) { [weak self] index in
            guard let self else { return observer.send(sent[index]) }
            whileDelivering(sequence: sequences[index], shift: 0) { observer.send(sent[index]) }
        }
        return signal
    }

    public func scheduler(_ name: String) -> DateScheduler {
        lock.withLock {
            if let existing = schedulers[name] { return existing }
            let made = ReplayScheduler(lane: testScheduler.lane(name), waits: hopWaits, environment: self)
            schedulers[name] = made
            return made
        }
    }

    public func call<Value: Codable, Failure: Swift.Error & Codable>(
        _ label: String, file: StaticString, line: UInt,
        _ perform: @escaping () -> SignalProducer<Value, Failure>
    ) -> SignalProducer<Value, Failure> {
        let node = Node.call(label, file: file, line: line)
        // Each start is paired with a recorded one as it is made, in the recorded order.
        return SignalProducer(node: node, causedByStart: true, handlerWhenMade: { [self] in
            guard let recording = boundaryRecording(named: "call", label: label, node: node) else {
                fail(.missingCall, node, record: nil, message: "expected a call labelled \"\(label)\" in the trace; it has none")
                return { _, _ in }
            }
            guard let index = serveInOrder(recording) else {
                fail(.extraCall, node, record: nil,
                     message: "expected at most \(recording.subscriptions.count) starts of this call, as recorded; "
                        + "the pipeline starts it a \(Self.ordinal(recording.subscriptions.count + 1)) time")
                return { _, _ in }
            }
            return { [self] observer, lifetime in redeliver(recording, index, node: node, into: observer, lifetime: lifetime) }
        })
    }

    public func call<Request: Codable & Equatable, Value: Codable, Failure: Swift.Error & Codable>(
        _ label: String, request: Request, file: StaticString, line: UInt,
        _ perform: @escaping () -> SignalProducer<Value, Failure>
    ) -> SignalProducer<Value, Failure> {
        let node = Node.call(label, file: file, line: line)
        // Each start is paired with a recorded one as it is made, in the recorded order.
        return SignalProducer(node: node, request: request, causedByStart: true, handlerWhenMade: { [self] in
            guard let recording = boundaryRecording(named: "call", label: label, node: node) else {
                let message = "expected a call labelled \"\(label)\" in the trace; it has none"
                // A call made with a request the recording never made at all is answered as
                // configured for an unrecorded request; by default, a replay error.
                guard case .error = unrecordedRequests else {
                    let json = Recorder.requestJSON(request) ?? "\(request)"
                    return answerUnrecorded(ReplayError(kind: .unrecordedRequest, trace: traceName, node: node.replayDescription,
                                                        record: nil, message: message, request: json,
                                                        nearestRecordedRequests: []),
                                            node: node, as: Value.self, Failure.self)
                }
                fail(.missingCall, node, record: nil, message: message)
                return { _, _ in }
            }
            // Recorded without requests (format 1.0, or a pipeline that did not pass them):
            // paired in order, as a call without a request is.
            if let index = recording.hasRequests ? serve(recording, request: request) : serveInOrder(recording) {
                return { [self] observer, lifetime in redeliver(recording, index, node: node, into: observer, lifetime: lifetime) }
            }
            guard recording.hasRequests else {
                fail(.extraCall, node, record: nil,
                     message: "expected at most \(recording.subscriptions.count) starts of this call, as recorded; "
                        + "the pipeline starts it a \(Self.ordinal(recording.subscriptions.count + 1)) time")
                return { _, _ in }
            }
            return answerUnrecorded(unrecordedRequestError(recording, request: request, node: node, label: label),
                                    node: node, as: Value.self, Failure.self)
        })
    }

    /// The start handler of a call whose request the recording never made (`error` says
    /// which), as `unrecordedRequests` says.
    private func answerUnrecorded<Value, Failure: Swift.Error>(
        _ error: ReplayError, node: Node, as _: Value.Type, _: Failure.Type
    ) -> (Signals.Observer<Value, Failure>, Lifetime) -> Void {
        switch unrecordedRequests {
        case .error:
            lock.withLock { problems.append(error) }
            return { _, _ in }
        case .empty:
            lock.withLock { unserved.append(error) }
            return { observer, _ in observer.sendCompleted() }
        case let .fail(makeError):
            let made = makeError(error)
            guard let failure = made as? Failure else {
                fail(.undecodable, node, record: nil,
                     message: "expected the error for an unrecorded request to be a \(Failure.self); "
                        + "the replay option made a \(type(of: made)) (\(error.message))")
                return { _, _ in }
            }
            lock.withLock { unserved.append(error) }
            return { observer, _ in observer.send(error: failure) }
        }
    }

    public func timer(_ label: String, after delay: TimeInterval, repeating interval: TimeInterval?,
                      on scheduler: DateScheduler, file: StaticString, line: UInt) -> SignalProducer<Date, Never> {
        let node = Node.timer(label, after: delay, repeating: interval, file: file, line: line)
        // Code that changed the timer's timing gets ticks at the new timing, made in virtual
        // time (a what-if replay): the recorded ticks are what the old timing made.
        let recorded = recordedNodes(named: "timer", label: label, node: node)
        if let changed = recorded.first(where: { $0.parameters != node.parameters && $0.parameters.hasPrefix(label + ", ") }),
           !recorded.contains(where: { $0.parameters == node.parameters }) {
            let simulated = SimulatedTimer(label: label, file: "\(file)", line: Int(line), recorded: changed.parameters,
                                           replayed: node.parameters)
            lock.withLock { if !simulating.contains(simulated) { simulating.append(simulated) } }
            return .timer(node: node, after: delay, repeating: interval, on: scheduler)
        }
        // Each start is paired with a recorded one as it is made, in the recorded order.
        return SignalProducer(node: node, handlerWhenMade: { [self] in
            guard let recording = boundaryRecording(named: "timer", label: label, node: node) else {
                fail(.missingTimer, node, record: nil, message: "expected a timer labelled \"\(label)\" in the trace; it has none")
                return { _, _ in }
            }
            return ticks(of: recording, node: node)
        })
    }

    /// A start of a timer made by `SignalProducer.timer(interval:on:)` on one of the
    /// environment's schedulers, as it is made: when the trace recorded that timer (a `timer`
    /// source at the same call site with the same parameters, or elsewhere in the same file, or
    /// in another file, when the code moved and it is the only one there), the k-th start made
    /// re-sends the ticks of its k-th recorded start, with their recorded dates at their
    /// recorded times, as `timer(label…)` does. Without a recording, nil: the timer runs on the
    /// scheduler's lane (a timer added since the recording). More starts than recorded are a
    /// `ReplayError` (`extraTimer`).
    func recordedTicks(of node: Node) -> ((Signals.Observer<Date, Never>, Lifetime) -> Void)? {
        let key = "timer\u{0}\(node.parameters)\u{0}\(node.file):\(node.line)"
        guard let recording = boundaryRecording(key: key, name: "timer", { recordedOperatorTimers(like: node) }) else {
            // A timer at this call site recorded with another interval: the code changed it.
            if let changed = trace.nodes.first(where: {
                $0.kind == .source && $0.name == "timer" && $0.label == nil && $0.file == node.file && $0.line == UInt64(node.line)
            }) {
                let simulated = SimulatedTimer(label: "timer", file: node.file, line: Int(node.line),
                                               recorded: "timer, " + changed.parameters, replayed: "timer, " + node.parameters)
                lock.withLock { if !simulating.contains(simulated) { simulating.append(simulated) } }
            }
            return nil
        }
        return ticks(of: recording, node: node)
    }

    /// The start handler of the timer start being made: its recorded start's ticks, the next
    /// one not served yet; none (and an `extraTimer` error) when all were.
    private func ticks(of recording: BoundaryRecording, node: Node) -> (Signals.Observer<Date, Never>, Lifetime) -> Void {
        guard let index = serveInOrder(recording) else {
            fail(.extraTimer, node, record: nil,
                 message: "expected at most \(recording.subscriptions.count) starts of this timer, as recorded; "
                    + "the pipeline starts it a \(Self.ordinal(recording.subscriptions.count + 1)) time")
            return { _, _ in }
        }
        return { [self] observer, lifetime in
            redeliver(recording, index, node: node, into: observer, lifetime: lifetime, atRecordedTimes: true)
        }
    }

    // MARK: Internals

    /// The trace's operator timers recorded for `node`: unlabelled `timer` sources with its
    /// parameters at its call site, else the one such timer elsewhere in its file, else (the
    /// code moved to another file) the one such timer in the trace.
    private func recordedOperatorTimers(like node: Node) -> [NodeRecord] {
        let alike = trace.nodes.filter {
            $0.kind == .source && $0.name == "timer" && $0.label == nil && $0.parameters == node.parameters
        }
        let inFile = alike.filter { $0.file == node.file }
        let here = inFile.filter { $0.line == UInt64(node.line) }
        if !here.isEmpty || inFile.count > 1 { return here }
        return inFile.isEmpty && alike.count == 1 ? alike : inFile
    }

    /// The lane of the thread an event was recorded on: its scheduler's name when one ran
    /// it (a real trace), else its name (what a virtual trace records).
    private func lane(for thread: UInt64) -> TestScheduler.Lane {
        testScheduler.lane(trace.logicalThreadName(thread))
    }

    /// A boundary's (a call's, a timer's) recorded starts and their events, indexed once per
    /// call site (a replay starts calls thousands of times).
    private struct BoundaryRecording {
        /// The recorded nodes, by name and id: `call 3,7`.
        var nodes: String
        var subscriptions: [SubscriptionRecord]
        var events: [UInt64: [EventRecord]]
        /// The indices of the subscriptions recorded with each request (`requestKey`: its JSON, or
        /// for one left out, its digest), in order.
        var byRequest: [String: [Int]]
        /// Whether any start was recorded with a request.
        var hasRequests: Bool { !byRequest.isEmpty }
    }

    private func boundaryRecording(named name: String, label: String, node: Node) -> BoundaryRecording? {
        boundaryRecording(key: "\(name)\u{0}\(label)\u{0}\(node.file):\(node.line)", name: name) {
            recordedNodes(named: name, label: label, node: node)
        }
    }

    /// The recording of the nodes `find` returns, made once per `key`; nil when there are none.
    private func boundaryRecording(key: String, name: String, _ find: () -> [NodeRecord]) -> BoundaryRecording? {
        if let known = lock.withLock({ boundaryRecordings[key] }) { return known }
        let recorded = find()
        guard !recorded.isEmpty else { return nil }
        let ids = Set(recorded.map(\.id))
        let subscriptions = trace.subscriptions.filter { ids.contains($0.node) }
        var events: [UInt64: [EventRecord]] = [:]
        for position in mergedEventPositions(of: recorded) {
            let record = trace.events[position]
            events[record.subscription, default: []].append(record)
        }
        var byRequest: [String: [Int]] = [:]
        for (index, subscription) in subscriptions.enumerated() {
            if let request = subscription.requestKey { byRequest[request, default: []].append(index) }
        }
        let recording = BoundaryRecording(nodes: name + " " + recorded.map { String($0.id) }.joined(separator: ","),
                                          subscriptions: subscriptions, events: events, byRequest: byRequest)
        lock.withLock { boundaryRecordings[key] = recording }
        return recording
    }

    /// The recorded starts of one node set that served a start of the replay, changed in place
    /// in `served` (a copy taken out and put back copied every mark, once per start), with
    /// where the search for the next unserved one resumes: serving n starts in order, or n
    /// starts with one request, looks at each recorded start once, not n² times.
    private struct Served {
        var used: [Bool]
        /// No start before it is unused.
        var firstUnused = 0
        /// For a request's JSON, the position in its recorded starts (`byRequest`) before
        /// which all are used.
        var firstUnusedExact: [String: Int] = [:]

        init(count: Int) {
            used = Array(repeating: false, count: count)
        }

        /// The first unused start, marked used; nil when all are.
        mutating func takeFirst() -> Int? {
            while firstUnused < used.count, used[firstUnused] { firstUnused += 1 }
            guard firstUnused < used.count else { return nil }
            used[firstUnused] = true
            return firstUnused
        }

        /// The first unused start among `starts` (those recorded with the request `json`),
        /// marked used; nil when all are.
        mutating func takeFirst(of starts: [Int], json: String) -> Int? {
            var position = firstUnusedExact[json] ?? 0
            while position < starts.count, used[starts[position]] { position += 1 }
            firstUnusedExact[json] = position
            guard position < starts.count else { return nil }
            used[starts[position]] = true
            return starts[position]
        }
    }

    /// Runs `body` on what `recording`'s starts served, under the lock, changed in place.
    private func withServed<R>(_ recording: BoundaryRecording, _ body: (inout Served) -> R) -> R {
        lock.withLock { body(&served[recording.nodes, default: Served(count: recording.subscriptions.count)]) }
    }

    /// The first recorded start not served yet, marked served; nil when all are.
    private func serveInOrder(_ recording: BoundaryRecording) -> Int? {
        withServed(recording) { $0.takeFirst() }
    }

    /// The first recorded start with a request equal to `request` not served yet, marked
    /// served; nil when there is none.
    private func serve<Request: Codable & Equatable>(_ recording: BoundaryRecording, request: Request) -> Int? {
        // The same JSON as recorded finds its starts without decoding; a request whose JSON
        // differs can still be equal (`==` may ignore a field), so the rest are decoded.
        // A request too long to keep is found by its digest, as it was recorded.
        let json = Recorder.requestJSON(request).map(RequestDigest.key(of:))
        let exact = json.flatMap { recording.byRequest[$0] } ?? []
        return withServed(recording) { served -> Int? in
            if let json, let index = served.takeFirst(of: exact, json: json) { return index }
            // No start recorded with this JSON is left: one recorded with other JSON may
            // still decode to an equal request.
            var equal: [String: Bool] = [:]
            for (index, subscription) in recording.subscriptions.enumerated() where !served.used[index] {
                guard let recorded = subscription.request, recorded != json else { continue }
                let matches = equal[recorded] ?? ((try? decoder.decode(Request.self, from: Data(recorded.utf8))) == request)
                equal[recorded] = matches
                if matches {
                    served.used[index] = true
                    return index
                }
            }
            return nil
        }
    }

    /// The error for a start whose request no unused recorded start has: whether it was
    /// recorded at all, and the recorded requests nearest to it.
    private func unrecordedRequestError<Request: Codable & Equatable>(
        _ recording: BoundaryRecording, request: Request, node: Node, label: String
    ) -> ReplayError {
        // Shown as asked for; compared as recorded (a request too long to keep, by its digest).
        let json = Recorder.requestJSON(request) ?? "\(request)"
        let key = RequestDigest.key(of: json)
        let recorded = recording.subscriptions.compactMap(\.requestKey)
        var distinct: [String] = []
        for request in recorded where !distinct.contains(request) { distinct.append(request) }
        let nearest = ReplayError.nearest(to: key, among: distinct, count: 3)
        let equalStarts = recorded.filter { $0 == key || (try? decoder.decode(Request.self, from: Data($0.utf8))) == request }.count
        let message: String
        if equalStarts > 0 {
            message = "expected at most \(equalStarts) starts of \"\(label)\" with the request \(Self.shown(json)), as recorded; "
                + "the pipeline starts it a \(Self.ordinal(equalStarts + 1)) time"
        } else {
            message = "expected a recorded start of \"\(label)\" with the request \(Self.shown(json)); the trace records none "
                + "(nearest recorded: \(nearest.map(Self.shown).joined(separator: ", ")))"
        }
        return ReplayError(kind: .unrecordedRequest, trace: traceName, node: node.replayDescription, record: nil,
                           message: message, request: json, nearestRecordedRequests: nearest)
    }

    /// A request's JSON as an error message shows it: whole up to 200 characters, else its
    /// beginning and its size.
    static func shown(_ json: String) -> String {
        guard json.utf8.count > 200, let end = json.index(json.startIndex, offsetBy: 200, limitedBy: json.endIndex),
              end < json.endIndex else { return json }
        return json[..<end] + "… (\(json.utf8.count) bytes)"
    }

    /// Schedules the events of the recorded start `index` at their offsets from its start (a
    /// call's latency), or at their recorded times (a timer's ticks, which must keep their
    /// order with the inputs re-emitted at theirs; never before now), on the recorded threads'
    /// lanes.
    private func redeliver<Value: Decodable, Failure: Swift.Error & Decodable>(
        _ recording: BoundaryRecording, _ index: Int, node: Node,
        into observer: Signals.Observer<Value, Failure>, lifetime: Lifetime, atRecordedTimes: Bool = false
    ) {
        let subscription = recording.subscriptions[index]
        var scheduled: [(offset: Int64, thread: UInt64, event: Event<Value, Failure>)] = []
        var sequences: [UInt64] = []
        let decided = atRecordedTimes ? decisionTimes : nil
        for record in recording.events[subscription.id] ?? [] {
            // At recorded times (a timer's ticks), when its consequences met another thread's,
            // at the time they met (see DecisionTimes).
            let time = decided.flatMap { times in trace.eventPosition(sequence: record.sequence).map { times.time(at: $0) } }
                ?? record.time
            let offset = time.saturatingSubtracting(subscription.time)
            switch record.kind {
            case .value:
                guard let value = decode(Value.self, record, node) else { return }
                scheduled.append((offset, record.thread, .value(value)))
                sequences.append(record.sequence)
            case .failed:
                guard let error = decode(Failure.self, record, node) else { return }
                scheduled.append((offset, record.thread, .failed(error)))
                sequences.append(record.sequence)
            case .completed:
                scheduled.append((offset, record.thread, .completed))
                sequences.append(record.sequence)
            case .interrupted, .pull:
                // The consumer interrupted this start (a newer search replaced it); the replay's
                // consumer does so again by itself, so the boundary does not re-send it. A pull
                // is the consumer's demand, which it makes again by itself too.
                continue
            }
        }
        let now = testScheduler.now
        var origin = atRecordedTimes ? subscription.time : now
        if !atRecordedTimes, let delivering, let request = recording.events[subscription.id]?.first?.causes.last,
           startedInCascade(of: delivering.sequence, request: request) {
            // Started, live, by the cascade of the boundary event being delivered: answered
            // as then, when the cascade's work had taken its time.
            origin = max(now, subscription.time.saturatingAdding(delivering.shift))
        } else if !atRecordedTimes, delivering == nil && now == startedAt
                    || now <= subscription.time && subscription.time.saturatingSubtracting(now) < TimerDecisions.cascadeSlack {
            // Started as the pipeline was set up, live and replayed (a binding's first value
            // into a `flatMap`), or a little earlier than live by a cascade that took no time
            // here (one a timer or a hop began, held to its recorded start): answered as then,
            // so its answers do not overtake another thread's events that came first live.
            origin = max(now, subscription.time)
        }
        let entries = Array(zip(scheduled, sequences))
        /// Schedules entry `index`; a timer's next tick only once this one has been delivered,
        /// as a repeating timer is scheduled again after each tick: work its tick scheduled
        /// for the time of the next (a debounce as long as the interval) runs first, as it did.
        func schedule(_ index: Int) {
            guard index < entries.count else { return }
            let (entry, sequence) = entries[index]
            let due = max(origin.saturatingAdding(entry.offset), testScheduler.now)
            let recorded = subscription.time.saturatingAdding(entry.offset)
            lifetime += lane(for: entry.thread).schedule(after: Self.date(due)) { [weak self] in
                if let self {
                    whileDelivering(sequence: sequence, shift: due.saturatingSubtracting(recorded)) { observer.send(entry.event) }
                } else {
                    observer.send(entry.event)
                }
                if atRecordedTimes { schedule(index + 1) }
            }
        }
        if atRecordedTimes {
            schedule(0)
        } else {
            for index in entries.indices { schedule(index) }
        }
    }

    /// Runs `delivery` of the boundary event `sequence`, delivered `shift` later than recorded.
    private func whileDelivering(sequence: UInt64, shift: Int64, _ delivery: () -> Void) {
        let outer = delivering
        delivering = (sequence, shift)
        delivery()
        delivering = outer
    }

    /// Whether the recorded event `request` (what started a call) was in the synchronous
    /// cascade of the boundary event `root`: its first causes lead back to it on one thread.
    private func startedInCascade(of root: UInt64, request: UInt64) -> Bool {
        let events = trace.events
        guard var position = trace.eventPosition(sequence: request) else { return false }
        for _ in 0..<256 {
            if events.sequence(at: position) == root { return true }
            guard let cause = events.firstCause(at: position), let parent = trace.eventPosition(sequence: cause),
                  events.thread(at: parent) == events.thread(at: position) else { return false }
            position = parent
        }
        return false
    }

    private func recordedNodes(named name: String, label: String, node: Node) -> [NodeRecord] {
        trace.recordedNodes(named: name, label: label, at: node)
    }

    /// The positions in the trace's events of the events of `nodes`, in sequence order.
    private func mergedEventPositions(of nodes: [NodeRecord]) -> [Int] {
        if nodes.count == 1 { return trace.eventPositions(of: nodes[0].id) }
        let events = trace.events
        return nodes.flatMap { trace.eventPositions(of: $0.id) }.sorted { events.sequence(at: $0) < events.sequence(at: $1) }
    }

    /// The value of the event at `position` of the trace's events, as `decode(_:_:_:)` reads
    /// its record, without building the record unless it does not decode plainly.
    private func decode<T: Decodable>(_ type: T.Type, at position: Int, of events: TraceEvents, _ node: Node) -> T? {
        if T.self == Int.self, let integer = events.jsonInteger(at: position) { return unsafeBitCast(Int(integer), to: T.self) }
        if let json = events.json(at: position), let value = Self.plainValue(T.self, json) { return value }
        return decode(type, events[position], node)
    }

    private func decode<T: Decodable>(_ type: T.Type, _ record: EventRecord, _ node: Node) -> T? {
        let (what, article) = record.kind == .failed ? ("error", "an") : ("value", "a")
        guard let json = record.json else {
            let why = record.omittedJSONBytes > 0
                ? "its payload (\(record.omittedJSONBytes) bytes) was over the recorder's limit and left out"
                : record.jsonError.map { "its encode(to:) threw when recorded: \($0)" }
                ?? "it was not Encodable when recorded"
            fail(.missingPayload, node, record: "event seq \(record.sequence)",
                 message: "expected the \(what)'s JSON to re-inject; \(why) (text: \(record.text ?? "none"))")
            return nil
        }
        if let value = Self.plainValue(T.self, json) { return value }
        do {
            return try decoder.decode(T.self, from: Data(json.utf8))
        } catch {
            let shown = json.count > 60 ? String(json.prefix(60)) + "…" : json
            fail(.undecodable, node, record: "event seq \(record.sequence)",
                 message: "expected \(article) \(what) of type \(T.self); the JSON \(shown) does not decode: \(Self.describe(error)). "
                    + "The pipeline now reads \(T.self) where the recording has \(record.text.map { "\"\($0)\"" } ?? "another type"): "
                    + "if the type changed on purpose, record the trace again (a golden: run the test with MARBLES_RECORD=1)")
            return nil
        }
    }

    /// What a missing input's error adds: the labels the trace's inputs have, the nearest
    /// first, and what to do.
    static func inputsRecorded(_ labels: [String], near label: String) -> String {
        let distinct = Array(Set(labels)).sorted()
        guard !distinct.isEmpty else { return " (it records no input at all: was it recorded from another pipeline?)" }
        let nearest = ReplayError.nearest(to: label, among: distinct, count: 3)
        let rest = distinct.count - nearest.count
        return " (its inputs: \(nearest.map { "\"\($0)\"" }.joined(separator: ", "))\(rest > 0 ? " and \(rest) more" : "")). "
            + "Use the label it was recorded with, or, if the input was renamed on purpose, record the trace again "
            + "(a golden: run the test with MARBLES_RECORD=1)"
    }

    /// The value of the commonest payloads written plainly, read without `JSONDecoder` (most
    /// of a replay's time when every input value went through it): an `Int` of at most 18
    /// digits without a leading zero, a `Bool`, a `String` of printable ASCII without escapes.
    /// `JSONDecoder` reads each of these to the same value; anything else is left to it.
    static func plainValue<T>(_ type: T.Type, _ json: String) -> T? {
        var json = json
        return json.withUTF8 { bytes -> T? in
            guard let first = bytes.first else { return nil }
            if T.self == Int.self {
                let negative = first == UInt8(ascii: "-")
                let digits = UnsafeBufferPointer(rebasing: bytes[(negative ? 1 : 0)...])
                guard (1...18).contains(digits.count), digits.count == 1 || digits[0] != UInt8(ascii: "0") else { return nil }
                var magnitude = 0
                for byte in digits {
                    let digit = byte &- UInt8(ascii: "0")
                    guard digit <= 9 else { return nil }
                    magnitude = magnitude &* 10 &+ Int(digit)
                }
                return unsafeBitCast(negative ? -magnitude : magnitude, to: T.self)
            }
            if T.self == Bool.self {
                if bytes.elementsEqual("true".utf8) { return unsafeBitCast(true, to: T.self) }
                if bytes.elementsEqual("false".utf8) { return unsafeBitCast(false, to: T.self) }
                return nil
            }
            if T.self == String.self {
                guard first == UInt8(ascii: "\""), bytes.count >= 2, bytes[bytes.count - 1] == UInt8(ascii: "\"") else { return nil }
                let text = UnsafeBufferPointer(rebasing: bytes[1..<bytes.count - 1])
                guard text.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else {
                    return nil
                }
                return unsafeBitCast(String(decoding: text, as: UTF8.self), to: T.self)
            }
            return nil
        }
    }

    private func fail(_ kind: ReplayError.Kind, _ node: Node, record: String?, message: String) {
        let error = ReplayError(kind: kind, trace: traceName, node: node.replayDescription, record: record, message: message)
        lock.withLock { problems.append(error) }
    }

    static func date(_ nanoseconds: Int64) -> Date {
        Date(timeIntervalSinceReferenceDate: Double(nanoseconds) / 1e9)
    }

    private static func ordinal(_ n: Int) -> String {
        let suffix: String
        switch (n % 10, n % 100) {
        case (_, 11...13): suffix = "th"
        case (1, _): suffix = "st"
        case (2, _): suffix = "nd"
        case (3, _): suffix = "rd"
        default: suffix = "th"
        }
        return "\(n)\(suffix)"
    }

    private static func describe(_ error: Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case let .typeMismatch(_, context), let .valueNotFound(_, context),
             let .keyNotFound(_, context), let .dataCorrupted(context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "at \(path): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    private final class InputBox<Value>: @unchecked Sendable {  // immutable after init
        let signal: Signal<Value, Never>
        init(signal: Signal<Value, Never>) { self.signal = signal }
    }
}

extension Trace {
    /// The name a replay gives the thread `id`: the scheduler that ran on it when the trace
    /// says (a real trace), else the thread's own name (a virtual trace's lane). Two traces of
    /// the same pipeline, one real and one virtual, agree on these names.
    public func logicalThreadName(_ id: UInt64) -> String {
        guard let thread = thread(id) else { return "thread \(id)" }
        return thread.scheduler ?? thread.name
    }

    /// The nodes named `name` (`input`, `call`, `timer`) and labelled `label`: those made at
    /// `node`'s call site if any are, else all of them (a pipeline whose lines moved still
    /// replays). How every replay environment finds what it re-drives.
    package func recordedNodes(named name: String, label: String, at node: Node) -> [NodeRecord] {
        let labelled = nodes.filter { $0.name == name && $0.label == label }
        let here = labelled.filter { $0.file == node.file && $0.line == UInt64(node.line) }
        return here.isEmpty ? labelled : here
    }
}

/// One of a replay environment's schedulers: its lane of the test scheduler, whose immediate
/// actions that are hops wait their recorded queue wait when `waits` is given
/// (`HopLatency.asRecorded`), which runs each operator timer as late as the live run's ran
/// (`TimerDecisions`), and which stands in for the timers started on it with their recorded
/// ticks.
final class ReplayScheduler: TimerReplayingScheduler, TimerDecidingScheduler, @unchecked Sendable {  // set once at creation; the lane and the waits guard themselves
    let lane: TestScheduler.Lane
    let waits: HopWaits?
    /// Weak: the environment holds its schedulers.
    weak var environment: ReplayEnvironment?

    init(lane: TestScheduler.Lane, waits: HopWaits?, environment: ReplayEnvironment) {
        self.lane = lane
        self.waits = waits
        self.environment = environment
    }

    var name: String { lane.name }
    var currentDate: Date { lane.currentDate }

    @discardableResult
    func schedule(_ action: @escaping () -> Void) -> Disposable? {
        guard let waits else { return lane.schedule(action) }
        let now = TestScheduler.time(of: lane.currentDate)
        let run = waits.runTime(scheduler: name, now: now)
        guard run > now else { return lane.schedule(action) }
        return lane.schedule(after: ReplayEnvironment.date(run), action: action)
    }

    @discardableResult
    func schedule(after date: Date, action: @escaping () -> Void) -> Disposable? { lane.schedule(after: date, action: action) }

    @discardableResult
    func scheduleTimer(of node: Node, after date: Date, action: @escaping () -> Void) -> Disposable? {
        guard let decisions = environment?.timerDecisions else { return lane.schedule(after: date, action: action) }
        let due = TestScheduler.time(of: date)
        let run = decisions.runTime(of: node, due: due)
        return lane.schedule(after: run == due ? date : ReplayEnvironment.date(run), action: action)
    }

    @discardableResult
    func schedule(after date: Date, interval: DispatchTimeInterval, leeway: DispatchTimeInterval,
                  action: @escaping () -> Void) -> Disposable? {
        lane.schedule(after: date, interval: interval, leeway: leeway, action: action)
    }

    func recordedTicks(of node: Node) -> ((Signals.Observer<Date, Never>, Lifetime) -> Void)? {
        environment?.recordedTicks(of: node)
    }
}

/// A timer whose timing the replayed code changed (`sensor, every: 0.5s` recorded,
/// `sensor, every: 0.25s` replayed): its ticks are made at the new timing in virtual time, a
/// what-if replay, because the recorded ticks are what the old timing made.
///
/// ```swift
/// func sampling(in environment: Environment) -> Disposable {
///     environment.timer("tick", every: 0.5, on: environment.scheduler("main"))   // recorded every 1s
///         .startWithValues { print("tick", $0) }
/// }
/// let result = try Replayer(contentsOf: URL(fileURLWithPath: "traces/thermostat.trace")).replay(sampling)
/// for timer in result.simulatedTimers { print(timer) }   // timer "tick" … changed its timing
/// ```
public struct SimulatedTimer: Sendable, Hashable, CustomStringConvertible {
    public var label: String
    /// The call site that made it.
    public var file: String
    public var line: Int
    /// The recorded timer's parameters and the replayed one's.
    public var recorded: String
    public var replayed: String

    public var description: String {
        "timer \"\(label)\" (\(file):\(line)) changed its timing: recorded \(recorded.dropFirst(label.count + 2)), "
            + "replayed \(replayed.dropFirst(label.count + 2)); its ticks were simulated at the new timing, not re-sent"
    }
}
