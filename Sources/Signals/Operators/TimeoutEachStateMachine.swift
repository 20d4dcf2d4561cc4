import Foundation

/// The decisions of `timeout(each:)` (RxJS's `timeout({ each })`), free of clocks and
/// schedulers: each value re-arms the deadline; a deadline that passes before the next
/// event wins.
public struct TimeoutEachStateMachine: DeadlineStateMachine, Equatable, Sendable {
    /// Where the race is.
    public enum State: Equatable, Sendable {
        /// Forwarding the upstream; the deadline of `token` is the current one (0 before
        /// the start has armed the first).
        case running(token: UInt64)
        /// The stream has ended, by a terminal event or by a deadline: every later input is
        /// ignored.
        case finished
    }

    /// The longest gap allowed after each value, in seconds; 0 or less: none (RxJS's `each`).
    public let interval: TimeInterval
    /// The longest wait for the first value, from the start, in seconds; nil: none (RxJS's `first`).
    public let first: TimeInterval?
    /// Where the race is now.
    public private(set) var state = State.running(token: 0)

    /// A deadline of `interval` seconds for every gap, the first one from the start.
    public init(interval: TimeInterval) {
        self.interval = interval
        first = interval
    }

    /// RxJS's `timeout({ first, each })`: a deadline of `first` seconds for the first value
    /// (`each` when nil), then of `each` seconds after each value (none when nil or 0).
    ///
    /// - Precondition: `first` or `each` is given.
    public init(first: TimeInterval?, each: TimeInterval?) {
        precondition(first != nil || each != nil, "timeout needs a first or an each deadline")
        interval = each ?? 0
        self.first = first ?? each
    }

    /// The next deadline, `delay` after `now`, replacing the current one.
    private mutating func rearm(_ delay: TimeInterval, now: Date, token: UInt64) -> TimerRequest {
        state = .running(token: token &+ 1)
        return TimerRequest(date: now.addingTimeInterval(delay), token: token &+ 1)
    }

    /// The operator started at `now`: arm the first deadline (if any).
    public mutating func start(now: Date) -> DeadlineAction {
        guard case let .running(token) = state, let first else { return .none }
        return .schedule(rearm(first, now: now, token: token))
    }

    /// An upstream event arrived at `now`: a value re-arms the deadline (or, with no `each`,
    /// cancels it), a terminal event ends the race.
    public mutating func receive(isTerminating: Bool, now: Date) -> DeadlineAction {
        guard case let .running(token) = state else { return .none }
        guard isTerminating else {
            guard interval > 0 else {
                state = .running(token: token &+ 1)
                return .cancelDeadlineThenForward
            }
            return .rescheduleThenForward(rearm(interval, now: now, token: token))
        }
        state = .finished
        return .cancelDeadlineThenForward
    }

    /// The deadline of `request` passed: it times the stream out if it is the current one.
    public mutating func deadlinePassed(_ request: TimerRequest) -> DeadlineAction {
        guard case let .running(token) = state, token == request.token else { return .none }
        state = .finished
        return .timeOut
    }
}
