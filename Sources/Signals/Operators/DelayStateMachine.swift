import Foundation

/// The decisions of `delay` and `delayValues`, free of clocks and schedulers: values are
/// shifted by the interval; completion is shifted too (`delay`) or sent once the last value
/// on its way has been sent (`delayValues`, RxJS's `delay`); failure and interruption are
/// not delayed, and overtake what is still on its way.
public struct DelayStateMachine: Equatable, Sendable {
    /// Where the stream is.
    public enum State: Equatable, Sendable {
        /// Events are delayed.
        case forwarding
        /// A terminal event has been scheduled or is held: every later event is dropped.
        case finished
    }

    /// When the upstream's completion is sent.
    public enum Completion: Equatable, Sendable {
        /// `interval` after it arrived, like a value (ReactiveSwift's `delay`).
        case delayed
        /// At once when no value is on its way, else right after the last one is sent
        /// (RxJS's `delay`).
        case afterDelayedValues
    }

    /// What to do with an upstream event.
    public enum Action: Equatable, Sendable {
        /// Send it at this date.
        case deliver(at: Date)
        /// Send it as soon as the scheduler can.
        case deliverNow
        /// Hold it: it is sent right after the last value on its way (``valueDelivered()``).
        case holdUntilValuesDelivered
        /// Drop it: the stream has already ended.
        case drop
    }

    /// The delay, in seconds.
    public let interval: TimeInterval
    /// When completion is sent.
    public let completion: Completion
    /// Where the stream is now.
    public private(set) var state = State.forwarding
    /// The values scheduled and not yet sent.
    public private(set) var valuesOnTheirWay = 0
    private var completionHeld = false

    /// A delay of `interval` seconds; completion is sent as `completion` says.
    public init(interval: TimeInterval, completion: Completion = .delayed) {
        self.interval = interval
        self.completion = completion
    }

    /// An upstream event of this kind arrived at `now`.
    public mutating func receive(_ kind: EventKind, now: Date) -> Action {
        guard state == .forwarding else { return .drop }
        switch kind {
        case .value:
            valuesOnTheirWay += 1
            return .deliver(at: now.addingTimeInterval(interval))
        case .completed:
            state = .finished
            switch completion {
            case .delayed:
                return .deliver(at: now.addingTimeInterval(interval))
            case .afterDelayedValues:
                guard valuesOnTheirWay > 0 else { return .deliverNow }
                completionHeld = true
                return .holdUntilValuesDelivered
            }
        case .failed, .interrupted:
            state = .finished
            completionHeld = false
            return .deliverNow
        case .pull:
            // An async consumer's demand: no stream sends one.
            return .drop
        }
    }

    /// A delayed value has just been sent. True when the held completion is to be sent now.
    public mutating func valueDelivered() -> Bool {
        valuesOnTheirWay = max(0, valuesOnTheirWay - 1)
        guard completionHeld, valuesOnTheirWay == 0 else { return false }
        completionHeld = false
        return true
    }
}
