import Foundation

// audit (RxJS auditTime): after a value, wait the interval, then send the latest value.

/// The decisions of `audit`, free of clocks: a value arms one timer unless one is armed;
/// the timer sends the latest value. Completion waits for an armed timer's value.
public struct AuditState<Value> {
    /// The wait after the first value of a window, in seconds.
    public let interval: TimeInterval
    private var latest: Value?
    private var armed = false
    private var completing = false
    private var ended = false
    private var token: UInt64 = 0

    public init(interval: TimeInterval) { self.interval = interval }

    /// A value arrived at `now`: it becomes the latest; arm a timer if none is armed.
    public mutating func receive(_ value: Value, now: Date) -> TimerRequest? {
        guard !ended else { return nil }
        latest = value
        guard !armed else { return nil }
        armed = true
        token &+= 1
        return TimerRequest(date: now.addingTimeInterval(interval), token: token)
    }

    /// The timer of `token` fired: the value to send, and whether to complete after it.
    public mutating func fire(_ token: UInt64) -> (value: Value?, complete: Bool) {
        guard !ended, armed, token == self.token else { return (nil, false) }
        armed = false
        let value = latest
        latest = nil
        if completing { ended = true }
        return (value, completing)
    }

    /// The upstream completed: whether to complete now (false while a timer holds a value).
    public mutating func complete() -> Bool {
        guard !ended else { return false }
        if armed && latest != nil {
            completing = true
            return false
        }
        ended = true
        return true
    }

    /// The upstream failed or was interrupted: whether to forward it (false once ended).
    public mutating func terminate() -> Bool {
        guard !ended else { return false }
        ended = true
        latest = nil
        return true
    }
}

extension Signal {
    /// RxJS's `auditTime`: the first value after a quiet time arms a timer of `interval`; when
    /// it fires, the latest value so far is sent. Values in between only replace the latest.
    /// Completion waits for an armed timer to send its value; failure is forwarded at once.
    /// Contrast `throttle(_:on:)` (sends at the start of a window when it can) and
    /// `debounce(_:on:)` (restarts the wait on every value).
    public func audit(_ interval: TimeInterval, on scheduler: DateScheduler,
                      file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, Error> {
        audit(interval, on: scheduler, node: .operator("audit", parameters: intervalParameters(interval, on: scheduler),
                                                      (node, .data), file: file, line: line))
    }

    func audit(_ interval: TimeInterval, on scheduler: DateScheduler, node: Node) -> Signal<Value, Error> {
        timed(node, on: scheduler, AuditState<Value>(interval: interval),
              receive: { TimedEffect(arm: $0.receive($1, now: $2)) },
              fire: { state, request in
                  let fired = state.fire(request.token)
                  return TimedEffect(send: fired.value, complete: fired.complete)
              },
              complete: { TimedEffect(complete: $0.complete()) },
              terminate: { $0.terminate() })
    }
}

extension SignalProducer {
    /// See `Signal.audit(_:on:)` (RxJS's `auditTime`).
    public func audit(_ interval: TimeInterval, on scheduler: DateScheduler,
                      file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("audit", parameters: intervalParameters(interval, on: scheduler),
                                 (self.node, .data), file: file, line: line)
        return lift(node) { $0.audit(interval, on: scheduler, node: node) }
    }
}
