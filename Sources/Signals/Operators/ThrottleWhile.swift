// throttle(while:on:): hold values back while a property says so.

/// The decisions of `throttle(while:on:)`, without effects: what to send (on the scheduler)
/// when a value, a terminal event or a change of the gate arrives.
struct ThrottleWhileStateMachine<Value> {
    private enum State {
        case resumed
        /// Throttled, holding the latest value that came meanwhile.
        case throttled(Value?)
        case terminated
    }

    private var state = State.resumed

    /// A value: sent when resumed, held (replacing the one held) when throttled.
    mutating func value(_ value: Value) -> Value? {
        switch state {
        case .resumed: return value
        case .throttled: state = .throttled(value)
        case .terminated: break
        }
        return nil
    }

    /// A terminal event: sent, and nothing after it.
    mutating func terminate() -> Bool {
        if case .terminated = state { return false }
        state = .terminated
        return true
    }

    /// The gate changed: throttling starts holding values; resuming gives the value held.
    mutating func gate(throttling: Bool) -> Value? {
        switch state {
        case .terminated: return nil
        case let .throttled(held):
            if throttling { return nil }
            state = .resumed
            return held
        case .resumed:
            if throttling { state = .throttled(nil) }
            return nil
        }
    }
}

extension Signal {
    /// Forwards values on `scheduler` while `shouldThrottle` is false; while it is true,
    /// keeps only the latest value and sends it when `shouldThrottle` turns false again.
    /// Terminal events are forwarded on `scheduler`. As in ReactiveSwift, a send scheduled
    /// and not yet run is replaced by the next one scheduled.
    public func throttle<P: PropertyProtocol>(while shouldThrottle: P, on scheduler: Scheduler,
                                              file: StaticString = #fileID, line: UInt = #line) -> Signal
    where P.Value == Bool {
        let gate = shouldThrottle.producer
        return throttle(while: gate, on: scheduler,
                        node: .operator("throttle", parameters: "while:, on: \(scheduler.name)", (node, .data),
                                        (gate.node, .trigger), file: file, line: line))
    }

    func throttle(while gate: SignalProducer<Bool, Never>, on scheduler: Scheduler, node: Node) -> Signal {
        Signal.scheduled(node) { observer, lifetime, core in
            let machine = LockedState(ThrottleWhileStateMachine<Value>())
            let pending = SerialDisposable()
            lifetime += pending
            func send(_ event: Signals.Event<Value, Error>) {
                pending.inner = scheduleHop(on: scheduler, of: core) { observer.send(event) }
            }
            // The gate is part of the operator: observed without a sink node of its own. A
            // repeated gate value changes nothing (the machine ignores it).
            lifetime += gate.startWithSignal { signal, interrupter -> Disposable in
                signal.observeInternally { event in
                    guard case let .value(throttling) = event,
                          let held = machine.withLock({ $0.gate(throttling: throttling) }) else { return }
                    send(.value(held))
                }
                return interrupter
            }
            lifetime += self.observeInternally { event in
                switch event {
                case let .value(value):
                    if let value = machine.withLock({ $0.value(value) }) { send(.value(value)) }
                case .failed, .completed, .interrupted:
                    if machine.withLock({ $0.terminate() }) { send(event) }
                }
            }
        }
    }
}

extension SignalProducer {
    /// Forwards the values of each start on `scheduler` while `shouldThrottle` is false,
    /// keeping only the latest while it is true (see `Signal.throttle(while:on:)`).
    public func throttle<P: PropertyProtocol>(while shouldThrottle: P, on scheduler: Scheduler,
                                              file: StaticString = #fileID, line: UInt = #line) -> SignalProducer
    where P.Value == Bool {
        let gate = shouldThrottle.producer
        let node = Node.operator("throttle", parameters: "while:, on: \(scheduler.name)", (self.node, .data),
                                 (gate.node, .trigger), file: file, line: line)
        return lift(node) { $0.throttle(while: gate, on: scheduler, node: node) }
    }
}
