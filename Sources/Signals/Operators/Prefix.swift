// prefix(value:): send a value before a producer's own.

extension SignalProducer {
    /// Sends `value` on each start, then the events of this producer (ReactiveCocoa 2:
    /// `startWith:`).
    ///
    /// Only producers have it: a hot `Signal` has no start at which to send the value.
    public func prefix(value: Value, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        prefix(value, node: .operator("prefix", parameters: "value: \(value)", (self.node, .data), file: file, line: line))
    }

    /// ReactiveCocoa 2's name for `prefix(value:)`, and recorded as it.
    public func startWith(_ value: Value, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        prefix(value, node: .operator("prefix", parameters: "value: \(value)", (self.node, .data), file: file, line: line))
    }

    private func prefix(_ value: Value, node: Node) -> SignalProducer {
        let upstream = self
        return SignalProducer(node: node) {
            let instance = upstream.instantiate()
            let core = SignalCore<Value, Error>(node: node, detachWhenUnobserved: true)
            if Instrumentation.isAttached { Instrumentation.link(observer: core, observed: instance.signal.core) }
            core.resources.add(instance.signal.observeInternally(core.send))
            core.resources.add(instance.interrupter)
            return .init(signal: Signal(core: core), interrupter: instance.interrupter) {
                core.send(.value(value))
                instance.begin()
            }
        }
    }
}
