import Locks
import Synchronization

/// A hot stream: events happen whether or not anyone observes, and each observer sees the
/// events sent after it started observing.
///
/// A `Signal` is made by `Signal.pipe()` (you send into its input), by `Signal.init` (a
/// generator sends), by operators on other signals, or by starting a `SignalProducer`.
/// Every signal is a running instance — a *subscription* — of an instrumented `Node`.
///
/// ```swift
/// let (typed, input) = Signal<String, Never>.pipe(named: "typed")
/// typed.map { $0.count }.observeValues { print("length", $0) }
/// input.send(value: "swift")   // prints "length 5"
/// input.sendCompleted()
/// ```
public final class Signal<Value, Error: Swift.Error>: @unchecked Sendable {  // immutable; the core guards its state
    /// What receives this signal's events (ReactiveSwift's nested `Signal.Observer`): the
    /// input end of a `pipe()`, or an observer passed to `observe(_:)`.
    ///
    /// ```swift
    /// let observer = Signal<String, Never>.Observer(value: { print("typed", $0) })
    /// let (typed, input) = Signal<String, Never>.pipe()
    /// typed.observe(observer)
    /// input.send(value: "swift")   // prints "typed swift"
    /// ```
    public typealias Observer = Signals.Observer<Value, Error>
    /// The events this signal sends: ReactiveSwift's nested `Signal.Event`, so that
    /// `Signal<Int, Never>.Event.value(1)` reads as it does there.
    public typealias Event = Signals.Event<Value, Error>

    @usableFromInline let core: SignalCore<Value, Error>

    /// The node this signal is an instance of. Once it has been read (an operator built on
    /// this signal reads it), `named(_:)` no longer changes it.
    public var node: Node { core.settledNode }
    /// This instance's subscription id (process-unique).
    public var subscription: UInt64 { core.subscription }

    @usableFromInline
    init(core: SignalCore<Value, Error>) { self.core = core }

    /// A signal that nothing observes and nothing holds can never be observed again: its
    /// instance is disposed now, releasing its resources and detaching it from its upstream,
    /// as ReactiveSwift disposes a signal that deinitialises with no observer.
    deinit { core.shellReleased() }

    /// A signal whose events `generator` sends through the given observer. The lifetime ends
    /// when the signal terminates; add resources to it to release them then.
    public convenience init(
        file: StaticString = #fileID, line: UInt = #line,
        _ generator: (Observer, Lifetime) -> Void
    ) {
        self.init(node: Node.make(.source, "Signal", file: file, line: line), generator)
        core.takeOrigin()
    }

    /// A signal of `node` whose sends take turns (its own serializer), from any thread.
    /// Inlinable, like the operators and `pipe`, so that the send closure is made where the
    /// value type is known: the whole send path then specialises in the user's module instead
    /// of looking up generic metadata on every event.
    @inlinable
    convenience init(node: Node, detachWhenUnobserved: Bool = false,
                     _ generator: (Observer, Lifetime) -> Void) {
        let core = SignalCore<Value, Error>(node: node, detachWhenUnobserved: detachWhenUnobserved)
        self.init(core: core)
        core.constructing { generator(core.input, Lifetime(core.resources)) }
    }

    /// A signal of `node` fed only from inside the deliveries of `upstream`: it shares the
    /// upstream's serializer, and the generator's observer sends without a lock, so it must be
    /// sent to only from inside those deliveries. It stops observing when its last observer
    /// leaves.
    @inlinable
    convenience init<U, F>(node: Node, fusedWith upstream: Signal<U, F>,
                           _ generator: (Observer, Lifetime) -> Void) {
        let core = SignalCore<Value, Error>(node: node, serializer: upstream.core.serializer,
                                            detachWhenUnobserved: true)
        self.init(core: core)
        core.constructing { generator(core.serializedInput, Lifetime(core.resources)) }
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
        let signal = Signal(node: node) { observer, lifetime in
            input = observer
            lifetime += disposable
        }
        signal.core.takeOrigin()
        return (signal, input)
    }

    /// A signal you send into, as an instance of a given node: how an `Environment` defined
    /// outside this module (a replay) makes its inputs the same nodes a live run makes.
    @inlinable
    public static func pipe(node: Node) -> (output: Signal, input: Observer) {
        var input: Observer!
        let signal = Signal(node: node) { observer, _ in input = observer }
        return (signal, input)
    }

    /// This signal as an instance of a node labelled `label` (shown in figures, used to find
    /// sources in a replay): its node's labelled twin (`Node.labelled(_:)`), so the label
    /// shows at this use of the call site only, and two labels there are two nodes.
    ///
    /// Name a signal where it is made, before anything observes it
    /// (`username.map(isValid).named("validUsername")`): it is then this very signal, and a
    /// trace shows one node carrying the label. A signal already observed has shown its node;
    /// naming it then gives a new signal of a `named` node fed by it, which a trace shows as
    /// a node of its own.
    public func named(_ label: String, file: StaticString = #fileID, line: UInt = #line) -> Signal {
        if core.relabel(to: core.node.labelled(label)) { return self }
        let named = Node.make(.operator, "named", label: label, upstream: [.init(node: core.node, role: .data)],
                              file: file, line: line)
        return derive(named) { event, observer in observer.send(event) }
    }

    /// A signal that never sends anything: observers wait until they stop observing.
    public static var never: Signal {
        Signal(node: Node.make(.source, "never", file: "Signals/Signal.swift", line: 0)) { _, _ in }
    }

    /// A signal that has already completed. Like any terminated signal, it interrupts an
    /// observer that comes to it.
    public static var empty: Signal {
        Signal(node: Node.make(.source, "empty", file: "Signals/Signal.swift", line: 0)) { observer, _ in
            observer.sendCompleted()
        }
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
                        _ action: @escaping (Signals.Event<Value, Error>) -> Void) -> Disposable? {
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

    /// An operator's own observation of its upstream: no sink node. Made while a signal
    /// instance is being made (its generator, its start), it is that instance's observation of
    /// this one, which the probe hears with the instance's subscription (see
    /// `ProbeContext.constructing(_:_:)`).
    @usableFromInline
    @discardableResult
    func observeInternally(_ action: @escaping (Signals.Event<Value, Error>) -> Void) -> Disposable? {
        if Instrumentation.isAttached { ProbeContext.withCurrent { $0.noteObservation(of: core) } }
        return core.add(Observer(action))
    }

    /// Notes that the instance being made on this thread observes this signal, before it
    /// begins to (see `ProbeContext.noteObservation(of:)`).
    @usableFromInline
    func noteObservedByInstanceBeingMade() {
        if Instrumentation.isAttached { ProbeContext.withCurrent { $0.noteObservation(of: core) } }
    }

    /// An observation of this signal by the subscription `observer`, already running (a
    /// higher-order operator's of an inner stream it started): no sink node, and the probe
    /// hears of it with this signal's subscription, when that is not reported yet.
    @usableFromInline
    @discardableResult
    func observeInternally(by observer: UInt64, _ action: @escaping (Signals.Event<Value, Error>) -> Void) -> Disposable? {
        if Instrumentation.isAttached && observer != 0 { _ = core.addObserver(observer) }
        return core.add(Observer(action))
    }

    /// Reports a sink node to the probe, when one is attached.
    @usableFromInline
    func registerSink(_ name: String, file: StaticString, line: UInt) {
        guard let probe = Instrumentation.probe else { return }
        core.reportIfPending()
        let sink = Node.make(.sink, name, upstream: [.init(node: node, role: .data)], file: file, line: line)
        ProbeContext.withCurrent { context in
            context.inScope(core.scope) {
                probe.didSubscribe(sink, subscription: Instrumentation.newSubscription(), parent: subscription)
            }
        }
    }
}

/// The observations a delivery iterates, in memory of their own: read through a pointer, with
/// no retain and release of an array buffer per event. Never changed once made; replaced whole.
@usableFromInline
struct ObservationList<Value, Error: Swift.Error> {
    @usableFromInline let base: UnsafeMutablePointer<Observation<Value, Error>>?
    @usableFromInline let count: Int

    @usableFromInline
    init(_ observations: ContiguousArray<Observation<Value, Error>>) {
        count = observations.count
        guard count > 0 else {
            base = nil
            return
        }
        let base = UnsafeMutablePointer<Observation<Value, Error>>.allocate(capacity: count)
        _ = UnsafeMutableBufferPointer(start: base, count: count).initialize(fromContentsOf: observations)
        self.base = base
    }

    @usableFromInline
    var observations: ContiguousArray<Observation<Value, Error>> {
        ContiguousArray(UnsafeBufferPointer(start: base, count: count))
    }

    /// Releases the observations and the memory (once, by the list's owner).
    @usableFromInline
    func free() {
        guard let base else { return }
        base.deinitialize(count: count)
        base.deallocate()
    }
}

/// What the thread delivering an event reads and changes. It holds the signal's serializer,
/// so nothing else touches this state, and it is reached without a lock.
@usableFromInline
struct Delivery<Value, Error: Swift.Error> {
    @usableFromInline var list = ObservationList<Value, Error>([])
    @usableFromInline var terminated = false
    /// Deliveries of this signal in progress on the serializing thread (an observer that sends
    /// back into the signal re-enters it).
    @usableFromInline var depth = 0
    /// Lists replaced while a delivery iterated them, freed when the outermost delivery ends.
    @usableFromInline var retired: [ObservationList<Value, Error>] = []
    /// What a probe keeps on this instance between its events (see `InstanceIDs`).
    @usableFromInline var probeIDs = InstanceIDs()
    /// The event being delivered when this instance's work began (a producer's start), 0 for
    /// none: the cause of what the instance sends from code that runs outside any delivery,
    /// as a service's answer from a `DispatchQueue.asyncAfter` or a callback of its own.
    /// Without it, such an answer would be cut off from the input that asked for it.
    @usableFromInline var origin: UInt64 = 0
    /// The sequence number of the last value this instance reported to a probe that numbers
    /// events, 0 for none: for a property's, the event that set the value a start of its
    /// producer reads (see `PropertyBox.startObserving`).
    @usableFromInline var lastValueSequence: UInt64 = 0

    @usableFromInline
    init() {}
}

/// Observers that joined or left while another thread was delivering, for the next delivery
/// to take in; and whether the signal is closed to new observers.
@usableFromInline
struct Membership<Value, Error: Swift.Error> {
    @usableFromInline var added: ContiguousArray<Observation<Value, Error>> = []
    @usableFromInline var removed = false
    /// Terminated, or detached when its last observer left: a new observer is interrupted.
    @usableFromInline var closed = false
    /// Observations added and not yet disposed.
    @usableFromInline var live = 0

    @usableFromInline
    init() {}
}

/// What a pending report of a subscription needs from where its signal was made. Not nested
/// in the generic `SignalCore`, whose every nested type has generic metadata: looked up at
/// each use in code not specialised for the signal's types (about 400 instructions, 68,000
/// times in a callgrind run of TwitterInstant's live benchmark, about 10 % of what the
/// recorder cost the producing threads).
struct PendingReport {
    let parent: UInt64
    let scheduler: String?
    let request: Any?
    /// The subscriptions this one observes, and those already running that observe it
    /// (see `SignalCore.addObserved(_:)`, `addObserver(_:)`).
    var observes: [UInt64] = []
    var observedBy: [UInt64] = []
}

/// The state and delivery of one signal instance.
///
/// Every delivery holds the signal's *serializer*, a recursive lock (recursive so that an
/// observer sending back into its own signal gets a nested, defined delivery). A source or an
/// operator with several inputs has a serializer of its own, taken by each send. An operator
/// with one upstream made by `derive` (`map`, `filter`, `scan`, `take`, `on`…) shares its
/// upstream's serializer: its events are sent from inside the upstream's delivery, which
/// already holds it, so they take no lock of their own and read the observers without a copy
/// — a chain of such operators costs one lock per event however long it is. Only the rare
/// send from elsewhere (an interruption) takes the shared serializer.
///
/// Observers join and leave without waiting for a delivery on another thread: they take the
/// serializer only if it is free (or already theirs), else they leave the change in
/// `membership` for the next delivery to take in. An observer that left is skipped at once
/// (its observation is marked disposed before anything else).
@usableFromInline
final class SignalCore<Value, Error: Swift.Error>: @unchecked Sendable, PendingSubscription {  // delivery state only under the serializer, membership under its LockedState; the node changes only before anything has seen it
    /// The node, unretained: nodes are interned for the life of the process, and the send
    /// path reads it with no retain and release per recorded event (a `var` of a class type
    /// is retained on each read, in case it changes meanwhile). Changed only by
    /// `relabel(to:)`, before the instance is seen; unchecked, as it is read on every
    /// recorded event.
    @exclusivity(unchecked) @usableFromInline private(set) var unretainedNode: Unmanaged<Node>
    /// The node this is an instance of.
    @usableFromInline var node: Node { unretainedNode.takeUnretainedValue() }
    @usableFromInline let subscription: UInt64
    @usableFromInline let serializer: Lock
    /// Touched only while holding `serializer`; a pointer, so no run-time exclusivity check.
    @usableFromInline let delivery = OperatorState(Delivery<Value, Error>())
    @usableFromInline let membership = LockedState(Membership<Value, Error>())
    /// Whether `membership` holds changes the delivering thread has not taken in yet.
    @usableFromInline let membershipChanged = Synchronization.Atomic<Bool>(false)
    /// Set by a terminal event sent from any thread before it waits for the serializer: a
    /// value sent from another thread that gets the serializer first is dropped, as the
    /// stream is ending (ReactiveSwift's semantics: nothing is delivered after an
    /// interruption, however the threads queue for the lock).
    @usableFromInline let terminating = Synchronization.Atomic<Bool>(false)
    /// Disposed when the signal terminates: the lifetime's resources.
    @usableFromInline let resources = CompositeDisposable()
    let detachWhenUnobserved: Bool
    /// Whether each event of this instance, its interruption too, names the event that began
    /// its work (`Delivery.origin`) as a cause: a boundary call's, whose request asked for
    /// whatever it sends, however it ends. A call interrupted before it answered would
    /// otherwise be cut off from the value that asked (and a figure's edge into the operator
    /// that started it would miss that value).
    @usableFromInline let causedByStart: Bool
    /// The scheduler of an asynchronous operator (ReactiveSwift's `observe(on:)`, `delay`,
    /// `debounce`, `throttle`), nil for every other signal: its interruption by a disposal is
    /// delivered on that scheduler, as ReactiveSwift delivers it (see `interrupt()`).
    @usableFromInline let interruptionScheduler: Scheduler?
    /// Set once an interruption is on its way to `interruptionScheduler`: it replaces any
    /// terminal event sent meanwhile (a completion the operator had already scheduled).
    @usableFromInline let interruptionScheduled = Synchronization.Atomic<Bool>(false)

    /// A signal instance of `node` with the given serializer (shared with its upstream), or a
    /// new one of its own. `request` is the request of a boundary call's start, reported with
    /// its subscription; `causedByStart` for a boundary call's start (see `causedByStart`);
    /// `interruptingOn` for an asynchronous operator (see `interruptionScheduler`).
    ///
    /// Made while a probe is attached, the instance is reported to it a little later than it
    /// is made, with what held where it was made (its parent subscription, recording scope and
    /// scheduler): at the next report made on this thread, at the end of the delivery or
    /// scheduled action it was made in, or when it is first used from another thread,
    /// whichever comes first. Until then `named(_:)` can still give it a labelled node of its
    /// own, so the label is in the node the probe first hears of (see `relabel(to:)`).
    @usableFromInline
    init(node: Node, serializer: Lock? = nil, detachWhenUnobserved: Bool, request: Any? = nil, causedByStart: Bool = false,
         interruptingOn interruptionScheduler: Scheduler? = nil) {
        self.unretainedNode = .passUnretained(node)
        self.interruptionScheduler = interruptionScheduler
        self.subscription = Instrumentation.newSubscription()
        self.serializer = serializer ?? Lock(recursive: true)
        self.detachWhenUnobserved = detachWhenUnobserved
        self.causedByStart = causedByStart
        let instrumented = Instrumentation.isAttached
        self.scope = instrumented ? ProbeContext.withCurrent { $0.scope } : 0
        if instrumented {
            ProbeContext.withCurrent { context in
                pendingReport = PendingReport(parent: context.parentSubscription, scheduler: context.schedulerName,
                                              request: request)
                reporting.store(Self.unreported, ordering: .releasing)
                context.setPending(self)
            }
        }
    }

    /// The recording scope the instance was made in (`ProbeContext.scope`, read only when a
    /// probe was attached then), 0 for none: everything it reports is reported in that scope,
    /// whichever thread it runs on, so a recording gets the events of the streams made in it
    /// and no other recording does.
    @usableFromInline let scope: UInt64

    /// Set while the subscription waits to be reported (see `init`).
    @usableFromInline static var unreported: UInt8 { 1 }
    /// Set once the node may no longer change: the subscription was reported, the signal got
    /// an observer, or its node was handed out.
    @usableFromInline static var settled: UInt8 { 2 }
    /// Set while a thread adds to the pending report (`link(_:)`): the thread that reports
    /// waits for it to end, so the report is read whole.
    @usableFromInline static var linking: UInt8 { 4 }
    /// `unreported`, `settled` and `linking` bits.
    @usableFromInline let reporting = Synchronization.Atomic<UInt8>(0)
    /// Read only by the thread that clears `unreported`; changed before that only while
    /// `linking` is set.
    private var pendingReport: PendingReport?

    /// Reports the subscription to the attached probes if it has not been yet.
    @usableFromInline
    func reportIfPending() {
        var current = reporting.load(ordering: .acquiring)
        while true {
            guard current & Self.unreported != 0 else { return }
            if current & Self.linking != 0 {
                current = reporting.load(ordering: .acquiring)
                continue
            }
            let (exchanged, found) = reporting.compareExchange(expected: current, desired: Self.settled,
                                                               ordering: .acquiringAndReleasing)
            if exchanged { break }
            current = found
        }
        guard let report = pendingReport else { return }
        pendingReport = nil
        guard let probe = Instrumentation.probe else { return }
        ProbeContext.withCurrent { context in
            let saved = (context.scope, context.schedulerName)
            context.scope = scope
            context.schedulerName = report.scheduler
            defer { (context.scope, context.schedulerName) = saved }
            if !report.observes.isEmpty || !report.observedBy.isEmpty {
                probe.didSubscribe(node, subscription: subscription, parent: report.parent, request: report.request,
                                   observes: report.observes, observedBy: report.observedBy)
            } else if let request = report.request {
                probe.didSubscribe(node, subscription: subscription, parent: report.parent, request: request)
            } else {
                probe.didSubscribe(node, subscription: subscription, parent: report.parent)
            }
        }
    }

    /// Whether the subscription is still to be reported.
    @usableFromInline var isPending: Bool { reporting.load(ordering: .acquiring) & Self.unreported != 0 }

    /// Adds to the pending report, if the subscription is not reported yet: returns whether it
    /// was not.
    private func link(_ change: (inout PendingReport) -> Void) -> Bool {
        var current = reporting.load(ordering: .acquiring)
        while true {
            guard current & Self.unreported != 0 else { return false }
            if current & Self.linking != 0 {
                current = reporting.load(ordering: .acquiring)
                continue
            }
            let (exchanged, found) = reporting.compareExchange(expected: current, desired: current | Self.linking,
                                                               ordering: .acquiringAndReleasing)
            if exchanged { break }
            current = found
        }
        if pendingReport != nil { change(&pendingReport!) }
        reporting.bitwiseAnd(~Self.linking, ordering: .releasing)
        return true
    }

    /// Notes that this subscription observes `upstream`, if it is not reported yet.
    @usableFromInline
    func addObserved(_ upstream: UInt64) -> Bool {
        link { report in if !report.observes.contains(upstream) { report.observes.append(upstream) } }
    }

    /// Notes that the running subscription `observer` observes this one, if this one is not
    /// reported yet.
    @usableFromInline
    func addObserver(_ observer: UInt64) -> Bool {
        link { report in if !report.observedBy.contains(observer) { report.observedBy.append(observer) } }
    }

    /// Runs `body`, the making of this instance (its generator, or its start's work), as its
    /// construction: an operator's observation made in it (`Signal.observeInternally`) is
    /// this instance's. Nothing without a probe.
    @inlinable
    func constructing<R>(_ body: () throws -> R) rethrows -> R {
        guard Instrumentation.isAttached else { return try body() }
        return try ProbeContext.withCurrent { try $0.constructing(self, body) }
    }

    /// The node, handed out: from now on it no longer changes.
    var settledNode: Node {
        reporting.bitwiseOr(Self.settled, ordering: .acquiringAndReleasing)
        return node
    }

    /// Gives this instance `node` instead of the node it was made with, when nothing has
    /// seen the old one yet: no probe heard of the subscription, nothing observes it and its
    /// node was not handed out (`Signal.node`, read by an operator built on it). Returns
    /// whether it did.
    func relabel(to node: Node) -> Bool {
        guard reporting.load(ordering: .acquiring) & Self.settled == 0 else { return false }
        unretainedNode = .passUnretained(node)
        // A probe's ids were of the old node.
        delivery.pointer.pointee.probeIDs = InstanceIDs()
        return true
    }

    /// The observer that sends into this instance from any thread (waiting for the serializer),
    /// values lent as they are.
    @inlinable
    var input: Observer<Value, Error> { Observer(send(_:), value: send(value:)) }

    /// The observer that sends into this instance from inside a delivery that holds its
    /// serializer (an operator's upstream delivering into it), values lent as they are.
    @inlinable
    var serializedInput: Observer<Value, Error> { Observer(sendSerialized(_:), value: sendSerialized(value:)) }

    /// Takes the event being delivered on this thread as the cause of what this instance will
    /// send from outside any delivery (`Delivery.origin`): called where a source's work
    /// begins, a producer's start or a signal made inside a delivery. Nothing without a probe.
    @inlinable
    func takeOrigin() {
        if Instrumentation.isAttached {
            delivery.pointer.pointee.origin = ProbeContext.current.cause
        }
    }

    /// Sends `event` from any thread: a value waits for the serializer; a terminal event that
    /// finds it held by another thread is left for that thread to deliver once it lets go
    /// (`DeferredInterruptions`), as ReactiveSwift commits a termination it cannot send at
    /// once. Waiting there could deadlock: the holder may be delivering into a signal whose
    /// serializer this thread holds (a `take(until:)` ending on one thread disposes a `merge`
    /// input, whose interruption goes into the merge another thread is delivering through,
    /// towards the `take(until:)`). Values still waiting for the serializer are dropped.
    @inlinable
    func send(_ event: Signals.Event<Value, Error>) {
        let ending = event.isTerminating
        if ending {
            if interruptionScheduler != nil && interruptionScheduled.load(ordering: .acquiring) { return }
            terminating.store(true, ordering: .relaxed)
            guard serializer.tryLock() else {
                deferTerminal(event)
                return
            }
        } else {
            serializer.lock()
        }
        let terminated = ending || !terminating.load(ordering: .relaxed) ? deliver(event) : false
        serializer.unlock()
        if terminated { release() }
        if DeferredInterruptions.pending.load(ordering: .sequentiallyConsistent) != 0 {
            DeferredInterruptions.run(serializer)
        }
    }

    /// Leaves terminal `event` for the thread holding the serializer (see `send(_:)`).
    @usableFromInline
    func deferTerminal(_ event: Signals.Event<Value, Error>) {
        DeferredInterruptions.add(serializer) { [weak self] in
            guard let self else { return }
            if self.deliver(event) { self.release() }
        }
    }

    /// Interrupts this signal from any thread without waiting for a delivery on another
    /// thread: what a disposal does (an interrupter, the end of a `merge` interrupting its
    /// other inputs). If another thread holds the serializer, the interruption is left for
    /// it to deliver once it lets go (`DeferredInterruptions`). Waiting there instead could
    /// deadlock: that thread may be delivering into a signal whose serializer this thread
    /// holds, as one input of a `merge` ends the merge while another input delivers into it.
    ///
    /// An asynchronous operator (`interruptionScheduler`) stops at once: what it sends from
    /// now on is dropped, and the interruption is delivered on its scheduler, replacing a
    /// terminal event already on its way there (ReactiveSwift's semantics).
    @usableFromInline
    func interrupt() {
        if let scheduler = interruptionScheduler {
            guard !membership.withLock({ $0.closed }),
                  !interruptionScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
            terminating.store(true, ordering: .relaxed)
            scheduleHop(on: scheduler, of: self) { self.interruptNow() }
            return
        }
        interruptNow()
    }

    /// Interrupts this signal now (see `interrupt()`).
    private func interruptNow() {
        guard serializer.tryLock() else {
            // Left for the thread that holds the signal, which delivers it when its own delivery
            // ends: caused by what this thread was delivering, so a trace shows which thread's
            // work ended the signal while another's was delivering on it (a race, for a diff).
            let cause = Instrumentation.isAttached ? ProbeContext.current.cause : 0
            DeferredInterruptions.add(serializer) { [weak self] in
                guard let self else { return }
                guard cause != 0 else {
                    if self.deliver(.interrupted) { self.release() }
                    return
                }
                let context = ProbeContext.current
                let saved = context.cause
                context.cause = cause
                let terminated = self.deliver(.interrupted)
                context.cause = saved
                if terminated { self.release() }
            }
            return
        }
        let terminated = deliver(.interrupted)
        serializer.unlock()
        if terminated { release() }
        if DeferredInterruptions.pending.load(ordering: .sequentiallyConsistent) != 0 {
            DeferredInterruptions.run(serializer)
        }
    }

    /// Sends `value` from any thread: waits for the serializer.
    @inlinable
    func send(value: Value) {
        serializer.lock()
        if !terminating.load(ordering: .relaxed) { deliver(value: value) }
        serializer.unlock()
        if DeferredInterruptions.pending.load(ordering: .sequentiallyConsistent) != 0 {
            DeferredInterruptions.run(serializer)
        }
    }

    /// Sends `event` from inside a delivery that holds this signal's serializer (an operator's
    /// upstream delivering into it).
    @inlinable
    func sendSerialized(_ event: Signals.Event<Value, Error>) {
        if deliver(event) { release() }
    }

    /// Sends `value` from inside a delivery that holds this signal's serializer.
    @inlinable
    func sendSerialized(value: Value) {
        deliver(value: value)
    }

    /// Delivers `value`, lent, to the observers; the caller holds the serializer.
    @inlinable @inline(__always)
    func deliver(value: Value) {
        _ = deliver(terminal: false, instrumented: { deliverInstrumented(value: value) },
                    to: { $0.deliver(value: value) })
    }

    /// Delivers `event` to the observers; the caller holds the serializer. Returns whether
    /// the event terminated the signal (the caller then releases its resources). A value
    /// event is taken apart once here and its value lent onwards, as `send(value:)` lends it.
    @inlinable
    func deliver(_ event: Signals.Event<Value, Error>) -> Bool {
        if case let .value(value) = event {
            deliver(value: value)
            return false
        }
        return deliver(terminal: true, instrumented: { deliverInstrumented(event) },
                       to: { $0.deliver(event) })
    }

    /// Delivers an event to the observers, each reached by `forward`, or with `instrumented`
    /// when a probe is attached; the caller holds the serializer. Returns whether the event
    /// terminated the signal.
    ///
    /// Every event, value or not, takes this one path. The closures are inlined and the value
    /// or event lent to them, so nothing is copied on the way; the instrumented delivery is a
    /// function of its own, so that the delivery without a probe keeps a small frame.
    @inlinable @inline(__always)
    func deliver(terminal: Bool, instrumented: () -> Void,
                 to forward: (Observation<Value, Error>) -> Void) -> Bool {
        let state = delivery.pointer
        if membershipChanged.load(ordering: .acquiring) { takeMembershipChanges() }
        if state.pointee.terminated { return false }
        if terminal {
            guard close() else { return false }
        }
        state.pointee.depth += 1
        if Instrumentation.isAttached {
            instrumented()
        } else {
            Self.forEachObservation(in: state, forward)
        }
        state.pointee.depth -= 1
        if terminal { replaceObservations(with: []) }
        if state.pointee.depth == 0 && !state.pointee.retired.isEmpty { freeRetired() }
        return terminal
    }

    /// Calls `body` with each observation, without a retain and release of the list or of
    /// each observation (four atomic operations per observer per event otherwise): a list
    /// replaced by a nested delivery stays alive in `retired` until this one has ended.
    @inlinable @inline(__always)
    static func forEachObservation(in state: UnsafeMutablePointer<Delivery<Value, Error>>,
                                   _ body: (Observation<Value, Error>) -> Void) {
        let list = state.pointee.list
        guard let base = list.base else { return }
        for index in 0..<list.count {
            Unmanaged.passUnretained(base[index])._withUnsafeGuaranteedRef(body)
        }
    }

    /// Reports `value` to the probes, lent as its own type, and delivers it.
    @inlinable @inline(never)
    func deliverInstrumented(value: Value) {
        deliverInstrumented(caused: true, value: true, report: { probes, context, node in
            withUnsafePointer(to: value) {
                probes.send(node, subscription: subscription, kind: .value, value: $0, context: context)
            }
        }, to: { $0.deliver(value: value) })
    }

    /// Reports a terminal `event` to the probes (a failure's error lent as its own type) and
    /// delivers it.
    @inlinable @inline(never)
    func deliverInstrumented(_ event: Signals.Event<Value, Error>) {
        // An interruption comes from a disposal, not from the instance's work (but for a
        // boundary call's, see `causedByStart`).
        deliverInstrumented(caused: event.kind != .interrupted || causedByStart, value: false, report: { probes, context, node in
            if case let .failed(error) = event {
                return withUnsafePointer(to: error) {
                    probes.send(node, subscription: subscription, kind: .failed, value: $0, context: context)
                }
            }
            return probes.send(node, subscription: subscription, kind: event.kind,
                               value: UnsafePointer<Value>?.none, context: context)
        }, to: { $0.deliver(event) })
    }

    /// Delivers with the attached probes' set, which `deliver` found attached: read from the
    /// slot inside a borrow (`ProbeContext.beginBorrow`), which keeps the set from being freed
    /// until the report returns, as the thread keeps its context. One frame: the
    /// set and the context are held unretained and borrowed only around each use. A set
    /// detached since `deliver` read it (the slot now 0) reports nothing.
    /// `report` reports the event (`ProbeSet.send`) and returns its sequence number; `forward`
    /// delivers it to an observation. Specialised with the send path (unspecialised, it looked
    /// up the generic metadata of `Event` and `Observation` on every recorded event).
    /// `byOrigin`: an event sent from outside any delivery is caused by `Delivery.origin`; a
    /// boundary call's (`causedByStart`) sent inside another's delivery is caused by it too,
    /// after the event delivered. `value`: the event is a value (its number is kept, see
    /// `Delivery.lastValueSequence`).
    @inlinable @inline(__always)
    func deliverInstrumented(caused byOrigin: Bool, value: Bool,
                             report: (Instrumentation.ProbeSet, ProbeContext, Node) -> UInt64,
                             to forward: (Observation<Value, Error>) -> Void) {
        let context = ProbeContext.unretainedCurrent
        let state = context._withUnsafeGuaranteedRef { $0.state }
        // Subscriptions made before this event are reported before it: this one (made on
        // another thread) and the last one made on this thread.
        if reporting.load(ordering: .relaxed) & Self.unreported != 0 { reportIfPending() }
        if state.pointee.hasPending { context._withUnsafeGuaranteedRef { $0.reportPendingNow() } }
        // The event, and whatever its delivery does, is in the scope the instance was made in.
        let savedScope = state.pointee.scope
        if scope != 0 { state.pointee.scope = scope }
        // Sent from outside any delivery (a callback on a queue of its own): caused by what
        // began the instance's work, if anything did.
        let savedCause = state.pointee.cause
        var startAdded = false
        if savedCause == 0 {
            if byOrigin { state.pointee.cause = delivery.pointer.pointee.origin }
        } else if causedByStart, case let origin = delivery.pointer.pointee.origin, origin != 0, origin != savedCause {
            state.pointee.otherCauses.append(origin)
            startAdded = true
        }
        // The probe finds what it keeps on this instance through the context, during the send only.
        let sequence = withUnsafeMutablePointer(to: &delivery.pointer.pointee.probeIDs) { ids in
            context._withUnsafeGuaranteedRef { $0.beginBorrow() }
            state.pointee.instanceIDs = ids
            defer {
                state.pointee.instanceIDs = nil
                context._withUnsafeGuaranteedRef { $0.endBorrow() }
            }
            let current = Instrumentation.slot(sequentiallyConsistent: true)
            guard let pointer = UnsafeRawPointer(bitPattern: current) else { return UInt64(0) }
            return Unmanaged<Instrumentation.ProbeSet>.fromOpaque(pointer)._withUnsafeGuaranteedRef { probes in
                context._withUnsafeGuaranteedRef { context in
                    unretainedNode._withUnsafeGuaranteedRef { node in report(probes, context, node) }
                }
            }
        }
        state.pointee.cause = sequence
        if value { delivery.pointer.pointee.lastValueSequence = sequence }
        // Further causes are rare (combining operators): only then is the array saved and
        // emptied, not retained and released on every event.
        if state.pointee.otherCauses.isEmpty {
            Self.forEachObservation(in: delivery.pointer, forward)
        } else {
            var savedOthers = state.pointee.otherCauses
            state.pointee.otherCauses = []
            Self.forEachObservation(in: delivery.pointer, forward)
            // A call's start added above is this event's cause only.
            if startAdded { savedOthers.removeLast() }
            state.pointee.otherCauses = savedOthers
        }
        state.pointee.cause = savedCause
        // A subscription made while this event was delivered is reported at its time.
        if state.pointee.hasPending { context._withUnsafeGuaranteedRef { $0.reportPendingNow() } }
        state.pointee.scope = savedScope
    }

    /// Closes the signal to new observers for a terminal event, taking in the observers that
    /// joined meanwhile (they get the terminal event too). False when it was closed already
    /// (detached by its last observer leaving on another thread): nothing is delivered then.
    @usableFromInline
    func close() -> Bool {
        let (added, wasClosed) = membership.withLock { membership in
            let taken = (membership.added, membership.closed)
            membership.added = []
            membership.closed = true
            return taken
        }
        delivery.pointer.pointee.terminated = true
        if wasClosed { return false }
        if !added.isEmpty { replaceObservations(with: delivery.pointer.pointee.list.observations + added) }
        return true
    }

    /// Takes in the observers that joined or left since the last delivery; the caller holds
    /// the serializer.
    @usableFromInline
    func takeMembershipChanges() {
        let (added, removed, closed) = membership.withLock { membership in
            let taken = (membership.added, membership.removed, membership.closed)
            membership.added = []
            membership.removed = false
            membershipChanged.store(false, ordering: .releasing)
            return taken
        }
        let state = delivery.pointer
        if state.pointee.terminated { return }
        if closed {
            state.pointee.terminated = true
            replaceObservations(with: [])
            return
        }
        var observations = state.pointee.list.observations
        if removed { observations.removeAll { $0.disposed.load(ordering: .acquiring) } }
        observations.append(contentsOf: added)
        replaceObservations(with: observations)
    }

    /// Replaces the observation list, keeping the old one alive while a delivery iterates it.
    @usableFromInline
    func replaceObservations(with observations: ContiguousArray<Observation<Value, Error>>) {
        let state = delivery.pointer
        if state.pointee.depth > 0 {
            state.pointee.retired.append(state.pointee.list)
        } else {
            state.pointee.list.free()
        }
        state.pointee.list = ObservationList(observations)
    }

    /// Frees the lists replaced during the delivery that has just ended.
    @usableFromInline
    func freeRetired() {
        let state = delivery.pointer
        for list in state.pointee.retired { list.free() }
        state.pointee.retired = []
    }

    deinit {
        freeRetired()
        delivery.pointer.pointee.list.free()
    }

    @usableFromInline
    func release() {
        resources.dispose()
        guard let probe = Instrumentation.probe else { return }
        reportIfPending()
        ProbeContext.withCurrent { context in
            context.inScope(scope) { probe.didDispose(node, subscription: subscription) }
        }
    }

    /// Takes in membership changes now if the serializer is free or already held by this
    /// thread; otherwise the delivery holding it will.
    private func takeMembershipChangesIfFree() {
        guard serializer.tryLock() else { return }
        takeMembershipChanges()
        serializer.unlock()
        if DeferredInterruptions.pending.load(ordering: .sequentiallyConsistent) != 0 {
            DeferredInterruptions.run(serializer)
        }
    }

    /// The `Signal` of this instance was released: with no observer, nothing can reach the
    /// instance any more, so it detaches and releases its resources (see `Signal.deinit`).
    func shellReleased() {
        let detach: Bool = membership.withLock { membership in
            guard membership.live == 0 && !membership.closed else { return false }
            membership.closed = true
            membershipChanged.store(true, ordering: .releasing)
            return true
        }
        guard detach else { return }
        takeMembershipChangesIfFree()
        release()
    }

    /// Whether nothing observes this instance: every observation added has been disposed.
    var isUnobserved: Bool { membership.withLock { $0.live == 0 } }

    /// Adds an observer. A `gated` observation (a user's, made by `observe`) is disposed only
    /// once a delivery to it in flight on another thread has finished, so that nothing reaches
    /// it after `dispose()` returns. Operators' own observations are not gated: what reaches
    /// them late finds their signal terminated, and waiting there could deadlock an operator
    /// whose scheduled action disposes its upstream while that upstream delivers into it.
    @usableFromInline
    func add(_ observer: Observer<Value, Error>, gated: Bool = false) -> Disposable? {
        let observation = Observation(observer, gated: gated)
        reporting.bitwiseOr(Self.settled, ordering: .acquiringAndReleasing)
        let accepted: Bool = membership.withLock { membership in
            if membership.closed { return false }
            membership.added.append(observation)
            membership.live += 1
            membershipChanged.store(true, ordering: .releasing)
            return true
        }
        guard accepted else {
            observer.sendInterrupted()
            return nil
        }
        takeMembershipChangesIfFree()
        return AnyDisposable { [weak self] in
            guard !observation.disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
            self?.remove(observation)
            observation.waitForDelivery()
        }
    }

    private func remove(_ observation: Observation<Value, Error>) {
        let detach: Bool = membership.withLock { membership in
            membership.live -= 1
            membership.removed = true
            membershipChanged.store(true, ordering: .releasing)
            if detachWhenUnobserved && membership.live == 0 && !membership.closed {
                membership.closed = true
                return true
            }
            return false
        }
        takeMembershipChangesIfFree()
        if detach { release() }
    }
}

/// Interruptions that found their signal's serializer held by another thread, left for that
/// thread to deliver when it lets go: each send checks `pending` (one load of a word that is
/// almost always zero) after unlocking. The one who adds an interruption tries the serializer
/// again afterwards, so an interruption added just as the holder let go is not stranded.
@usableFromInline
enum DeferredInterruptions {
    /// How many interruptions wait, in all.
    @usableFromInline static let pending = Synchronization.Atomic<Int>(0)
    private static let waiting = Protected<[ObjectIdentifier: [() -> Void]]>([:])

    /// Leaves `interruption` (which delivers under `serializer`) for whoever holds it.
    static func add(_ serializer: Lock, _ interruption: @escaping () -> Void) {
        waiting.modify { $0[ObjectIdentifier(serializer), default: []].append(interruption) }
        pending.add(1, ordering: .sequentiallyConsistent)
        run(serializer)
    }

    /// Delivers the interruptions waiting for `serializer`, if it is free (or this thread's).
    @usableFromInline
    static func run(_ serializer: Lock) {
        while serializer.tryLock() {
            let interruptions = waiting.modify { $0.removeValue(forKey: ObjectIdentifier(serializer)) ?? [] }
            if interruptions.isEmpty {
                serializer.unlock()
                return
            }
            pending.subtract(interruptions.count, ordering: .sequentiallyConsistent)
            for interruption in interruptions { interruption() }
            serializer.unlock()
        }
    }
}
