import Foundation

// debounceFlushing (RxJS debounceTime): a debounce whose completion sends the pending value
// at once, instead of dropping it or waiting for its timer.

extension Signal {
    /// RxJS's `debounceTime`: sends a value once `interval` seconds pass without another;
    /// when the upstream completes, a pending value is sent at once, then completion. Contrast
    /// `debounce(_:on:discardWhenCompleted:)`, which drops it or waits for its timer.
    public func debounceFlushing(_ interval: TimeInterval, on scheduler: DateScheduler,
                                 file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, Error> {
        debounceFlushing(interval, on: scheduler,
                         node: .operator("debounceFlushing", parameters: intervalParameters(interval, on: scheduler),
                                         (node, .data), file: file, line: line))
    }

    func debounceFlushing(_ interval: TimeInterval, on scheduler: DateScheduler, node: Node) -> Signal<Value, Error> {
        timed(node, on: scheduler, DebounceStateMachine<Value>(interval: interval, completion: .sendPendingAtOnce))
    }
}

extension SignalProducer {
    /// See `Signal.debounceFlushing(_:on:)` (RxJS's `debounceTime`).
    public func debounceFlushing(_ interval: TimeInterval, on scheduler: DateScheduler,
                                 file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("debounceFlushing", parameters: intervalParameters(interval, on: scheduler),
                                 (self.node, .data), file: file, line: line)
        return lift(node) { $0.debounceFlushing(interval, on: scheduler, node: node) }
    }
}
