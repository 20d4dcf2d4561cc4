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

    /// The longest gap allowed, in seconds.
    public let interval: TimeInterval
    /// Where the race is now.
    public private(set) var state = State.running(token: 0)

    /// A deadline of `interval` seconds for every gap, the first one from the start.
    public init(interval: TimeInterval) { self.interval = interval }

    /// The next deadline, `interval` after `now`, replacing the current one.
    private mutating func rearm(now: Date, token: UInt64) -> TimerRequest {
        state = .running(token: token &+ 1)
        return TimerRequest(date: now.addingTimeInterval(interval), token: token &+ 1)
    }

    /// The operator started at `now`: arm the first deadline.
    public mutating func start(now: Date) -> DeadlineAction {
        guard case let .running(token) = state else { return .none }
        return .schedule(rearm(now: now, token: token))
    }

    /// An upstream event arrived at `now`: a value re-arms the deadline, a terminal event
    /// ends the race.
    public mutating func receive(isTerminating: Bool, now: Date) -> DeadlineAction {
        guard case let .running(token) = state else { return .none }
        guard isTerminating else { return .rescheduleThenForward(rearm(now: now, token: token)) }
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
