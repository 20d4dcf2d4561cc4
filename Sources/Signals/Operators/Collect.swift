// collect: values gathered into arrays.

extension Signal {
    /// Sends every value as one array when this signal completes — an empty array when it
    /// sent none. A failure or interruption sends no array.
    public func collect(file: StaticString = #fileID, line: UInt = #line) -> Signal<[Value], Error> {
        collect(node: .operator("collect", (node, .data), file: file, line: line)) { collected, latest in
            collected.append(latest)
            return nil
        }
    }

    /// Sends the values in arrays of `count`; on completion the values left over are sent as a
    /// shorter array (an empty one if no value came at all). A `count` below 1 counts as 1.
    public func collect(count: Int, file: StaticString = #fileID, line: UInt = #line) -> Signal<[Value], Error> {
        collect(node: .operator("collect", parameters: "count: \(count)", (node, .data), file: file, line: line),
                Self.collecting(count: count))
    }

    /// Sends the values gathered so far each time `shouldEmit`, asked after each value is
    /// added, says the array is complete; the values left over are sent on completion.
    public func collect(file: StaticString = #fileID, line: UInt = #line,
                        _ shouldEmit: @escaping (_ collected: [Value]) -> Bool) -> Signal<[Value], Error> {
        collect(node: .operator("collect", parameters: "when:", (node, .data), file: file, line: line),
                Self.collecting(shouldEmit))
    }

    /// Sends the values gathered so far when `shouldEmit`, asked with them and each new value
    /// before it is added, says the new value begins the next array; the values left over are
    /// sent on completion.
    public func collect(file: StaticString = #fileID, line: UInt = #line,
                        _ shouldEmit: @escaping (_ collected: [Value], _ latest: Value) -> Bool) -> Signal<[Value], Error> {
        collect(node: .operator("collect", parameters: "before:", (node, .data), file: file, line: line),
                Self.collecting(shouldEmit))
    }

    static func collecting(count: Int) -> (inout [Value], Value) -> [Value]? {
        let count = Swift.max(count, 1)
        return { collected, latest in
            collected.append(latest)
            guard collected.count == count else { return nil }
            defer { collected = [] }
            return collected
        }
    }

    static func collecting(_ shouldEmit: @escaping ([Value]) -> Bool) -> (inout [Value], Value) -> [Value]? {
        { collected, latest in
            collected.append(latest)
            guard shouldEmit(collected) else { return nil }
            defer { collected = [] }
            return collected
        }
    }

    static func collecting(_ shouldEmit: @escaping ([Value], Value) -> Bool) -> (inout [Value], Value) -> [Value]? {
        { collected, latest in
            guard shouldEmit(collected, latest) else {
                collected.append(latest)
                return nil
            }
            defer { collected = [latest] }
            return collected
        }
    }

    /// The collecting operator: `gather` adds each value to the array being gathered and
    /// returns an array to send when one is complete.
    func collect(node: Node, _ gather: @escaping (inout [Value], Value) -> [Value]?) -> Signal<[Value], Error> {
        var values: [Value] = []
        var sentAny = false
        return derive(node) { event, observer in
            switch event {
            case let .value(value):
                if let full = gather(&values, value) {
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
        return lift(node) { $0.collect(node: node) { collected, latest in
            collected.append(latest)
            return nil
        } }
    }

    /// Sends the values in arrays of `count`, the values left over on completion as a shorter one.
    public func collect(count: Int, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<[Value], Error> {
        let node = Node.operator("collect", parameters: "count: \(count)", (self.node, .data), file: file, line: line)
        return lift(node) { $0.collect(node: node, Signal<Value, Error>.collecting(count: count)) }
    }

    /// Sends the values gathered so far each time `shouldEmit` says the array is complete.
    public func collect(file: StaticString = #fileID, line: UInt = #line,
                        _ shouldEmit: @escaping (_ collected: [Value]) -> Bool) -> SignalProducer<[Value], Error> {
        let node = Node.operator("collect", parameters: "when:", (self.node, .data), file: file, line: line)
        return lift(node) { $0.collect(node: node, Signal<Value, Error>.collecting(shouldEmit)) }
    }

    /// Sends the values gathered so far when `shouldEmit` says the new value begins the next array.
    public func collect(file: StaticString = #fileID, line: UInt = #line,
                        _ shouldEmit: @escaping (_ collected: [Value], _ latest: Value) -> Bool)
        -> SignalProducer<[Value], Error> {
        let node = Node.operator("collect", parameters: "before:", (self.node, .data), file: file, line: line)
        return lift(node) { $0.collect(node: node, Signal<Value, Error>.collecting(shouldEmit)) }
    }
}
