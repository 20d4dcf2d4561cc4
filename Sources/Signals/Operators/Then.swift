// then: replace a stream, once it completes, by another.

extension Signal {
    /// When this signal completes, starts `replacement` and forwards its events; the values
    /// of this signal are ignored, its failure and interruption pass through
    /// (ReactiveCocoa 2: `then:`).
    ///
    /// This signal is the `.trigger` edge of the node (its completion starts the
    /// replacement), the replacement the `.data` edge.
    public func then<U>(_ replacement: SignalProducer<U, Error>,
                        file: StaticString = #fileID, line: UInt = #line) -> Signal<U, Error> {
        then(replacement, node: .operator("then", (node, .trigger), (replacement.node, .data), file: file, line: line))
    }

    @usableFromInline
    func then<U>(_ replacement: SignalProducer<U, Error>, node: Node) -> Signal<U, Error> {
        Signal<U, Error>.parenting(node) { observer, lifetime, subscription in
            let inner = SerialDisposable()
            lifetime += inner
            lifetime += self.observeInternally { event in
                switch event {
                case .value: break
                case let .failed(error): observer.send(error: error)
                case .interrupted: observer.sendInterrupted()
                case .completed: replacement.startAsChild(of: subscription, in: inner, observer.send)
                }
            }
        }
    }
}

extension SignalProducer {
    /// When this producer completes, starts `replacement` and forwards its events; values of
    /// this producer are ignored, its failure and interruption pass through (ReactiveCocoa 2:
    /// `then:`).
    public func then<U>(_ replacement: SignalProducer<U, Error>,
                        file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<U, Error> {
        let node = Node.operator("then", (self.node, .trigger), (replacement.node, .data), file: file, line: line)
        return lift(node) { $0.then(replacement, node: node) }
    }
}

extension SignalProducer {
    /// `then` with a replacement of this producer's own types, so that `.then(.empty)` and
    /// `.then(.init(value:))` infer them.
    @_disfavoredOverload
    public func then(_ replacement: SignalProducer, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("then", (self.node, .trigger), (replacement.node, .data), file: file, line: line)
        return lift(node) { $0.then(replacement, node: node) }
    }

    /// `then` with a replacement that cannot fail: its values take this producer's error type.
    @_disfavoredOverload
    public func then<U>(_ replacement: SignalProducer<U, Never>,
                        file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<U, Error> {
        then(replacement.promoteError(Error.self, file: file, line: line), file: file, line: line)
    }
}

extension SignalProducer where Error == Never {
    /// `then` from a producer that cannot fail to a replacement that can: the result has the
    /// replacement's error type.
    @_disfavoredOverload
    public func then<U, F>(_ replacement: SignalProducer<U, F>,
                           file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<U, F> {
        promoteError(F.self, file: file, line: line).then(replacement, file: file, line: line)
    }
}
