// zip: the n-th values of every input, paired up.

/// The state of one zip instance. The typed queues of values live in the closures of its
/// inputs and `pop`; this keeps, per input, one queued sequence number per queued value
/// (its length is the queue's length) and whether the input completed.
final class ZipState<Value, Error: Swift.Error>: JoinState, @unchecked Sendable {  // queues only under the OperatorLock
    private let lock: OperatorLock<Value, Error>
    private let pop: () -> Value?
    private var queued: [Queue<UInt64>]
    private var completed: [Bool]

    /// `pop` takes the first value of every queue and combines them, or gives nil while a
    /// queue is empty.
    init(count: Int, output: Observer<Value, Error>, pop: @escaping () -> Value?) {
        lock = OperatorLock(output)
        self.pop = pop
        queued = Array(repeating: Queue(), count: count)
        completed = Array(repeating: false, count: count)
    }

    func receive(_ event: Signals.Event<() -> Void, Error>, at index: Int) {
        lock.run {
            guard !lock.isTerminated else { return }
            switch event {
            case let .value(store):
                store()
                let instrumented = Instrumentation.isAttached
                queued[index].append(instrumented ? ProbeContext.current.cause : 0)
                guard queued.allSatisfy({ !$0.isEmpty }), let value = pop() else { return }
                var others = queued.indices.map { queued[$0].popFirst() ?? 0 }
                if instrumented { others.remove(at: index) } else { others = [] }
                lock.send(value, otherCauses: others)
                completeIfExhausted()
            case let .failed(error):
                lock.terminate(.failed(error))
            case .interrupted:
                lock.terminate(.interrupted)
            case .completed:
                completed[index] = true
                completeIfExhausted()
            }
        }
    }

    /// A completed input with nothing queued can pair no more values.
    private func completeIfExhausted() {
        if queued.indices.contains(where: { completed[$0] && queued[$0].isEmpty }) { lock.terminate(.completed) }
    }
}

/// A first-in first-out queue for one zip input.
private struct Queue<Element> {
    private var elements: [Element] = []
    private var head = 0

    mutating func append(_ element: Element) { elements.append(element) }

    mutating func popFirst() -> Element? {
        guard head < elements.count else { return nil }
        let element = elements[head]
        head += 1
        // Compacts once the consumed prefix dominates, so popping stays amortised O(1).
        if head > 32 && head * 2 > elements.count {
            elements.removeFirst(head)
            head = 0
        }
        return element
    }

    var isEmpty: Bool { head == elements.count }
}

// MARK: Signal

extension Signal {
    static func zip<B, U>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, node: Node, combine: @escaping (Value, B) -> U
    ) -> Signal<U, Error> {
        var qa = Queue<Value>(), qb = Queue<B>()
        return .joined(node, [a.joinInput { qa.append($0) }, b.joinInput { qb.append($0) }]) { output in
            ZipState(count: 2, output: output) {
                guard !qa.isEmpty, !qb.isEmpty, let va = qa.popFirst(), let vb = qb.popFirst() else { return nil }
                return combine(va, vb)
            }
        }
    }

    static func zip<B, C>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, node: Node
    ) -> Signal<(Value, B, C), Error> {
        var qa = Queue<Value>(), qb = Queue<B>(), qc = Queue<C>()
        let inputs = [a.joinInput { qa.append($0) }, b.joinInput { qb.append($0) }, c.joinInput { qc.append($0) }]
        return .joined(node, inputs) { output in
            ZipState(count: 3, output: output) {
                guard !qa.isEmpty, !qb.isEmpty, !qc.isEmpty,
                      let va = qa.popFirst(), let vb = qb.popFirst(), let vc = qc.popFirst() else { return nil }
                return (va, vb, vc)
            }
        }
    }

    static func zip<B, C, D>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, _ d: Signal<D, Error>, node: Node
    ) -> Signal<(Value, B, C, D), Error> {
        var qa = Queue<Value>(), qb = Queue<B>(), qc = Queue<C>(), qd = Queue<D>()
        let inputs = [a.joinInput { qa.append($0) }, b.joinInput { qb.append($0) },
                      c.joinInput { qc.append($0) }, d.joinInput { qd.append($0) }]
        return .joined(node, inputs) { output in
            ZipState(count: 4, output: output) {
                guard !qa.isEmpty, !qb.isEmpty, !qc.isEmpty, !qd.isEmpty, let va = qa.popFirst(),
                      let vb = qb.popFirst(), let vc = qc.popFirst(), let vd = qd.popFirst() else { return nil }
                return (va, vb, vc, vd)
            }
        }
    }

    static func zip(_ signals: [Signal], node: Node) -> Signal<[Value], Error> {
        if signals.isEmpty {
            return Signal<[Value], Error>(node: node) { observer, _ in observer.sendCompleted() }
        }
        var queues = [Queue<Value>](repeating: Queue(), count: signals.count)
        let inputs = signals.enumerated().map { index, signal in signal.joinInput { queues[index].append($0) } }
        return .joined(node, inputs) { output in
            ZipState(count: signals.count, output: output) {
                guard queues.allSatisfy({ !$0.isEmpty }) else { return nil }
                let values = queues.indices.compactMap { queues[$0].popFirst() }
                return values.count == queues.count ? values : nil
            }
        }
    }

    /// Pairs the n-th values of `a` and `b`. Completes when either has completed and all its
    /// values are paired; fails or is interrupted when either does.
    public static func zip<B>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, file: StaticString = #fileID, line: UInt = #line
    ) -> Signal<(Value, B), Error> {
        zip(a, b, node: .joining("zip", [a.node, b.node], file: file, line: line), combine: { ($0, $1) })
    }

    /// The n-th values of three signals, together.
    public static func zip<B, C>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>,
        file: StaticString = #fileID, line: UInt = #line
    ) -> Signal<(Value, B, C), Error> {
        zip(a, b, c, node: .joining("zip", [a.node, b.node, c.node], file: file, line: line))
    }

    /// The n-th values of four signals, together.
    public static func zip<B, C, D>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, _ d: Signal<D, Error>,
        file: StaticString = #fileID, line: UInt = #line
    ) -> Signal<(Value, B, C, D), Error> {
        zip(a, b, c, d, node: .joining("zip", [a.node, b.node, c.node, d.node], file: file, line: line))
    }

    /// The n-th values of all `signals`, in their order. Completes when one has completed
    /// and all its values are paired (at once when there are none).
    public static func zip<S: Sequence>(_ signals: S, file: StaticString = #fileID, line: UInt = #line)
        -> Signal<[Value], Error> where S.Element == Signal<Value, Error> {
        let list = Array(signals)
        return zip(list, node: .joining("zip", list.map(\.node), file: file, line: line))
    }

    /// Pairs the n-th values of this signal and `other`.
    public func zip<U>(with other: Signal<U, Error>, file: StaticString = #fileID, line: UInt = #line)
        -> Signal<(Value, U), Error> {
        Signal.zip(self, other, node: .joining("zip", [node, other.node], file: file, line: line), combine: { ($0, $1) })
    }
}

// MARK: SignalProducer

extension SignalProducer {
    /// Starts `a` and `b` and pairs their n-th values. Completes when either has completed
    /// and all its values are paired; fails or is interrupted when either does.
    public static func zip<B>(
        _ a: SignalProducer<Value, Error>, _ b: SignalProducer<B, Error>, file: StaticString = #fileID, line: UInt = #line
    ) -> SignalProducer<(Value, B), Error> {
        let node = Node.joining("zip", [a.node, b.node], file: file, line: line)
        return .joining(node) { Signal.zip($0.signal(a), $0.signal(b), node: node, combine: { ($0, $1) }) }
    }

    /// Starts three producers and gives their n-th values together.
    public static func zip<B, C>(
        _ a: SignalProducer<Value, Error>, _ b: SignalProducer<B, Error>, _ c: SignalProducer<C, Error>,
        file: StaticString = #fileID, line: UInt = #line
    ) -> SignalProducer<(Value, B, C), Error> {
        let node = Node.joining("zip", [a.node, b.node, c.node], file: file, line: line)
        return .joining(node) { Signal.zip($0.signal(a), $0.signal(b), $0.signal(c), node: node) }
    }

    /// Starts four producers and gives their n-th values together.
    public static func zip<B, C, D>(
        _ a: SignalProducer<Value, Error>, _ b: SignalProducer<B, Error>, _ c: SignalProducer<C, Error>,
        _ d: SignalProducer<D, Error>, file: StaticString = #fileID, line: UInt = #line
    ) -> SignalProducer<(Value, B, C, D), Error> {
        let node = Node.joining("zip", [a.node, b.node, c.node, d.node], file: file, line: line)
        return .joining(node) { Signal.zip($0.signal(a), $0.signal(b), $0.signal(c), $0.signal(d), node: node) }
    }

    /// Starts all `producers` and gives their n-th values, in their order. Completes when one
    /// has completed and all its values are paired (at once when there are none).
    public static func zip<S: Sequence>(_ producers: S, file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer<[Value], Error> where S.Element == SignalProducer<Value, Error> {
        let list = Array(producers)
        let node = Node.joining("zip", list.map(\.node), file: file, line: line)
        if list.isEmpty {
            return SignalProducer<[Value], Error>(node: node) { observer, _ in observer.sendCompleted() }
        }
        return .joining(node) { collector in Signal.zip(list.map(collector.signal), node: node) }
    }

    /// As `zip(_:)`, but with no producers sends `emptySentinel` once and completes.
    public static func zip<S: Sequence>(_ producers: S, emptySentinel: [Value], file: StaticString = #fileID,
                                        line: UInt = #line) -> SignalProducer<[Value], Error>
    where S.Element == SignalProducer<Value, Error> {
        let list = Array(producers)
        guard list.isEmpty else { return zip(list, file: file, line: line) }
        let node = Node.joining("zip", parameters: "emptySentinel:", [], file: file, line: line)
        return SignalProducer<[Value], Error>(node: node) { observer, _ in
            observer.send(value: emptySentinel)
            observer.sendCompleted()
        }
    }

    /// Starts this producer and `other` and pairs their n-th values.
    public func zip<U>(with other: SignalProducer<U, Error>, file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer<(Value, U), Error> {
        let node = Node.joining("zip", [self.node, other.node], file: file, line: line)
        return .joining(node) { Signal.zip($0.signal(self), $0.signal(other), node: node, combine: { ($0, $1) }) }
    }
}
