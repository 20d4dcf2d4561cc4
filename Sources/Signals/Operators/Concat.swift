// concat: one producer after another.

extension SignalProducer {
    /// Forwards each start of this producer, then, when it completes, starts `next` and
    /// forwards it. A failure or interruption of this producer ends the result; `next` is
    /// not started then. `next` is recorded as a child of the concat's subscription.
    public func concat(_ next: SignalProducer, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("concat", (self.node, .data), (next.node, .data), file: file, line: line)
        return lift(node) { $0.concat(next, node: node) }
    }

    /// `concat(_:)` with anything convertible to a producer (a signal, a property, a result).
    @_disfavoredOverload
    public func concat<Next: SignalProducerConvertible>(
        _ next: Next, file: StaticString = #fileID, line: UInt = #line
    ) -> SignalProducer where Next.Value == Value, Next.Error == Error {
        concat(next.producer, file: file, line: line)
    }

    /// Forwards each start of this producer, then sends `value` and completes.
    public func concat(value: Value, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        concat(SignalProducer(value: value, file: file, line: line), file: file, line: line)
    }

    /// Forwards each start of this producer, then fails with `error`.
    public func concat(error: Error, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        concat(SignalProducer(error: error, file: file, line: line), file: file, line: line)
    }

    /// Starts `previous` and forwards it; when it completes, starts this producer.
    public func prefix(_ previous: SignalProducer, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        previous.concat(self, file: file, line: line)
    }

    /// `prefix(_:)` with anything convertible to a producer.
    @_disfavoredOverload
    public func prefix<Previous: SignalProducerConvertible>(
        _ previous: Previous, file: StaticString = #fileID, line: UInt = #line
    ) -> SignalProducer where Previous.Value == Value, Previous.Error == Error {
        previous.producer.concat(self, file: file, line: line)
    }
}

extension Signal {
    func concat(_ next: SignalProducer<Value, Error>, node: Node) -> Signal {
        Signal.parenting(node) { observer, lifetime, subscription in
            let inner = SerialDisposable()
            lifetime += inner
            lifetime += self.observeInternally { event in
                guard case .completed = event else { return observer.send(event) }
                next.startAsChild(of: subscription, in: inner, observer.send)
            }
        }
    }
}
