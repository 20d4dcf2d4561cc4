import Locks
import Signals

extension AsyncSequence {
    /// This sequence, recorded: while a recorder runs, each iterator made from it is a
    /// subscription of a node labelled `label`, and each pull (`next()` called: the demand),
    /// element, the end, a thrown error and a cancellation an event of it, in the same trace a
    /// `Signals` pipeline writes, so every verb (`stats`, `draw`, `view`, `export`, `diff`)
    /// reads it. A pull has no causes and causes nothing; `stats` counts them per node.
    ///
    /// The node is named after the sequence's type (`AsyncMapSequence` → `map`,
    /// `AsyncDebounceSequence` → `debounce`), and linked to the taps inside it: tap the
    /// stages of a chain and the pipeline diagram shows the chain. An element is caused by
    /// the elements the taps upstream produced while it was being pulled, in the same task
    /// (a `map` or `filter` of a tapped sequence). The operators of swift-async-algorithms
    /// that pull their upstream from a task of their own have a rule each (`Received.Rule`):
    /// an element of a tap right on a `debounce` is caused by the burst it settled (the last
    /// element primary); on a `merge`, by the one input element passed through; on a `zip`,
    /// by the k-th element of each input; on a `combineLatest`, by the input element whose
    /// arrival made it (primary) and the latest element of each other input. Those of
    /// `merge`, `zip` and `combineLatest` need each input tapped once, outermost; other
    /// operators that pull from a task of their own leave their elements without causes.
    /// Work a `for await` loop over the tap starts for an element is linked to it with
    /// `following(_:)`.
    ///
    /// It forwards `next(isolation:)`: no executor hop, no `Sendable` requirement on the
    /// elements. With no recorder running, a pull costs one check of the probe slot. On the
    /// standard library's `map`, `filter` and `compactMap`, an overload of this method pulls
    /// the base where its type is named, so that the pull is specialised through
    /// (`MarbledSequence.DirectNext`).
    public func marbles(_ label: String, file: StaticString = #fileID, line: UInt = #line) -> MarbledSequence<Self> {
        MarbledSequence(self, label: label, file: file, line: line)
    }
}

/// A tapped sequence whose node a tap further down links to.
protocol Tapped {
    var marblesNode: Node { get }
}

/// An `AsyncSequence` recorded as a node of the trace (`AsyncSequence.marbles(_:)`): the
/// same elements as its base, each one an event of its node while a recorder runs.
///
/// ```swift
/// let (typed, keystrokes) = AsyncStream<String>.makeStream()
/// let lengths = typed.marbles("typed").map { $0.count }.marbles("lengths")
/// let recording = Recorder(clock: .real)
/// recording.start()
/// keystrokes.yield("swift")
/// keystrokes.finish()
/// for await length in lengths { print(length) }   // 5
/// _ = try recording.stop()                        // recording.bytes: the typed and lengths nodes
/// ```
public struct MarbledSequence<Base: AsyncSequence>: AsyncSequence, Tapped {
    /// The base sequence's elements, unchanged.
    public typealias Element = Base.Element
    /// What the base sequence's iteration throws (`Never` for one that cannot fail).
    public typealias Failure = Base.Failure

    @usableFromInline let base: Base
    /// The node every iterator of this sequence is a subscription of.
    public let node: Node
    /// What each task last received from this sequence's iterators (`following`).
    @usableFromInline let lastElements = LastElements()
    /// How a tap right on an operator that pulls from a task of its own names its elements'
    /// causes (`Received`); nil for the others.
    @usableFromInline let receivedRule: Received.Rule?
    /// The base's pull, written where the base's type is named (the standard library's
    /// sequences, StandardLibraryTaps.swift), so that it is specialised; nil: the protocol's.
    @usableFromInline let directNext: DirectNext?
    /// Whether the base is pulled with `directNext`.
    var pullsDirectly: Bool { directNext != nil }
    var marblesNode: Node { node }

    /// A pull of the base's iterator, written where its type is named.
    ///
    /// Generic code (this tap, any operator generic over its base) asks an iterator for its
    /// next element through the protocol. For a sequence of the caller's module, or of a
    /// package built without library evolution, the optimiser resolves the call to the
    /// iterator's own `next(isolation:)` and inlines it; for the standard library's (`map`,
    /// `filter`), whose conformances are resilient, it does not: the call goes to the
    /// library's unspecialised code, and every sequence and tap below it runs unspecialised
    /// too, an async frame, an executor check and metadata lookups a call. A pull written
    /// where the type is named calls the iterator's method itself, specialised.
    public typealias DirectNext = @Sendable (inout Base.AsyncIterator, isolated (any Actor)?) async throws(Base.Failure) -> Base.Element?

    @usableFromInline
    init(_ base: Base, label: String, file: StaticString, line: UInt, directNext: DirectNext? = nil) {
        self.base = base
        self.directNext = directNext
        let upstream = tapsInside(base)
        // A tap right on a tapped sequence (an environment's input, another tap) passes its
        // elements through: the operator between them is the tap.
        let name = base is Tapped ? "marbles" : Self.operatorName(of: Base.self)
        node = Node.make(upstream.isEmpty ? .source : .operator, name, parameters: Self.operatorParameters(of: base),
                         label: label, upstream: upstream.map { Node.Edge(node: $0, role: .data) }, file: file, line: line)
        // The operators of several inputs keep them as `base1`, `base2`, `base3`.
        receivedRule = Received.rule(named: name, inputTaps: Mirror(reflecting: base).children
            .filter { $0.label?.hasPrefix("base") == true }.map { tapsInside($0.value) })
    }

    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), node: node, lastElements: lastElements, receivedRule: receivedRule,
                 directNext: directNext)
    }

    /// An iterator of a tapped sequence: one subscription of its node.
    ///
    /// ```swift
    /// let numbers = AsyncStream<Int> { continuation in
    ///     continuation.yield(1)
    ///     continuation.finish()
    /// }
    /// var iterator = numbers.marbles("numbers").makeAsyncIterator()   // one subscription of the node
    /// while let number = await iterator.next() { print(number) }
    /// ```
    public struct Iterator: AsyncIteratorProtocol {
        @usableFromInline var base: Base.AsyncIterator
        @usableFromInline let node: Node
        @usableFromInline let lastElements: LastElements
        @usableFromInline let receivedRule: Received.Rule?
        @usableFromInline let directNext: DirectNext?
        var subscription: UInt64 = 0
        @usableFromInline var ended = false
        /// What the taps inside an operator that pulls from a task of its own reported in that
        /// task (see `Received`); nil for other operators.
        var received: Received?

        @usableFromInline
        init(base: Base.AsyncIterator, node: Node, lastElements: LastElements, receivedRule: Received.Rule?,
             directNext: DirectNext?) {
            self.base = base
            self.directNext = directNext
            self.node = node
            self.lastElements = lastElements
            self.receivedRule = receivedRule
        }

        /// Inlinable, so that with no recorder a pull is the base's pull, specialised where
        /// the sequence's type is known, after one load of the probe slot.
        @inlinable
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(Failure) -> Element? {
            if ended || !Instrumentation.isAttached {
                if let directNext { return try await directNext(&base, actor) }
                return try await base.next(isolation: actor)
            }
            return try await recordedNext(isolation: actor)
        }

        /// A pull while a recorder runs: reported.
        @usableFromInline
        mutating func recordedNext(isolation actor: isolated (any Actor)?) async throws(Failure) -> Element? {
            guard let probe = Instrumentation.probe else {
                return try await base.next(isolation: actor)
            }
            if subscription == 0 {
                subscription = Instrumentation.newSubscription()
                probe.didSubscribe(node, subscription: subscription, parent: 0)
                if let receivedRule { received = Received(receivedRule) }
            }
            reportPull(to: probe)
            let pull = Pull(subscription: subscription, received: received)
            var iterator = base
            let outcome: Result<Element?, any Error>
            do {
                outcome = .success(try await Pull.$current.withValue(pull, operation: {
                    try await iterator.next(isolation: actor)
                }, isolation: actor))
            } catch {
                outcome = .failure(error)
            }
            base = iterator
            let isElement = if case .success(_?) = outcome { true } else { false }
            let causes = received?.causes(ofElement: isElement, pulled: pull.causes) ?? pull.causes
            switch outcome {
            case let .success(element?):
                lastElements.receive(report(.value, element, causes: causes, to: probe), subscription: subscription, probe: probe)
                return element
            case .success(nil):
                report(Task.isCancelled ? .interrupted : .completed, Element?.none, causes: causes, to: probe)
                end(probe)
                return nil
            case let .failure(error):
                if error is CancellationError {
                    report(.interrupted, Element?.none, causes: causes, to: probe)
                } else {
                    report(.failed, error, causes: causes, to: probe)
                }
                end(probe)
                // It came from `base.next`, which throws only `Failure`.
                throw error as! Failure
            }
        }

        /// Reports an event of this subscription with `causes`, and gives its number to the
        /// pull of the tap downstream, if one is pulling; returns the number.
        @discardableResult
        private func report<Payload>(_ kind: EventKind, _ payload: Payload?, causes: [UInt64], to probe: Probe) -> UInt64 {
            let sequence: UInt64 = ProbeContext.withCurrent { context in
                let (cause, others) = (context.cause, context.otherCauses)
                // The last event pulled is what passed (a filter pulls and drops the others):
                // the primary cause, from which stage latency is measured.
                context.cause = causes.last ?? 0
                context.otherCauses = Array(causes.dropLast())
                defer { (context.cause, context.otherCauses) = (cause, others) }
                if let payload {
                    return withUnsafePointer(to: payload) {
                        probe.willSend(node, subscription: subscription, kind: kind, value: $0, context: context)
                    }
                }
                return probe.willSend(node, subscription: subscription, kind: kind, value: UnsafePointer<Payload>?.none,
                                      context: context)
            }
            Pull.current?.add(sequence, from: node, kind: kind)
            return sequence
        }

        /// Reports a pull of this subscription: the demand, without causes (an event delivered
        /// on this thread meanwhile is not what asked), and given to no pull downstream.
        private func reportPull(to probe: Probe) {
            ProbeContext.withCurrent { context in
                let (cause, others) = (context.cause, context.otherCauses)
                (context.cause, context.otherCauses) = (0, [])
                defer { (context.cause, context.otherCauses) = (cause, others) }
                _ = probe.willSend(node, subscription: subscription, kind: .pull, value: UnsafePointer<Element>?.none,
                                   context: context)
            }
        }

        private mutating func end(_ probe: Probe) {
            ended = true
            lastElements.end(subscription)
            probe.didDispose(node, subscription: subscription)
        }
    }

    /// `AsyncDebounceSequence<…>` → `debounce`, `AsyncStream<Int>` → `stream`: the type's
    /// name without its module, generic arguments, `Async` and `Sequence`, first letter small.
    /// An operator's sequence is named after the method that makes it: the arity of
    /// swift-async-algorithms' `merge`, `zip`, `combineLatest` and `chain` types is dropped
    /// (`AsyncMerge2Sequence` → `merge`), as is `Throwing` of the standard library's throwing
    /// variants (`AsyncThrowingMapSequence` → `map`) and the underscore of one not yet final
    /// (`_AsyncThrottleSequence` → `throttle`); types whose method is named otherwise
    /// are listed (`AsyncChunksOfCountOrSignalSequence` → `chunks`). A stream or channel keeps
    /// `throwing` (`AsyncThrowingStream` → `throwingStream`): it is a source, not a method.
    static func operatorName(of type: Any.Type) -> String {
        var name = String(describing: type)
        if let bracket = name.firstIndex(of: "<") { name = String(name[..<bracket]) }
        if let dot = name.lastIndex(of: ".") { name = String(name[name.index(after: dot)...]) }
        // An operator not yet final is spelt with an underscore (`_throttle`, `_AsyncThrottleSequence`).
        while name.count > 1, name.first == "_" { name.removeFirst() }
        if name.hasPrefix("Async"), name.count > 5 { name.removeFirst(5) }
        if name.hasSuffix("Sequence"), name.count > 8 {
            name.removeLast(8)
            if name.hasPrefix("Throwing"), name.count > 8 { name.removeFirst(8) }
            while name.count > 1, name.last?.isNumber == true { name.removeLast() }
            if let method = operatorMethodNames[name] { return method }
        }
        if name == "Marbled" { return "marbles" }
        // A stream that keeps its elements' causes is a stream.
        if name == "MarbledStream" { return "stream" }
        return name.prefix(1).lowercased() + name.dropFirst()
    }
}

extension MarbledSequence: Sendable where Base: Sendable {}

/// The nodes of the taps inside `value` (an operator's upstream sequences, as stored), looked
/// for a few levels deep; `value` itself when it is tapped.
func tapsInside(_ value: Any) -> [Node] {
    if let tapped = value as? Tapped { return [tapped.marblesNode] }
    var found: [Node] = []
    var level: [Any] = Mirror(reflecting: value).children.map(\.value)
    for _ in 0..<4 where !level.isEmpty {
        var next: [Any] = []
        for child in level {
            if let tapped = child as? Tapped {
                if !found.contains(where: { $0 === tapped.marblesNode }) { found.append(tapped.marblesNode) }
            } else {
                next += Mirror(reflecting: child).children.map(\.value)
            }
        }
        level = next
    }
    return found
}

/// Operator types (`Async` and `Sequence`, `Throwing` and the arity taken off) whose
/// method's name is not their own.
let operatorMethodNames: [String: String] = [
    "ChunksOfCountOrSignal": "chunks",
    "ChunksOfCount": "chunks",
    "ChunkedByGroup": "chunked",
    "ChunkedOnProjection": "chunked",
    "InclusiveReductions": "reductions",
    "ExclusiveReductions": "reductions",
    "JoinedBySeparator": "joined",
    // `Sequence.async` makes it.
    "Sync": "async",
]

/// The pull a tap is making: the taps upstream, pulled within it in the same task, add the
/// sequence numbers of the events they report, which become the causes of its own.
///
/// Only the task that pulls adds: an operator that pulls its upstream from a task of its own
/// (`debounce`, `merge`) starts that task inside a pull, and a task inherits task-local
/// values, so without the check every element its task received, for as long as it runs,
/// would be added to the first pull, and the first element downstream caused by all of them.
/// What such a task's taps report goes to the tap's `Received` instead, with the reporting
/// tap's node and the event's kind, when it keeps one.
final class Pull: @unchecked Sendable {  // `numbers` only under `lock`; `task` immutable
    @TaskLocal static var current: Pull?
    private let lock = Lock()
    private var numbers: [UInt64] = []
    /// The pulling task (compared while it runs, the pull being made in it).
    private let task: UnsafeCurrentTask?
    /// The subscription of the tap that pulls.
    let subscription: UInt64
    /// Where the events of another task that inherited this pull go (a `debounce`'s).
    private let received: Received?

    init(subscription: UInt64, received: Received? = nil) {
        task = withUnsafeCurrentTask { $0 }
        self.subscription = subscription
        self.received = received
    }

    /// Adds the event `sequence`, of kind `kind`, that the tap on `node` reported (nil: no
    /// tap's, the cause a stream's element carried).
    func add(_ sequence: UInt64, from node: Node? = nil, kind: EventKind = .value) {
        guard sequence != 0 else { return }
        guard withUnsafeCurrentTask(body: { $0 == task }) else {
            received?.add(sequence, from: node, kind: kind)
            return
        }
        lock.withLock { numbers.append(sequence) }
    }

    var causes: [UInt64] { lock.withLock { numbers } }

    /// Whether the current task is the one pulling.
    var isInCurrentTask: Bool { withUnsafeCurrentTask { $0 == task } }
}

