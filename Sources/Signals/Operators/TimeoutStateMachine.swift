import Foundation

/// The decisions of `timeout(after:)`, free of clocks and schedulers: the upstream has until
/// the deadline to terminate; if it has not, the operator fails or switches to its fallback.
/// The one deadline is never re-armed.
public struct TimeoutStateMachine: DeadlineStateMachine, Equatable, Sendable {
    /// Where the race is.
    public enum State: Equatable, Sendable {
        /// Forwarding the upstream, the deadline armed.
        case running
        /// The deadline passed first: the upstream is ignored.
        case timedOut
        /// The upstream terminated first: the deadline is ignored.
        case finished
    }

    /// How long the upstream has to terminate, in seconds.
    public let interval: TimeInterval
    /// Where the race is now.
    public private(set) var state = State.running

    /// A race not yet decided, against a deadline `interval` seconds after the start.
    public init(interval: TimeInterval) { self.interval = interval }

    /// The operator started at `now`: arm the deadline.
    public mutating func start(now: Date) -> DeadlineAction {
        guard state == .running else { return .none }
        // The one deadline is never re-armed, so its token tells nothing apart.
        return .schedule(TimerRequest(date: now.addingTimeInterval(interval), token: 0))
    }

    /// An upstream event arrived: forwarded while the race is open; a terminal event wins it.
    public mutating func receive(isTerminating: Bool, now: Date) -> DeadlineAction {
        guard state == .running else { return .none }
        guard isTerminating else { return .forward }
        state = .finished
        return .cancelDeadlineThenForward
    }

    /// The deadline passed: it wins the race if the upstream has not terminated.
    public mutating func deadlinePassed(_ request: TimerRequest) -> DeadlineAction {
        guard state == .running else { return .none }
        state = .timedOut
        return .timeOut
    }
}
