import Foundation

// audit (RxJS auditTime): after a value, wait the interval, then send the latest value.

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
        timed(node, on: scheduler, AuditStateMachine<Value>(interval: interval))
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
