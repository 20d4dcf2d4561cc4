import Locks

// merge: the values of several streams of one type, interleaved as they arrive.

extension Signal {
    /// The values of all `signals` as they arrive. Completes when every one has completed;
    /// fails or is interrupted as soon as one of them is.
    public static func merge<S: Sequence>(_ signals: S, file: StaticString = #fileID, line: UInt = #line)
        -> Signal where S.Element == Signal {
        let list = Array(signals)
        return merge(list, node: .joining("merge", list.map(\.node), file: file, line: line))
    }

    /// The values of all `signals` as they arrive. Completes when every one has completed;
    /// fails or is interrupted as soon as one of them is.
    public static func merge(_ signals: Signal..., file: StaticString = #fileID, line: UInt = #line) -> Signal {
        merge(signals, node: .joining("merge", signals.map(\.node), file: file, line: line))
    }

    /// This signal's values and `other`'s, as they arrive.
    public func merge(with other: Signal, file: StaticString = #fileID, line: UInt = #line) -> Signal {
        Signal.merge([self, other], node: .joining("merge", [node, other.node], file: file, line: line))
    }

    static func merge(_ signals: [Signal], node: Node) -> Signal {
        combining(node) { input, lifetime in
            let remaining = Protected(signals.count)
            if signals.isEmpty { input.sendCompleted() }
            for signal in signals {
                lifetime += signal.observeInternally { event in
                    if case .completed = event {
                        let done: Bool = remaining.modify { count in
                            count -= 1
                            return count == 0
                        }
                        if done { input.sendCompleted() }
                    } else {
                        input.send(event)
                    }
                }
            }
        }
    }
}

extension SignalProducer {
    /// Starts all `producers` and sends their values as they arrive. Completes when every one
    /// has completed; fails or is interrupted as soon as one of them is.
    public static func merge<S: Sequence>(_ producers: S, file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer where S.Element == SignalProducer {
        let list = Array(producers)
        return merge(list, node: .joining("merge", list.map(\.node), file: file, line: line))
    }

    /// Starts all `producers` and sends their values as they arrive. Completes when every one
    /// has completed; fails or is interrupted as soon as one of them is.
    public static func merge(_ producers: SignalProducer..., file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer {
        merge(producers, node: .joining("merge", producers.map(\.node), file: file, line: line))
    }

    /// This producer's values and `other`'s, as they arrive.
    public func merge(with other: SignalProducer, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        SignalProducer.merge([self, other], node: .joining("merge", [node, other.node], file: file, line: line))
    }

    static func merge(_ producers: [SignalProducer], node: Node) -> SignalProducer {
        // Completing in the start handler, not while wiring: the consumer must see it.
        if producers.isEmpty { return SignalProducer(node: node) { observer, _ in observer.sendCompleted() } }
        return joining(node) { collector in Signal.merge(producers.map(collector.signal), node: node) }
    }
}
