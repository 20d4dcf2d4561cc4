import Foundation

/// The decisions of `delay`, free of clocks and schedulers: values and completion are
/// shifted by the interval; failure and interruption are not delayed, and overtake what
/// is still on its way.
public struct DelayState {
    /// When an event is to be sent.
    public enum Timing: Equatable {
        /// At this date.
        case at(Date)
        /// As soon as the scheduler can.
        case now
        /// Never: the stream has already ended.
        case drop
    }

    /// The delay, in seconds.
    public let interval: TimeInterval
    private var ended = false

    /// A delay of `interval` seconds.
    public init(interval: TimeInterval) {
        self.interval = interval
    }

    /// An upstream event of this kind arrived at `now`.
    public mutating func receive(_ kind: EventKind, now: Date) -> Timing {
        guard !ended else { return .drop }
        switch kind {
        case .value:
            return .at(now.addingTimeInterval(interval))
        case .completed:
            ended = true
            return .at(now.addingTimeInterval(interval))
        case .failed, .interrupted:
            ended = true
            return .now
        }
    }
}
