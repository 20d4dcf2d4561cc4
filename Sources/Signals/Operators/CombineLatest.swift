// combineLatest (RAC2: combineLatest:reduce:): the latest value of every input, each time
// any input sends, once all have sent.

/// The state of one combineLatest instance. The typed latest values live in the closures
/// of its inputs and `combine`; this keeps which inputs completed and, for the probe, the
/// sequence number of each input's latest value.
final class CombineLatestState<Value, Error: Swift.Error>: JoinState, @unchecked Sendable {  // mutable state only under the OperatorLock
    private let lock: OperatorLock<Value, Error>
    private let combine: () -> Value?
    private var causes: [UInt64]
    private var completed: [Bool]

    /// `combine` gives the combined value, or nil while some input has not sent yet.
    init(count: Int, output: Observer<Value, Error>, combine: @escaping () -> Value?) {
        lock = OperatorLock(output)
        self.combine = combine
        causes = Array(repeating: 0, count: count)
        completed = Array(repeating: false, count: count)
    }

    func receive(_ event: Signals.Event<() -> Void, Error>, at index: Int) {
        lock.run {
            guard !lock.isTerminated else { return }
            switch event {
            case let .value(store):
                store()
                let instrumented = Instrumentation.isAttached
                if instrumented { causes[index] = ProbeContext.current.cause }
                guard let value = combine() else { return }
                // The input that just sent is the primary cause; the others' latest are more.
                var others = instrumented ? causes : []
                if instrumented { others.remove(at: index) }
                lock.send(value, otherCauses: others)
            case let .failed(error):
                lock.terminate(.failed(error))
            case .interrupted:
                lock.terminate(.interrupted)
            case .completed:
                completed[index] = true
                if completed.allSatisfy({ $0 }) { lock.terminate(.completed) }
            }
        }
    }
}

// MARK: Signal

extension Signal {
    static func combineLatest<B, U>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, node: Node, reduce: @escaping (Value, B) -> U
    ) -> Signal<U, Error> {
        var va: Value?, vb: B?
        return .joined(node, [a.joinInput { va = $0 }, b.joinInput { vb = $0 }]) { output in
            CombineLatestState(count: 2, output: output) {
                guard let va, let vb else { return nil }
                return reduce(va, vb)
            }
        }
    }

    static func combineLatest<B, C>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, node: Node
    ) -> Signal<(Value, B, C), Error> {
        var va: Value?, vb: B?, vc: C?
        return .joined(node, [a.joinInput { va = $0 }, b.joinInput { vb = $0 }, c.joinInput { vc = $0 }]) { output in
            CombineLatestState(count: 3, output: output) {
                guard let va, let vb, let vc else { return nil }
                return (va, vb, vc)
            }
        }
    }

    static func combineLatest<B, C, D>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, _ d: Signal<D, Error>, node: Node
    ) -> Signal<(Value, B, C, D), Error> {
        var va: Value?, vb: B?, vc: C?, vd: D?
        let inputs = [a.joinInput { va = $0 }, b.joinInput { vb = $0 }, c.joinInput { vc = $0 }, d.joinInput { vd = $0 }]
        return .joined(node, inputs) { output in
            CombineLatestState(count: 4, output: output) {
                guard let va, let vb, let vc, let vd else { return nil }
                return (va, vb, vc, vd)
            }
        }
    }

    static func combineLatest<U>(_ signals: [Signal], node: Node, reduce: @escaping ([Value]) -> U) -> Signal<U, Error> {
        if signals.isEmpty {
            return Signal<U, Error>(node: node) { observer, _ in observer.sendCompleted() }
        }
        var latest = [Value?](repeating: nil, count: signals.count)
        let inputs = signals.enumerated().map { index, signal in signal.joinInput { latest[index] = $0 } }
        return .joined(node, inputs) { output in
            CombineLatestState(count: signals.count, output: output) {
                let values = latest.compactMap { $0 }
                return values.count == latest.count ? reduce(values) : nil
            }
        }
    }

    /// The latest values of `a` and `b` each time either sends, once both have sent.
    /// Completes when both complete; fails or is interrupted when either does.
    public static func combineLatest<B>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, file: StaticString = #fileID, line: UInt = #line
    ) -> Signal<(Value, B), Error> {
        combineLatest(a, b, node: .joining("combineLatest", [a.node, b.node], file: file, line: line), reduce: { ($0, $1) })
    }

    /// The latest values of three signals each time any sends, once all have sent.
    public static func combineLatest<B, C>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>,
        file: StaticString = #fileID, line: UInt = #line
    ) -> Signal<(Value, B, C), Error> {
        combineLatest(a, b, c, node: .joining("combineLatest", [a.node, b.node, c.node], file: file, line: line))
    }

    /// The latest values of four signals each time any sends, once all have sent.
    public static func combineLatest<B, C, D>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, _ c: Signal<C, Error>, _ d: Signal<D, Error>,
        file: StaticString = #fileID, line: UInt = #line
    ) -> Signal<(Value, B, C, D), Error> {
        combineLatest(a, b, c, d, node: .joining("combineLatest", [a.node, b.node, c.node, d.node], file: file, line: line))
    }

    /// The latest values of all `signals`, in their order, each time any sends, once all have
    /// sent. Completes when all complete (at once when there are none).
    public static func combineLatest<S: Sequence>(
        _ signals: S, file: StaticString = #fileID, line: UInt = #line
    ) -> Signal<[Value], Error> where S.Element == Signal<Value, Error> {
        let list = Array(signals)
        return combineLatest(list, node: .joining("combineLatest", list.map(\.node), file: file, line: line), reduce: { $0 })
    }

    /// ReactiveCocoa 2's `combineLatest:reduce:`: the latest values of all `signals` reduced
    /// to one value each time any sends, once all have sent.
    public static func combineLatest<S: Sequence, U>(
        _ signals: S, file: StaticString = #fileID, line: UInt = #line, reduce: @escaping ([Value]) -> U
    ) -> Signal<U, Error> where S.Element == Signal<Value, Error> {
        let list = Array(signals)
        return combineLatest(list, node: .joining("combineLatest", parameters: "reduce", list.map(\.node),
                                                  file: file, line: line), reduce: reduce)
    }

    /// ReactiveCocoa 2's `combineLatest:reduce:` over two signals.
    public static func combineLatest<B, U>(
        _ a: Signal<Value, Error>, _ b: Signal<B, Error>, file: StaticString = #fileID, line: UInt = #line,
        reduce: @escaping (Value, B) -> U
    ) -> Signal<U, Error> {
        combineLatest(a, b, node: .joining("combineLatest", parameters: "reduce", [a.node, b.node], file: file, line: line),
                      reduce: reduce)
    }

    /// The latest values of this signal and `other` each time either sends, once both have sent.
    public func combineLatest<U>(with other: Signal<U, Error>, file: StaticString = #fileID, line: UInt = #line)
        -> Signal<(Value, U), Error> {
        Signal.combineLatest(self, other, node: .joining("combineLatest", [node, other.node], file: file, line: line),
                             reduce: { ($0, $1) })
    }
}

// MARK: SignalProducer

extension SignalProducer {
    /// Starts `a` and `b`; the latest values of both each time either sends, once both have
    /// sent. Completes when both complete; fails or is interrupted when either does.
    public static func combineLatest<B>(
        _ a: SignalProducer<Value, Error>, _ b: SignalProducer<B, Error>, file: StaticString = #fileID, line: UInt = #line
    ) -> SignalProducer<(Value, B), Error> {
        let node = Node.joining("combineLatest", [a.node, b.node], file: file, line: line)
        return .joining(node) { Signal.combineLatest($0.signal(a), $0.signal(b), node: node, reduce: { ($0, $1) }) }
    }

    /// Starts three producers; their latest values each time any sends, once all have sent.
    public static func combineLatest<B, C>(
        _ a: SignalProducer<Value, Error>, _ b: SignalProducer<B, Error>, _ c: SignalProducer<C, Error>,
        file: StaticString = #fileID, line: UInt = #line
    ) -> SignalProducer<(Value, B, C), Error> {
        let node = Node.joining("combineLatest", [a.node, b.node, c.node], file: file, line: line)
        return .joining(node) { Signal.combineLatest($0.signal(a), $0.signal(b), $0.signal(c), node: node) }
    }

    /// Starts four producers; their latest values each time any sends, once all have sent.
    public static func combineLatest<B, C, D>(
        _ a: SignalProducer<Value, Error>, _ b: SignalProducer<B, Error>, _ c: SignalProducer<C, Error>,
        _ d: SignalProducer<D, Error>, file: StaticString = #fileID, line: UInt = #line
    ) -> SignalProducer<(Value, B, C, D), Error> {
        let node = Node.joining("combineLatest", [a.node, b.node, c.node, d.node], file: file, line: line)
        return .joining(node) {
            Signal.combineLatest($0.signal(a), $0.signal(b), $0.signal(c), $0.signal(d), node: node)
        }
    }

    /// Starts all `producers`; their latest values, in order, each time any sends, once all
    /// have sent. Completes when all complete (at once when there are none).
    public static func combineLatest<S: Sequence>(
        _ producers: S, file: StaticString = #fileID, line: UInt = #line
    ) -> SignalProducer<[Value], Error> where S.Element == SignalProducer<Value, Error> {
        let list = Array(producers)
        let node = Node.joining("combineLatest", list.map(\.node), file: file, line: line)
        return combineLatest(list, node: node, reduce: { $0 })
    }

    /// As `combineLatest(_:)`, but with no producers sends `emptySentinel` once and completes.
    public static func combineLatest<S: Sequence>(
        _ producers: S, emptySentinel: [Value], file: StaticString = #fileID, line: UInt = #line
    ) -> SignalProducer<[Value], Error> where S.Element == SignalProducer<Value, Error> {
        let list = Array(producers)
        guard list.isEmpty else { return combineLatest(list, file: file, line: line) }
        let node = Node.joining("combineLatest", parameters: "emptySentinel:", [], file: file, line: line)
        return SignalProducer<[Value], Error>(node: node) { observer, _ in
            observer.send(value: emptySentinel)
            observer.sendCompleted()
        }
    }

    /// ReactiveCocoa 2's `combineLatest:reduce:`: the latest values of all `producers`
    /// reduced to one value each time any sends, once all have sent.
    public static func combineLatest<S: Sequence, U>(
        _ producers: S, file: StaticString = #fileID, line: UInt = #line, reduce: @escaping ([Value]) -> U
    ) -> SignalProducer<U, Error> where S.Element == SignalProducer<Value, Error> {
        let list = Array(producers)
        let node = Node.joining("combineLatest", parameters: "reduce", list.map(\.node), file: file, line: line)
        return combineLatest(list, node: node, reduce: reduce)
    }

    /// ReactiveCocoa 2's `combineLatest:reduce:` over two producers.
    public static func combineLatest<B, U>(
        _ a: SignalProducer<Value, Error>, _ b: SignalProducer<B, Error>,
        file: StaticString = #fileID, line: UInt = #line, reduce: @escaping (Value, B) -> U
    ) -> SignalProducer<U, Error> {
        let node = Node.joining("combineLatest", parameters: "reduce", [a.node, b.node], file: file, line: line)
        return .joining(node) { Signal.combineLatest($0.signal(a), $0.signal(b), node: node, reduce: reduce) }
    }

    /// Starts this producer and `other`; the latest values of both each time either sends,
    /// once both have sent.
    public func combineLatest<U>(with other: SignalProducer<U, Error>, file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer<(Value, U), Error> {
        let node = Node.joining("combineLatest", [self.node, other.node], file: file, line: line)
        return .joining(node) { Signal.combineLatest($0.signal(self), $0.signal(other), node: node, reduce: { ($0, $1) }) }
    }

    static func combineLatest<U>(_ producers: [SignalProducer], node: Node, reduce: @escaping ([Value]) -> U)
        -> SignalProducer<U, Error> {
        if producers.isEmpty {
            return SignalProducer<U, Error>(node: node) { observer, _ in observer.sendCompleted() }
        }
        return .joining(node) { collector in
            Signal.combineLatest(producers.map(collector.signal), node: node, reduce: reduce)
        }
    }
}
