import Foundation

/// The decisions of RxJS-style throttling (`throttle(_:leading:trailing:on:)`), free of
/// clocks and schedulers.
///
/// A value with no window open is sent at once (`leading`) or opens a window without being
/// sent. When a window closes, the latest value received in it is sent if `trailing`, and
/// sending a value opens a new window. Completion waits for a window that will send a
/// trailing value.
public struct ThrottleEdgesStateMachine<Value>: TimedStateMachine {
    /// Where the stream is.
    public enum State {
        /// No window is open.
        case idle
        /// The window closed by the timer of `token` is open; `trailing` is the value it
        /// sends when it closes (always nil unless the machine sends trailing values).
        case open(token: UInt64, trailing: Value?)
        /// The upstream completed while the window of `token` was open: `trailing` is sent
        /// when it closes, then completion.
        case completing(token: UInt64, trailing: Value)
        /// The stream has ended: every later input is ignored.
        case finished
    }

    /// The length of a window, in seconds.
    public let interval: TimeInterval
    /// Whether a value arriving with no window open is sent at once.
    public let leading: Bool
    /// Whether the latest value received in a window is sent when it closes.
    public let trailing: Bool
    /// Where the stream is now.
    public private(set) var state = State.idle
    /// The token of the latest window opened; each new window gets the next one.
    private var lastToken: UInt64 = 0

    /// Windows of `interval` seconds, sending on the edges asked for.
    public init(interval: TimeInterval, leading: Bool, trailing: Bool) {
        self.interval = interval
        self.leading = leading
        self.trailing = trailing
    }

    /// Opens a window at `now`: the state and the request of the timer that closes it.
    private mutating func openWindow(at now: Date, trailing value: Value?) -> TimerRequest {
        lastToken &+= 1
        state = .open(token: lastToken, trailing: value)
        return TimerRequest(date: now.addingTimeInterval(interval), token: lastToken)
    }

    /// A value arrived at `now`.
    public mutating func receive(_ value: Value, now: Date) -> TimedAction<Value> {
        switch state {
        case .idle where leading:
            return .scheduleThenEmit(openWindow(at: now, trailing: nil), value)
        case .idle:
            return .schedule(openWindow(at: now, trailing: trailing ? value : nil))
        case let .open(token, _):
            state = .open(token: token, trailing: trailing ? value : nil)
            return .none
        case .completing, .finished:
            return .none
        }
    }

    /// Whether `request` is the latest timer asked for (`TimedStateMachine.isCurrent(_:)`).
    public func isCurrent(_ request: TimerRequest) -> Bool { request.token == lastToken }

    /// The window of `request` closed at `now`: its trailing value is sent, opening the next
    /// window.
    public mutating func fire(_ request: TimerRequest, now: Date) -> TimedAction<Value> {
        switch state {
        case let .open(token, value?) where token == request.token:
            return .scheduleThenEmit(openWindow(at: now, trailing: nil), value)
        case let .open(token, nil) where token == request.token:
            state = .idle
            return .none
        case let .completing(token, value) where token == request.token:
            state = .finished
            return .complete(emittingFirst: value)
        case .idle, .open, .completing, .finished:
            return .none
        }
    }

    /// The upstream completed: at once, unless an open window will send a trailing value.
    public mutating func complete() -> TimedAction<Value> {
        switch state {
        case let .open(token, value?):
            state = .completing(token: token, trailing: value)
            return .none
        case .idle, .open:
            state = .finished
            return .complete(emittingFirst: nil)
        case .completing, .finished:
            return .none
        }
    }

    /// The upstream failed or was interrupted: a trailing value is dropped.
    public mutating func terminate() -> TimedAction<Value> {
        if case .finished = state { return .none }
        state = .finished
        return .forwardTermination
    }
}

extension ThrottleEdgesStateMachine.State: Equatable where Value: Equatable {}
