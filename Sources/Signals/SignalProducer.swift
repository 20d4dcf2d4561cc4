/// A cold stream: a recipe that does its work anew each time it is started, giving each
/// start its own `Signal` (its own subscription).
///
/// ```swift
/// let countdown = SignalProducer<Int, Never>([3, 2, 1]).map { "\($0)…" }
/// countdown.startWithValues { print($0) }   // 3… 2… 1…
/// countdown.startWithValues { print($0) }   // a second start runs it again: 3… 2… 1…
/// ```
public struct SignalProducer<Value, Error: Swift.Error>: @unchecked Sendable {  // a start closure; values cross threads by design, as in ReactiveSwift
    /// The signal each start gives (ReactiveSwift's `SignalProducer.ProducedSignal`).
    public typealias ProducedSignal = Signal<Value, Error>

    /// One started instance: its signal, how to interrupt it, and how to begin its work.
    /// The work begins only after the consumer has attached to `signal`.
    @usableFromInline
    struct Instance {
        @usableFromInline var signal: Signal<Value, Error>
        @usableFromInline let interrupter: Disposable
        @usableFromInline let begin: () -> Void

        @usableFromInline
        init(signal: Signal<Value, Error>, interrupter: Disposable, begin: @escaping () -> Void) {
            self.signal = signal
            self.interrupter = interrupter
            self.begin = begin
        }
    }

    /// The node this producer's signals are instances of.
    public let node: Node
    @usableFromInline let instantiate: () -> Instance

    @usableFromInline
    init(node: Node, instantiate: @escaping () -> Instance) {
        self.node = node
        self.instantiate = instantiate
    }

    /// A producer whose start handler runs on each start, sending through the observer.
    /// The lifetime ends when that start terminates or is interrupted.
    public init(
        file: StaticString = #fileID, line: UInt = #line,
        _ startHandler: @escaping (Signals.Observer<Value, Error>, Lifetime) -> Void
    ) {
        self.init(node: Node.make(.source, "SignalProducer", file: file, line: line), startHandler)
    }

    /// A producer of `node` running `startHandler` on each start.
    public init(node: Node, _ startHandler: @escaping (Signals.Observer<Value, Error>, Lifetime) -> Void) {
        self.init(node: node, request: nil, startHandler)
    }

    /// A producer of `node` running `startHandler` on each start, each start reported to the
    /// probe with `request`: an `Environment`'s boundary call made with a request.
    public init(node: Node, request: (any Encodable)?,
                _ startHandler: @escaping (Signals.Observer<Value, Error>, Lifetime) -> Void) {
        self.init(node: node, request: request, handlerWhenMade: { startHandler })
    }

    /// A producer of `node` whose starts each get their start handler when their instance is
    /// made: `handlerWhenMade` runs as each start's subscription is made, in the order a
    /// trace records subscriptions, and the handler it returns runs when that start begins.
    /// An operator may make its inputs' instances in one order and begin them in another
    /// (`take(until:)` begins its trigger first), so a replay pairs each start of a boundary
    /// with its recorded subscription here, in the order both were made, not as it begins.
    /// `causedByStart` makes a boundary call's starts, each of whose events (its interruption
    /// too) names the event that began it as a cause.
    package init(node: Node, request: (any Encodable)? = nil, causedByStart: Bool = false,
                 handlerWhenMade: @escaping () -> (Signals.Observer<Value, Error>, Lifetime) -> Void) {
        self.init(node: node) {
            let core = SignalCore<Value, Error>(node: node, detachWhenUnobserved: false, request: request,
                                                causedByStart: causedByStart)
            let startHandler = core.constructing { handlerWhenMade() }
            let input = core.input
            let lifetime = Lifetime(core.resources)
            // Holds the observer as long as the start can be interrupted, as a signal holds
            // its generator's observer until it ends.
            let interrupter = AnyDisposable { withExtendedLifetime(input) { core.interrupt() } }
            return Instance(signal: Signal(core: core), interrupter: interrupter) {
                core.takeOrigin()
                core.constructing { startHandler(input, lifetime) }
            }
        }
    }

    /// Sends one value, then completes.
    ///
    /// Its node is its call site's, whatever the value: the value is data, recorded in the
    /// event it sends, not part of the node (a producer made per value inside a `flatMap` is one
    /// node, and making one describes nothing).
    public init(value: Value, file: StaticString = #fileID, line: UInt = #line) {
        let node = Node.make(.source, "SignalProducer(value:)", file: file, line: line)
        self.init(node: node) { observer, _ in
            observer.send(value: value)
            observer.sendCompleted()
        }
    }

    /// Sends one value, then completes: the initialiser named `init(value:)` exactly, for
    /// passing it as a function (`.map(SignalProducer.init(value:))`, as ReactiveSwift code
    /// does). A call writes `SignalProducer(value: x)` and gets the one above, which records
    /// its call site; this one records no line.
    @_disfavoredOverload
    public init(value: Value) {
        self.init(value: value, file: "", line: 0)
    }

    /// Sends the values in order, then completes.
    public init<S: Sequence>(_ values: S, file: StaticString = #fileID, line: UInt = #line) where S.Element == Value {
        let node = Node.make(.source, "SignalProducer(values:)", file: file, line: line)
        self.init(node: node) { observer, lifetime in
            for value in values {
                if lifetime.hasEnded { return }
                observer.send(value: value)
            }
            observer.sendCompleted()
        }
    }

    /// Sends the values in order, then completes.
    public init(values first: Value, _ rest: Value..., file: StaticString = #fileID, line: UInt = #line) {
        self.init([first] + rest, file: file, line: line)
    }

    /// Fails at once.
    public init(error: Error, file: StaticString = #fileID, line: UInt = #line) {
        let node = Node.make(.source, "SignalProducer(error:)", file: file, line: line)
        self.init(node: node) { observer, _ in observer.send(error: error) }
    }

    /// Sends the success value and completes, or fails.
    public init(result: Result<Value, Error>, file: StaticString = #fileID, line: UInt = #line) {
        let node = Node.make(.source, "SignalProducer(result:)", file: file, line: line)
        self.init(node: node) { observer, _ in
            switch result {
            case let .success(value):
                observer.send(value: value)
                observer.sendCompleted()
            case let .failure(error):
                observer.send(error: error)
            }
        }
    }

    /// Calls `action` on each start and sends its result (a deferred value).
    public init(file: StaticString = #fileID, line: UInt = #line, _ action: @escaping () -> Result<Value, Error>) {
        let node = Node.make(.source, "SignalProducer(action)", file: file, line: line)
        self.init(node: node) { observer, _ in
            switch action() {
            case let .success(value):
                observer.send(value: value)
                observer.sendCompleted()
            case let .failure(error):
                observer.send(error: error)
            }
        }
    }

    /// The producer of `base` (a producer, signal, property or result): ReactiveSwift's
    /// `SignalProducer(_:)` over anything convertible.
    public init<Base: SignalProducerConvertible>(_ base: Base) where Base.Value == Value, Base.Error == Error {
        self = base.producer
    }

    /// Calls `action` on each start and sends its value, then completes (a deferred value).
    public init(file: StaticString = #fileID, line: UInt = #line, _ action: @escaping () -> Value) {
        let node = Node.make(.source, "SignalProducer(action)", file: file, line: line)
        self.init(node: node) { observer, _ in
            observer.send(value: action())
            observer.sendCompleted()
        }
    }

    /// Forwards the events of an existing (hot) signal; each start observes it anew.
    public init(_ signal: Signal<Value, Error>, file: StaticString = #fileID, line: UInt = #line) {
        let node = Node.make(.operator, "SignalProducer(signal)", upstream: [.init(node: signal.node, role: .data)],
                             file: file, line: line)
        // Each start observes the signal: noted as its instance is made, since by the time
        // the start begins, what is built on the instance has been reported after it.
        self.init(node: node, handlerWhenMade: {
            signal.noteObservedByInstanceBeingMade()
            return { observer, lifetime in lifetime += signal.observeInternally(observer.send) }
        })
    }

    /// Completes at once.
    public static var empty: SignalProducer {
        SignalProducer(node: Node.make(.source, "empty", file: "Signals/SignalProducer.swift", line: 0)) { observer, _ in
            observer.sendCompleted()
        }
    }

    /// Never sends anything.
    public static var never: SignalProducer {
        SignalProducer(node: Node.make(.source, "never", file: "Signals/SignalProducer.swift", line: 0)) { _, _ in }
    }

    /// This producer with its node labelled `label` (shown in figures, used to find sources
    /// in a replay): its node's labelled twin (`Node.labelled(_:)`), so the label shows at
    /// this use of the call site only, and two labels there are two nodes. Each start's
    /// signal carries the labelled node from the moment it is made.
    public func named(_ label: String) -> SignalProducer {
        let upstream = self
        let labelled = node.labelled(label)
        return SignalProducer(node: labelled) {
            let instance = upstream.instantiate()
            let core = instance.signal.core
            // A producer that starts another node's signal (a wrapper) labels that node.
            let named = core.node === upstream.node ? labelled : core.node.labelled(label)
            if core.relabel(to: named) { return instance }
            let signal = instance.signal.named(label)
            return .init(signal: signal, interrupter: instance.interrupter, begin: instance.begin)
        }
    }

    // MARK: Starting

    /// Starts the producer; `setup` attaches to the new signal before any work begins.
    /// The disposable interrupts this start; disposed inside `setup`, the work never begins
    /// (as in ReactiveSwift): the signal is interrupted and nothing of the producer runs.
    ///
    /// A start whose signal nothing observes and nothing holds once `setup` has returned
    /// could never be observed: it is interrupted then, which ends its work and its lifetime,
    /// as ReactiveSwift disposes such a signal.
    @discardableResult
    public func startWithSignal<R>(_ setup: (Signal<Value, Error>, Disposable) -> R) -> R {
        var instance = instantiate()
        let result = setup(instance.signal, instance.interrupter)
        if !instance.interrupter.isDisposed { instance.begin() }
        if isKnownUniquelyReferenced(&instance.signal) && instance.signal.core.isUnobserved {
            instance.interrupter.dispose()
        }
        return result
    }

    /// Starts with an observer; returns the disposable that interrupts this start.
    @discardableResult
    public func start(_ observer: Signals.Observer<Value, Error> = .init(),
                      file: StaticString = #fileID, line: UInt = #line) -> Disposable {
        startWithSignal { signal, interrupter in
            signal.registerSink("start", file: file, line: line)
            signal.observeInternally(observer.send)
            return interrupter
        }
    }

    /// Starts with a closure for every event.
    @discardableResult
    public func start(file: StaticString = #fileID, line: UInt = #line,
                      _ action: @escaping (Signals.Event<Value, Error>) -> Void) -> Disposable {
        start(Signals.Observer(action), file: file, line: line)
    }

    /// Starts, observing values.
    @discardableResult
    public func startWithValues(file: StaticString = #fileID, line: UInt = #line,
                                _ action: @escaping (Value) -> Void) -> Disposable {
        startWithSignal { signal, interrupter in
            signal.registerSink("startWithValues", file: file, line: line)
            signal.observeInternally { if case let .value(v) = $0 { action(v) } }
            return interrupter
        }
    }

    /// Starts, observing completion.
    @discardableResult
    public func startWithCompleted(file: StaticString = #fileID, line: UInt = #line,
                                   _ action: @escaping () -> Void) -> Disposable {
        start(Signals.Observer(completed: action), file: file, line: line)
    }

    /// Starts, observing failure.
    @discardableResult
    public func startWithFailed(file: StaticString = #fileID, line: UInt = #line,
                                _ action: @escaping (Error) -> Void) -> Disposable {
        start(Signals.Observer(failed: action), file: file, line: line)
    }

    /// Starts, observing interruption.
    @discardableResult
    public func startWithInterrupted(file: StaticString = #fileID, line: UInt = #line,
                                     _ action: @escaping () -> Void) -> Disposable {
        start(Signals.Observer(interrupted: action), file: file, line: line)
    }

    /// Starts, observing values and failure as `Result`s.
    @discardableResult
    public func startWithResult(file: StaticString = #fileID, line: UInt = #line,
                                _ action: @escaping (Result<Value, Error>) -> Void) -> Disposable {
        start(Signals.Observer(value: { action(.success($0)) }, failed: { action(.failure($0)) }),
              file: file, line: line)
    }

    /// This producer, each of whose starts first asks `proceed`. When it answers `false` the
    /// start is still made, and recorded, but its work never begins, so it sends nothing: how a
    /// runner with limits (the spec language) stops a `retry` or `catchError` that starts its
    /// upstream again at once, for ever, without time passing. Records no node of its own.
    package func gatingStarts(_ proceed: @escaping () -> Bool) -> SignalProducer {
        let upstream = self
        return SignalProducer(node: node) {
            let instance = upstream.instantiate()
            guard proceed() else { return Instance(signal: instance.signal, interrupter: instance.interrupter) {} }
            return instance
        }
    }

    // MARK: Lifting signal operators

    /// Applies a signal operator to each started signal. `node` is the operator's node.
    /// When the resulting signal terminates first (`take(1)`), the upstream start is
    /// interrupted so it releases its work.
    @inlinable
    public func lift<U, F>(_ node: Node, _ transform: @escaping (Signal<Value, Error>) -> Signal<U, F>) -> SignalProducer<U, F> {
        let upstream = self
        return SignalProducer<U, F>(node: node) {
            let instance = upstream.instantiate()
            let signal = transform(instance.signal)
            signal.core.resources.add(instance.interrupter)
            return .init(signal: signal, interrupter: Self.interrupting(signal, after: instance.interrupter),
                         begin: instance.begin)
        }
    }

    /// The interrupter of a lifted start: the upstream's first, so the interruption flows
    /// down the chain as usual, then the lifted signal itself, which an operator that has
    /// stopped observing its upstream (a timeout switched to its fallback) would otherwise
    /// never hear about (a composite disposes in reverse order of addition). Weak, so an
    /// abandoned start's interrupter keeps nothing alive.
    @usableFromInline
    static func interrupting<U, F>(_ signal: Signal<U, F>, after upstream: Disposable) -> Disposable {
        CompositeDisposable([
            AnyDisposable { [weak core = signal.core] in core?.interrupt() },
            upstream,
        ])
    }

    /// Applies a signal operator to each start (ReactiveSwift's `lift(_:)`): the operator's
    /// own nodes show what it does; the lift itself is a node named `lift` at the call site.
    public func lift<U, F>(file: StaticString = #fileID, line: UInt = #line,
                           _ transform: @escaping (Signal<Value, Error>) -> Signal<U, F>) -> SignalProducer<U, F> {
        lift(Node.operator("lift", (node, .data), file: file, line: line), transform)
    }

    /// Applies a two-input signal operator, curried as ReactiveSwift's binary `lift` takes it:
    /// the function returned starts this producer and the one it is given with each start.
    /// Recorded as a node named `lift` fed by both.
    public func lift<U, F, V, G>(file: StaticString = #fileID, line: UInt = #line,
                                 _ transform: @escaping (Signal<Value, Error>) -> (Signal<U, F>) -> Signal<V, G>)
        -> (SignalProducer<U, F>) -> SignalProducer<V, G> {
        { other in
            let node = Node.operator("lift", (self.node, .data), (other.node, .data), file: file, line: line)
            return self.lift(node, other) { transform($0)($1) }
        }
    }

    /// Applies a two-input signal operator to each start of both producers. This producer
    /// begins first unless `otherFirst` (a trigger that must be in place before values flow).
    @inlinable
    public func lift<V, G, U, F>(
        _ node: Node, _ other: SignalProducer<V, G>, otherFirst: Bool = false,
        _ transform: @escaping (Signal<Value, Error>, Signal<V, G>) -> Signal<U, F>
    ) -> SignalProducer<U, F> {
        let upstream = self
        return SignalProducer<U, F>(node: node) {
            let first = upstream.instantiate()
            let second = other.instantiate()
            let signal = transform(first.signal, second.signal)
            let upstreams = CompositeDisposable([first.interrupter, second.interrupter])
            signal.core.resources.add(upstreams)
            return .init(signal: signal, interrupter: Self.interrupting(signal, after: upstreams)) {
                if otherFirst {
                    second.begin()
                    first.begin()
                } else {
                    first.begin()
                    second.begin()
                }
            }
        }
    }
}

extension SignalProducer where Error == Never {
    /// Sends one value, then completes (a producer that cannot fail).
    public init(value: Value, file: StaticString = #fileID, line: UInt = #line) {
        let node = Node.make(.source, "SignalProducer(value:)", file: file, line: line)
        self.init(node: node) { observer, _ in
            observer.send(value: value)
            observer.sendCompleted()
        }
    }

    /// Sends one value, then completes: `init(value:)` exactly, for passing it as a function
    /// (see the general one); a call gets the one above, which records its call site.
    @_disfavoredOverload
    public init(value: Value) {
        self.init(value: value, file: "", line: 0)
    }

    /// Sends the values in order, then completes (a producer that cannot fail).
    public init<S: Sequence>(_ values: S, file: StaticString = #fileID, line: UInt = #line) where S.Element == Value {
        self.init(node: Node.make(.source, "SignalProducer(values:)", file: file, line: line)) { observer, lifetime in
            for value in values {
                if lifetime.hasEnded { return }
                observer.send(value: value)
            }
            observer.sendCompleted()
        }
    }
}

extension SignalProducer where Error == Swift.Error {
    /// Calls the throwing `action` on each start: sends its value and completes, or fails
    /// with what it throws.
    public init(file: StaticString = #fileID, line: UInt = #line, _ action: @escaping () throws -> Value) {
        self.init(file: file, line: line) { Result { try action() } }
    }
}
