import Foundation

/// The decisions of `debounce`, free of clocks and schedulers: the operator feeds it
/// upstream events with the current time and the firing of the timers it asked for, and
/// performs the actions it returns.
public struct DebounceState<Value> {
    /// What to do when a timer fires.
    public enum Fire {
        /// Nothing: the timer was superseded, or the stream has ended.
        case none
        /// Send the value.
        case send(Value)
        /// Send the value, then complete (completion waited for it).
        case sendThenComplete(Value)
    }

    /// What to do when the upstream completes.
    public enum Completion: Equatable {
        /// Cancel the timer and complete now.
        case completeNow
        /// Keep the timer: the pending value is sent when it fires, then completion.
        case awaitPendingValue
        /// Nothing: the stream had already ended.
        case none
    }

    /// The quiet period, in seconds.
    public let interval: TimeInterval
    /// Whether a value still pending when the upstream completes is dropped.
    public let discardWhenCompleted: Bool
    private var pending: Value?
    private var token: UInt64 = 0
    private var completing = false
    private var ended = false

    /// A debounce of `interval` seconds, with ReactiveSwift's `discardWhenCompleted`.
    public init(interval: TimeInterval, discardWhenCompleted: Bool = true) {
        self.interval = interval
        self.discardWhenCompleted = discardWhenCompleted
    }

    /// Whether a value is waiting for its quiet period to pass.
    public var hasPendingValue: Bool { pending != nil }

    /// A value arrived at `now`: it replaces any pending one; arm a timer for the request
    /// (replacing the previous timer). Nil once the stream has ended.
    public mutating func receive(_ value: Value, now: Date) -> TimerRequest? {
        guard !ended && !completing else { return nil }
        pending = value
        token &+= 1
        return TimerRequest(date: now.addingTimeInterval(interval), token: token)
    }

    /// The timer of `token` fired.
    public mutating func fire(_ token: UInt64) -> Fire {
        guard !ended, token == self.token, let value = pending else { return .none }
        pending = nil
        if completing {
            ended = true
            return .sendThenComplete(value)
        }
        return .send(value)
    }

    /// The upstream completed.
    public mutating func complete() -> Completion {
        guard !ended && !completing else { return .none }
        if pending != nil && !discardWhenCompleted {
            completing = true
            return .awaitPendingValue
        }
        ended = true
        pending = nil
        return .completeNow
    }

    /// The upstream completed, and a pending value is to be sent at once (`debounceFlushing`,
    /// RxJS's `debounceTime`): whether to complete, and the value to send first.
    mutating func completeFlushing() -> (complete: Bool, flush: Value?) {
        guard !ended && !completing else { return (false, nil) }
        ended = true
        defer { pending = nil }
        return (true, pending)
    }

    /// The upstream failed or was interrupted: drop any pending value. Returns whether the
    /// event is to be forwarded (false once the stream has ended).
    public mutating func terminate() -> Bool {
        guard !ended else { return false }
        ended = true
        pending = nil
        return true
    }
}
