// attempt, attemptMap: an action per value that may fail the stream.

extension Signal {
    /// Runs `action` with each value and forwards the value when it succeeds; fails with its
    /// error (and stops) when it fails.
    public func attempt(file: StaticString = #fileID, line: UInt = #line,
                        _ action: @escaping (Value) -> Result<Void, Error>) -> Signal {
        attemptMap({ value in action(value).map { value } },
                   node: .operator("attempt", (node, .data), file: file, line: line))
    }

    /// Sends the success of `transform` for each value; fails with its error (and stops)
    /// when it fails.
    public func attemptMap<U>(file: StaticString = #fileID, line: UInt = #line,
                              _ transform: @escaping (Value) -> Result<U, Error>) -> Signal<U, Error> {
        attemptMap(transform, node: .operator("attemptMap", (node, .data), file: file, line: line))
    }

    func attemptMap<U>(_ transform: @escaping (Value) -> Result<U, Error>, node: Node) -> Signal<U, Error> {
        derive(node) { event, observer in
            switch event {
            case let .value(value):
                switch transform(value) {
                case let .success(mapped): observer.send(value: mapped)
                case let .failure(error): observer.send(error: error)
                }
            case let .failed(error): observer.send(error: error)
            case .completed: observer.sendCompleted()
            case .interrupted: observer.sendInterrupted()
            }
        }
    }
}

extension Signal where Error == Swift.Error {
    /// Runs the throwing `action` with each value and forwards the value when it returns;
    /// fails with what it throws.
    public func attempt(file: StaticString = #fileID, line: UInt = #line,
                        _ action: @escaping (Value) throws -> Void) -> Signal {
        attemptMap({ value in Result { try action(value); return value } },
                   node: .operator("attempt", (node, .data), file: file, line: line))
    }

    /// Sends what the throwing `transform` returns for each value; fails with what it throws.
    public func attemptMap<U>(file: StaticString = #fileID, line: UInt = #line,
                              _ transform: @escaping (Value) throws -> U) -> Signal<U, Error> {
        attemptMap({ value in Result { try transform(value) } },
                   node: .operator("attemptMap", (node, .data), file: file, line: line))
    }
}

extension Signal where Error == Never {
    /// Runs the throwing `action` with each value and forwards the value when it returns;
    /// fails with what it throws.
    public func attempt(file: StaticString = #fileID, line: UInt = #line,
                        _ action: @escaping (Value) throws -> Void) -> Signal<Value, Swift.Error> {
        promoteError(Swift.Error.self, file: file, line: line).attempt(file: file, line: line, action)
    }

    /// Sends what the throwing `transform` returns for each value; fails with what it throws.
    public func attemptMap<U>(file: StaticString = #fileID, line: UInt = #line,
                              _ transform: @escaping (Value) throws -> U) -> Signal<U, Swift.Error> {
        promoteError(Swift.Error.self, file: file, line: line).attemptMap(file: file, line: line, transform)
    }
}

extension SignalProducer {
    /// Runs `action` with each value of a start and forwards the value when it succeeds;
    /// fails with its error when it fails.
    public func attempt(file: StaticString = #fileID, line: UInt = #line,
                        _ action: @escaping (Value) -> Result<Void, Error>) -> SignalProducer {
        let node = Node.operator("attempt", (self.node, .data), file: file, line: line)
        return lift(node) { $0.attemptMap({ value in action(value).map { value } }, node: node) }
    }

    /// Sends the success of `transform` for each value of a start; fails with its error.
    public func attemptMap<U>(file: StaticString = #fileID, line: UInt = #line,
                              _ transform: @escaping (Value) -> Result<U, Error>) -> SignalProducer<U, Error> {
        let node = Node.operator("attemptMap", (self.node, .data), file: file, line: line)
        return lift(node) { $0.attemptMap(transform, node: node) }
    }
}

extension SignalProducer where Error == Swift.Error {
    /// Runs the throwing `action` with each value of a start and forwards the value when it
    /// returns; fails with what it throws.
    public func attempt(file: StaticString = #fileID, line: UInt = #line,
                        _ action: @escaping (Value) throws -> Void) -> SignalProducer {
        let node = Node.operator("attempt", (self.node, .data), file: file, line: line)
        return lift(node) { $0.attemptMap({ value in Result { try action(value); return value } }, node: node) }
    }

    /// Sends what the throwing `transform` returns for each value of a start; fails with
    /// what it throws.
    public func attemptMap<U>(file: StaticString = #fileID, line: UInt = #line,
                              _ transform: @escaping (Value) throws -> U) -> SignalProducer<U, Error> {
        let node = Node.operator("attemptMap", (self.node, .data), file: file, line: line)
        return lift(node) { $0.attemptMap({ value in Result { try transform(value) } }, node: node) }
    }
}

extension SignalProducer where Error == Never {
    /// Runs the throwing `action` with each value of a start and forwards the value when it
    /// returns; fails with what it throws.
    public func attempt(file: StaticString = #fileID, line: UInt = #line,
                        _ action: @escaping (Value) throws -> Void) -> SignalProducer<Value, Swift.Error> {
        promoteError(Swift.Error.self, file: file, line: line).attempt(file: file, line: line, action)
    }

    /// Sends what the throwing `transform` returns for each value of a start; fails with
    /// what it throws.
    public func attemptMap<U>(file: StaticString = #fileID, line: UInt = #line,
                              _ transform: @escaping (Value) throws -> U) -> SignalProducer<U, Swift.Error> {
        promoteError(Swift.Error.self, file: file, line: line).attemptMap(file: file, line: line, transform)
    }
}
