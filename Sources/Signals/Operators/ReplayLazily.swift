import Locks

// replayLazily(upTo:): one shared start of a producer, replayed to every consumer.

extension SignalProducer {
    /// A producer that shares one start of this producer among all its consumers and replays
    /// the last `capacity` values (and the terminal event, once there is one) to each new
    /// consumer before the live events.
    ///
    /// This producer is started by the first start of the returned one, never before, and at
    /// most once. It keeps running while the returned producer exists or any consumer is
    /// still attached: a consumer that leaves and a later one that arrives see one
    /// continuous stream (ReactiveSwift's semantics). Once the returned producer has been
    /// released and its last consumer has gone, the shared start is interrupted.
    ///
    /// - Precondition: `capacity` is not negative.
    public func replayLazily(upTo capacity: Int, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        precondition(capacity >= 0, "replayLazily(upTo:) needs a capacity of zero or more, got \(capacity)")
        let node = Node.operator("replayLazily", parameters: "upTo: \(capacity)", (self.node, .data), file: file, line: line)
        let buffer = ReplayBuffer<Value, Error>(capacity: capacity)
        // A struct has no deinit: the token, captured by the returned producer and by every
        // running consumer, is released (and so ends the shared start) when all are gone.
        let token = Lifetime.Token()
        let sharedLifetime = Lifetime(token)
        let upstream = self
        return SignalProducer(node: node) { observer, lifetime in
            lifetime.observeEnded { withExtendedLifetime(token) {} }
            guard let id = buffer.attach(observer) else { return }
            lifetime.observeEnded { buffer.detach(id) }
            if buffer.claimStart() {
                sharedLifetime += upstream.startWithSignal { signal, interrupter in
                    signal.observeInternally(buffer.receive)
                    return interrupter
                }
            }
        }
    }
}

/// The shared state of one `replayLazily`: the buffered values, the terminal event, and the
/// consumers attached.
final class ReplayBuffer<Value, Error: Swift.Error>: @unchecked Sendable {  // mutable state only under `lock`
    private let capacity: Int
    /// Held while replaying to a new consumer and while delivering a live event, so that a
    /// consumer sees the buffer and the live events in order, without gaps or repeats.
    /// Recursive: a consumer may start another consumer from inside a delivery.
    private let lock = Lock(recursive: true)
    private var values: [(value: Value, cause: UInt64)] = []
    private var terminal: Signals.Event<Value, Error>?
    private var observers: [(id: UInt64, observer: Signals.Observer<Value, Error>)] = []
    private var nextID: UInt64 = 0
    private var started = false

    init(capacity: Int) { self.capacity = capacity }

    /// Replays the buffer to `observer`; then either sends the stored terminal event (and
    /// returns nil) or attaches the observer for live events and returns its id.
    func attach(_ observer: Signals.Observer<Value, Error>) -> UInt64? {
        lock.lock()
        defer { lock.unlock() }
        if Instrumentation.isAttached {
            // A replayed value is caused by the upstream event that first brought it.
            let context = ProbeContext.current
            for entry in values {
                context.with(ProbeContext.Captured(cause: entry.cause, parentSubscription: context.parentSubscription)) {
                    observer.send(value: entry.value)
                }
            }
        } else {
            for entry in values { observer.send(value: entry.value) }
        }
        if let terminal {
            observer.send(terminal)
            return nil
        }
        nextID += 1
        observers.append((nextID, observer))
        return nextID
    }

    func detach(_ id: UInt64) {
        lock.withLock { observers.removeAll { $0.id == id } }
    }

    /// Whether the caller is the first to start the shared upstream.
    func claimStart() -> Bool {
        lock.withLock {
            defer { started = true }
            return !started
        }
    }

    func receive(_ event: Signals.Event<Value, Error>) {
        lock.lock()
        defer { lock.unlock() }
        guard terminal == nil else { return }
        switch event {
        case let .value(value):
            if capacity > 0 {
                if values.count == capacity { values.removeFirst() }
                let cause = Instrumentation.isAttached ? ProbeContext.current.cause : 0
                values.append((value, cause))
            }
        case .failed, .completed, .interrupted:
            terminal = event
        }
        let receivers = observers
        if event.isTerminating { observers = [] }
        for receiver in receivers { receiver.observer.send(event) }
    }
}
