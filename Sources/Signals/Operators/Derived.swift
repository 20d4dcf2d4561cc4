/// The plumbing every operator is built from.
extension Node {
    /// The node of an operator applied at a call site to the given upstream nodes.
    public static func `operator`(
        _ name: String, parameters: String = "", _ upstream: (Node, EdgeRole)...,
        file: StaticString, line: UInt
    ) -> Node {
        make(.operator, name, parameters: parameters, upstream: upstream.map { Edge(node: $0.0, role: $0.1) },
             file: file, line: line)
    }
}

extension Signal {
    /// A signal of `node` fed by this one: `body` gets each upstream event and the new
    /// signal's input. The new signal stops observing this one when it terminates, or when
    /// its last observer leaves.
    ///
    /// The new signal is fused with this one: it shares this signal's serializer, and the
    /// input `body` gets sends without a lock of its own. So `body` must send into that input
    /// only while it runs (synchronously), never keep it to send later or from another thread;
    /// an operator that does (a timer, a scheduled action) is built with `combining` instead.
    @inlinable
    public func derive<U, F>(
        _ node: Node,
        _ body: @escaping (Signals.Event<Value, Error>, Signals.Observer<U, F>) -> Void
    ) -> Signal<U, F> {
        Signal<U, F>(node: node, fusedWith: self) { observer, lifetime in
            lifetime += self.observeInternally { event in body(event, observer) }
        }
    }

    /// A signal of `node` fed by this one that sends on what `values` makes of each value and
    /// passes the terminal events on as they are: `map`, `filter`, `compactMap`, `scan`.
    ///
    /// `values` gets the new signal's instance and returns what takes each value; that sends
    /// into the instance directly (`sendSerialized(value:)`), from inside this signal's
    /// delivery as `derive(_:_:)` does. A value is lent from stage to stage as it is: no event
    /// is made around it and no observer's closure stands between the stages. Making an event
    /// of a value copies it, and reading it back out copies it again: a retain and a release
    /// of every reference the value holds, at every stage.
    @inlinable
    func derive<U>(_ node: Node, values: (SignalCore<U, Error>) -> (Value) -> Void) -> Signal<U, Error> {
        let core = SignalCore<U, Error>(node: node, serializer: self.core.serializer, detachWhenUnobserved: true)
        let send = values(core)
        let observer = Signals.Observer<Value, Error>({ event in
            switch event {
            case let .value(value): send(value)
            case let .failed(error): core.sendSerialized(.failed(error))
            case .completed: core.sendSerialized(.completed)
            case .interrupted: core.sendSerialized(.interrupted)
            }
        }, value: send)
        if Instrumentation.isAttached { Instrumentation.link(observer: core, observed: self.core) }
        core.resources += self.core.add(observer)
        return Signal<U, Error>(core: core)
    }

    /// A signal of `node` built by `generator` with several inputs (or sending from
    /// scheduled actions): its sends take turns on a serializer of its own, because they may
    /// come from different threads.
    @inlinable
    public static func combining(
        _ node: Node,
        _ generator: (Signals.Observer<Value, Error>, Lifetime) -> Void
    ) -> Signal {
        Signal(node: node, detachWhenUnobserved: true, generator)
    }
}

/// An operator's mutable state (an accumulator, a count), reached through a pointer.
///
/// A closure's captured `var` or a class's stored `var` is checked for exclusive access at
/// run time on every event (`swift_beginAccess`), because the compiler cannot see that an
/// operator's events arrive one at a time. They do — a single-upstream operator's signal is
/// fed by one serialised upstream — so the check buys nothing on this path and is skipped.
/// `LockedState` adds a lock to it for state that several threads reach.
@usableFromInline
class OperatorState<State>: @unchecked Sendable {  // the pointee is reached only by serialised sends (or under a subclass's lock)
    @usableFromInline let pointer: UnsafeMutablePointer<State>

    @inlinable
    init(_ initial: State) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: initial)
    }

    deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}
