/// The decisions of `sampleLatest(on:)` (RxJS's `sample`), free of locks and observers: at
/// each trigger value, the source's latest value if a new one came since the previous sample
/// (a value is sampled at most once). The result ends with the source, or fails with the
/// trigger.
public struct SampleLatestStateMachine<Value> {
    /// Where the source is.
    public enum State {
        /// No value waits to be sampled.
        case empty
        /// `value` waits for the next trigger.
        case holding(Value)
        /// The result has ended: every later input is ignored.
        case finished
    }

    /// What to do after a transition.
    public enum Action {
        /// Nothing.
        case none
        /// Send the sampled value.
        case emit(Value)
        /// Forward the terminal event that ended the result.
        case forwardTermination
    }

    /// Where the source is now.
    public private(set) var state = State.empty

    /// Nothing received yet.
    public init() {}

    /// The source sent `value`: it replaces a value still waiting.
    public mutating func receive(_ value: Value) {
        if case .finished = state { return }
        state = .holding(value)
    }

    /// The trigger sent a value: the waiting value, if any, is sent once.
    public mutating func trigger() -> Action {
        guard case let .holding(value) = state else { return .none }
        state = .empty
        return .emit(value)
    }

    /// The source ended, or the trigger failed: a waiting value is dropped.
    public mutating func terminate() -> Action {
        if case .finished = state { return .none }
        state = .finished
        return .forwardTermination
    }
}

extension SampleLatestStateMachine.State: Equatable where Value: Equatable {}
extension SampleLatestStateMachine.Action: Equatable where Value: Equatable {}
