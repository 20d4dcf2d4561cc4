import Foundation

/// The decisions of ReactiveSwift's `throttle`, free of clocks and schedulers: at most one
/// value per interval, the latest one, sent at the end of the interval (or at once when an
/// interval has passed since the last value sent).
public struct ThrottleState<Value> {
    /// The minimum time between two values sent, in seconds.
    public let interval: TimeInterval
    private var lastSent: Date?
    private var pending: Value?
    private var token: UInt64 = 0
    private var ended = false

    /// A throttle sending at most one value per `interval` seconds.
    public init(interval: TimeInterval) {
        self.interval = interval
    }

    /// Whether a value is waiting for its interval to end.
    public var hasPendingValue: Bool { pending != nil }

    /// A value arrived at `now`: it becomes the pending value; arm a timer for the request
    /// (replacing the previous one, which asked for the same date). Nil once ended.
    public mutating func receive(_ value: Value, now: Date) -> TimerRequest? {
        guard !ended else { return nil }
        pending = value
        token &+= 1
        var due = now
        // A last-sent date in the future means the clock went backwards: send at once.
        if let lastSent, lastSent <= now {
            due = max(lastSent.addingTimeInterval(interval), now)
        }
        return TimerRequest(date: due, token: token)
    }

    /// The timer of `request` fired: the value to send, if it is still current. The
    /// interval restarts at the requested date, so a late timer does not stretch it.
    public mutating func fire(_ request: TimerRequest) -> Value? {
        guard !ended, request.token == token, let value = pending else { return nil }
        pending = nil
        lastSent = request.date
        return value
    }

    /// The upstream terminated: a pending value is dropped. Returns whether to forward the
    /// terminal event (false once ended).
    public mutating func terminate() -> Bool {
        guard !ended else { return false }
        ended = true
        pending = nil
        return true
    }
}
