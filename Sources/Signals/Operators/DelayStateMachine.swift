import Foundation

/// The decisions of `delay`, free of clocks and schedulers: values and completion are
/// shifted by the interval; failure and interruption are not delayed, and overtake what
/// is still on its way.
public struct DelayStateMachine: Equatable, Sendable {
    /// Where the stream is.
    public enum State: Equatable, Sendable {
        /// Events are delayed.
        case forwarding
        /// A terminal event has been scheduled: every later event is dropped.
        case finished
    }

    /// What to do with an upstream event.
    public enum Action: Equatable, Sendable {
        /// Send it at this date.
        case deliver(at: Date)
        /// Send it as soon as the scheduler can.
        case deliverNow
        /// Drop it: the stream has already ended.
        case drop
    }

    /// The delay, in seconds.
    public let interval: TimeInterval
    /// Where the stream is now.
    public private(set) var state = State.forwarding

    /// A delay of `interval` seconds.
    public init(interval: TimeInterval) {
        self.interval = interval
    }

    /// An upstream event of this kind arrived at `now`.
    public mutating func receive(_ kind: EventKind, now: Date) -> Action {
        guard state == .forwarding else { return .drop }
        switch kind {
        case .value:
            return .deliver(at: now.addingTimeInterval(interval))
        case .completed:
            state = .finished
            return .deliver(at: now.addingTimeInterval(interval))
        case .failed, .interrupted:
            state = .finished
            return .deliverNow
        }
    }
}
