// materialize, dematerialize, materializeResults, dematerializeResults: events as values and back.

/// A type that is an `Event`: lets `dematerialize()` be written for streams of events.
///
/// ```swift
/// let events = SignalProducer<Signal<Int, Never>.Event, Never>([.value(1), .value(2), .completed])
/// events.dematerialize().startWithValues { print($0) }   // 1, 2: the events become a stream's own
/// ```
public protocol EventProtocol {
    associatedtype Value
    associatedtype Error: Swift.Error
    /// The event itself.
    var event: Signals.Event<Value, Error> { get }
}

extension Event: EventProtocol {
    /// The event itself.
    public var event: Signals.Event<Value, Error> { self }
}

extension Signal {
    /// Sends every event as a value. After a completion or failure value it completes;
    /// after an `interrupted` value it is interrupted.
    public func materialize(file: StaticString = #fileID, line: UInt = #line) -> Signal<Signals.Event<Value, Error>, Never> {
        materialize(node: .operator("materialize", (node, .data), file: file, line: line))
    }

    @usableFromInline
    func materialize(node: Node) -> Signal<Signals.Event<Value, Error>, Never> {
        derive(node) { event, observer in
            observer.send(value: event)
            switch event {
            case .value: break
            case .completed, .failed: observer.sendCompleted()
            case .interrupted: observer.sendInterrupted()
            }
        }
    }
}

extension Signal where Value: EventProtocol, Error == Never {
    /// The inverse of `materialize()`: sends the events this signal carries as values.
    public func dematerialize(file: StaticString = #fileID, line: UInt = #line) -> Signal<Value.Value, Value.Error> {
        dematerialize(node: .operator("dematerialize", (node, .data), file: file, line: line))
    }

    @usableFromInline
    func dematerialize(node: Node) -> Signal<Value.Value, Value.Error> {
        derive(node) { event, observer in
            switch event {
            case let .value(carried): observer.send(carried.event)
            case .completed: observer.sendCompleted()
            case .interrupted: observer.sendInterrupted()
            }
        }
    }
}

extension SignalProducer {
    /// Sends every event as a value, then ends as the event did.
    public func materialize(file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Signals.Event<Value, Error>, Never> {
        let node = Node.operator("materialize", (self.node, .data), file: file, line: line)
        return lift(node) { $0.materialize(node: node) }
    }
}

extension SignalProducer where Value: EventProtocol, Error == Never {
    /// The inverse of `materialize()`: sends the events this producer carries as values.
    public func dematerialize(file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value.Value, Value.Error> {
        let node = Node.operator("dematerialize", (self.node, .data), file: file, line: line)
        return lift(node) { $0.dematerialize(node: node) }
    }
}

extension Signal {
    /// Sends every value as a `.success`, and a failure as a `.failure` value followed by
    /// completion; completion and interruption pass through.
    public func materializeResults(file: StaticString = #fileID, line: UInt = #line) -> Signal<Result<Value, Error>, Never> {
        materializeResults(node: .operator("materializeResults", (node, .data), file: file, line: line))
    }

    func materializeResults(node: Node) -> Signal<Result<Value, Error>, Never> {
        derive(node) { event, observer in
            switch event {
            case let .value(value): observer.send(value: .success(value))
            case let .failed(error):
                observer.send(value: .failure(error))
                observer.sendCompleted()
            case .completed: observer.sendCompleted()
            case .interrupted: observer.sendInterrupted()
            }
        }
    }

    /// The inverse of `materializeResults()`: sends each `.success` as a value and fails at
    /// the first `.failure`.
    public func dematerializeResults<Success, Failure>(file: StaticString = #fileID, line: UInt = #line)
        -> Signal<Success, Failure> where Value == Result<Success, Failure>, Error == Never {
        dematerializeResults(node: .operator("dematerializeResults", (node, .data), file: file, line: line))
    }

    func dematerializeResults<Success, Failure>(node: Node) -> Signal<Success, Failure>
    where Value == Result<Success, Failure>, Error == Never {
        derive(node) { event, observer in
            switch event {
            case let .value(.success(value)): observer.send(value: value)
            case let .value(.failure(error)): observer.send(error: error)
            case .completed: observer.sendCompleted()
            case .interrupted: observer.sendInterrupted()
            }
        }
    }
}

extension SignalProducer {
    /// Sends every value of a start as a `.success`, and a failure as a `.failure` value
    /// followed by completion.
    public func materializeResults(file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer<Result<Value, Error>, Never> {
        let node = Node.operator("materializeResults", (self.node, .data), file: file, line: line)
        return lift(node) { $0.materializeResults(node: node) }
    }

    /// The inverse of `materializeResults()`: sends each `.success` as a value and fails at
    /// the first `.failure`.
    public func dematerializeResults<Success, Failure>(file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer<Success, Failure> where Value == Result<Success, Failure>, Error == Never {
        let node = Node.operator("dematerializeResults", (self.node, .data), file: file, line: line)
        return lift(node) { $0.dematerializeResults(node: node) }
    }
}
