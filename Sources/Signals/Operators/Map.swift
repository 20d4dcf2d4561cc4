// map, filter, compactMap, skipNil, mapError: one value in, at most one value out.

extension Signal {
    /// Transforms each value.
    @inlinable
    public func map<U>(file: StaticString = #fileID, line: UInt = #line,
                       _ transform: @escaping (Value) -> U) -> Signal<U, Error> {
        map(transform, node: .operator("map", (node, .data), file: file, line: line))
    }

    /// Replaces each value with a constant.
    @_disfavoredOverload
    public func map<U>(value: U, file: StaticString = #fileID, line: UInt = #line) -> Signal<U, Error> {
        map({ _ in value }, node: .operator("map", parameters: "value: \(value)", (node, .data), file: file, line: line))
    }

    @inlinable
    func map<U>(_ transform: @escaping (Value) -> U, node: Node) -> Signal<U, Error> {
        derive(node) { core in { value in core.sendSerialized(value: transform(value)) } }
    }

    /// Passes the values that satisfy `isIncluded`.
    @inlinable
    public func filter(file: StaticString = #fileID, line: UInt = #line,
                       _ isIncluded: @escaping (Value) -> Bool) -> Signal<Value, Error> {
        filter(isIncluded, node: .operator("filter", (node, .data), file: file, line: line))
    }

    @inlinable
    func filter(_ isIncluded: @escaping (Value) -> Bool, node: Node) -> Signal<Value, Error> {
        derive(node) { core in
            { value in if isIncluded(value) { core.sendSerialized(value: value) } }
        }
    }

    /// Transforms each value, dropping those that become nil.
    @inlinable
    public func compactMap<U>(file: StaticString = #fileID, line: UInt = #line,
                              _ transform: @escaping (Value) -> U?) -> Signal<U, Error> {
        compactMap(transform, node: .operator("compactMap", (node, .data), file: file, line: line))
    }

    @inlinable
    func compactMap<U>(_ transform: @escaping (Value) -> U?, node: Node) -> Signal<U, Error> {
        derive(node) { core in
            { value in if let mapped = transform(value) { core.sendSerialized(value: mapped) } }
        }
    }

    /// Transforms the error.
    public func mapError<F>(file: StaticString = #fileID, line: UInt = #line,
                            _ transform: @escaping (Error) -> F) -> Signal<Value, F> {
        mapError(transform, node: .operator("mapError", (node, .data), file: file, line: line))
    }

    @usableFromInline
    func mapError<F>(_ transform: @escaping (Error) -> F, node: Node) -> Signal<Value, F> {
        derive(node) { event, observer in observer.send(event.mapError(transform)) }
    }
}

/// Optional values, for `skipNil`.
///
/// ```swift
/// let (lookups, lookup) = Signal<Int?, Never>.pipe()
/// lookups.skipNil().observeValues { print("found", $0) }   // Int? is an OptionalProtocol
/// lookup.send(value: nil)   // dropped
/// lookup.send(value: 7)     // prints "found 7"
/// ```
public protocol OptionalProtocol {
    associatedtype Wrapped
    var optional: Wrapped? { get }
}

extension Optional: OptionalProtocol {
    public var optional: Wrapped? { self }
}

extension Signal where Value: OptionalProtocol {
    /// Drops nil values and unwraps the rest (ReactiveCocoa 2: `ignore:nil`).
    public func skipNil(file: StaticString = #fileID, line: UInt = #line) -> Signal<Value.Wrapped, Error> {
        compactMap({ $0.optional }, node: .operator("skipNil", (node, .data), file: file, line: line))
    }
}

extension Signal where Error == Never {
    /// Gives a signal that cannot fail the error type of the streams it joins.
    public func promoteError<F>(_: F.Type = F.self, file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, F> {
        derive(.operator("promoteError", (node, .data), file: file, line: line)) { event, observer in
            switch event {
            case let .value(value): observer.send(value: value)
            case .completed: observer.sendCompleted()
            case .interrupted: observer.sendInterrupted()
            }
        }
    }
}

extension SignalProducer {
    /// Transforms each value.
    public func map<U>(file: StaticString = #fileID, line: UInt = #line,
                       _ transform: @escaping (Value) -> U) -> SignalProducer<U, Error> {
        let node = Node.operator("map", (self.node, .data), file: file, line: line)
        return lift(node) { $0.map(transform, node: node) }
    }

    /// Replaces each value with a constant.
    @_disfavoredOverload
    public func map<U>(value: U, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<U, Error> {
        let node = Node.operator("map", parameters: "value: \(value)", (self.node, .data), file: file, line: line)
        return lift(node) { $0.map({ _ in value }, node: node) }
    }

    /// Passes the values that satisfy `isIncluded`.
    public func filter(file: StaticString = #fileID, line: UInt = #line,
                       _ isIncluded: @escaping (Value) -> Bool) -> SignalProducer<Value, Error> {
        let node = Node.operator("filter", (self.node, .data), file: file, line: line)
        return lift(node) { $0.filter(isIncluded, node: node) }
    }

    /// Transforms each value, dropping those that become nil.
    public func compactMap<U>(file: StaticString = #fileID, line: UInt = #line,
                              _ transform: @escaping (Value) -> U?) -> SignalProducer<U, Error> {
        let node = Node.operator("compactMap", (self.node, .data), file: file, line: line)
        return lift(node) { $0.compactMap(transform, node: node) }
    }

    /// Transforms the error.
    public func mapError<F>(file: StaticString = #fileID, line: UInt = #line,
                            _ transform: @escaping (Error) -> F) -> SignalProducer<Value, F> {
        let node = Node.operator("mapError", (self.node, .data), file: file, line: line)
        return lift(node) { $0.mapError(transform, node: node) }
    }
}

extension SignalProducer where Value: OptionalProtocol {
    /// Drops nil values and unwraps the rest (ReactiveCocoa 2: `ignore:nil`).
    public func skipNil(file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value.Wrapped, Error> {
        let node = Node.operator("skipNil", (self.node, .data), file: file, line: line)
        return lift(node) { $0.compactMap({ $0.optional }, node: node) }
    }
}

extension SignalProducer where Error == Never {
    /// Gives a producer that cannot fail the error type of the streams it joins.
    public func promoteError<F>(_: F.Type = F.self, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, F> {
        let node = Node.operator("promoteError", (self.node, .data), file: file, line: line)
        return lift(node) { signal in
            signal.derive(node) { (event: Signals.Event<Value, Never>, observer: Signals.Observer<Value, F>) in
                switch event {
                case let .value(value): observer.send(value: value)
                case .completed: observer.sendCompleted()
                case .interrupted: observer.sendInterrupted()
                }
            }
        }
    }
}

extension Signal where Value == Never {
    /// Gives a signal that sends no values the value type of the streams it joins.
    public func promoteValue<U>(_: U.Type = U.self, file: StaticString = #fileID, line: UInt = #line) -> Signal<U, Error> {
        derive(.operator("promoteValue", (node, .data), file: file, line: line)) { event, observer in
            switch event {
            case let .failed(error): observer.send(error: error)
            case .completed: observer.sendCompleted()
            case .interrupted: observer.sendInterrupted()
            }
        }
    }
}

extension SignalProducer where Value == Never {
    /// Gives a producer that sends no values the value type of the streams it joins.
    public func promoteValue<U>(_: U.Type = U.self, file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer<U, Error> {
        let node = Node.operator("promoteValue", (self.node, .data), file: file, line: line)
        return lift(node) { signal in
            signal.derive(node) { (event: Signals.Event<Never, Error>, observer: Signals.Observer<U, Error>) in
                switch event {
                case let .failed(error): observer.send(error: error)
                case .completed: observer.sendCompleted()
                case .interrupted: observer.sendInterrupted()
                }
            }
        }
    }
}
