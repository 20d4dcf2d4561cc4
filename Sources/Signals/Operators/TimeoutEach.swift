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
                node: .operator("timeout", parameters: timeoutParameters(each: true, interval, on: scheduler),
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
                node: .operator("timeout", parameters: timeoutParameters(each: true, interval, on: scheduler),
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

    func timeout(first: TimeInterval?, each: TimeInterval?, on scheduler: DateScheduler, node: Node,
                 _ onTimeout: @escaping (Observer, Lifetime, UInt64) -> Void) -> Signal<Value, Error> {
        withDeadline(node, on: scheduler, TimeoutEachStateMachine(first: first, each: each), onTimeout: onTimeout)
    }
}

extension SignalProducer {
    /// See `Signal.timeout(each:raising:on:)` (RxJS's `timeout({ each })`); the first gap is
    /// counted from each start.
    public func timeout(each interval: TimeInterval, raising error: Error, on scheduler: DateScheduler,
                        file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("timeout", parameters: timeoutParameters(each: true, interval, on: scheduler),
                                 (self.node, .data), file: file, line: line)
        return lift(node) { signal in
            signal.timeout(each: interval, on: scheduler, node: node) { observer, _, _ in observer.send(error: error) }
        }
    }

    /// See `Signal.timeout(each:switchingTo:on:)` (RxJS's `timeout({ each, with })`).
    public func timeout(each interval: TimeInterval, switchingTo fallback: SignalProducer<Value, Error>,
                        on scheduler: DateScheduler,
                        file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("timeout", parameters: timeoutParameters(each: true, interval, on: scheduler),
                                 (self.node, .data), (fallback.node, .fallback), file: file, line: line)
        return lift(node) { $0.timeout(each: interval, switchingTo: fallback, on: scheduler, node: node) }
    }

    /// RxJS's `timeout({ first, each })`: fails with `error` when the first value takes more
    /// than `first` seconds from each start (`each` when nil), or a later gap more than `each`
    /// (no deadline after a value when `each` is nil or 0).
    ///
    /// - Precondition: `first` or `each` is given.
    public func timeout(first: TimeInterval?, each: TimeInterval?, raising error: Error, on scheduler: DateScheduler,
                        file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("timeout", parameters: firstEachParameters(first, each, raising: "\(error)", on: scheduler),
                                 (self.node, .data), file: file, line: line)
        return lift(node) { signal in
            signal.timeout(first: first, each: each, on: scheduler, node: node) { observer, _, _ in observer.send(error: error) }
        }
    }

    /// RxJS's `timeout({ first, each, with })`: as `timeout(first:each:raising:on:)`, but when
    /// a deadline passes, stops observing this producer and forwards `fallback`, started then.
    ///
    /// - Precondition: `first` or `each` is given.
    public func timeout(first: TimeInterval?, each: TimeInterval?, switchingTo fallback: SignalProducer<Value, Error>,
                        on scheduler: DateScheduler,
                        file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("timeout", parameters: firstEachParameters(first, each, raising: nil, on: scheduler),
                                 (self.node, .data), (fallback.node, .fallback), file: file, line: line)
        return lift(node) { $0.timeout(first: first, each: each, on: scheduler, node: node, Signal.startingFallback(fallback)) }
    }
}

/// A `timeout(first:each:)` node's parameters: the deadlines given, then the error and the scheduler.
private func firstEachParameters(_ first: TimeInterval?, _ each: TimeInterval?, raising error: String?,
                                 on scheduler: Scheduler) -> String {
    let deadlines = [first.map { "first: " + formatInterval($0) }, each.map { "each: " + formatInterval($0) }].compactMap { $0 }
    return (deadlines + [error.map { "raising: \($0)" }, "on: \(scheduler.name)"].compactMap { $0 }).joined(separator: ", ")
}
