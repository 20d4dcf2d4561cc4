// flatMapError, catchTo: replace a failure with another stream.

extension Signal {
    /// On failure, starts the producer `transform` makes from the error and forwards its
    /// events instead (ReactiveCocoa 2: `catch:`). Values, completion and interruption pass
    /// through. Each fallback start is recorded as a child of this operator's subscription.
    public func flatMapError<F>(file: StaticString = #fileID, line: UInt = #line,
                                _ transform: @escaping (Error) -> SignalProducer<Value, F>) -> Signal<Value, F> {
        flatMapError(transform, node: .operator("flatMapError", (node, .data), file: file, line: line))
    }

    /// ReactiveCocoa 2's name for `flatMapError(_:)`, and recorded as it.
    public func `catch`<F>(file: StaticString = #fileID, line: UInt = #line,
                           _ transform: @escaping (Error) -> SignalProducer<Value, F>) -> Signal<Value, F> {
        flatMapError(transform, node: .operator("flatMapError", (node, .data), file: file, line: line))
    }

    /// On failure, forwards the events of `fallback` instead (ReactiveCocoa 2: `catchTo:`;
    /// `catchTo(.empty)` turns a failure into completion). The fallback is a `.fallback`
    /// edge of the node.
    public func catchTo<F>(_ fallback: SignalProducer<Value, F>,
                           file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, F> {
        flatMapError({ _ in fallback },
                     node: .operator("catchTo", (node, .data), (fallback.node, .fallback), file: file, line: line))
    }

    @usableFromInline
    func flatMapError<F>(_ transform: @escaping (Error) -> SignalProducer<Value, F>, node: Node) -> Signal<Value, F> {
        Signal<Value, F>.parenting(node) { observer, lifetime, subscription in
            let fallback = SerialDisposable()
            lifetime += fallback
            lifetime += self.observeInternally { event in
                switch event {
                case let .value(value): observer.send(value: value)
                case let .failed(error): transform(error).startAsChild(of: subscription, in: fallback, observer.send)
                case .completed: observer.sendCompleted()
                case .interrupted: observer.sendInterrupted()
                }
            }
        }
    }
}

extension SignalProducer {
    /// On failure, starts the producer `transform` makes from the error and forwards its
    /// events instead (ReactiveCocoa 2: `catch:`).
    public func flatMapError<F>(file: StaticString = #fileID, line: UInt = #line,
                                _ transform: @escaping (Error) -> SignalProducer<Value, F>) -> SignalProducer<Value, F> {
        let node = Node.operator("flatMapError", (self.node, .data), file: file, line: line)
        return lift(node) { $0.flatMapError(transform, node: node) }
    }

    /// ReactiveCocoa 2's name for `flatMapError(_:)`, and recorded as it.
    public func `catch`<F>(file: StaticString = #fileID, line: UInt = #line,
                           _ transform: @escaping (Error) -> SignalProducer<Value, F>) -> SignalProducer<Value, F> {
        let node = Node.operator("flatMapError", (self.node, .data), file: file, line: line)
        return lift(node) { $0.flatMapError(transform, node: node) }
    }

    /// On failure, forwards the events of `fallback` instead (ReactiveCocoa 2: `catchTo:`).
    public func catchTo<F>(_ fallback: SignalProducer<Value, F>,
                           file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, F> {
        let node = Node.operator("catchTo", (self.node, .data), (fallback.node, .fallback), file: file, line: line)
        return lift(node) { $0.flatMapError({ _ in fallback }, node: node) }
    }
}
