import Foundation

/// The decisions of `debounce` and `debounceFlushing`, free of clocks and schedulers: the
/// operator feeds it upstream events with the current time and the firing of the timers it
/// asked for, and performs the actions it returns.
public struct DebounceStateMachine<Value>: TimedStateMachine {
    /// What completion does with a value still waiting for its quiet period.
    public enum CompletionPolicy: Equatable, Sendable {
        /// Drop it and complete at once (ReactiveSwift's `discardWhenCompleted: true`).
        case discardPending
        /// Send it when its quiet period ends, then complete (`discardWhenCompleted: false`).
        case sendPendingWhenDue
        /// Send it at once, then complete (`debounceFlushing`, RxJS's `debounceTime`).
        case sendPendingAtOnce
    }

    /// Where the stream is.
    public enum State {
        /// No value is waiting.
        case idle
        /// `value` waits for the timer of `token` (its quiet period) to fire.
        case waiting(Value, token: UInt64)
        /// The upstream completed; `value` is sent when the timer of `token` fires, then
        /// completion.
        case completing(Value, token: UInt64)
        /// The stream has ended: every later input is ignored.
        case finished
    }

    /// The quiet period, in seconds.
    public let interval: TimeInterval
    /// What completion does with a waiting value.
    public let completion: CompletionPolicy
    /// Where the stream is now.
    public private(set) var state = State.idle
    /// The token of the latest timer asked for; each new timer gets the next one, so a
    /// superseded timer already on its way is recognised.
    private var lastToken: UInt64 = 0

    /// A debounce of `interval` seconds whose completion follows `completion`.
    public init(interval: TimeInterval, completion: CompletionPolicy = .discardPending) {
        self.interval = interval
        self.completion = completion
    }

    /// A value arrived at `now`: it replaces any waiting one, and a new timer replaces the
    /// armed one.
    public mutating func receive(_ value: Value, now: Date) -> TimedAction<Value> {
        switch state {
        case .idle, .waiting:
            lastToken &+= 1
            state = .waiting(value, token: lastToken)
            return .schedule(TimerRequest(date: now.addingTimeInterval(interval), token: lastToken))
        case .completing, .finished:
            return .none
        }
    }

    /// Whether `request` is the latest timer asked for (`TimedStateMachine.isCurrent(_:)`).
    public func isCurrent(_ request: TimerRequest) -> Bool { request.token == lastToken }

    /// The timer of `request` fired: the waiting value is sent if the timer is current.
    public mutating func fire(_ request: TimerRequest, now: Date) -> TimedAction<Value> {
        switch state {
        case let .waiting(value, token) where token == request.token:
            state = .idle
            return .emit(value)
        case let .completing(value, token) where token == request.token:
            state = .finished
            return .complete(emittingFirst: value)
        case .idle, .waiting, .completing, .finished:
            return .none
        }
    }

    /// The upstream completed: the waiting value is dropped, awaited or flushed, as the
    /// completion policy says.
    public mutating func complete() -> TimedAction<Value> {
        switch state {
        case .idle:
            state = .finished
            return .complete(emittingFirst: nil)
        case let .waiting(value, token):
            switch completion {
            case .discardPending:
                state = .finished
                return .complete(emittingFirst: nil)
            case .sendPendingWhenDue:
                state = .completing(value, token: token)
                return .none
            case .sendPendingAtOnce:
                state = .finished
                return .complete(emittingFirst: value)
            }
        case .completing, .finished:
            return .none
        }
    }

    /// The upstream failed or was interrupted: a waiting value is dropped.
    public mutating func terminate() -> TimedAction<Value> {
        if case .finished = state { return .none }
        state = .finished
        return .forwardTermination
    }
}

extension DebounceStateMachine.State: Equatable where Value: Equatable {}
