import Foundation
import Locks
import MarbleNotation
import Signals

/// A marble line's events as Signals events, each at its virtual time in nanoseconds (from
/// frame 0, or from the `^` of a hot line).
///
/// ```swift
/// let scheduler = TestScheduler()
/// let timeline: MarbleTimeline<String, Never> = [(time: 1_000_000, event: .value("a")),
///                                                (time: 3_000_000, event: .completed)]
/// let marbles = scheduler.cold(timeline, node: Node.make(.source, "letters", file: #fileID, line: #line))
/// marbles.producer.startWithValues { print($0, "at", scheduler.now) }   // "a at 1000000"
/// scheduler.run()
/// ```
public typealias MarbleTimeline<Value, Failure: Swift.Error> = [(time: Int64, event: Event<Value, Failure>)]

/// What a marble line's symbols stand for: each value symbol's value, and the error `#` sends.
///
/// ```swift
/// import MarbleNotation
///
/// struct Offline: Error {}
/// let symbols = MarbleSymbols<String, Offline>(["a": "swift", "b": "swim"], error: Offline())
/// let timeline = try symbols.timeline(MarbleNotation.parse("-a--b-#"))
/// // [(1 ms, .value("swift")), (4 ms, .value("swim")), (6 ms, .failed(Offline()))], in nanoseconds
/// ```
public struct MarbleSymbols<Value, Failure: Swift.Error> {
    private let value: (String) -> Value?
    private let error: Failure?

    /// Values from `values`; a symbol missing from it stands for itself when `Value` can be
    /// made from its text (`String`, `Character`, `Int`…, any `LosslessStringConvertible`).
    ///
    /// - Parameter error: what `#` sends; nil when the line may not fail (`Never` streams).
    public init(_ values: [String: Value] = [:], error: Failure?) {
        self.value = { symbol in values[symbol] ?? Self.standing(for: symbol) }
        self.error = error
    }

    /// The value a symbol stands for by itself: the symbol when `Value` can be made from its
    /// text (`String`, `Character`, `Int`…, any `LosslessStringConvertible`), else nil.
    public static func standing(for symbol: String) -> Value? {
        if let value = symbol as? Value { return value }
        return (Value.self as? LosslessStringConvertible.Type)?.init(symbol) as? Value
    }

    /// Every value symbol is `value(symbol)` (nil: the symbol has no value).
    public init(error: Failure?, _ value: @escaping (String) -> Value?) {
        self.value = value
        self.error = error
    }

    /// The Signals event one marble stands for.
    ///
    /// - Throws: `MarbleSyntaxError` at the marble's column (on `line`) for a value symbol
    ///   with no value, or a `#` where there is no error to send.
    public func event(_ marble: MarbleNotation.Event, line: Int = 1) throws -> Event<Value, Failure> {
        switch marble.kind {
        case let .value(symbol):
            guard let value = value(symbol) else {
                throw MarbleSyntaxError(line: line, column: marble.column,
                                        message: "expected a \(Value.self) value for '\(symbol)' in the values map")
            }
            return .value(value)
        case .error:
            guard let error else {
                throw MarbleSyntaxError(line: line, column: marble.column,
                                        message: "expected no '#': this stream cannot fail (its error type is \(Failure.self))")
            }
            return .failed(error)
        case .complete:
            return .completed
        case .interrupted:
            return .interrupted
        }
    }

    /// The Signals events of parsed marbles, at their times.
    public func timeline(_ marbles: [MarbleNotation.Event], line: Int = 1) throws -> MarbleTimeline<Value, Failure> {
        try marbles.map { (time: $0.time, event: try event($0, line: line)) }
    }
}

/// When each subscription to a marble stream began and ended, as RxJS's TestScheduler
/// records them (`^` and `!` of a subscription line).
///
/// ```swift
/// let scheduler = TestScheduler()
/// let timeline: MarbleTimeline<Int, Never> = [(time: 2_000_000, event: .completed)]
/// let marbles = scheduler.cold(timeline, node: Node.make(.source, "done", file: #fileID, line: #line))
/// marbles.producer.start()
/// scheduler.run()
/// print(marbles.subscriptions.all)   // one subscription: from 0, ended at 2 ms
/// ```
public final class MarbleSubscriptions: @unchecked Sendable {
    // @unchecked: `log` is only touched under `lock`.
    private let lock = Lock()
    private var log: [MarbleNotation.Subscription] = []
    private let scheduler: TestScheduler

    init(_ scheduler: TestScheduler) { self.scheduler = scheduler }

    /// Every subscription in the order they began: `subscribe` is always set, `unsubscribe`
    /// when it ended (completed, failed or was disposed), nil while it is still active.
    public var all: [MarbleNotation.Subscription] { lock.withLock { log } }

    /// Notes a subscription beginning now, and its end when `lifetime` ends.
    func begin(_ lifetime: Lifetime) {
        let scheduler = self.scheduler
        let index: Int = lock.withLock {
            log.append(MarbleNotation.Subscription(subscribe: scheduler.now, unsubscribe: nil))
            return log.count - 1
        }
        lifetime.observeEnded { [weak self] in
            guard let self else { return }
            self.lock.withLock { self.log[index].unsubscribe = scheduler.now }
        }
    }
}

/// A hot marble stream: one running signal that sends the line's events at their times on a
/// `TestScheduler`, whoever observes it. Events before frame 0 (before a `^`) are never sent.
///
/// Made by ``Signals/TestScheduler/hot(_:node:)``; its events are scheduled by
/// ``scheduleEvents()``, so the caller decides where they fall among same-instant actions.
///
/// ```swift
/// let scheduler = TestScheduler()
/// let timeline: MarbleTimeline<String, Never> = [(time: 1_000_000, event: .value("click"))]
/// let clicks = scheduler.hot(timeline, node: Node.make(.source, "clicks", file: #fileID, line: #line))
/// clicks.signal.observeValues { print($0, "at", scheduler.now) }
/// clicks.scheduleEvents()
/// scheduler.run()   // prints "click at 1000000"
/// ```
public final class HotMarbles<Value, Failure: Swift.Error> {
    /// The running signal: a source node that events are sent into.
    public let signal: Signal<Value, Failure>
    /// The starts of the producers made by ``producer(node:)``.
    public let subscriptions: MarbleSubscriptions
    /// Sends into ``signal`` (what ``scheduleEvents()`` does at each event's time).
    public let input: Signals.Observer<Value, Failure>
    private let timeline: MarbleTimeline<Value, Failure>
    private let scheduler: TestScheduler

    fileprivate init(_ timeline: MarbleTimeline<Value, Failure>, scheduler: TestScheduler, node: Node) {
        self.timeline = timeline
        self.scheduler = scheduler
        (signal, input) = Signal<Value, Failure>.pipe(node: node)
        subscriptions = MarbleSubscriptions(scheduler)
    }

    /// A producer of `node` whose each start observes ``signal`` from then on, logged in
    /// ``subscriptions``. When the line ended before frame 0 (`-|-^`), a start gets that
    /// ending at once, as a late subscriber of an RxJS subject does.
    public func producer(node: Node) -> SignalProducer<Value, Failure> {
        let ending = timeline.first { $0.time < 0 && $0.event.isTerminating }?.event
        let (signal, subscriptions) = (self.signal, self.subscriptions)
        return SignalProducer(node: node) { observer, lifetime in
            subscriptions.begin(lifetime)
            if let ending {
                observer.send(ending)
                return
            }
            lifetime += signal.observe(observer)
        }
    }

    /// Schedules the events from frame 0 on, at their times.
    public func scheduleEvents() {
        for (time, event) in timeline where time >= 0 {
            scheduler.schedule(atNanoseconds: time) { [input] in input.send(event) }
        }
    }
}

/// A cold marble stream: each start sends the line's events anew, at their times from that
/// start, on a `TestScheduler`; disposing a start cancels what it has not sent.
///
/// ```swift
/// let scheduler = TestScheduler()
/// let timeline: MarbleTimeline<String, Never> = [(time: 2_000_000, event: .value("ok"))]
/// let reply = scheduler.cold(timeline, node: Node.make(.source, "reply", file: #fileID, line: #line))
/// reply.producer.startWithValues { print("first start:", $0, scheduler.now) }    // at 2 ms
/// scheduler.advance(by: 0.001)
/// reply.producer.startWithValues { print("second start:", $0, scheduler.now) }   // at 3 ms
/// scheduler.run()
/// ```
public final class ColdMarbles<Value, Failure: Swift.Error> {
    /// The stream; each start is logged in ``subscriptions``.
    public let producer: SignalProducer<Value, Failure>
    /// The starts of ``producer``.
    public let subscriptions: MarbleSubscriptions

    fileprivate init(_ timeline: MarbleTimeline<Value, Failure>, scheduler: TestScheduler, node: Node) {
        let subscriptions = MarbleSubscriptions(scheduler)
        self.subscriptions = subscriptions
        producer = SignalProducer(node: node) { observer, lifetime in
            subscriptions.begin(lifetime)
            let start = scheduler.now
            for (time, event) in timeline {
                // A start near the end of virtual time (after a retry delay of 1e300 ms) has
                // events that can never fall due.
                let (due, overflow) = start.addingReportingOverflow(time)
                if overflow { break }
                lifetime += scheduler.schedule(atNanoseconds: due) { observer.send(event) }
            }
        }
    }
}

extension TestScheduler {
    /// A hot stream of `timeline` on this scheduler: the one way marble lines become running
    /// signals (tests, `expectMarbles`, the virtual environment, `.marbles` specs).
    ///
    /// - Parameter node: the running signal's source node.
    public func hot<Value, Failure>(_ timeline: MarbleTimeline<Value, Failure>, node: Node) -> HotMarbles<Value, Failure> {
        HotMarbles(timeline, scheduler: self, node: node)
    }

    /// A cold stream of `timeline` on this scheduler: the one way marble lines become
    /// producers (tests, `expectMarbles`, the virtual environment's calls, `.marbles` specs).
    ///
    /// - Parameter node: the source node of the producer's starts.
    public func cold<Value, Failure>(_ timeline: MarbleTimeline<Value, Failure>, node: Node) -> ColdMarbles<Value, Failure> {
        ColdMarbles(timeline, scheduler: self, node: node)
    }
}
