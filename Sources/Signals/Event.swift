/// What a stream sends its observers.
///
/// The grammar every stream obeys, and every operator relies on:
/// `value* (failed | completed | interrupted)?` — any number of values, then at most one
/// terminal event, then nothing. Events reach one observer one at a time, never concurrently.
///
/// ```swift
/// SignalProducer<Int, Never>([1, 2]).start { event in
///     switch event {
///     case let .value(number): print("value", number)
///     case .completed: print("completed")
///     case .failed, .interrupted: break
///     }
/// }
/// ```
public enum Event<Value, Error: Swift.Error> {
    /// A value. Any number may be sent before a terminal event.
    case value(Value)
    /// The stream failed. Terminal.
    case failed(Error)
    /// The stream finished normally. Terminal.
    case completed
    /// The stream was cancelled (disposed) before it ended by itself. Terminal.
    case interrupted

    /// Whether this event ends the stream.
    @inlinable
    public var isTerminating: Bool {
        if case .value = self { return false }
        return true
    }

    /// Whether this event is `completed` or `failed` (a stream ending by itself).
    public var isCompleting: Bool {
        switch self {
        case .completed, .failed: return true
        case .value, .interrupted: return false
        }
    }

    /// Whether this event is `completed`.
    public var isCompleted: Bool {
        if case .completed = self { return true }
        return false
    }

    /// The value, if this is a value event.
    @inlinable
    public var value: Value? {
        if case let .value(value) = self { return value }
        return nil
    }

    /// The error, if this is a failure.
    public var error: Error? {
        if case let .failed(error) = self { return error }
        return nil
    }

    /// Transforms the value, keeping the kind.
    @inlinable
    public func map<U>(_ transform: (Value) throws -> U) rethrows -> Event<U, Error> {
        switch self {
        case let .value(value): return .value(try transform(value))
        case let .failed(error): return .failed(error)
        case .completed: return .completed
        case .interrupted: return .interrupted
        }
    }

    /// Transforms the error, keeping the kind.
    public func mapError<F>(_ transform: (Error) -> F) -> Event<Value, F> {
        switch self {
        case let .value(value): return .value(value)
        case let .failed(error): return .failed(transform(error))
        case .completed: return .completed
        case .interrupted: return .interrupted
        }
    }

    /// The event's kind, without its payload.
    public var kind: EventKind {
        switch self {
        case .value: return .value
        case .failed: return .failed
        case .completed: return .completed
        case .interrupted: return .interrupted
        }
    }
}

extension Event: Equatable where Value: Equatable, Error: Equatable {}

extension Event: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .value(value): return "VALUE \(value)"
        case let .failed(error): return "FAILED \(error)"
        case .completed: return "COMPLETED"
        case .interrupted: return "INTERRUPTED"
        }
    }
}

/// An error type with no values, for streams that cannot fail (ReactiveSwift's `NoError`).
///
/// ```swift
/// let ticks: SignalProducer<Int, NoError> = SignalProducer([1, 2, 3])   // the same as Never
/// ```
public typealias NoError = Never
