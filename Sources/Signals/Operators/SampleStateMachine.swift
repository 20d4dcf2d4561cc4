/// The decisions of `sample(with:)` and `sample(on:)`, free of locks and observers: the
/// source's latest value, read each time the sampler sends. The result completes when both
/// have completed, fails when the source fails, and is interrupted when either is.
public struct SampleStateMachine<Value> {
    /// Where the two streams are.
    public enum State {
        /// Both are running; `latest` is the source's latest value, if it has sent one.
        case sampling(latest: Value?)
        /// The source completed; its last value, if any, is still sampled until the sampler
        /// completes.
        case sourceCompleted(latest: Value?)
        /// The sampler completed: nothing more is sampled; the source's end ends the result.
        case samplerCompleted
        /// The result has ended: every later input is ignored.
        case finished
    }

    /// What to do after a transition.
    public enum Action {
        /// Nothing.
        case none
        /// Send the sampled value.
        case emit(Value)
        /// Complete.
        case complete
        /// Forward the failure or interruption that ended the result.
        case forwardTermination
    }

    /// Where the two streams are now.
    public private(set) var state = State.sampling(latest: nil)

    /// Two streams running, nothing sent yet.
    public init() {}

    /// The source sent `value`: it is the one sampled from now on.
    public mutating func receive(_ value: Value) {
        if case .sampling = state { state = .sampling(latest: value) }
    }

    /// The sampler sent a value: the source's latest value is sent, if it has one.
    public mutating func sample() -> Action {
        switch state {
        case let .sampling(latest?), let .sourceCompleted(latest?): return .emit(latest)
        case .sampling, .sourceCompleted, .samplerCompleted, .finished: return .none
        }
    }

    /// The source completed: the result completes if the sampler has.
    public mutating func sourceCompleted() -> Action {
        switch state {
        case let .sampling(latest):
            state = .sourceCompleted(latest: latest)
            return .none
        case .samplerCompleted:
            state = .finished
            return .complete
        case .sourceCompleted, .finished:
            return .none
        }
    }

    /// The sampler completed: the result completes if the source has.
    public mutating func samplerCompleted() -> Action {
        switch state {
        case .sampling:
            state = .samplerCompleted
            return .none
        case .sourceCompleted:
            state = .finished
            return .complete
        case .samplerCompleted, .finished:
            return .none
        }
    }

    /// The source failed or was interrupted, or the sampler was interrupted.
    public mutating func terminate() -> Action {
        if case .finished = state { return .none }
        state = .finished
        return .forwardTermination
    }
}

extension SampleStateMachine.State: Equatable where Value: Equatable {}
extension SampleStateMachine.Action: Equatable where Value: Equatable {}
