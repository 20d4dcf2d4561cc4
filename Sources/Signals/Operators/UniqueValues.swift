// uniqueValues: each value once, however often it comes.

extension Signal {
    /// Forwards a value only the first time its identity (`transform` of it) is seen; the
    /// identities seen are kept until the signal terminates.
    public func uniqueValues<Identity: Hashable>(file: StaticString = #fileID, line: UInt = #line,
                                                 _ transform: @escaping (Value) -> Identity) -> Signal {
        uniqueValues(transform, node: .operator("uniqueValues", parameters: "by:", (node, .data), file: file, line: line))
    }

    func uniqueValues<Identity: Hashable>(_ transform: @escaping (Value) -> Identity, node: Node) -> Signal {
        var seen = Set<Identity>()
        return derive(node) { event, observer in
            if case let .value(value) = event, !seen.insert(transform(value)).inserted { return }
            observer.send(event)
        }
    }
}

extension Signal where Value: Hashable {
    /// Forwards each value only the first time it is seen.
    public func uniqueValues(file: StaticString = #fileID, line: UInt = #line) -> Signal {
        uniqueValues({ $0 }, node: .operator("uniqueValues", (node, .data), file: file, line: line))
    }
}

extension SignalProducer {
    /// Forwards a value of a start only the first time its identity is seen in that start.
    public func uniqueValues<Identity: Hashable>(file: StaticString = #fileID, line: UInt = #line,
                                                 _ transform: @escaping (Value) -> Identity) -> SignalProducer {
        let node = Node.operator("uniqueValues", parameters: "by:", (self.node, .data), file: file, line: line)
        return lift(node) { $0.uniqueValues(transform, node: node) }
    }
}

extension SignalProducer where Value: Hashable {
    /// Forwards each value of a start only the first time it is seen in that start.
    public func uniqueValues(file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("uniqueValues", (self.node, .data), file: file, line: line)
        return lift(node) { $0.uniqueValues({ $0 }, node: node) }
    }
}
