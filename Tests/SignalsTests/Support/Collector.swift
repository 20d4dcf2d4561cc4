import Locks
import Signals

/// Collects the events a stream sends, with their virtual times.
final class Collector<Value, Error: Swift.Error> {
    private(set) var events: [(time: Int64, event: Event<Value, Error>)] = []
    let scheduler: TestScheduler

    init(_ scheduler: TestScheduler) { self.scheduler = scheduler }

    var observer: Signals.Observer<Value, Error> {
        Signals.Observer { [unowned self] in self.events.append((self.scheduler.now, $0)) }
    }

    var values: [Value] { events.compactMap { $0.event.value } }
}

/// A probe that keeps what it is told, for tests.
final class TestProbe: Probe, @unchecked Sendable {
    struct Sent: Equatable {
        let node: String
        let subscription: UInt64
        let kind: EventKind
        let value: String?
        let sequence: UInt64
        let causes: [UInt64]
    }

    private let lock = Lock()
    private var nextSequence: UInt64 = 0
    private(set) var subscriptions: [(node: Node, subscription: UInt64, parent: UInt64)] = []
    private(set) var sent: [Sent] = []
    private(set) var disposed: [(node: Node, subscription: UInt64)] = []
    private(set) var hops: [(node: String?, scheduler: String, started: Bool)] = []
    private(set) var marks: [String] = []

    func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64) {
        lock.withLock { subscriptions.append((node, subscription, parent)) }
    }

    func willSend(_ node: Node, subscription: UInt64, kind: EventKind, value: Any?, causes: Causes) -> UInt64 {
        lock.withLock {
            nextSequence += 1
            sent.append(Sent(node: node.name, subscription: subscription, kind: kind,
                             value: value.map { "\($0)" }, sequence: nextSequence, causes: causes.all))
            return nextSequence
        }
    }

    func didDispose(_ node: Node, subscription: UInt64) {
        lock.withLock { disposed.append((node, subscription)) }
    }

    func hopEnqueued(_ node: Node?, subscription: UInt64, scheduler: String) -> UInt64 {
        lock.withLock {
            hops.append((node?.name, scheduler, false))
            return UInt64(hops.count)
        }
    }

    func hopStarted(_ hop: UInt64) {
        lock.withLock { hops[Int(hop) - 1].started = true }
    }

    func mark(_ label: String) {
        lock.withLock { marks.append(label) }
    }

    /// Attaches for the duration of `body`.
    @discardableResult
    func attached<R>(_ body: () throws -> R) rethrows -> R {
        Instrumentation.attach(self)
        defer { Instrumentation.detach(self) }
        return try body()
    }
}
