// on(...): side effects at each event, without changing the stream.

extension Signal {
    /// Runs side effects for the events passing through, before forwarding each one.
    ///
    /// - Parameters:
    ///   - event: every event.
    ///   - failed: each failure.
    ///   - completed: completion.
    ///   - interrupted: interruption.
    ///   - terminated: after any terminal event.
    ///   - disposed: when the resulting signal ends (terminated or detached).
    ///   - value: each value.
    ///   - file: the call site's file, recorded with the operator's node.
    ///   - line: the call site's line, recorded with the operator's node.
    ///
    /// ReactiveCocoa 2 spells some of these `doNext:`, `doCompleted:`, `doError:`.
    public func on(
        event: ((Signals.Event<Value, Error>) -> Void)? = nil,
        failed: ((Error) -> Void)? = nil,
        completed: (() -> Void)? = nil,
        interrupted: (() -> Void)? = nil,
        terminated: (() -> Void)? = nil,
        disposed: (() -> Void)? = nil,
        value: ((Value) -> Void)? = nil,
        file: StaticString = #fileID, line: UInt = #line
    ) -> Signal {
        let effects = SideEffects(event: event, failed: failed, completed: completed, interrupted: interrupted,
                                  terminated: terminated, disposed: disposed, value: value)
        return on(effects, node: .operator("on", parameters: effects.names, (node, .data), file: file, line: line))
    }

    /// ReactiveCocoa 2's `doNext:`: `on(value:)`, and recorded as it.
    public func doNext(file: StaticString = #fileID, line: UInt = #line, _ action: @escaping (Value) -> Void) -> Signal {
        on(SideEffects(value: action), node: .operator("on", parameters: "value:", (node, .data), file: file, line: line))
    }

    /// ReactiveCocoa 2's `doCompleted:`: `on(completed:)`, and recorded as it.
    public func doCompleted(file: StaticString = #fileID, line: UInt = #line, _ action: @escaping () -> Void) -> Signal {
        on(SideEffects(completed: action), node: .operator("on", parameters: "completed:", (node, .data), file: file, line: line))
    }

    /// ReactiveCocoa 2's `doError:`: `on(failed:)`, and recorded as it.
    public func doError(file: StaticString = #fileID, line: UInt = #line, _ action: @escaping (Error) -> Void) -> Signal {
        on(SideEffects(failed: action), node: .operator("on", parameters: "failed:", (node, .data), file: file, line: line))
    }

    @usableFromInline
    func on(_ effects: SideEffects<Value, Error>, node: Node) -> Signal {
        Signal(node: node, fusedWith: self) { observer, lifetime in
            if let disposed = effects.disposed { lifetime.observeEnded(disposed) }
            lifetime += self.observeInternally { event in
                effects.run(event)
                observer.send(event)
            }
        }
    }
}

/// The side effects of one `on(...)`.
@usableFromInline
struct SideEffects<Value, Error: Swift.Error> {
    var starting: (() -> Void)? = nil
    var started: (() -> Void)? = nil
    var event: ((Signals.Event<Value, Error>) -> Void)? = nil
    var failed: ((Error) -> Void)? = nil
    var completed: (() -> Void)? = nil
    var interrupted: (() -> Void)? = nil
    var terminated: (() -> Void)? = nil
    var disposed: (() -> Void)? = nil
    var value: ((Value) -> Void)? = nil

    /// The labels of the effects given, as the node's parameters: `value:completed:`.
    var names: String {
        let given: [(String, Bool)] = [
            ("starting", starting != nil), ("started", started != nil), ("event", event != nil),
            ("failed", failed != nil), ("completed", completed != nil), ("interrupted", interrupted != nil),
            ("terminated", terminated != nil), ("disposed", disposed != nil), ("value", value != nil),
        ]
        return given.filter(\.1).map { $0.0 + ":" }.joined()
    }

    func run(_ received: Signals.Event<Value, Error>) {
        event?(received)
        switch received {
        case let .value(v): value?(v)
        case let .failed(error): failed?(error)
        case .completed: completed?()
        case .interrupted: interrupted?()
        }
        if received.isTerminating { terminated?() }
    }
}

extension SignalProducer {
    /// Runs side effects for this producer's starts and events, before forwarding each
    /// event.
    ///
    /// - Parameters:
    ///   - starting: before each start begins its work.
    ///   - started: after each start has begun its work.
    ///   - event: every event.
    ///   - failed: each failure.
    ///   - completed: completion.
    ///   - interrupted: interruption.
    ///   - terminated: after any terminal event.
    ///   - disposed: when the start ends (terminated or interrupted).
    ///   - value: each value.
    ///   - file: the call site's file, recorded with the operator's node.
    ///   - line: the call site's line, recorded with the operator's node.
    ///
    /// ReactiveCocoa 2 spells some of these `doNext:`, `doCompleted:`, `doError:`.
    public func on(
        starting: (() -> Void)? = nil,
        started: (() -> Void)? = nil,
        event: ((Signals.Event<Value, Error>) -> Void)? = nil,
        failed: ((Error) -> Void)? = nil,
        completed: (() -> Void)? = nil,
        interrupted: (() -> Void)? = nil,
        terminated: (() -> Void)? = nil,
        disposed: (() -> Void)? = nil,
        value: ((Value) -> Void)? = nil,
        file: StaticString = #fileID, line: UInt = #line
    ) -> SignalProducer {
        let effects = SideEffects(starting: starting, started: started, event: event, failed: failed,
                                  completed: completed, interrupted: interrupted, terminated: terminated,
                                  disposed: disposed, value: value)
        return on(effects, node: .operator("on", parameters: effects.names, (self.node, .data), file: file, line: line))
    }

    /// ReactiveCocoa 2's `doNext:`: `on(value:)`, and recorded as it.
    public func doNext(file: StaticString = #fileID, line: UInt = #line, _ action: @escaping (Value) -> Void) -> SignalProducer {
        on(SideEffects(value: action), node: .operator("on", parameters: "value:", (self.node, .data), file: file, line: line))
    }

    /// ReactiveCocoa 2's `doCompleted:`: `on(completed:)`, and recorded as it.
    public func doCompleted(file: StaticString = #fileID, line: UInt = #line, _ action: @escaping () -> Void) -> SignalProducer {
        on(SideEffects(completed: action), node: .operator("on", parameters: "completed:", (self.node, .data), file: file, line: line))
    }

    /// ReactiveCocoa 2's `doError:`: `on(failed:)`, and recorded as it.
    public func doError(file: StaticString = #fileID, line: UInt = #line, _ action: @escaping (Error) -> Void) -> SignalProducer {
        on(SideEffects(failed: action), node: .operator("on", parameters: "failed:", (self.node, .data), file: file, line: line))
    }

    @usableFromInline
    func on(_ effects: SideEffects<Value, Error>, node: Node) -> SignalProducer {
        let upstream = self
        return SignalProducer(node: node) {
            let instance = upstream.instantiate()
            let signal = instance.signal.on(effects, node: node)
            signal.core.resources.add(instance.interrupter)
            return .init(signal: signal, interrupter: instance.interrupter) {
                effects.starting?()
                instance.begin()
                effects.started?()
            }
        }
    }
}
