// sampleLatest(on:) (RxJS sample): at each trigger value, the latest value if a new one came
// since the previous sample; ends with the source.

/// The effects around one `sampleLatest` instance's state machine: events take a transition
/// under the lock and perform its action. The value waiting carries, for the probe, the
/// sequence number of the event that brought it. Its end is sent once the lock is let go
/// (`OperatorLock`): ending while holding it could wait for a trigger delivering into this
/// operator on another thread under a lock of its own, which waits for this one.
final class SampleLatestState<Value, Error: Swift.Error>: @unchecked Sendable {  // mutable state only under the OperatorLock
    private let lock: OperatorLock<Value, Error>
    private var machine = SampleLatestStateMachine<(value: Value, cause: UInt64)>()

    init(output: Observer<Value, Error>) { lock = OperatorLock(output) }

    func source(_ event: Signals.Event<Value, Error>) {
        lock.run {
            if case let .value(value) = event {
                machine.receive((value, Instrumentation.isAttached ? ProbeContext.current.cause : 0))
                return
            }
            if case .forwardTermination = machine.terminate() { lock.terminate(event) }
        }
    }

    /// The trigger failed: the result fails with it.
    func triggerFailed(_ error: Error) {
        source(.failed(error))
    }

    func trigger() {
        lock.run {
            guard case let .emit(latest) = machine.trigger() else { return }
            // The trigger's event is the primary cause; the sampled value is another.
            lock.send(latest.value, otherCauses: [latest.cause])
        }
    }
}

extension Signal {
    /// RxJS's `sample(notifier)`: each time `trigger` sends a value, the latest value of this
    /// signal if it sent one since the previous sample (a value is sampled at most once).
    /// Completes or fails with this signal; the trigger's own end changes nothing. Contrast
    /// `sample(on:)`, which resends the latest value on every trigger and ends when both end.
    public func sampleLatest<T>(on trigger: Signal<T, Never>, file: StaticString = #fileID, line: UInt = #line)
        -> Signal<Value, Error> {
        sampleLatest(on: trigger, node: .operator("sampleLatest(on:)", (node, .data), (trigger.node, .sampler),
                                                  file: file, line: line), failure: neverFails)
    }

    /// As `sampleLatest(on:)` with a trigger that can fail: its failure fails the result, as
    /// a notifier's error does in RxJS.
    public func sampleLatest<T>(on trigger: Signal<T, Error>, file: StaticString = #fileID, line: UInt = #line)
        -> Signal<Value, Error> {
        sampleLatest(on: trigger, node: .operator("sampleLatest(on:)", (node, .data), (trigger.node, .sampler),
                                                  file: file, line: line), failure: { $0 })
    }

    func sampleLatest<T, E>(on trigger: Signal<T, E>, node: Node, failure: @escaping (E) -> Error) -> Signal<Value, Error> {
        Signal.combining(node) { observer, lifetime in
            let state = SampleLatestState(output: observer)
            lifetime += self.observeInternally(state.source)
            lifetime += trigger.observeInternally { event in
                switch event {
                case .value: state.trigger()
                case let .failed(error): state.triggerFailed(failure(error))
                case .completed, .interrupted: break
                }
            }
        }
    }
}

extension SignalProducer {
    /// See `Signal.sampleLatest(on:)` (RxJS's `sample`). `trigger` is started with each start,
    /// after this producer.
    public func sampleLatest<T>(on trigger: SignalProducer<T, Never>, file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer<Value, Error> {
        let node = Node.operator("sampleLatest(on:)", (self.node, .data), (trigger.node, .sampler), file: file, line: line)
        return lift(node, trigger) { $0.sampleLatest(on: $1, node: node, failure: neverFails) }
    }

    /// As `sampleLatest(on:)` with a trigger that can fail: its failure fails the result.
    public func sampleLatest<T>(on trigger: SignalProducer<T, Error>, file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer<Value, Error> {
        let node = Node.operator("sampleLatest(on:)", (self.node, .data), (trigger.node, .sampler), file: file, line: line)
        return lift(node, trigger) { $0.sampleLatest(on: $1, node: node, failure: { $0 }) }
    }
}
