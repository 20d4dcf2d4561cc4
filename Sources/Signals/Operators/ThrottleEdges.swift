import Foundation

// throttle(_:leading:trailing:on:) (RxJS throttleTime with its config): a window opens with a
// value sent; values inside it are dropped, or the last one is sent when it closes.

/// The decisions of RxJS-style throttling, free of clocks.
///
/// A value with no window open is sent at once (`leading`) or opens a window without being
/// sent. When a window closes, the latest value received in it is sent if `trailing`, and
/// sending a value opens a new window. Completion waits for a window that will send a
/// trailing value.
public struct ThrottleEdgesState<Value> {
    /// What to do after a transition: send a value, arm a timer, both, or nothing.
    public struct Action {
        public var send: Value?
        public var arm: TimerRequest?
        public var complete = false
    }

    public let interval: TimeInterval
    public let leading: Bool
    public let trailing: Bool
    private var pending: Value?
    private var open = false
    private var completing = false
    private var ended = false
    private var token: UInt64 = 0

    public init(interval: TimeInterval, leading: Bool, trailing: Bool) {
        self.interval = interval
        self.leading = leading
        self.trailing = trailing
    }

    private mutating func openWindow(_ now: Date) -> TimerRequest {
        open = true
        token &+= 1
        return TimerRequest(date: now.addingTimeInterval(interval), token: token)
    }

    /// Sends the pending value, opening a new window unless completing.
    private mutating func sendPending(_ now: Date) -> Action {
        guard let value = pending else { return Action() }
        pending = nil
        return Action(send: value, arm: completing ? nil : openWindow(now))
    }

    /// A value arrived at `now`.
    public mutating func receive(_ value: Value, now: Date) -> Action {
        guard !ended else { return Action() }
        pending = value
        if open { return Action() }
        if leading { return sendPending(now) }
        return Action(arm: openWindow(now))
    }

    /// The window of `token` closed at `now`.
    public mutating func fire(_ token: UInt64, now: Date) -> Action {
        guard !ended, open, token == self.token else { return Action() }
        open = false
        var action = trailing ? sendPending(now) : Action()
        if !trailing { pending = nil }
        if completing {
            ended = true
            action.complete = true
        }
        return action
    }

    /// The upstream completed: whether to complete now (false while a window will send a
    /// trailing value).
    public mutating func complete() -> Bool {
        guard !ended else { return false }
        completing = true
        if trailing && open && pending != nil { return false }
        ended = true
        return true
    }

    /// The upstream failed or was interrupted: whether to forward it.
    public mutating func terminate() -> Bool {
        guard !ended else { return false }
        ended = true
        pending = nil
        return true
    }
}

extension Signal {
    /// RxJS's `throttleTime(interval, scheduler, { leading, trailing })`: a value outside a
    /// window is sent at once when `leading` (and opens a window of `interval`); values inside
    /// the window are dropped, except that with `trailing` the last of them is sent when the
    /// window closes (opening the next window). RxJS's default is leading only. This differs
    /// from ReactiveSwift's `throttle(_:on:)`, which always delivers the latest value.
    public func throttle(_ interval: TimeInterval, leading: Bool, trailing: Bool, on scheduler: DateScheduler,
                         file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, Error> {
        throttle(interval, leading: leading, trailing: trailing, on: scheduler,
                 node: .operator("throttle", parameters: throttleEdgesParameters(interval, leading, trailing, scheduler),
                                 (node, .data), file: file, line: line))
    }

    func throttle(_ interval: TimeInterval, leading: Bool, trailing: Bool, on scheduler: DateScheduler,
                  node: Node) -> Signal<Value, Error> {
        func effect(_ action: ThrottleEdgesState<Value>.Action) -> TimedEffect<Value> {
            TimedEffect(arm: action.arm, send: action.send, complete: action.complete)
        }
        return timed(node, on: scheduler, ThrottleEdgesState<Value>(interval: interval, leading: leading, trailing: trailing),
                     receive: { effect($0.receive($1, now: $2)) },
                     fire: { effect($0.fire($1.token, now: scheduler.currentDate)) },
                     complete: { TimedEffect(complete: $0.complete()) },
                     terminate: { $0.terminate() })
    }
}

func throttleEdgesParameters(_ interval: TimeInterval, _ leading: Bool, _ trailing: Bool, _ scheduler: Scheduler) -> String {
    "\(formatInterval(interval)), leading: \(leading), trailing: \(trailing), on: \(scheduler.name)"
}

extension SignalProducer {
    /// See `Signal.throttle(_:leading:trailing:on:)` (RxJS's `throttleTime` with a config).
    public func throttle(_ interval: TimeInterval, leading: Bool, trailing: Bool, on scheduler: DateScheduler,
                         file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("throttle", parameters: throttleEdgesParameters(interval, leading, trailing, scheduler),
                                 (self.node, .data), file: file, line: line)
        return lift(node) { $0.throttle(interval, leading: leading, trailing: trailing, on: scheduler, node: node) }
    }
}
