import Locks

/// A hot stream: events happen whether or not anyone observes, and each observer sees the
/// events sent after it started observing.
///
/// A `Signal` is made by `Signal.pipe()` (you send into its input), by `Signal.init` (a
/// generator sends), by operators on other signals, or by starting a `SignalProducer`.
/// Every signal is a running instance — a *subscription* — of an instrumented `Node`.
public final class Signal<Value, Error: Swift.Error>: @unchecked Sendable {  // immutable; the core guards its state
    public typealias Observer = Signals.Observer<Value, Error>

    @usableFromInline let core: SignalCore<Value, Error>

    /// The node this signal is an instance of.
    public var node: Node { core.node }
    /// This instance's subscription id (process-unique).
    public var subscription: UInt64 { core.subscription }

    @usableFromInline
    init(core: SignalCore<Value, Error>) { self.core = core }

    /// A signal whose events `generator` sends through the given observer. The lifetime ends
    /// when the signal terminates; add resources to it to release them then.
    public convenience init(
        file: StaticString = #fileID, line: UInt = #line,
        _ generator: (Observer, Lifetime) -> Void
    ) {
        self.init(node: Node.make(.source, "Signal", file: file, line: line), serialized: true, generator)
    }

    /// A signal of `node`. `serialized` makes concurrent senders take turns; operators with
    /// one upstream pass false, because their upstream already delivers one event at a time.
    /// Inlinable, like the operators and `pipe`, so that the send closure is made where the
    /// value type is known: the whole send path then specialises in the user's module instead
    /// of looking up generic metadata on every event.
    @inlinable
    convenience init(node: Node, serialized: Bool, detachWhenUnobserved: Bool = false,
                     _ generator: (Observer, Lifetime) -> Void) {
        let core = SignalCore<Value, Error>(node: node, serialized: serialized,
                                            detachWhenUnobserved: detachWhenUnobserved)
        self.init(core: core)
        generator(Observer(core.send), Lifetime(core.resources))
    }

    /// A signal you send into: `input` sends to every observer of `output`.
    ///
    /// - Parameters:
    ///   - label: a name for the source node, to find it in traces and replays.
    ///   - disposable: disposed when the signal terminates.
    ///   - file: the call site's file, recorded with the source node.
    ///   - line: the call site's line, recorded with the source node.
    @inlinable
    public static func pipe(
        named label: String? = nil,
        disposable: Disposable? = nil,
        file: StaticString = #fileID, line: UInt = #line
    ) -> (output: Signal, input: Observer) {
        let node = Node.make(.source, "pipe", label: label, file: file, line: line)
        var input: Observer!
        let signal = Signal(node: node, serialized: true) { observer, lifetime in
            input = observer
            lifetime += disposable
        }
        return (signal, input)
    }

    /// A signal you send into, as an instance of a given node: how an `Environment` defined
    /// outside this module (a replay) makes its inputs the same nodes a live run makes.
    public static func pipe(node: Node) -> (output: Signal, input: Observer) {
        var input: Observer!
        let signal = Signal(node: node, serialized: true) { observer, _ in input = observer }
        return (signal, input)
    }

    /// Names this signal's node (shown in figures, used to find sources in a replay).
    @discardableResult
    public func named(_ label: String) -> Signal {
        node.label = label
        return self
    }

    // MARK: Observing

    /// Observes every event; returns a disposable that stops the observation, or nil when
    /// the signal had already terminated (the observer then receives `interrupted` at once).
    ///
    /// Nothing reaches the observer once `dispose()` has returned: disposing from another
    /// thread waits for a delivery in progress to finish (so do not dispose while holding a
    /// lock the observer's own code takes). The same holds for every `observe...` method.
    @discardableResult
    public func observe(_ observer: Observer, file: StaticString = #fileID, line: UInt = #line) -> Disposable? {
        registerSink("observe", file: file, line: line)
        return core.add(observer, gated: true)
    }

    /// Observes every event with a closure.
    @inlinable @discardableResult
    public func observe(file: StaticString = #fileID, line: UInt = #line,
                        _ action: @escaping (Event<Value, Error>) -> Void) -> Disposable? {
        registerSink("observe", file: file, line: line)
        return core.add(Observer(action), gated: true)
    }

    /// Observes values only.
    @inlinable @discardableResult
    public func observeValues(file: StaticString = #fileID, line: UInt = #line,
                              _ action: @escaping (Value) -> Void) -> Disposable? {
        registerSink("observeValues", file: file, line: line)
        return core.add(Observer(value: action), gated: true)
    }

    /// Observes successful completion only.
    @discardableResult
    public func observeCompleted(file: StaticString = #fileID, line: UInt = #line,
                                 _ action: @escaping () -> Void) -> Disposable? {
        registerSink("observeCompleted", file: file, line: line)
        return core.add(Observer(completed: action), gated: true)
    }

    /// Observes failure only.
    @discardableResult
    public func observeFailed(file: StaticString = #fileID, line: UInt = #line,
                              _ action: @escaping (Error) -> Void) -> Disposable? {
        registerSink("observeFailed", file: file, line: line)
        return core.add(Observer(failed: action), gated: true)
    }

    /// Observes interruption only.
    @discardableResult
    public func observeInterrupted(file: StaticString = #fileID, line: UInt = #line,
                                   _ action: @escaping () -> Void) -> Disposable? {
        registerSink("observeInterrupted", file: file, line: line)
        return core.add(Observer(interrupted: action), gated: true)
    }

    /// Observes values and failure as a `Result`.
    @discardableResult
    public func observeResult(file: StaticString = #fileID, line: UInt = #line,
                              _ action: @escaping (Result<Value, Error>) -> Void) -> Disposable? {
        registerSink("observeResult", file: file, line: line)
        return core.add(Observer(value: { action(.success($0)) }, failed: { action(.failure($0)) }), gated: true)
    }

    /// An operator's own observation of its upstream: no sink node.
    @usableFromInline
    @discardableResult
    func observeInternally(_ action: @escaping (Event<Value, Error>) -> Void) -> Disposable? {
        core.add(Observer(action))
    }

    /// Reports a sink node to the probe, when one is attached.
    @usableFromInline
    func registerSink(_ name: String, file: StaticString, line: UInt) {
        guard let probe = Instrumentation.probe else { return }
        let sink = Node.make(.sink, name, upstream: [.init(node: node, role: .data)], file: file, line: line)
        probe.didSubscribe(sink, subscription: Instrumentation.newSubscription(), parent: subscription)
    }
}

/// What a signal's lock guards: its observers and whether it has terminated.
@usableFromInline
struct SignalState<Value, Error: Swift.Error> {
    @usableFromInline var observations: ContiguousArray<Observation<Value, Error>> = []
    @usableFromInline var terminated = false

    @usableFromInline
    init() {}
}

/// The state and delivery of one signal instance.
@usableFromInline
final class SignalCore<Value, Error: Swift.Error>: @unchecked Sendable {  // observers and flags only under its LockedState; sends serialised by `sendLock`
    @usableFromInline let node: Node
    @usableFromInline let subscription: UInt64
    /// Taken for the whole delivery of an event when several threads may send; recursive so
    /// that an observer sending back into its own signal gets a nested, defined delivery.
    @usableFromInline let sendLock: Lock?
    /// Observers and the terminated flag, reached `inout` under the lock: no run-time
    /// exclusivity check on the send path.
    @usableFromInline let state = LockedState(SignalState<Value, Error>())
    /// Disposed when the signal terminates: the lifetime's resources.
    @usableFromInline let resources = CompositeDisposable()
    let detachWhenUnobserved: Bool

    /// `request` is the request of a boundary call's start, reported with its subscription.
    @usableFromInline
    init(node: Node, serialized: Bool, detachWhenUnobserved: Bool, request: Any? = nil) {
        self.node = node
        self.subscription = Instrumentation.newSubscription()
        self.sendLock = serialized ? Lock(recursive: true) : nil
        self.detachWhenUnobserved = detachWhenUnobserved
        if let probe = Instrumentation.probe {
            let parent = ProbeContext.current.parentSubscription
            if let request {
                probe.didSubscribe(node, subscription: subscription, parent: parent, request: request)
            } else {
                probe.didSubscribe(node, subscription: subscription, parent: parent)
            }
        }
    }

    @inlinable
    func send(_ event: Event<Value, Error>) {
        sendLock?.lock()
        let terminal = event.isTerminating
        let snapshot: ContiguousArray<Observation<Value, Error>>? = state.withLock { state in
            if state.terminated { return nil }
            let observations = state.observations
            if terminal {
                state.terminated = true
                state.observations = []
            }
            return observations
        }
        guard let snapshot else {
            sendLock?.unlock()
            return
        }
        if let probe = Instrumentation.probe {
            deliverInstrumented(event, to: snapshot, probe: probe)
        } else {
            Self.deliver(event, to: snapshot)
        }
        sendLock?.unlock()
        if terminal { release() }
    }

    /// Delivers to each observation of `snapshot`. The snapshot keeps every observation and
    /// its observer alive for the whole loop, so they are used without a retain and release
    /// each (four atomic operations per observer per event otherwise).
    @inlinable @inline(__always)
    static func deliver(_ event: Event<Value, Error>, to snapshot: ContiguousArray<Observation<Value, Error>>) {
        snapshot.withUnsafeBufferPointer { observations in
            for index in observations.indices {
                Unmanaged.passUnretained(observations[index])._withUnsafeGuaranteedRef { $0.deliver(event) }
            }
        }
    }

    /// Inlinable so that it is specialised with the send path: unspecialised, it looked up the
    /// generic metadata of `Event` and `Observation` on every recorded event.
    @inlinable
    func deliverInstrumented(_ event: Event<Value, Error>, to snapshot: ContiguousArray<Observation<Value, Error>>, probe: Probe) {
        let context = ProbeContext.current
        let payload: Any?
        switch event {
        case let .value(value): payload = value
        case let .failed(error): payload = error
        case .completed, .interrupted: payload = nil
        }
        let sequence = probe.willSend(node, subscription: subscription, kind: event.kind, value: payload,
                                      causes: Causes(primary: context.cause, others: context.otherCauses))
        let saved = (context.cause, context.otherCauses)
        context.cause = sequence
        context.otherCauses = []
        Self.deliver(event, to: snapshot)
        (context.cause, context.otherCauses) = saved
    }

    @usableFromInline
    func release() {
        resources.dispose()
        Instrumentation.probe?.didDispose(node, subscription: subscription)
    }

    /// Adds an observer. A `gated` observation (a user's, made by `observe`) is disposed only
    /// once a delivery to it in flight on another thread has finished, so that nothing reaches
    /// it after `dispose()` returns. Operators' own observations are not gated: what reaches
    /// them late finds their signal terminated, and waiting there could deadlock an operator
    /// whose scheduled action disposes its upstream while that upstream delivers into it.
    @usableFromInline
    func add(_ observer: Observer<Value, Error>, gated: Bool = false) -> Disposable? {
        let observation = Observation(observer, gated: gated)
        let accepted: Bool = state.withLock { state in
            if state.terminated { return false }
            state.observations.append(observation)
            return true
        }
        guard accepted else {
            observer.sendInterrupted()
            return nil
        }
        return AnyDisposable { [weak self] in
            observation.disposed.store(true, ordering: .releasing)
            self?.remove(observation)
            observation.waitForDelivery()
        }
    }

    private func remove(_ observation: Observation<Value, Error>) {
        let detach: Bool = state.withLock { state in
            state.observations.removeAll { $0 === observation }
            if detachWhenUnobserved && state.observations.isEmpty && !state.terminated {
                state.terminated = true
                return true
            }
            return false
        }
        if detach { release() }
    }
}
