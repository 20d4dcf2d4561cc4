import Foundation

/// The decisions of `audit` (RxJS's `auditTime`), free of clocks and schedulers: a value
/// arms one timer unless one is armed; the timer sends the latest value. Completion waits
/// for an armed timer's value.
public struct AuditStateMachine<Value>: TimedStateMachine {
    /// Where the stream is.
    public enum State {
        /// No timer is armed.
        case idle
        /// The timer of `token` is armed; `latest` is sent when it fires.
        case armed(latest: Value, token: UInt64)
        /// The upstream completed while the timer of `token` was armed: `latest` is sent
        /// when it fires, then completion.
        case completing(latest: Value, token: UInt64)
        /// The stream has ended: every later input is ignored.
        case finished
    }

    /// The wait after the first value of a window, in seconds.
    public let interval: TimeInterval
    /// Where the stream is now.
    public private(set) var state = State.idle
    /// The token of the latest timer asked for; each new timer gets the next one.
    private var lastToken: UInt64 = 0

    /// An audit waiting `interval` seconds after the first value of each window.
    public init(interval: TimeInterval) { self.interval = interval }

    /// A value arrived at `now`: it becomes the latest; a timer is armed if none is.
    public mutating func receive(_ value: Value, now: Date) -> TimedAction<Value> {
        switch state {
        case .idle:
            lastToken &+= 1
            state = .armed(latest: value, token: lastToken)
            return .schedule(TimerRequest(date: now.addingTimeInterval(interval), token: lastToken))
        case let .armed(_, token):
            state = .armed(latest: value, token: token)
            return .none
        case .completing, .finished:
            return .none
        }
    }

    /// Whether `request` is the latest timer asked for (`TimedStateMachine.isCurrent(_:)`).
    public func isCurrent(_ request: TimerRequest) -> Bool { request.token == lastToken }

    /// The timer of `request` fired: the latest value is sent, then completion if the
    /// upstream completed meanwhile.
    public mutating func fire(_ request: TimerRequest, now: Date) -> TimedAction<Value> {
        switch state {
        case let .armed(latest, token) where token == request.token:
            state = .idle
            return .emit(latest)
        case let .completing(latest, token) where token == request.token:
            state = .finished
            return .complete(emittingFirst: latest)
        case .idle, .armed, .completing, .finished:
            return .none
        }
    }

    /// The upstream completed: at once, unless an armed timer holds a value.
    public mutating func complete() -> TimedAction<Value> {
        switch state {
        case .idle:
            state = .finished
            return .complete(emittingFirst: nil)
        case let .armed(latest, token):
            state = .completing(latest: latest, token: token)
            return .none
        case .completing, .finished:
            return .none
        }
    }

    /// The upstream failed or was interrupted: the latest value is dropped.
    public mutating func terminate() -> TimedAction<Value> {
        if case .finished = state { return .none }
        state = .finished
        return .forwardTermination
    }
}

extension AuditStateMachine.State: Equatable where Value: Equatable {}
