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

extension SignalProducer {
    /// RxJS's `catchError((error, caught) => ...)`, whose handler may answer with `caught`, the
    /// stream with this very error handling applied: on failure, `transform` gives the producer
    /// to continue with, or `nil` for `caught`. Starting `caught` again is, event for event,
    /// starting this producer again under the same handler, so that is what `nil` does: the
    /// upstream is started again as a child of this operator's subscription, as `retry` starts
    /// its attempts. Any number of failures at once then runs in constant stack, and a value of
    /// the hundredth attempt passes one operator, not a hundred nested ones, each holding its
    /// lock. Recorded as `flatMapError`.
    package func flatMapError<F>(file: StaticString = #fileID, line: UInt = #line,
                                 restartingOnNil transform: @escaping (Error) -> SignalProducer<Value, F>?)
        -> SignalProducer<Value, F> {
        let upstream = self
        let node = Node.operator("flatMapError", (self.node, .data), file: file, line: line)
        return SignalProducer<Value, F>(parenting: node) { observer, lifetime, subscription in
            let current = SerialDisposable()
            lifetime += current
            // A failure sent while its attempt starts asks for the next attempt from inside
            // that start: the trampoline runs it after the start returns.
            let trampoline = Trampoline()
            func attempt() {
                trampoline.run(startAttempt)
            }
            func startAttempt() {
                upstream.startAsChild(of: subscription, in: current) { event in
                    switch event {
                    case let .value(value): observer.send(value: value)
                    case .completed: observer.sendCompleted()
                    case .interrupted: observer.sendInterrupted()
                    case let .failed(error):
                        if let fallback = transform(error) {
                            fallback.startAsChild(of: subscription, in: current, observer.send)
                        } else {
                            attempt()
                        }
                    }
                }
            }
            attempt()
        }
    }
}
