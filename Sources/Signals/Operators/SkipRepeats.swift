// skipRepeats: dropping a value equal to the one before it.

extension Signal {
    /// Drops each value that `isEquivalent` says repeats the value sent before it
    /// (ReactiveCocoa 2 and Rx: `distinctUntilChanged`).
    public func skipRepeats(file: StaticString = #fileID, line: UInt = #line,
                            _ isEquivalent: @escaping (Value, Value) -> Bool) -> Signal {
        skipRepeats(isEquivalent, node: .operator("skipRepeats", parameters: "by:", (node, .data), file: file, line: line))
    }

    func skipRepeats(_ isEquivalent: @escaping (Value, Value) -> Bool, node: Node) -> Signal {
        var previous: Value?
        return derive(node) { event, observer in
            if case let .value(value) = event {
                if let last = previous, isEquivalent(last, value) { return }
                previous = value
            }
            observer.send(event)
        }
    }

    /// ReactiveCocoa 2's `distinctUntilChanged` with a comparator: `skipRepeats(_:)`.
    public func distinctUntilChanged(file: StaticString = #fileID, line: UInt = #line,
                                     _ isEquivalent: @escaping (Value, Value) -> Bool) -> Signal {
        skipRepeats(file: file, line: line, isEquivalent)
    }
}

extension Signal where Value: Equatable {
    /// Drops each value equal to the value sent before it (ReactiveCocoa 2: `distinctUntilChanged`).
    public func skipRepeats(file: StaticString = #fileID, line: UInt = #line) -> Signal {
        skipRepeats(==, node: .operator("skipRepeats", (node, .data), file: file, line: line))
    }

    /// ReactiveCocoa 2's `distinctUntilChanged`: `skipRepeats()`.
    public func distinctUntilChanged(file: StaticString = #fileID, line: UInt = #line) -> Signal {
        skipRepeats(file: file, line: line)
    }
}

extension SignalProducer {
    /// Drops each value that `isEquivalent` says repeats the one before it (each start anew).
    public func skipRepeats(file: StaticString = #fileID, line: UInt = #line,
                            _ isEquivalent: @escaping (Value, Value) -> Bool) -> SignalProducer {
        let node = Node.operator("skipRepeats", parameters: "by:", (self.node, .data), file: file, line: line)
        return lift(node) { $0.skipRepeats(isEquivalent, node: node) }
    }

    /// ReactiveCocoa 2's `distinctUntilChanged` with a comparator: `skipRepeats(_:)`.
    public func distinctUntilChanged(file: StaticString = #fileID, line: UInt = #line,
                                     _ isEquivalent: @escaping (Value, Value) -> Bool) -> SignalProducer {
        skipRepeats(file: file, line: line, isEquivalent)
    }
}

extension SignalProducer where Value: Equatable {
    /// Drops each value equal to the value sent before it (ReactiveCocoa 2: `distinctUntilChanged`).
    public func skipRepeats(file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("skipRepeats", (self.node, .data), file: file, line: line)
        return lift(node) { $0.skipRepeats(==, node: node) }
    }

    /// ReactiveCocoa 2's `distinctUntilChanged`: `skipRepeats()`.
    public func distinctUntilChanged(file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        skipRepeats(file: file, line: line)
    }
}
