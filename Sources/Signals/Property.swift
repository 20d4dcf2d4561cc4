import Locks

// Property, MutableProperty, binding (`<~`): values over time, as in ReactiveSwift.

/// A value that changes over time, whose changes can be observed.
///
/// `producer` sends the current value and then every change; `signal` sends only the changes
/// made after it is observed. This is what ReactiveCocoa 2's `RACObserve(object, key)`
/// becomes: keep the observed state in a `MutableProperty` and use its `producer`.
///
/// ```swift
/// func show<P: PropertyProtocol>(_ property: P) where P.Value == String {
///     property.producer.startWithValues { print("now", $0) }   // the current value, then each change
/// }
/// let name = MutableProperty("Ada")
/// show(name)            // prints "now Ada"
/// name.value = "Grace"  // prints "now Grace"
/// ```
public protocol PropertyProtocol: AnyObject, BindingSource {
    /// The current value.
    var value: Value { get }
    /// The current value, then every change, until the property is released.
    var producer: SignalProducer<Value, Never> { get }
    /// The changes made from now on, until the property is released.
    var signal: Signal<Value, Never> { get }
}

/// A property whose value you set: `property.value = x` sends `x` to every observer.
///
/// The property is a source node of the pipeline (`named(_:)` labels it). It completes its
/// `signal` and `producer` observers when it is released; its `lifetime` ends then too.
///
/// ```swift
/// let username = MutableProperty("", named: "username")
/// let isValid = username.map { $0.count > 2 }
/// isValid.producer.startWithValues { print("valid:", $0) }   // prints "valid: false"
/// username.value = "ada"                                     // prints "valid: true"
/// ```
@propertyWrapper
public final class MutableProperty<Value>: PropertyProtocol, BindingTargetProvider, @unchecked Sendable {  // immutable; the box guards the value
    /// The property's source node.
    public private(set) var node: Node
    private let box: PropertyBox<Value>
    private let token = Lifetime.Token()
    private var producerNode: Node

    /// Ends when the property is released.
    public let lifetime: Lifetime

    /// A property holding `initial`, its node labelled `label` when one is given (shown in
    /// figures, used to find it in a replay).
    public convenience init(_ initial: Value, named label: String? = nil, file: StaticString = #fileID, line: UInt = #line) {
        self.init(initial, node: Node.make(.source, "MutableProperty", label: label, file: file, line: line))
    }

    /// A property holding `wrappedValue`, as a property wrapper makes it
    /// (`@MutableProperty var count = 0`).
    public convenience init(wrappedValue: Value, file: StaticString = #fileID, line: UInt = #line) {
        self.init(wrappedValue, file: file, line: line)
    }

    /// The value, as a property wrapper exposes it.
    public var wrappedValue: Value {
        get { value }
        set { value = newValue }
    }

    /// The property itself, as `$name` of a wrapped property.
    public var projectedValue: MutableProperty { self }

    /// A property holding `initial`, as an instance of `node`: the store behind a property
    /// derived from a stream (`Property(deriving:)`), whose node is fed by that stream's.
    convenience init(_ initial: Value, node: Node) {
        self.init(initial, instance: SignalCore(node: node, detachWhenUnobserved: false))
    }

    /// A property holding `initial` whose changes `instance`, made before it, sends: a
    /// derived property's instance, made before the stream it observes starts, so that its
    /// observation of that stream is recorded before the stream's first value crossed it.
    init(_ initial: Value, instance: SignalCore<Value, Never>) {
        node = instance.node
        producerNode = Self.producerNode(of: instance.node)
        box = PropertyBox(initial, core: instance)
        lifetime = Lifetime(token)
    }

    deinit { box.end() }

    /// Completes the property's signal and every producer start, as its release does: a
    /// composed property whose stream has ended.
    func endStreams() { box.end() }

    private static func producerNode(of node: Node) -> Node {
        Node.make(.operator, "producer", upstream: [.init(node: node, role: .data)], file: node.file, line: node.line)
    }

    /// This property, as an instance of a node labelled `label`: its node's labelled twin
    /// (`Node.labelled(_:)`), so the label shows at this use of the call site only. Name it
    /// where it is made (`MutableProperty(0).named("count")`, or `MutableProperty(0, named:
    /// "count")`), before anything observes it; naming a property already observed is a
    /// programming error.
    @discardableResult
    public func named(_ label: String) -> MutableProperty {
        let labelled = node.labelled(label)
        precondition(box.signal.core.relabel(to: labelled),
                     "named(\"\(label)\") on a property already observed: name it where it is made")
        node = labelled
        producerNode = Self.producerNode(of: labelled)
        return self
    }

    /// The current value; setting it sends the new value to every observer.
    public var value: Value {
        get { box.value }
        set { box.modify { $0 = newValue } }
    }

    /// Changes the value in place, then sends the result; returns what `action` returns.
    /// Changes are serialised: observers see them in the order they were made.
    @discardableResult
    public func modify<Result>(_ action: (inout Value) throws -> Result) rethrows -> Result {
        try box.modify(action)
    }

    /// Runs `action` with the current value, while no change can be made (a change from
    /// another thread waits); returns what `action` returns.
    @discardableResult
    public func withValue<Result>(_ action: (Value) throws -> Result) rethrows -> Result {
        try box.withValue(action)
    }

    /// Sets a new value and returns the old one.
    @discardableResult
    public func swap(_ newValue: Value) -> Value {
        box.modify { value in
            defer { value = newValue }
            return value
        }
    }

    /// The changes made from now on; completes when the property is released.
    public var signal: Signal<Value, Never> { box.signal }

    /// The current value, then every change; completes when the property is released (at
    /// once, after the last value, for a start made after that). Each start is a
    /// subscription of a `producer` node fed by the property's node.
    public var producer: SignalProducer<Value, Never> {
        let box = self.box
        // Each start observes the property's signal (noted as its instance is made, see
        // `SignalProducer.init(_:)`).
        return SignalProducer(node: producerNode, handlerWhenMade: {
            box.signal.noteObservedByInstanceBeingMade()
            return { observer, lifetime in box.startObserving(observer, lifetime: lifetime) }
        })
    }

    /// Setting the property from a binding (`property <~ signal`); the binding ends when
    /// either side ends.
    public var bindingTarget: BindingTarget<Value> {
        var target = BindingTarget(lifetime: lifetime, file: node.file, line: node.line) { [weak self] in self?.value = $0 }
        target.observer = box.signal.subscription
        return target
    }
}

/// The state of a `MutableProperty`, shared with its producers (which may outlive it).
private final class PropertyBox<Value>: @unchecked Sendable {  // value in Protected storage, updates under `updateLock`
    private let storage: Protected<(value: Value, ended: Bool)>
    /// Held while a change is sent and while a start reads the value and attaches, so a
    /// start never misses or repeats a change. Recursive: an observer may set the property.
    private let updateLock = Lock(recursive: true)
    let signal: Signal<Value, Never>
    private let input: Signals.Observer<Value, Never>

    init(_ initial: Value, core: SignalCore<Value, Never>) {
        storage = Protected((initial, false))
        signal = Signal(core: core)
        input = core.input
    }

    var value: Value { storage.current.value }

    func modify<Result>(_ action: (inout Value) throws -> Result) rethrows -> Result {
        updateLock.lock()
        defer { updateLock.unlock() }
        let (result, newValue) = try storage.modify { state -> (Result, Value) in
            let result = try action(&state.value)
            return (result, state.value)
        }
        input.send(value: newValue)
        return result
    }

    /// Runs `action` with the value, holding off changes (an observer's change on this
    /// thread, which the recursive lock lets through, is the caller's own doing).
    func withValue<Result>(_ action: (Value) throws -> Result) rethrows -> Result {
        updateLock.lock()
        defer { updateLock.unlock() }
        return try action(storage.current.value)
    }

    /// Sends the current value to a start of the property's producer, then every change. The
    /// value is caused by the event that set it too, when one was recorded: a start made
    /// while another thread set the property names what it read, which a replay (running its
    /// setup at once) can tell from what it reads itself.
    func startObserving(_ observer: Signals.Observer<Value, Never>, lifetime: Lifetime) {
        updateLock.lock()
        defer { updateLock.unlock() }
        let state = storage.current
        // Read under `updateLock`, which every send of the property's value holds.
        let setBy = Instrumentation.isAttached ? signal.core.delivery.pointer.pointee.lastValueSequence : 0
        if setBy != 0 {
            ProbeContext.current.withOtherCauses([setBy]) { observer.send(value: state.value) }
        } else {
            observer.send(value: state.value)
        }
        if state.ended {
            observer.sendCompleted()
        } else {
            lifetime += signal.observeInternally(observer.send)
        }
    }

    func end() {
        updateLock.lock()
        defer { updateLock.unlock() }
        storage.modify { $0.ended = true }
        input.sendCompleted()
    }
}

/// A read-only property: a constant, a view of another property, or the latest value of a
/// stream.
///
/// ```swift
/// let (typed, input) = Signal<String, Never>.pipe()
/// let latest = Property(initial: "", then: typed)
/// input.send(value: "swift")
/// print(latest.value)                    // "swift"
/// let shouting = latest.map { $0.uppercased() }
/// print(shouting.value)                  // "SWIFT"
/// ```
@propertyWrapper
public final class Property<Value>: PropertyProtocol, @unchecked Sendable {  // immutable after init
    private let getter: () -> Value
    private let makeProducer: () -> SignalProducer<Value, Never>
    private let makeSignal: () -> Signal<Value, Never>
    /// What this property reads from, kept alive as long as it is.
    private let retained: [AnyObject]

    private init(getter: @escaping () -> Value, producer: @escaping () -> SignalProducer<Value, Never>,
                 signal: @escaping () -> Signal<Value, Never>, retaining retained: [AnyObject]) {
        self.getter = getter
        self.makeProducer = producer
        self.makeSignal = signal
        self.retained = retained
    }

    /// A property that always holds `value`: its producer sends it and completes, its signal
    /// has already completed.
    public convenience init(value: Value, file: StaticString = #fileID, line: UInt = #line) {
        let node = Node.make(.source, "Property(value:)", file: file, line: line)
        self.init(getter: { value },
                  producer: { SignalProducer(node: node) { observer, _ in
                      observer.send(value: value)
                      observer.sendCompleted()
                  } },
                  signal: { Signal(node: node) { observer, _ in observer.sendCompleted() } },
                  retaining: [])
    }

    /// A read-only view of `property` that keeps it alive: its value, producer and signal
    /// are `property`'s own (ReactiveSwift's existential `Property(capturing:)`).
    public convenience init<P: PropertyProtocol>(capturing property: P) where P.Value == Value {
        self.init(getter: { property.value }, producer: { property.producer }, signal: { property.signal },
                  retaining: [property])
    }

    /// A property that follows `property` without keeping it alive (ReactiveSwift's
    /// composed `Property(_:)`): it holds `property`'s latest value, readable after
    /// `property` is released; its producer and signal complete when `property` is released.
    public convenience init<P: PropertyProtocol>(_ property: P, file: StaticString = #fileID, line: UInt = #line)
    where P.Value == Value {
        self.init(deriving: property.producer, file: file, line: line)
    }

    /// A property holding `initial` until `values` sends, then its latest value. `values`
    /// is started at once; when it completes or is interrupted, the property's producer and
    /// signal complete (the value stays). Like every composed property, it does not stop
    /// `values` when it is released: observers of its producer or signal may outlive it.
    public convenience init(initial: Value, then values: SignalProducer<Value, Never>,
                            file: StaticString = #fileID, line: UInt = #line) {
        self.init(deriving: values, initial: initial, name: "Property(initial:then:)", file: file, line: line)
    }

    /// A property holding `initial` until `values` sends, then its latest value.
    public convenience init(initial: Value, then values: Signal<Value, Never>,
                            file: StaticString = #fileID, line: UInt = #line) {
        self.init(initial: initial, then: SignalProducer(values, file: file, line: line), file: file, line: line)
    }

    /// A composed property: the latest value of `values` (started at once), `initial`
    /// until it sends one, or its first value, which it must send as soon as it is started
    /// when there is no `initial` (a property's producer, or an operator over one, does).
    /// The property is a node `name` fed by `values`'s node. Its producer and signal are
    /// those of a store that `values` keeps alive, so they outlive the property and end when
    /// `values` does, with the sources of `values`, as ReactiveSwift's composed properties
    /// are bound to the lifetime of their sources.
    convenience init(deriving values: SignalProducer<Value, Never>, initial: Value? = nil,
                     name: String = "Property", file: StaticString, line: UInt) {
        let node = Node.make(.operator, name, upstream: [.init(node: values.node, role: .data)], file: file, line: line)
        let store = DerivedStore<Value>(node: node)
        if let initial { store.set(initial) }
        values.startWithSignal { signal, _ in
            // The property's instance observes the stream's from its start: linked now, so
            // the stream's first value (which makes the property) crossed into it.
            if Instrumentation.isAttached { Instrumentation.link(observer: store.instance, observed: signal.core) }
            signal.observeInternally { event in
                switch event {
                case let .value(value): store.set(value)
                case .completed, .interrupted: store.end()
                }
            }
        }
        guard let backing = store.backing else {
            preconditionFailure("\(name) at \(file):\(line): its stream sent no value when started")
        }
        self.init(getter: { backing.value }, producer: { backing.producer }, signal: { backing.signal },
                  retaining: [backing])
    }

    /// The current value.
    public var value: Value { getter() }
    /// The current value, as a property wrapper exposes it (`@Property var count: Int`).
    public var wrappedValue: Value { getter() }
    /// The property itself, as `$name` of a wrapped property.
    public var projectedValue: Property { self }
    /// The current value, then every change.
    public var producer: SignalProducer<Value, Never> { makeProducer() }
    /// The changes from now on.
    public var signal: Signal<Value, Never> { makeSignal() }

}

/// The store behind `Property(deriving:)`: a property made by the first value its stream
/// sends, set by each one after it, and ended with the stream. The stream keeps it (and so
/// the store) alive until it ends. Only that stream's deliveries, which take turns, and the
/// initialiser before it starts, touch it.
private final class DerivedStore<Value>: @unchecked Sendable {  // written only by one serialised stream
    /// The property's signal instance, made before its value is known (see
    /// `MutableProperty.init(_:instance:)`).
    let instance: SignalCore<Value, Never>
    private(set) var backing: MutableProperty<Value>?

    init(node: Node) { instance = SignalCore(node: node, detachWhenUnobserved: false) }

    func set(_ value: Value) {
        if let backing {
            backing.value = value
        } else {
            backing = MutableProperty(value, instance: instance)
        }
    }

    func end() { backing?.endStreams() }
}

extension PropertyProtocol {
    /// A read-only property whose value is `transform` of this one's. Like every composed
    /// property, it does not keep this one alive.
    public func map<U>(file: StaticString = #fileID, line: UInt = #line,
                       _ transform: @escaping (Value) -> U) -> Property<U> {
        Property(deriving: producer.map(file: file, line: line, transform), file: file, line: line)
    }

    /// A read-only property holding this property's value paired with `other`'s: it changes
    /// at every change of either.
    public func combineLatest<P: PropertyProtocol>(with other: P, file: StaticString = #fileID, line: UInt = #line)
        -> Property<(Value, P.Value)> {
        Property(deriving: producer.combineLatest(with: other.producer, file: file, line: line), file: file, line: line)
    }
}

// MARK: - Binding

/// Something a binding can read from: a `Signal` or `SignalProducer` that cannot fail, or a
/// property.
///
/// ```swift
/// let (typed, input) = Signal<String, Never>.pipe()
/// let text = MutableProperty("")
/// text <~ typed                    // a Signal is a binding source; so are producers and properties
/// input.send(value: "swift")
/// print(text.value)                // "swift"
/// ```
public protocol BindingSource {
    associatedtype Value
    /// The values to bind.
    var producer: SignalProducer<Value, Never> { get }
}

extension SignalProducer: BindingSource where Error == Never {
    /// The producer itself.
    public var producer: SignalProducer<Value, Never> { self }
}

extension Signal: BindingSource where Error == Never {
    /// A producer that observes this signal.
    public var producer: SignalProducer<Value, Never> { SignalProducer(self) }
}

/// Something a binding can write to.
///
/// ```swift
/// let count = MutableProperty(0)   // a MutableProperty is a binding target; so is an Action
/// count <~ SignalProducer([1, 2, 3])
/// print(count.value)               // 3
/// ```
public protocol BindingTargetProvider {
    associatedtype Value
    /// The target that receives the bound values.
    var bindingTarget: BindingTarget<Value> { get }
}

/// Where bound values go: an action, and the lifetime after which the binding ends.
///
/// ReactiveCocoa 2's `RAC(object, key) = signal` is
/// `BindingTarget(object: object, keyPath: \.key, lifetime: lifetime) <~ signal`.
///
/// ```swift
/// final class Label { var text = "" }
/// let label = Label()
/// let (lifetime, token) = Lifetime.make()
/// let target = BindingTarget(object: label, keyPath: \.text, lifetime: lifetime)
/// target <~ SignalProducer(value: "Hello")
/// print(label.text)   // "Hello"
/// token.end()         // ends every binding into the target
/// ```
public struct BindingTarget<Value>: BindingTargetProvider {
    /// When it ends, every binding into this target ends.
    public let lifetime: Lifetime
    /// Receives each bound value.
    public let action: (Value) -> Void
    /// Where the target was made: the call site of the binding's sink node.
    let file: String
    let line: UInt
    /// The subscription that gets what the target is given (a `MutableProperty`'s signal),
    /// or 0: a trace links a binding into the target to it.
    var observer: UInt64 = 0

    /// A target that runs `action` with each value, on `scheduler` when one is given.
    public init(on scheduler: Scheduler? = nil, lifetime: Lifetime,
                file: StaticString = #fileID, line: UInt = #line, action: @escaping (Value) -> Void) {
        self.init(on: scheduler, lifetime: lifetime, file: "\(file)", line: line, action: action)
    }

    init(on scheduler: Scheduler? = nil, lifetime: Lifetime, file: String, line: UInt, action: @escaping (Value) -> Void) {
        self.lifetime = lifetime
        self.file = file
        self.line = line
        if let scheduler {
            self.action = { value in scheduler.schedule { action(value) } }
        } else {
            self.action = action
        }
    }

    /// A target that sets `object[keyPath: keyPath]`. The object is held weakly: once it is
    /// gone, values are dropped.
    public init<Object: AnyObject>(on scheduler: Scheduler? = nil, object: Object,
                                   keyPath: ReferenceWritableKeyPath<Object, Value>, lifetime: Lifetime,
                                   file: StaticString = #fileID, line: UInt = #line) {
        self.init(on: scheduler, lifetime: lifetime, file: "\(file)", line: line) { [weak object] value in
            object?[keyPath: keyPath] = value
        }
    }

    /// A target that sets `object[keyPath: keyPath]` (ReactiveSwift's argument order).
    public init<Object: AnyObject>(on scheduler: Scheduler? = nil, lifetime: Lifetime, object: Object,
                                   keyPath: ReferenceWritableKeyPath<Object, Value>,
                                   file: StaticString = #fileID, line: UInt = #line) {
        self.init(on: scheduler, object: object, keyPath: keyPath, lifetime: lifetime, file: file, line: line)
    }

    /// The target itself.
    public var bindingTarget: BindingTarget<Value> { self }
}

precedencegroup BindingPrecedence {
    associativity: right
    higherThan: AssignmentPrecedence
}

/// Binds a source to a target: each value of the source is given to the target, until the
/// source ends or the target's lifetime ends.
infix operator <~ : BindingPrecedence

/// Binds `source` to `target`; returns the disposable that ends the binding, or nil when the
/// target's lifetime has already ended. The binding is a sink node named `<~` at the
/// target's call site.
@discardableResult
public func <~ <Target: BindingTargetProvider, Source: BindingSource>(target: Target, source: Source) -> Disposable?
where Source.Value == Target.Value {
    bind(source.producer, to: target.bindingTarget) { $0 }
}

/// Binds `source` to a target of optional values (ReactiveSwift's optionalising binding).
@discardableResult
public func <~ <Target: BindingTargetProvider, Source: BindingSource>(target: Target, source: Source) -> Disposable?
where Target.Value == Source.Value? {
    bind(source.producer, to: target.bindingTarget) { $0 }
}

/// Sends each value of `source` into `observer` until `source` ends (ReactiveSwift's binding
/// into a `Signal.Observer`); returns the disposable that ends the binding. The binding is a
/// sink node named `<~` at the source's call site.
@discardableResult
public func <~ <Source: BindingSource>(observer: Observer<Source.Value, some Swift.Error>, source: Source) -> Disposable {
    let producer = source.producer
    let target = BindingTarget<Source.Value>(lifetime: Lifetime(CompositeDisposable()), file: producer.node.file,
                                             line: producer.node.line) { [weak observer] in observer?.send(value: $0) }
    return bind(producer, to: target) { $0 } ?? AnyDisposable()
}

/// A binding: each value of `producer`, transformed, is given to `target`, until either ends.
private func bind<S, T>(_ producer: SignalProducer<S, Never>, to target: BindingTarget<T>,
                        _ transform: @escaping (S) -> T) -> Disposable? {
    guard !target.lifetime.hasEnded else { return nil }
    // Holds the link from the target's lifetime to this binding; emptied when the source
    // ends, so a long-lived target does not keep every finished source's stream alive.
    let link = SerialDisposable()
    let binding = producer.startWithSignal { signal, interrupter -> Disposable in
        if let probe = Instrumentation.probe {
            let sink = Node.make(.sink, "<~", upstream: [.init(node: signal.node, role: .data)],
                                 file: target.file, line: target.line)
            probe.didSubscribe(sink, subscription: Instrumentation.newSubscription(), parent: signal.subscription,
                               request: nil, observes: [], observedBy: target.observer == 0 ? [] : [target.observer])
        }
        signal.observeInternally { event in
            if case let .value(value) = event {
                target.action(transform(value))
            } else {
                link.dispose()
            }
        }
        return interrupter
    }
    link.inner = target.lifetime.observeEnded { binding.dispose() }
    return binding
}

/// An optional target: bound to when there is one; a binding into nil ends at once.
extension Optional: BindingTargetProvider where Wrapped: BindingTargetProvider {
    /// The wrapped target's value type.
    public typealias Value = Wrapped.Value

    /// The wrapped target's, or one whose lifetime has ended.
    public var bindingTarget: BindingTarget<Wrapped.Value> {
        switch self {
        case let .some(provider): return provider.bindingTarget
        case .none: return BindingTarget(lifetime: .empty, file: "Signals/Property.swift", line: 0) { _ in }
        }
    }
}
