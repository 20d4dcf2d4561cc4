// collect: values gathered into arrays.

extension Signal {
    /// Sends every value as one array when this signal completes — an empty array when it
    /// sent none. A failure or interruption sends no array.
    public func collect(file: StaticString = #fileID, line: UInt = #line) -> Signal<[Value], Error> {
        collect(count: nil, node: .operator("collect", (node, .data), file: file, line: line))
    }

    /// Sends the values in arrays of `count`; on completion the values left over are sent as a
    /// shorter array (an empty one if no value came at all). A `count` below 1 counts as 1.
    public func collect(count: Int, file: StaticString = #fileID, line: UInt = #line) -> Signal<[Value], Error> {
        collect(count: max(count, 1),
                node: .operator("collect", parameters: "count: \(count)", (node, .data), file: file, line: line))
    }

    func collect(count: Int?, node: Node) -> Signal<[Value], Error> {
        var values: [Value] = []
        var sentAny = false
        return derive(node) { event, observer in
            switch event {
            case let .value(value):
                values.append(value)
                if let count, values.count == count {
                    let full = values
                    values = []
                    sentAny = true
                    observer.send(value: full)
                }
            case let .failed(error): observer.send(error: error)
            case .completed:
                if !values.isEmpty || !sentAny { observer.send(value: values) }
                observer.sendCompleted()
            case .interrupted: observer.sendInterrupted()
            }
        }
    }
}

extension SignalProducer {
    /// Sends every value as one array when the start completes (empty when none came).
    public func collect(file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<[Value], Error> {
        let node = Node.operator("collect", (self.node, .data), file: file, line: line)
        return lift(node) { $0.collect(count: nil, node: node) }
    }

    /// Sends the values in arrays of `count`, the values left over on completion as a shorter one.
    public func collect(count: Int, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<[Value], Error> {
        let node = Node.operator("collect", parameters: "count: \(count)", (self.node, .data), file: file, line: line)
        return lift(node) { $0.collect(count: Swift.max(count, 1), node: node) }
    }
}
