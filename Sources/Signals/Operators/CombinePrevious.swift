// combinePrevious: each value paired with the one before it.

extension Signal {
    /// Sends each value paired with the value before it, `initial` standing in before the
    /// first value.
    public func combinePrevious(_ initial: Value, file: StaticString = #fileID, line: UInt = #line)
        -> Signal<(Value, Value), Error> {
        combinePrevious(initial, node: .operator("combinePrevious", parameters: "\(initial)", (node, .data),
                                                 file: file, line: line))
    }

    /// Sends each value paired with the value before it, from the second value on.
    public func combinePrevious(file: StaticString = #fileID, line: UInt = #line) -> Signal<(Value, Value), Error> {
        combinePrevious(nil, node: .operator("combinePrevious", (node, .data), file: file, line: line))
    }

    func combinePrevious(_ initial: Value?, node: Node) -> Signal<(Value, Value), Error> {
        var previous = initial
        return derive(node) { event, observer in
            switch event {
            case let .value(value):
                defer { previous = value }
                if let before = previous { observer.send(value: (before, value)) }
            case let .failed(error): observer.send(error: error)
            case .completed: observer.sendCompleted()
            case .interrupted: observer.sendInterrupted()
            }
        }
    }
}

extension SignalProducer {
    /// Sends each value of a start paired with the value before it, `initial` standing in
    /// before the first value.
    public func combinePrevious(_ initial: Value, file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer<(Value, Value), Error> {
        let node = Node.operator("combinePrevious", parameters: "\(initial)", (self.node, .data), file: file, line: line)
        return lift(node) { $0.combinePrevious(initial, node: node) }
    }

    /// Sends each value of a start paired with the value before it, from the second value on.
    public func combinePrevious(file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer<(Value, Value), Error> {
        let node = Node.operator("combinePrevious", (self.node, .data), file: file, line: line)
        return lift(node) { $0.combinePrevious(nil, node: node) }
    }
}
