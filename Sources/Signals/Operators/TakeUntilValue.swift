// take(untilValueFrom:) (RxJS takeUntil): completes at the trigger's first value; the
// trigger's failure fails the result; its completion changes nothing.

/// The state of one `take(untilValueFrom:)` instance. Its end is sent once the lock is let go
/// (`OperatorLock`): ending while holding it could wait for the source delivering into this
/// operator on another thread under a lock of its own, which waits for this one.
final class TakeUntilValueState<Value, Error: Swift.Error>: @unchecked Sendable {  // mutable state only under the OperatorLock
    private let lock: OperatorLock<Value, Error>

    init(output: Observer<Value, Error>) { lock = OperatorLock(output) }

    func send(_ event: Signals.Event<Value, Error>) {
        lock.run {
            guard !lock.isTerminated else { return }
            if case let .value(value) = event {
                lock.send(value)
            } else {
                lock.terminate(event)
            }
        }
    }
}

extension Signal {
    /// RxJS's `takeUntil(notifier)`: forwards events until `trigger` sends its first value,
    /// then completes. A failure of the trigger fails the result; the trigger completing
    /// without a value changes nothing. Contrast `take(until:)`, which also stops when the
    /// trigger completes and takes only triggers that cannot fail.
    public func take<T>(untilValueFrom trigger: Signal<T, Error>, file: StaticString = #fileID, line: UInt = #line)
        -> Signal<Value, Error> {
        take(untilValueFrom: trigger, node: .operator("take", parameters: "untilValueFrom:", (node, .data), (trigger.node, .trigger),
                                                      file: file, line: line))
    }

    func take<T>(untilValueFrom trigger: Signal<T, Error>, node: Node) -> Signal<Value, Error> {
        Signal.combining(node) { observer, lifetime in
            let state = TakeUntilValueState(output: observer)
            lifetime += trigger.observeInternally { event in
                switch event {
                case .value: state.send(.completed)
                case let .failed(error): state.send(.failed(error))
                case .completed, .interrupted: break
                }
            }
            lifetime += self.observeInternally(state.send)
        }
    }
}

extension SignalProducer {
    /// See `Signal.take(untilValueFrom:)` (RxJS's `takeUntil`). The trigger is started with
    /// each start, before this producer, so a trigger that sends at once lets nothing through.
    public func take<T>(untilValueFrom trigger: SignalProducer<T, Error>, file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer<Value, Error> {
        let node = Node.operator("take", parameters: "untilValueFrom:", (self.node, .data), (trigger.node, .trigger),
                                 file: file, line: line)
        return lift(node, trigger, otherFirst: true) { $0.take(untilValueFrom: $1, node: node) }
    }
}
