// materialize, dematerialize: events as values and back.

/// A type that is an `Event`: lets `dematerialize()` be written for streams of events.
public protocol EventProtocol {
    associatedtype Value
    associatedtype Error: Swift.Error
    /// The event itself.
    var event: Event<Value, Error> { get }
}

extension Event: EventProtocol {
    /// The event itself.
    public var event: Event<Value, Error> { self }
}

extension Signal {
    /// Sends every event as a value. After a completion or failure value it completes;
    /// after an `interrupted` value it is interrupted.
    public func materialize(file: StaticString = #fileID, line: UInt = #line) -> Signal<Event<Value, Error>, Never> {
        materialize(node: .operator("materialize", (node, .data), file: file, line: line))
    }

    @usableFromInline
    func materialize(node: Node) -> Signal<Event<Value, Error>, Never> {
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
    public func materialize(file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Event<Value, Error>, Never> {
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
