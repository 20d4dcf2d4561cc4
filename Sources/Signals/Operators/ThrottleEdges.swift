import Foundation

// throttle(_:leading:trailing:on:) (RxJS throttleTime with its config): a window opens with a
// value sent; values inside it are dropped, or the last one is sent when it closes.

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
        timed(node, on: scheduler, ThrottleEdgesStateMachine<Value>(interval: interval, leading: leading, trailing: trailing))
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
