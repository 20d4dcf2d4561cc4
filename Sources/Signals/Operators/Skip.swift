// skip(first:), skip(while:): dropping the start of a stream.

extension Signal {
    /// Drops the first `count` values.
    public func skip(first count: Int, file: StaticString = #fileID, line: UInt = #line) -> Signal {
        skip(first: count, node: .operator("skip", parameters: "first: \(count)", (node, .data), file: file, line: line))
    }

    func skip(first count: Int, node: Node) -> Signal {
        var skipped = 0
        return derive(node) { event, observer in
            if case .value = event, skipped < count {
                skipped += 1
                return
            }
            observer.send(event)
        }
    }

    /// Drops values while `shouldContinue` holds; from the first value that fails it on,
    /// sends everything.
    public func skip(while shouldContinue: @escaping (Value) -> Bool,
                     file: StaticString = #fileID, line: UInt = #line) -> Signal {
        skip(while: shouldContinue, node: .operator("skip", parameters: "while:", (node, .data), file: file, line: line))
    }

    func skip(while shouldContinue: @escaping (Value) -> Bool, node: Node) -> Signal {
        var skipping = true
        return derive(node) { event, observer in
            if skipping, case let .value(value) = event {
                if shouldContinue(value) { return }
                skipping = false
            }
            observer.send(event)
        }
    }
}

extension SignalProducer {
    /// Drops the first `count` values of each start.
    public func skip(first count: Int, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("skip", parameters: "first: \(count)", (self.node, .data), file: file, line: line)
        return lift(node) { $0.skip(first: count, node: node) }
    }

    /// Drops values while `shouldContinue` holds, then sends everything.
    public func skip(while shouldContinue: @escaping (Value) -> Bool,
                     file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("skip", parameters: "while:", (self.node, .data), file: file, line: line)
        return lift(node) { $0.skip(while: shouldContinue, node: node) }
    }
}
