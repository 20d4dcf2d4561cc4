import Locks

// publish, connect, autoconnect: ReactiveCocoa 2's multicast connection.

extension SignalProducer {
    /// A connection that multicasts one start of this producer to every observer of its
    /// `signal` (ReactiveCocoa 2: `publish`, a `RACMulticastConnection`). Nothing starts
    /// until `connect()` or a start of `autoconnect()`.
    ///
    /// Unlike `replayLazily(upTo:)`, nothing is replayed: an observer sees only the events
    /// sent after it attached.
    public func publish(file: StaticString = #fileID, line: UInt = #line) -> MulticastConnection<Value, Error> {
        MulticastConnection(source: self,
                            node: .operator("publish", (node, .data), file: file, line: line))
    }
}

/// One shared start of a producer and the hot signal that carries its events (ReactiveCocoa
/// 2's `RACMulticastConnection`). Made by `SignalProducer.publish()`.
///
/// ```swift
/// let connection = SignalProducer([1, 2, 3]).publish()
/// connection.signal.observeValues { print("first observer", $0) }
/// connection.signal.observeValues { print("second observer", $0) }
/// connection.connect()   // one start; both observers see 1, 2, 3
/// ```
public final class MulticastConnection<Value, Error: Swift.Error>: @unchecked Sendable {  // connection only under `lock`
    /// The shared events: those of the source's one start, from when it is connected.
    public let signal: Signal<Value, Error>
    private let input: Signals.Observer<Value, Error>
    private let source: SignalProducer<Value, Error>
    private let lock = Lock()
    private var connection: SerialDisposable?

    init(source: SignalProducer<Value, Error>, node: Node) {
        let core = SignalCore<Value, Error>(node: node, detachWhenUnobserved: false)
        self.signal = Signal(core: core)
        self.input = core.input
        self.source = source
    }

    /// Starts the source, once: later calls return the same disposable. Disposing it
    /// interrupts the source, which interrupts `signal`; the connection never starts again.
    @discardableResult
    public func connect() -> Disposable {
        let (connection, isFirst): (SerialDisposable, Bool) = lock.withLock {
            if let connection = self.connection { return (connection, false) }
            let connection = SerialDisposable()
            self.connection = connection
            return (connection, true)
        }
        if isFirst {
            let input = self.input
            source.startWithSignal { signal, interrupter in
                connection.inner = interrupter
                // The connection is the published signal's observation of the source, whichever
                // start (an `autoconnect`'s) made it.
                signal.observeInternally(by: self.signal.subscription, input.send)
            }
        }
        return connection
    }

    /// A producer whose first start connects, and whose starts all observe `signal`; when the
    /// last running start ends, the connection is disposed (ReactiveCocoa 2: `autoconnect`).
    /// It never reconnects: a start after that is interrupted at once.
    public func autoconnect(file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("autoconnect", (signal.node, .data), file: file, line: line)
        let consumers = Protected(0)
        // Each start observes the published signal: noted as its instance is made (see
        // `SignalProducer.init(_:)`).
        return SignalProducer(node: node, handlerWhenMade: { [self] in
            signal.noteObservedByInstanceBeingMade()
            return { [self] observer, lifetime in
                consumers.modify { $0 += 1 }
                lifetime += signal.observeInternally(observer.send)
                let connection = connect()
                lifetime.observeEnded {
                    let last = consumers.modify { count -> Bool in
                        count -= 1
                        return count == 0
                    }
                    if last { connection.dispose() }
                }
            }
        })
    }
}
