import Locks

// Action: a repeatable unit of work with availability and mutual exclusion, as in ReactiveSwift.

/// Why an `Action`'s application failed: it was disabled, or its unit of work failed.
///
/// ```swift
/// let refresh = Action<Void, Int, Never>(enabledIf: Property(value: false)) { SignalProducer(value: 1) }
/// refresh.apply().startWithFailed { error in
///     if case .disabled = error { print("refresh is disabled") }
/// }
/// ```
public enum ActionError<Error: Swift.Error>: Swift.Error {
    /// The action was disabled (by its state, or because it was executing).
    case disabled
    /// The unit of work failed with `Error`.
    case producerFailed(Error)
}

extension ActionError: Equatable where Error: Equatable {}

/// A repeatable unit of work, like a `SignalProducer`, that runs one execution at a time and
/// only while it is enabled (ReactiveSwift's `Action`).
///
/// `apply(_:)` gives a producer; each start asks the action to execute: if it is enabled and
/// not executing, `execute` makes the unit of work from the latest state and the input, and
/// the start forwards its events (its failure as `ActionError.producerFailed`); otherwise the
/// start fails with `ActionError.disabled`. Every unit of work's events also go to `events`
/// (and `values`, `errors`, `completed`).
///
/// In a recording the action is a source node `Action`; each application is an `apply` node
/// fed by it. Each start of an application runs an instance of the action's node, the action's
/// answer to it (a child of the start's subscription): the unit of work runs as the answer's
/// inner stream, and `events` (or, refused, `disabledErrors`) observes the answer as the
/// application does. `values`, `errors` and `completed` are nodes of their own, fed by `events`.
///
/// ```swift
/// struct SignInError: Error {}
/// let credentials = MutableProperty<String?>(nil)
/// let signIn = Action<Void, Bool, SignInError>(unwrapping: credentials) { name, _ in
///     SignalProducer(value: name == "ada")   // the unit of work: a request, in an app
/// }
/// signIn.values.observeValues { print("signed in:", $0) }
/// credentials.value = "ada"
/// signIn.apply().start()   // prints "signed in: true"
/// ```
public final class Action<Input, Output, Error: Swift.Error>: BindingTargetProvider, @unchecked Sendable {  // state only under `lock`
    /// The action's node.
    public let node: Node
    /// Ends when the action is released; its signals complete then.
    public let lifetime: Lifetime
    /// Every event of every unit of work.
    public let events: Signal<Signal<Output, Error>.Event, Never>
    /// Every value of every unit of work.
    public let values: Signal<Output, Never>
    /// Every failure of every unit of work.
    public let errors: Signal<Error, Never>
    /// A value for every application refused because the action was disabled.
    public let disabledErrors: Signal<(), Never>
    /// A value for every unit of work that completed.
    public let completed: Signal<(), Never>
    /// Whether a unit of work is running.
    public let isExecuting: Property<Bool>
    /// Whether an application now would execute: the state allows it and nothing is running.
    public let isEnabled: Property<Bool>

    private let token: Lifetime.Token
    private let eventsInput: Signals.Observer<Signal<Output, Error>.Event, Never>
    private let disabledInput: Signals.Observer<(), Never>
    /// Claims the action for one execution with `input`: its unit of work, or nil when the
    /// action is disabled.
    private let begin: (Input) -> SignalProducer<Output, Error>?
    /// Releases the claim when a unit of work has ended.
    private let end: () -> Void

    /// An action whose availability depends on `state`: enabled while `isEnabled` holds for
    /// the state's latest value (and nothing executes); `execute` makes each unit of work
    /// from that value and the input. The action keeps `state` alive.
    public init<State: PropertyProtocol>(state: State, enabledIf isEnabled: @escaping (State.Value) -> Bool,
                                         file: StaticString = #fileID, line: UInt = #line,
                                         execute: @escaping (State.Value, Input) -> SignalProducer<Output, Error>) {
        let node = Node.make(.source, "Action", file: file, line: line)
        self.node = node
        (lifetime, token) = Lifetime.make()
        func derived(_ name: String) -> Node {
            Node.make(.operator, name, upstream: [.init(node: node, role: .data)], file: file, line: line)
        }
        let eventsNode = derived("events")
        (events, eventsInput) = Signal.pipe(node: eventsNode)
        (disabledErrors, disabledInput) = Signal.pipe(node: derived("disabledErrors"))
        values = events.compactMap({ $0.value }, node: Node.make(.operator, "values", upstream: [.init(node: eventsNode, role: .data)],
                                                                 file: file, line: line))
        errors = events.compactMap({ $0.error }, node: Node.make(.operator, "errors", upstream: [.init(node: eventsNode, role: .data)],
                                                                 file: file, line: line))
        completed = events.compactMap({ $0.isCompleted ? () : nil },
                                      node: Node.make(.operator, "completed", upstream: [.init(node: eventsNode, role: .data)],
                                                      file: file, line: line))

        // The availability, and the two properties that show it, change under one recursive
        // lock: an observer of them may apply the action again.
        let lock = Lock(recursive: true)
        var latest = state.value
        var userEnabled = isEnabled(latest)
        var executing = false
        let executingProperty = MutableProperty(false, node: derived("isExecuting"))
        let enabledProperty = MutableProperty(userEnabled, node: derived("isEnabled"))
        self.isExecuting = Property(capturing: executingProperty)
        self.isEnabled = Property(capturing: enabledProperty)
        func change(_ body: () -> Void) {
            lock.lock()
            defer { lock.unlock() }
            body()
            let enabledNow = userEnabled && !executing
            if enabledProperty.value != enabledNow { enabledProperty.value = enabledNow }
            if executingProperty.value != executing { executingProperty.value = executing }
        }
        begin = { input in
            var work: SignalProducer<Output, Error>?
            change {
                guard userEnabled && !executing else { return }
                executing = true
                work = execute(latest, input)
            }
            return work
        }
        end = { change { executing = false } }
        lifetime += state.producer.startWithSignal { signal, interrupter -> Disposable in
            signal.observeInternally { event in
                guard case let .value(value) = event else { return }
                change {
                    latest = value
                    userEnabled = isEnabled(value)
                }
            }
            return interrupter
        }
        lifetime.observeEnded { withExtendedLifetime(state) {} }
    }

    deinit {
        eventsInput.sendCompleted()
        disabledInput.sendCompleted()
    }

    /// A producer whose each start executes the action with `input` and forwards the unit of
    /// work's events (its failure as `.producerFailed`), or fails with `.disabled` when the
    /// action is disabled. Interrupting the start interrupts the unit of work.
    ///
    /// In a recording, each start runs an instance of the action's node, started by the
    /// application: the action's answer to it, which sends the unit of work's events (the
    /// unit of work is its inner stream) or the `.disabled` failure. The application observes
    /// it, and so does `events` (an answer that ran a unit of work) or `disabledErrors` (one
    /// refused), so a figure counts exactly what crossed each of those edges.
    public func apply(_ input: Input, file: StaticString = #fileID,
                      line: UInt = #line) -> SignalProducer<Output, ActionError<Error>> {
        let applyNode = Node.make(.operator, "apply", upstream: [.init(node: node, role: .data)], file: file, line: line)
        return SignalProducer(parenting: applyNode) { [weak self] observer, lifetime, subscription in
            guard let self else {
                observer.send(error: .disabled)
                return
            }
            let work = self.begin(input)
            // The action's answer to this start, made as the start's child. What observes it is
            // linked before it is reported, so the links are written on its own record.
            let (answer, answerInput) = ProbeContext.current.asParent(subscription) {
                Signal<Output, ActionError<Error>>.pipe(node: self.node)
            }
            self.link(work == nil ? self.disabledErrors.core : self.events.core, toObserve: answer)
            answer.observeInternally { observer.send($0) }
            guard let work else {
                let disabled = self.disabledInput
                answer.observeInternally { event in
                    if case .failed = event { disabled.send(value: ()) }
                }
                answerInput.send(error: .disabled)
                return
            }
            let events = self.eventsInput
            answer.observeInternally { event in
                switch event {
                case let .value(value): events.send(value: .value(value))
                case let .failed(.producerFailed(error)): events.send(value: .failed(error))
                case .failed(.disabled): break
                case .completed: events.send(value: .completed)
                case .interrupted: events.send(value: .interrupted)
                }
            }
            let end = self.end
            let running = SerialDisposable()
            lifetime += running
            lifetime.observeEnded(end)
            // Reported before its unit of work, which names it as its observer.
            if Instrumentation.isAttached { answer.core.reportIfPending() }
            work.startAsChild(of: answer.core.subscription, in: running) { event in
                answerInput.send(event.mapError(ActionError.producerFailed))
            }
        }
    }

    /// Notes, when a probe is attached, that `observer` (the instance of one of the action's
    /// own signals) observes `answer`, the answer to one start.
    private func link(_ observer: PendingSubscription, toObserve answer: Signal<Output, ActionError<Error>>) {
        guard Instrumentation.isAttached else { return }
        Instrumentation.link(observer: observer, observed: answer.core)
    }

    /// What a binding into the action gives it: its input.
    public typealias Value = Input

    /// Applying the action to each bound value, until the action is released.
    public var bindingTarget: BindingTarget<Input> {
        BindingTarget(lifetime: lifetime, file: node.file, line: node.line) { [weak self] input in
            self?.apply(input).start()
        }
    }
}

extension Action {
    /// An action that uses `state`: always enabled (when not executing).
    public convenience init<P: PropertyProtocol>(state: P, file: StaticString = #fileID, line: UInt = #line,
                                                 execute: @escaping (P.Value, Input) -> SignalProducer<Output, Error>) {
        self.init(state: state, enabledIf: { _ in true }, file: file, line: line, execute: execute)
    }


    /// An action enabled while `isEnabled` is true (and nothing executes).
    public convenience init<P: PropertyProtocol>(enabledIf isEnabled: P, file: StaticString = #fileID, line: UInt = #line,
                                                 execute: @escaping (Input) -> SignalProducer<Output, Error>)
    where P.Value == Bool {
        self.init(state: isEnabled, enabledIf: { $0 }, file: file, line: line) { _, input in execute(input) }
    }

    /// An action enabled while `state` holds a value (and nothing executes).
    public convenience init<P: PropertyProtocol, T>(unwrapping state: P, file: StaticString = #fileID, line: UInt = #line,
                                                    execute: @escaping (T, Input) -> SignalProducer<Output, Error>)
    where P.Value == T? {
        self.init(state: state, enabledIf: { $0 != nil }, file: file, line: line) { state, input in
            // Enabled only while the state holds a value.
            execute(state!, input)
        }
    }

    /// An action that is always enabled (when not executing).
    public convenience init(file: StaticString = #fileID, line: UInt = #line,
                            execute: @escaping (Input) -> SignalProducer<Output, Error>) {
        self.init(state: Property(value: ()), enabledIf: { _ in true }, file: file, line: line) { _, input in
            execute(input)
        }
    }
}

extension Action where Input == Void {
    /// `apply(())`.
    public func apply(file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Output, ActionError<Error>> {
        apply((), file: file, line: line)
    }
}

extension Action where Input == Void {
    /// An action of no input that uses `state`: its unit of work depends on the state only
    /// (ReactiveSwift passes `SignalProducer.init(value:)` here to echo the state).
    public convenience init<P: PropertyProtocol, T>(state: P, file: StaticString = #fileID, line: UInt = #line,
                                                    execute: @escaping (T) -> SignalProducer<Output, Error>)
    where P.Value == T {
        self.init(state: state, enabledIf: { _ in true }, file: file, line: line) { state, _ in execute(state) }
    }

    /// An action of no input enabled while `state` holds a value, its unit of work made from
    /// that value.
    public convenience init<P: PropertyProtocol, T>(unwrapping state: P, file: StaticString = #fileID, line: UInt = #line,
                                                    execute: @escaping (T) -> SignalProducer<Output, Error>)
    where P.Value == T? {
        self.init(unwrapping: state, file: file, line: line) { state, _ in execute(state) }
    }
}
