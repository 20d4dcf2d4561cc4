// flatten() of sequences: each value's elements, one by one.

extension Signal where Value: Sequence {
    /// Sends the elements of each value (a sequence), in order.
    public func flatten(file: StaticString = #fileID, line: UInt = #line) -> Signal<Value.Element, Error> {
        flattenSequences(node: .operator("flatten", (node, .data), file: file, line: line))
    }

    func flattenSequences(node: Node) -> Signal<Value.Element, Error> {
        derive(node) { event, observer in
            switch event {
            case let .value(sequence): sequence.forEach(observer.send(value:))
            case let .failed(error): observer.send(error: error)
            case .completed: observer.sendCompleted()
            case .interrupted: observer.sendInterrupted()
            }
        }
    }
}

extension SignalProducer where Value: Sequence {
    /// Sends the elements of each value (a sequence) of each start, in order.
    public func flatten(file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value.Element, Error> {
        let node = Node.operator("flatten", (self.node, .data), file: file, line: line)
        return lift(node) { $0.flattenSequences(node: node) }
    }
}
