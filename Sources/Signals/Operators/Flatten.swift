// flatten, flatMap (RAC2: flattenMap): a stream of streams joined into one by a strategy.

/// How a higher-order stream joins its inner streams (ReactiveSwift's `FlattenStrategy`).
///
/// ```swift
/// let (queries, query) = Signal<String, Never>.pipe()
/// func search(_ text: String) -> SignalProducer<[String], Never> { SignalProducer(value: [text + "!"]) }
/// queries
///     .flatMap(.latest) { search($0) }   // a new query interrupts the search before it
///     .observeValues { print($0) }
/// query.send(value: "swift")             // prints ["swift!"]
/// ```
public struct FlattenStrategy: Equatable, Sendable, CustomStringConvertible {
    enum Kind: Equatable, Sendable {
        case concurrent(limit: UInt)
        case latest
        case race
        case throttle
    }

    let kind: Kind

    /// All inner streams run at once; the result completes when the outer stream and every
    /// inner stream have completed.
    public static let merge = FlattenStrategy(kind: .concurrent(limit: .max))

    /// One inner stream at a time, in the order they arrive; later ones wait their turn.
    public static let concat = FlattenStrategy(kind: .concurrent(limit: 1))

    /// A new inner stream interrupts (disposes) the one before it. The result completes when
    /// the outer stream and the current inner stream have completed.
    public static let latest = FlattenStrategy(kind: .latest)

    /// The first inner stream to send anything wins; the others are disposed, and inner
    /// streams arriving after the win are ignored.
    public static let race = FlattenStrategy(kind: .race)

    /// While an inner stream is running, new ones are ignored (RxJS's `exhaust`).
    public static let throttle = FlattenStrategy(kind: .throttle)

    /// At most `limit` inner streams at a time; the rest wait in arrival order.
    /// `.merge` is an unlimited `concurrent`, `.concat` is `concurrent(limit: 1)`.
    /// A limit of 0 is taken as 1 (`.concat`): no inner stream could ever start otherwise,
    /// and a value read from a file or a flag should not be able to trap the process.
    public static func concurrent(limit: UInt) -> FlattenStrategy {
        FlattenStrategy(kind: .concurrent(limit: max(limit, 1)))
    }

    /// The name recorded as the node's parameters: `merge`, `concat`, `latest`, ...
    public var description: String {
        switch kind {
        case .concurrent(limit: .max): return "merge"
        case .concurrent(limit: 1): return "concat"
        case let .concurrent(limit): return "concurrent(limit: \(limit))"
        case .latest: return "latest"
        case .race: return "race"
        case .throttle: return "throttle"
        }
    }
}

/// A value that can be started as a `SignalProducer`: the inner streams `flatten` accepts.
///
/// ```swift
/// let (photos, photo) = Signal<Property<Int>, Never>.pipe()
/// photos.flatten(.latest)   // a property is convertible: its producer is started
///     .observeValues { print("likes", $0) }
/// photo.send(value: Property(value: 3))   // prints "likes 3"
/// ```
public protocol SignalProducerConvertible {
    associatedtype Value
    associatedtype Error: Swift.Error
    /// The producer to start.
    var producer: SignalProducer<Value, Error> { get }
}

extension SignalProducer: SignalProducerConvertible {
    /// The producer itself.
    public var producer: SignalProducer<Value, Error> { self }
}

extension Signal: SignalProducerConvertible {
    /// A producer whose starts observe this (hot) signal.
    public var producer: SignalProducer<Value, Error> { SignalProducer(self) }
}

/// A property as an inner stream: its current value, then every change.
extension Property: SignalProducerConvertible {}

/// A result as a stream: its success then completion, or its failure.
extension Result: SignalProducerConvertible {
    /// A producer that sends the success and completes, or fails.
    public var producer: SignalProducer<Success, Failure> { SignalProducer(result: self) }

    /// The success, if this is one (ReactiveSwift's internal `Result.value`, for code
    /// written against it that imports the module `@testable`).
    var value: Success? {
        if case let .success(value) = self { return value }
        return nil
    }

    /// The failure, if this is one (ReactiveSwift's internal `Result.error`).
    var error: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}

/// A property as an inner stream: its current value, then every change.
extension MutableProperty: SignalProducerConvertible {}

/// The state of one flatten instance: which inner streams run, which wait, whether the
/// outer stream has completed. Decisions and forwarded values happen under one
/// `OperatorLock`, so an inner stream that is replaced or loses a race cannot slip a value
/// through after the decision; the replaced stream is disposed once the lock is released.
final class FlattenCoordinator<Inner, Value, Error: Swift.Error>: @unchecked Sendable {  // mutable state only under the OperatorLock
    private let kind: FlattenStrategy.Kind
    private let lock: OperatorLock<Value, Error>
    private let parent: UInt64
    private let start: (Inner, Observer<Value, Error>) -> Disposable
    private var active: [(id: UInt64, disposable: SerialDisposable)] = []
    /// Inner streams waiting for room, first at `waitingStart` (taken from the front without
    /// moving the rest: a long queue drains in linear time).
    private var waiting: [Inner] = []
    private var waitingStart = 0
    private var nextID: UInt64 = 0
    private var outerCompleted = false
    private var winner: UInt64?
    /// Whether `beginWaiting` is starting inner streams on the lock's thread now.
    private var starting = false

    init(_ kind: FlattenStrategy.Kind, output: Observer<Value, Error>, parent: UInt64,
         start: @escaping (Inner, Observer<Value, Error>) -> Disposable) {
        self.kind = kind
        self.lock = OperatorLock(output)
        self.parent = parent
        self.start = start
    }

    /// An event of the outer stream. An interruption (a teardown, perhaps from downstream
    /// on another thread) is left to a thread that holds the lock (`runOrLeave`).
    func outer(_ event: Signals.Event<Inner, Error>) {
        if case .interrupted = event {
            lock.runOrLeave { [self] in
                guard !lock.isTerminated else { return }
                lock.terminate(.interrupted)
            }
            return
        }
        lock.run {
            guard !lock.isTerminated else { return }
            switch event {
            case let .value(inner):
                switch kind {
                case .concurrent:
                    waiting.append(inner)
                    beginWaiting()
                case .latest:
                    disposeActive()
                    begin(inner)
                case .race:
                    if winner == nil { begin(inner) }
                case .throttle:
                    if active.isEmpty { begin(inner) }
                }
            case let .failed(error):
                lock.terminate(.failed(error))
            case .interrupted:
                lock.terminate(.interrupted)
            case .completed:
                outerCompleted = true
                completeIfDone()
            }
        }
    }

    /// Disposes every inner stream; the result's lifetime calls this when it ends (left to a
    /// thread that holds the lock, see `outer(_:)`).
    func dispose() {
        lock.runOrLeave { [self] in
            waiting = []
            waitingStart = 0
            disposeActive()
        }
    }

    private func begin(_ inner: Inner) {
        nextID += 1
        let id = nextID
        let holder = SerialDisposable()
        active.append((id, holder))
        let observer = Observer<Value, Error> { [self] event in self.inner(event, from: id) }
        let disposable = ProbeContext.current.asParent(parent) { start(inner, observer) }
        // Set after the start returns: a synchronous inner may already have finished, and
        // then the holder is disposed and disposes this at once.
        holder.inner = disposable
    }

    private func inner(_ event: Signals.Event<Value, Error>, from id: UInt64) {
        lock.run {
            guard !lock.isTerminated, active.contains(where: { $0.id == id }) else { return }
            if case .race = kind, winner == nil {
                winner = id
                let losers = active.filter { $0.id != id }
                active.removeAll { $0.id != id }
                losers.forEach { lock.disposeLater($0.disposable) }
            }
            switch event {
            case let .value(value):
                lock.send(value)
            case .failed, .interrupted:
                lock.terminate(event)
            case .completed:
                active.filter { $0.id == id }.forEach { lock.disposeLater($0.disposable) }
                active.removeAll { $0.id == id }
                beginWaiting()
                completeIfDone()
            }
        }
    }

    /// Starts waiting inner streams while a concurrent flatten has room. An inner stream that
    /// completes as it starts asks for the next from inside its start: the loop already
    /// running on this thread starts it once that start returns (`starting`), so a `concat`
    /// of any number of such streams runs in constant stack.
    private func beginWaiting() {
        guard !starting, case let .concurrent(limit) = kind else { return }
        starting = true
        defer { starting = false }
        while !lock.isTerminated, waitingStart < waiting.count, active.count < Int(clamping: limit) {
            let next = waiting[waitingStart]
            waitingStart += 1
            if waitingStart == waiting.count || waitingStart >= 1024 && waitingStart * 2 >= waiting.count {
                waiting.removeFirst(waitingStart)
                waitingStart = 0
            }
            begin(next)
        }
    }

    private func completeIfDone() {
        if outerCompleted && active.isEmpty && waitingStart == waiting.count { lock.terminate(.completed) }
    }

    private func disposeActive() {
        active.forEach { lock.disposeLater($0.disposable) }
        active = []
    }
}

extension SignalProducerConvertible {
    /// Starts this inner stream sending into `observer`, its errors converted; the returned
    /// disposable first stops the observation, then interrupts the start, so the interruption
    /// it causes never reaches the flatten.
    func startInner<F>(_ observer: Observer<Value, F>, _ convert: @escaping (Error) -> F) -> Disposable {
        producer.startWithSignal { signal, interrupter in
            // Started by the flatten (`FlattenCoordinator` starts it as its subscription's child).
            let flatten = Instrumentation.isAttached ? ProbeContext.withCurrent { $0.parentSubscription } : 0
            let observation = signal.observeInternally(by: flatten) { observer.send($0.mapError(convert)) }
            return CompositeDisposable([interrupter] + (observation.map { [$0] } ?? []))
        }
    }
}

/// The error conversion of a stream that cannot fail.
func neverFails<F>(_ error: Never) -> F {}

extension Signal {
    /// The flatten every public variant uses: each outer value becomes an inner stream by
    /// `transform`, started with this signal's subscription as its parent.
    func flatMapCore<Inner, U, F>(
        _ strategy: FlattenStrategy, node: Node,
        transform: @escaping (Value) -> Inner,
        outerError: @escaping (Error) -> F,
        start: @escaping (Inner, Signals.Observer<U, F>) -> Disposable
    ) -> Signal<U, F> {
        Signal<U, F>.parenting(node) { input, lifetime, subscription in
            let coordinator = FlattenCoordinator<Inner, U, F>(strategy.kind, output: input,
                                                              parent: subscription, start: start)
            lifetime += AnyDisposable { coordinator.dispose() }
            lifetime += observeInternally { event in
                coordinator.outer(event.map(transform).mapError(outerError))
            }
        }
    }
}

extension SignalProducer {
    /// `Signal.flatMapCore` lifted: every start of the result flattens its own start of this
    /// producer under `node`.
    func flatMapCore<Inner, U, F>(
        _ strategy: FlattenStrategy, node: Node,
        transform: @escaping (Value) -> Inner,
        outerError: @escaping (Error) -> F,
        start: @escaping (Inner, Signals.Observer<U, F>) -> Disposable
    ) -> SignalProducer<U, F> {
        lift(node) { $0.flatMapCore(strategy, node: node, transform: transform, outerError: outerError, start: start) }
    }
}

// MARK: Signal

extension Signal where Value: SignalProducerConvertible, Value.Error == Error {
    /// Joins the inner streams by `strategy`. A failure of the outer or any inner stream
    /// fails the result and disposes everything.
    public func flatten(_ strategy: FlattenStrategy, file: StaticString = #fileID, line: UInt = #line)
        -> Signal<Value.Value, Error> {
        let node = Node.operator("flatten", parameters: "\(strategy)", (self.node, .data), file: file, line: line)
        return flatMapCore(strategy, node: node, transform: { $0 }, outerError: { $0 },
                           start: { $0.startInner($1, { $0 }) })
    }
}

extension Signal where Value: SignalProducerConvertible, Value.Error == Never {
    /// Joins inner streams that cannot fail by `strategy`; only the outer stream can fail.
    @_disfavoredOverload
    public func flatten(_ strategy: FlattenStrategy, file: StaticString = #fileID, line: UInt = #line)
        -> Signal<Value.Value, Error> {
        let node = Node.operator("flatten", parameters: "\(strategy)", (self.node, .data), file: file, line: line)
        return flatMapCore(strategy, node: node, transform: { $0 }, outerError: { $0 },
                           start: { $0.startInner($1, neverFails) })
    }
}

extension Signal where Value: SignalProducerConvertible, Error == Never {
    /// Joins the inner streams by `strategy`; the outer stream cannot fail, the inner
    /// streams can, and the first inner failure fails the result.
    @_disfavoredOverload
    public func flatten(_ strategy: FlattenStrategy, file: StaticString = #fileID, line: UInt = #line)
        -> Signal<Value.Value, Value.Error> {
        let node = Node.operator("flatten", parameters: "\(strategy)", (self.node, .data), file: file, line: line)
        return flatMapCore(strategy, node: node, transform: { $0 }, outerError: neverFails,
                           start: { $0.startInner($1, { $0 }) })
    }
}

extension Signal {
    /// Maps each value to an inner stream and joins them by `strategy`: `.merge` runs all
    /// at once, `.concat` one after another, `.latest` switches to the newest, `.race` keeps
    /// the first to send, `.throttle` ignores new ones while one runs.
    public func flatMap<Inner: SignalProducerConvertible>(
        _ strategy: FlattenStrategy, file: StaticString = #fileID, line: UInt = #line,
        _ transform: @escaping (Value) -> Inner
    ) -> Signal<Inner.Value, Error> where Inner.Error == Error {
        let node = Node.operator("flatMap", parameters: "\(strategy)", (self.node, .data), file: file, line: line)
        return flatMapCore(strategy, node: node, transform: transform, outerError: { $0 },
                           start: { $0.startInner($1, { $0 }) })
    }

    /// `flatMap` with inner streams that cannot fail.
    @_disfavoredOverload
    public func flatMap<Inner: SignalProducerConvertible>(
        _ strategy: FlattenStrategy, file: StaticString = #fileID, line: UInt = #line,
        _ transform: @escaping (Value) -> Inner
    ) -> Signal<Inner.Value, Error> where Inner.Error == Never {
        let node = Node.operator("flatMap", parameters: "\(strategy)", (self.node, .data), file: file, line: line)
        return flatMapCore(strategy, node: node, transform: transform, outerError: { $0 },
                           start: { $0.startInner($1, neverFails) })
    }

    /// `flatMap` whose transform gives a producer written `.init(...)` or `.empty`: the
    /// producer's types are inferred from this signal's error type.
    @_disfavoredOverload
    public func flatMap<U>(
        _ strategy: FlattenStrategy, file: StaticString = #fileID, line: UInt = #line,
        _ transform: @escaping (Value) -> SignalProducer<U, Error>
    ) -> Signal<U, Error> {
        let node = Node.operator("flatMap", parameters: "\(strategy)", (self.node, .data), file: file, line: line)
        return flatMapCore(strategy, node: node, transform: transform, outerError: { $0 },
                           start: { $0.startInner($1, { $0 }) })
    }

    /// ReactiveCocoa 2's `flattenMap:`: `flatMap(.merge, transform)`, recorded under the
    /// tutorial's name.
    public func flattenMap<Inner: SignalProducerConvertible>(
        file: StaticString = #fileID, line: UInt = #line,
        _ transform: @escaping (Value) -> Inner
    ) -> Signal<Inner.Value, Error> where Inner.Error == Error {
        let node = Node.operator("flattenMap", parameters: "merge", (self.node, .data), file: file, line: line)
        return flatMapCore(.merge, node: node, transform: transform, outerError: { $0 },
                           start: { $0.startInner($1, { $0 }) })
    }
}

extension Signal where Error == Never {
    /// `flatMap` from a stream that cannot fail into inner streams that can: the first inner
    /// failure fails the result.
    @_disfavoredOverload
    public func flatMap<Inner: SignalProducerConvertible>(
        _ strategy: FlattenStrategy, file: StaticString = #fileID, line: UInt = #line,
        _ transform: @escaping (Value) -> Inner
    ) -> Signal<Inner.Value, Inner.Error> {
        let node = Node.operator("flatMap", parameters: "\(strategy)", (self.node, .data), file: file, line: line)
        return flatMapCore(strategy, node: node, transform: transform, outerError: neverFails,
                           start: { $0.startInner($1, { $0 }) })
    }

    /// ReactiveCocoa 2's `flattenMap:` from a stream that cannot fail into inner streams that can.
    @_disfavoredOverload
    public func flattenMap<Inner: SignalProducerConvertible>(
        file: StaticString = #fileID, line: UInt = #line,
        _ transform: @escaping (Value) -> Inner
    ) -> Signal<Inner.Value, Inner.Error> {
        let node = Node.operator("flattenMap", parameters: "merge", (self.node, .data), file: file, line: line)
        return flatMapCore(.merge, node: node, transform: transform, outerError: neverFails,
                           start: { $0.startInner($1, { $0 }) })
    }
}

// MARK: SignalProducer

extension SignalProducer where Value: SignalProducerConvertible, Value.Error == Error {
    /// Joins the inner streams by `strategy`. A failure of the outer or any inner stream
    /// fails the result and disposes everything.
    public func flatten(_ strategy: FlattenStrategy, file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer<Value.Value, Error> {
        let node = Node.operator("flatten", parameters: "\(strategy)", (self.node, .data), file: file, line: line)
        return flatMapCore(strategy, node: node, transform: { $0 }, outerError: { $0 },
                           start: { $0.startInner($1, { $0 }) })
    }
}

extension SignalProducer where Value: SignalProducerConvertible, Value.Error == Never {
    /// Joins inner streams that cannot fail by `strategy`; only the outer stream can fail.
    @_disfavoredOverload
    public func flatten(_ strategy: FlattenStrategy, file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer<Value.Value, Error> {
        let node = Node.operator("flatten", parameters: "\(strategy)", (self.node, .data), file: file, line: line)
        return flatMapCore(strategy, node: node, transform: { $0 }, outerError: { $0 },
                           start: { $0.startInner($1, neverFails) })
    }
}

extension SignalProducer where Value: SignalProducerConvertible, Error == Never {
    /// Joins the inner streams by `strategy`; the outer stream cannot fail, the inner
    /// streams can, and the first inner failure fails the result.
    @_disfavoredOverload
    public func flatten(_ strategy: FlattenStrategy, file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer<Value.Value, Value.Error> {
        let node = Node.operator("flatten", parameters: "\(strategy)", (self.node, .data), file: file, line: line)
        return flatMapCore(strategy, node: node, transform: { $0 }, outerError: neverFails,
                           start: { $0.startInner($1, { $0 }) })
    }
}

extension SignalProducer {
    /// Maps each value to an inner stream and joins them by `strategy`: `.merge` runs all
    /// at once, `.concat` one after another, `.latest` switches to the newest, `.race` keeps
    /// the first to send, `.throttle` ignores new ones while one runs.
    public func flatMap<Inner: SignalProducerConvertible>(
        _ strategy: FlattenStrategy, file: StaticString = #fileID, line: UInt = #line,
        _ transform: @escaping (Value) -> Inner
    ) -> SignalProducer<Inner.Value, Error> where Inner.Error == Error {
        let node = Node.operator("flatMap", parameters: "\(strategy)", (self.node, .data), file: file, line: line)
        return flatMapCore(strategy, node: node, transform: transform, outerError: { $0 },
                           start: { $0.startInner($1, { $0 }) })
    }

    /// `flatMap` with inner streams that cannot fail.
    @_disfavoredOverload
    public func flatMap<Inner: SignalProducerConvertible>(
        _ strategy: FlattenStrategy, file: StaticString = #fileID, line: UInt = #line,
        _ transform: @escaping (Value) -> Inner
    ) -> SignalProducer<Inner.Value, Error> where Inner.Error == Never {
        let node = Node.operator("flatMap", parameters: "\(strategy)", (self.node, .data), file: file, line: line)
        return flatMapCore(strategy, node: node, transform: transform, outerError: { $0 },
                           start: { $0.startInner($1, neverFails) })
    }

    /// `flatMap` whose transform gives a producer written `.init(...)` or `.empty`: the
    /// producer's types are inferred from this producer's error type.
    @_disfavoredOverload
    public func flatMap<U>(
        _ strategy: FlattenStrategy, file: StaticString = #fileID, line: UInt = #line,
        _ transform: @escaping (Value) -> SignalProducer<U, Error>
    ) -> SignalProducer<U, Error> {
        let node = Node.operator("flatMap", parameters: "\(strategy)", (self.node, .data), file: file, line: line)
        return flatMapCore(strategy, node: node, transform: transform, outerError: { $0 },
                           start: { $0.startInner($1, { $0 }) })
    }

    /// ReactiveCocoa 2's `flattenMap:`: `flatMap(.merge, transform)`, recorded under the
    /// tutorial's name.
    public func flattenMap<Inner: SignalProducerConvertible>(
        file: StaticString = #fileID, line: UInt = #line,
        _ transform: @escaping (Value) -> Inner
    ) -> SignalProducer<Inner.Value, Error> where Inner.Error == Error {
        let node = Node.operator("flattenMap", parameters: "merge", (self.node, .data), file: file, line: line)
        return flatMapCore(.merge, node: node, transform: transform, outerError: { $0 },
                           start: { $0.startInner($1, { $0 }) })
    }
}

extension SignalProducer where Error == Never {
    /// `flatMap` from a stream that cannot fail into inner streams that can: the first inner
    /// failure fails the result.
    @_disfavoredOverload
    public func flatMap<Inner: SignalProducerConvertible>(
        _ strategy: FlattenStrategy, file: StaticString = #fileID, line: UInt = #line,
        _ transform: @escaping (Value) -> Inner
    ) -> SignalProducer<Inner.Value, Inner.Error> {
        let node = Node.operator("flatMap", parameters: "\(strategy)", (self.node, .data), file: file, line: line)
        return flatMapCore(strategy, node: node, transform: transform, outerError: neverFails,
                           start: { $0.startInner($1, { $0 }) })
    }

    /// ReactiveCocoa 2's `flattenMap:` from a stream that cannot fail into inner streams that can.
    @_disfavoredOverload
    public func flattenMap<Inner: SignalProducerConvertible>(
        file: StaticString = #fileID, line: UInt = #line,
        _ transform: @escaping (Value) -> Inner
    ) -> SignalProducer<Inner.Value, Inner.Error> {
        let node = Node.operator("flattenMap", parameters: "merge", (self.node, .data), file: file, line: line)
        return flatMapCore(.merge, node: node, transform: transform, outerError: neverFails,
                           start: { $0.startInner($1, { $0 }) })
    }
}
