import Locks
import Signals

/// Where the outside world enters an async pipeline: its inputs, its service calls and its
/// clock, the boundaries of nondeterminism (as `Environment` is for `Signals` pipelines).
///
/// Live (`LiveAsyncEnvironment`) they are real: values a script or a user sends, the service's
/// answers, a real clock (or, in a test, a virtual one). Replayed (`ReplayAsyncEnvironment`)
/// they come from a trace: the recorded inputs at their recorded times, each call's recorded
/// answer served by its request, and a virtual clock, so the code between them runs again and
/// its steps can be compared with the recording's (`TraceDiff`, `marbles diff`).
///
/// ```swift
/// struct Hit: Codable, Sendable { var title: String }
/// func searches(in environment: some AsyncEnvironment,
///               search: @escaping @Sendable (String) async throws -> [Hit]) -> some AsyncSequence<[Hit], any Error> {
///     environment.input("query", of: String.self)
///         .debounce(for: .milliseconds(300), clock: environment.clock)
///         .map { query in try await environment.call("search", request: query) { try await search(query) } }
/// }
/// ```
///
/// Both record the same nodes into a running recorder: an `input` node per input label (one
/// subscription, an event per value sent and its end) and a `call` node per call label (a
/// subscription per call, carrying its request, then its answer), as a `Signals`
/// environment's.
public protocol AsyncEnvironment: AnyObject, Sendable {
    /// The clock the pipeline's timing operators take (`debounce(for:clock:)`).
    var clock: EnvironmentClock { get }

    /// The values sent into the input `label` (one iterator at a time). The same label gives
    /// the same input.
    func input<Value: Codable & Sendable>(_ label: String, of type: Value.Type, file: StaticString, line: UInt)
        -> EnvironmentInput<Value>

    /// A call across the boundary carrying `request` (a search text, a photo id). Live,
    /// `perform` does the work; replayed, the answer recorded for an equal request comes back
    /// after its recorded latency, and `perform` is not called.
    func call<Request: Codable & Equatable & Sendable, Value: Codable & Sendable>(
        _ label: String, request: Request, file: StaticString, line: UInt,
        _ perform: () async throws -> Value
    ) async throws -> Value

    /// A timer across the boundary (`EnvironmentTimer`): the clock's instant every
    /// `interval`. Live, the clock's ticks; replayed, the recorded ones.
    func timer(_ label: String, every interval: Duration, file: StaticString, line: UInt) -> EnvironmentTimer
}

extension AsyncEnvironment {
    /// The values sent into the input `label`.
    public func input<Value: Codable & Sendable>(_ label: String, of type: Value.Type = Value.self,
                                                 file: StaticString = #fileID, line: UInt = #line) -> EnvironmentInput<Value> {
        input(label, of: type, file: file, line: line)
    }

    /// A call across the boundary carrying `request`, found in traces by its label and
    /// matched by its request: `try await environment.call("search", request: text) { … }`.
    public func call<Request: Codable & Equatable & Sendable, Value: Codable & Sendable>(
        _ label: String, request: Request, file: StaticString = #fileID, line: UInt = #line,
        _ perform: () async throws -> Value
    ) async throws -> Value {
        try await call(label, request: request, file: file, line: line, perform)
    }

    /// A timer across the boundary, found in traces by its label: the clock's instant every
    /// `interval`, as `AsyncTimerSequence(interval:clock:)` gives it.
    public func timer(_ label: String, every interval: Duration, file: StaticString = #fileID,
                      line: UInt = #line) -> EnvironmentTimer {
        timer(label, every: interval, file: file, line: line)
    }
}

/// An environment's clock: real (continuous time from when the environment was made) or
/// virtual (a `VirtualTimeDriver`'s), one type for both, so a pipeline is written once.
///
/// ```swift
/// let live = LiveAsyncEnvironment()                       // a real clock
/// let test = LiveAsyncEnvironment(clock: VirtualTimeDriver().clock)   // virtual
/// _ = (live.clock.now, test.clock.now)
/// ```
public struct EnvironmentClock: Clock, Sendable {
    /// A point of the clock: its offset from the clock's origin.
    public struct Instant: InstantProtocol, Sendable, CustomStringConvertible {
        /// The time since the clock's origin.
        public var offset: Swift.Duration

        public init(offset: Swift.Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Swift.Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Swift.Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        public var description: String { "\(offset)" }
    }

    /// Swift's `Duration`, as the standard clocks': `.milliseconds(300)`.
    public typealias Duration = Swift.Duration

    private enum Source: Sendable {
        case real(origin: ContinuousClock.Instant)
        case virtual(VirtualClock)
    }

    private let source: Source

    /// A real clock whose origin is now.
    public static func real() -> EnvironmentClock { EnvironmentClock(source: .real(origin: ContinuousClock.now)) }

    /// The virtual clock `clock`; its instants are its nanoseconds from virtual time zero.
    public static func virtual(_ clock: VirtualClock) -> EnvironmentClock { EnvironmentClock(source: .virtual(clock)) }

    /// The virtual clock underneath, if it is one.
    public var virtualClock: VirtualClock? {
        if case let .virtual(clock) = source { return clock }
        return nil
    }

    public var now: Instant {
        switch source {
        case let .real(origin): return Instant(offset: origin.duration(to: .now))
        case let .virtual(clock): return Instant(offset: .nanoseconds(clock.now.nanoseconds))
        }
    }

    public var minimumResolution: Swift.Duration {
        switch source {
        case .real: return ContinuousClock().minimumResolution
        case .virtual: return .nanoseconds(1)
        }
    }

    public func sleep(until deadline: Instant, tolerance: Swift.Duration? = nil) async throws {
        switch source {
        case let .real(origin):
            try await ContinuousClock().sleep(until: origin.advanced(by: deadline.offset), tolerance: tolerance)
        case let .virtual(clock):
            try await clock.sleep(until: VirtualClock.Instant(nanoseconds: VirtualClock.Instant.nanoseconds(of: deadline.offset)),
                                  tolerance: tolerance)
        }
    }
}

/// An input of an `AsyncEnvironment`: the values sent into it, in order, until it is
/// finished. One iterator at a time. Each element is caused by its input's recorded event,
/// so a tap downstream (`.marbles("label")`) links to the input node and its elements name
/// the value that caused them.
///
/// ```swift
/// let live = LiveAsyncEnvironment()
/// let query: EnvironmentInput<String> = live.input("query")
/// let trimmed = query.map { $0.trimmingCharacters(in: .whitespaces) }.marbles("trimmed")
/// ```
public struct EnvironmentInput<Element: Sendable>: AsyncSequence, Sendable, Tapped {
    /// An input never fails: it finishes.
    public typealias Failure = Never
    /// The input's node in a recording.
    public let node: Node
    let stream: AsyncStream<Delivery>
    var marblesNode: Node { node }

    /// A value sent, and its event's number in the recording (0 when nothing recorded it).
    struct Delivery: Sendable {
        let value: Element
        let sequence: UInt64
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: stream.makeAsyncIterator(), node: node)
    }

    /// An iteration of an input.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<Delivery>.Iterator
        let node: Node

        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Element? {
            guard let delivery = await base.next(isolation: actor) else { return nil }
            Pull.current?.add(delivery.sequence, from: node)
            return delivery.value
        }
    }
}

/// The recording side of an environment input, live or replayed: its node, its subscription
/// (reported when it was made, if a recorder ran), and the stream its values go into.
final class InputPipe<Value: Sendable>: AnyInputPipe, @unchecked Sendable {  // `finished` under `lock`
    let node: Node
    let input: EnvironmentInput<Value>
    private let continuation: AsyncStream<EnvironmentInput<Value>.Delivery>.Continuation
    private let subscription: UInt64
    private let lock = Lock()
    private var finished = false

    init(label: String, file: StaticString, line: UInt) {
        node = .input(label, file: file, line: line)
        let (stream, continuation) = AsyncStream<EnvironmentInput<Value>.Delivery>.makeStream()
        self.continuation = continuation
        input = EnvironmentInput(node: node, stream: stream)
        subscription = Instrumentation.newSubscription()
        Instrumentation.probe?.didSubscribe(node, subscription: subscription, parent: 0)
    }

    var valueType: String { "\(Value.self)" }
    var isFinished: Bool { lock.withLock { finished } }

    /// Records `value` as the input's event and delivers it; false when it was finished.
    @discardableResult
    func send(_ value: Value) -> Bool {
        guard !isFinished else { return false }
        let sequence = BoundaryEvents.report(node, subscription: subscription, .value, value)
        continuation.yield(.init(value: value, sequence: sequence))
        return true
    }

    func finish() {
        guard lock.withLock({ defer { finished = true }; return !finished }) else { return }
        BoundaryEvents.report(node, subscription: subscription, .completed, Value?.none)
        Instrumentation.probe?.didDispose(node, subscription: subscription)
        continuation.finish()
    }
}

/// An input pipe, whatever its value type.
protocol AnyInputPipe: AnyObject {
    var valueType: String { get }
    var isFinished: Bool { get }
    func finish()
}

/// How an environment reports its boundaries' events to a running recorder.
enum BoundaryEvents {
    /// Reports an event of `node`'s `subscription` with `payload` (a value, an error), caused
    /// by `cause` (0: nothing but itself); returns its number (0 when no recorder runs).
    @discardableResult
    static func report<Payload>(_ node: Node, subscription: UInt64, _ kind: EventKind, _ payload: Payload?,
                                cause: UInt64 = 0) -> UInt64 {
        guard let probe = Instrumentation.probe else { return 0 }
        return ProbeContext.withCurrent { context in
            let saved = (context.cause, context.otherCauses)
            context.cause = cause
            context.otherCauses = []
            defer { (context.cause, context.otherCauses) = saved }
            if let payload {
                return withUnsafePointer(to: payload) {
                    probe.willSend(node, subscription: subscription, kind: kind, value: $0, context: context)
                }
            }
            return probe.willSend(node, subscription: subscription, kind: kind, value: UnsafePointer<Payload>?.none,
                                  context: context)
        }
    }

    /// Reports a call's start with its request; returns the call's subscription. A call made
    /// while a tap pulls in this task (in a `map` a tap downstream iterates) is a child of that
    /// tap's subscription, so the pipeline figure hangs it from the operator that made it, as it
    /// hangs a `Signals` call from its `flatMap`. A call made in work that follows a tap's
    /// element (`MarbledSequence.following`) is a child of that tap's subscription, done for
    /// the element: the figure draws it downstream of the tap.
    static func startCall<Request: Encodable>(_ node: Node, request: Request) -> UInt64 {
        let subscription = Instrumentation.newSubscription()
        guard let probe = Instrumentation.probe else { return subscription }
        let pull = Pull.current
        let parent = pull.flatMap { $0.isInCurrentTask ? $0.subscription : nil }
            ?? Following.current(for: probe)?.subscription ?? pull?.subscription ?? 0
        probe.didSubscribe(node, subscription: subscription, parent: parent, request: request)
        return subscription
    }

    /// Reports how a call ended: its value and completion, its failure, or its interruption.
    /// In work that follows a tap's element (and not pulled by a tap in this task), they are
    /// caused by what that work follows (the element, or the answer this task last received),
    /// and the value or failure becomes what the task's next events are caused by.
    static func endCall<Value>(_ node: Node, subscription: UInt64, _ outcome: Result<Value, any Error>) {
        guard let probe = Instrumentation.probe else { return }
        let following = Pull.current?.isInCurrentTask == true ? nil : Following.current(for: probe)
        let cause = following?.cause ?? 0
        switch outcome {
        case let .success(value):
            let answer = report(node, subscription: subscription, .value, value, cause: cause)
            following?.answered(answer)
            report(node, subscription: subscription, .completed, Value?.none, cause: cause)
        case let .failure(error) where error is CancellationError:
            report(node, subscription: subscription, .interrupted, Value?.none, cause: cause)
        case let .failure(error):
            let answer = report(node, subscription: subscription, .failed, error, cause: cause)
            following?.answered(answer)
        }
        probe.didDispose(node, subscription: subscription)
    }
}
