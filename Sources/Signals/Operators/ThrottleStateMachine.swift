import Foundation

/// The decisions of ReactiveSwift's `throttle`, free of clocks and schedulers: at most one
/// value per interval, the latest one, sent at the end of the interval (or at once when an
/// interval has passed since the last value sent).
public struct ThrottleStateMachine<Value>: TimedStateMachine {
    /// Where the stream is.
    public enum State {
        /// No value is waiting; `lastSent` is when the last value was sent, if any.
        case idle(lastSent: Date?)
        /// `value` waits for the timer of `token`; `lastSent` as in `idle`.
        case waiting(Value, token: UInt64, lastSent: Date?)
        /// The stream has ended: every later input is ignored.
        case finished
    }

    /// The minimum time between two values sent, in seconds.
    public let interval: TimeInterval
    /// Where the stream is now.
    public private(set) var state = State.idle(lastSent: nil)
    /// The token of the latest timer asked for; each new timer gets the next one.
    private var lastToken: UInt64 = 0

    /// A throttle sending at most one value per `interval` seconds.
    public init(interval: TimeInterval) {
        self.interval = interval
    }

    /// A value arrived at `now`: it becomes the waiting value, and a timer replaces the armed
    /// one (which asked for the same date), so that the value sent is caused, in the trace,
    /// by the value it is.
    public mutating func receive(_ value: Value, now: Date) -> TimedAction<Value> {
        let lastSent: Date?
        switch state {
        case let .idle(sent), let .waiting(_, _, sent): lastSent = sent
        case .finished: return .none
        }
        var due = now
        // A last-sent date in the future means the clock went backwards: send at once.
        if let lastSent, lastSent <= now {
            due = max(lastSent.addingTimeInterval(interval), now)
        }
        lastToken &+= 1
        state = .waiting(value, token: lastToken, lastSent: lastSent)
        return .schedule(TimerRequest(date: due, token: lastToken))
    }

    /// Whether `request` is the latest timer asked for (`TimedStateMachine.isCurrent(_:)`).
    public func isCurrent(_ request: TimerRequest) -> Bool { request.token == lastToken }

    /// The timer of `request` fired: the waiting value is sent if the timer is current. The
    /// interval restarts at the requested date, so a late timer does not stretch it.
    public mutating func fire(_ request: TimerRequest, now: Date) -> TimedAction<Value> {
        guard case let .waiting(value, token, _) = state, token == request.token else { return .none }
        state = .idle(lastSent: request.date)
        return .emit(value)
    }

    /// The upstream completed: a waiting value is dropped.
    public mutating func complete() -> TimedAction<Value> {
        if case .finished = state { return .none }
        state = .finished
        return .complete(emittingFirst: nil)
    }

    /// The upstream failed or was interrupted: a waiting value is dropped.
    public mutating func terminate() -> TimedAction<Value> {
        if case .finished = state { return .none }
        state = .finished
        return .forwardTermination
    }
}

extension ThrottleStateMachine.State: Equatable where Value: Equatable {}
