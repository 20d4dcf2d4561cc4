// scan, reduce: an accumulator over the values.

extension Signal {
    /// Sends the running accumulation of the values: `next(initial, first)`, then `next` of
    /// that and the second value, and so on.
    @inlinable
    public func scan<U>(file: StaticString = #fileID, line: UInt = #line,
                        _ initial: U, _ next: @escaping (U, Value) -> U) -> Signal<U, Error> {
        scan(into: initial, { $0 = next($0, $1) },
             node: .operator("scan", parameters: "\(initial)", (node, .data), file: file, line: line))
    }

    /// Sends the running accumulation of the values, mutating the accumulator in place.
    @inlinable
    public func scan<U>(file: StaticString = #fileID, line: UInt = #line,
                        into initial: U, _ next: @escaping (inout U, Value) -> Void) -> Signal<U, Error> {
        scan(into: initial, next,
             node: .operator("scan", parameters: "into: \(initial)", (node, .data), file: file, line: line))
    }

    @inlinable
    func scan<U>(into initial: U, _ next: @escaping (inout U, Value) -> Void, node: Node) -> Signal<U, Error> {
        let accumulator = OperatorState(initial)
        return derive(node) { core in
            { value in
                next(&accumulator.pointer.pointee, value)
                core.sendSerialized(value: accumulator.pointer.pointee)
            }
        }
    }

    /// Accumulates the values and sends the result when this signal completes (`initial` when
    /// it sent none). A failure or interruption sends no result.
    public func reduce<U>(file: StaticString = #fileID, line: UInt = #line,
                          _ initial: U, _ next: @escaping (U, Value) -> U) -> Signal<U, Error> {
        reduce(into: initial, { $0 = next($0, $1) },
               node: .operator("reduce", parameters: "\(initial)", (node, .data), file: file, line: line))
    }

    /// Accumulates the values in place and sends the result when this signal completes.
    public func reduce<U>(file: StaticString = #fileID, line: UInt = #line,
                          into initial: U, _ next: @escaping (inout U, Value) -> Void) -> Signal<U, Error> {
        reduce(into: initial, next,
               node: .operator("reduce", parameters: "into: \(initial)", (node, .data), file: file, line: line))
    }

    func reduce<U>(into initial: U, _ next: @escaping (inout U, Value) -> Void, node: Node) -> Signal<U, Error> {
        var accumulator = initial
        return derive(node) { event, observer in
            switch event {
            case let .value(value): next(&accumulator, value)
            case let .failed(error): observer.send(error: error)
            case .completed:
                observer.send(value: accumulator)
                observer.sendCompleted()
            case .interrupted: observer.sendInterrupted()
            }
        }
    }
}

extension SignalProducer {
    /// Sends the running accumulation of the values (each start accumulates anew).
    public func scan<U>(file: StaticString = #fileID, line: UInt = #line,
                        _ initial: U, _ next: @escaping (U, Value) -> U) -> SignalProducer<U, Error> {
        let node = Node.operator("scan", parameters: "\(initial)", (self.node, .data), file: file, line: line)
        return lift(node) { $0.scan(into: initial, { $0 = next($0, $1) }, node: node) }
    }

    /// Sends the running accumulation of the values, mutating the accumulator in place.
    public func scan<U>(file: StaticString = #fileID, line: UInt = #line,
                        into initial: U, _ next: @escaping (inout U, Value) -> Void) -> SignalProducer<U, Error> {
        let node = Node.operator("scan", parameters: "into: \(initial)", (self.node, .data), file: file, line: line)
        return lift(node) { $0.scan(into: initial, next, node: node) }
    }

    /// Accumulates the values and sends the result when the start completes.
    public func reduce<U>(file: StaticString = #fileID, line: UInt = #line,
                          _ initial: U, _ next: @escaping (U, Value) -> U) -> SignalProducer<U, Error> {
        let node = Node.operator("reduce", parameters: "\(initial)", (self.node, .data), file: file, line: line)
        return lift(node) { $0.reduce(into: initial, { $0 = next($0, $1) }, node: node) }
    }

    /// Accumulates the values in place and sends the result when the start completes.
    public func reduce<U>(file: StaticString = #fileID, line: UInt = #line,
                          into initial: U, _ next: @escaping (inout U, Value) -> Void) -> SignalProducer<U, Error> {
        let node = Node.operator("reduce", parameters: "into: \(initial)", (self.node, .data), file: file, line: line)
        return lift(node) { $0.reduce(into: initial, next, node: node) }
    }
}

// scanMap: an accumulator that sends something other than itself.

extension Signal {
    /// Keeps a state over the values: `next` gives, for the state and each value, the new
    /// state and the value to send.
    public func scanMap<State, U>(file: StaticString = #fileID, line: UInt = #line, _ initial: State,
                                  _ next: @escaping (State, Value) -> (State, U)) -> Signal<U, Error> {
        scanMap(into: initial, { state, value in
            let (newState, output) = next(state, value)
            state = newState
            return output
        }, node: .operator("scanMap", parameters: "\(initial)", (node, .data), file: file, line: line))
    }

    /// Keeps a state over the values, changed in place by `next`, which returns the value
    /// to send.
    public func scanMap<State, U>(file: StaticString = #fileID, line: UInt = #line, into initial: State,
                                  _ next: @escaping (inout State, Value) -> U) -> Signal<U, Error> {
        scanMap(into: initial, next,
                node: .operator("scanMap", parameters: "into: \(initial)", (node, .data), file: file, line: line))
    }

    func scanMap<State, U>(into initial: State, _ next: @escaping (inout State, Value) -> U, node: Node) -> Signal<U, Error> {
        let state = OperatorState(initial)
        return derive(node) { event, observer in
            switch event {
            case let .value(value): observer.send(value: next(&state.pointer.pointee, value))
            case let .failed(error): observer.send(error: error)
            case .completed: observer.sendCompleted()
            case .interrupted: observer.sendInterrupted()
            }
        }
    }
}

extension SignalProducer {
    /// Keeps a state over the values of each start (anew each start): `next` gives the new
    /// state and the value to send.
    public func scanMap<State, U>(file: StaticString = #fileID, line: UInt = #line, _ initial: State,
                                  _ next: @escaping (State, Value) -> (State, U)) -> SignalProducer<U, Error> {
        let node = Node.operator("scanMap", parameters: "\(initial)", (self.node, .data), file: file, line: line)
        return lift(node) { signal in
            signal.scanMap(into: initial, { state, value in
                let (newState, output) = next(state, value)
                state = newState
                return output
            }, node: node)
        }
    }

    /// Keeps a state over the values of each start, changed in place by `next`.
    public func scanMap<State, U>(file: StaticString = #fileID, line: UInt = #line, into initial: State,
                                  _ next: @escaping (inout State, Value) -> U) -> SignalProducer<U, Error> {
        let node = Node.operator("scanMap", parameters: "into: \(initial)", (self.node, .data), file: file, line: line)
        return lift(node) { $0.scanMap(into: initial, next, node: node) }
    }
}
