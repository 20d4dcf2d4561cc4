import Foundation

// timeout(each:) (RxJS timeout({ each })): a deadline for every gap between values, the
// first one measured from the start.

extension Signal {
    /// RxJS's `timeout({ each })`: fails with `error` when `interval` seconds pass without a
    /// value, counting the first gap from when this operator is applied. Contrast
    /// `timeout(after:raising:on:)`, a deadline for the whole stream.
    public func timeout(each interval: TimeInterval, raising error: Error, on scheduler: DateScheduler,
                        file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, Error> {
        timeout(each: interval, on: scheduler,
                node: .operator("timeout", parameters: timeoutParameters(each: true, interval, raising: "\(error)", on: scheduler),
                                (node, .data), file: file, line: line)) { observer, _, _ in
            observer.send(error: error)
        }
    }

    /// RxJS's `timeout({ each, with })`: when `interval` seconds pass without a value, stops
    /// observing this signal and forwards `fallback`, started then.
    public func timeout(each interval: TimeInterval, switchingTo fallback: SignalProducer<Value, Error>,
                        on scheduler: DateScheduler,
                        file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, Error> {
        timeout(each: interval, switchingTo: fallback, on: scheduler,
                node: .operator("timeout", parameters: timeoutParameters(each: true, interval, raising: nil, on: scheduler),
                                (node, .data), (fallback.node, .fallback), file: file, line: line))
    }

    func timeout(each interval: TimeInterval, switchingTo fallback: SignalProducer<Value, Error>,
                 on scheduler: DateScheduler, node: Node) -> Signal<Value, Error> {
        timeout(each: interval, on: scheduler, node: node, Signal.startingFallback(fallback))
    }

    func timeout(each interval: TimeInterval, on scheduler: DateScheduler, node: Node,
                 _ onTimeout: @escaping (Observer, Lifetime, UInt64) -> Void) -> Signal<Value, Error> {
        withDeadline(node, on: scheduler, TimeoutEachStateMachine(interval: interval), onTimeout: onTimeout)
    }
}

extension SignalProducer {
    /// See `Signal.timeout(each:raising:on:)` (RxJS's `timeout({ each })`); the first gap is
    /// counted from each start.
    public func timeout(each interval: TimeInterval, raising error: Error, on scheduler: DateScheduler,
                        file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("timeout", parameters: timeoutParameters(each: true, interval, raising: "\(error)", on: scheduler),
                                 (self.node, .data), file: file, line: line)
        return lift(node) { signal in
            signal.timeout(each: interval, on: scheduler, node: node) { observer, _, _ in observer.send(error: error) }
        }
    }

    /// See `Signal.timeout(each:switchingTo:on:)` (RxJS's `timeout({ each, with })`).
    public func timeout(each interval: TimeInterval, switchingTo fallback: SignalProducer<Value, Error>,
                        on scheduler: DateScheduler,
                        file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("timeout", parameters: timeoutParameters(each: true, interval, raising: nil, on: scheduler),
                                 (self.node, .data), (fallback.node, .fallback), file: file, line: line)
        return lift(node) { $0.timeout(each: interval, switchingTo: fallback, on: scheduler, node: node) }
    }
}
