import Foundation

// debounce, and ReactiveCocoa 2's `throttle:` (which is a debounce) as throttle(quietPeriod:on:).

extension Signal {
    /// Sends a value only once `interval` seconds have passed without a newer value: each
    /// value restarts the wait, and only the last of a burst gets through, on `scheduler`.
    ///
    /// Compare `throttle(_:on:)`, which lets a value through every `interval` however busy
    /// the input is; `debounce` lets nothing through until the input pauses.
    /// ReactiveCocoa 2's `throttle:` is this operator, spelt `throttle(quietPeriod:on:)`.
    ///
    /// Every terminal event is delivered on `scheduler`, after what it already holds, as in
    /// ReactiveSwift; failure and interruption drop a pending value. An interruption by a
    /// disposal (of a producer's start) is delivered on `scheduler` too.
    ///
    /// - Parameters:
    ///   - interval: the quiet period, in seconds.
    ///   - scheduler: where values are sent and the time is read.
    ///   - discardWhenCompleted: when true (the default) completion drops a pending value and
    ///     is sent on the scheduler's next turn; when false the pending value is sent at the end of its quiet
    ///     period, followed by completion.
    ///   - file: the call site's file, recorded with the operator's node.
    ///   - line: the call site's line, recorded with the operator's node.
    public func debounce(_ interval: TimeInterval, on scheduler: DateScheduler,
                         discardWhenCompleted: Bool = true,
                         file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, Error> {
        debounce(interval, on: scheduler, discardWhenCompleted: discardWhenCompleted, asynchronous: true,
                 node: .operator("debounce",
                                 parameters: debounceParameters(interval, scheduler, discardWhenCompleted),
                                 (node, .data), file: file, line: line))
    }

    /// ReactiveCocoa 2's `throttle:`: sends a value only after `quietPeriod` seconds without
    /// a newer one. Despite the name this is `debounce(_:on:)`, *not* ReactiveSwift's
    /// `throttle(_:on:)` (which sends the latest value every interval even while values keep
    /// coming). The `quietPeriod:` label keeps the two apart; the TwitterInstant tutorial's
    /// `throttle:0.5` is `throttle(quietPeriod: 0.5, on: scheduler)`.
    public func throttle(quietPeriod: TimeInterval, on scheduler: DateScheduler,
                         file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, Error> {
        debounce(quietPeriod, on: scheduler, discardWhenCompleted: true, asynchronous: false,
                 node: .operator("throttle(quietPeriod:)",
                                 parameters: intervalParameters(quietPeriod, on: scheduler),
                                 (node, .data), file: file, line: line))
    }

    /// `asynchronous` for ReactiveSwift's `debounce`, whose terminal events are delivered on
    /// the scheduler; ReactiveCocoa 2's `throttle:` sends them at once.
    func debounce(_ interval: TimeInterval, on scheduler: DateScheduler,
                  discardWhenCompleted: Bool, asynchronous: Bool, node: Node) -> Signal<Value, Error> {
        timed(node, on: scheduler,
              DebounceStateMachine<Value>(interval: interval,
                                          completion: discardWhenCompleted ? .discardPending : .sendPendingWhenDue),
              asynchronous: asynchronous)
    }
}

func debounceParameters(_ interval: TimeInterval, _ scheduler: Scheduler, _ discardWhenCompleted: Bool) -> String {
    let base = intervalParameters(interval, on: scheduler)
    return discardWhenCompleted ? base : base + ", discardWhenCompleted: false"
}

extension SignalProducer {
    /// Sends a value only once `interval` seconds have passed without a newer value.
    /// See `Signal.debounce(_:on:discardWhenCompleted:)`; contrast `throttle(_:on:)`.
    public func debounce(_ interval: TimeInterval, on scheduler: DateScheduler,
                         discardWhenCompleted: Bool = true,
                         file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("debounce", parameters: debounceParameters(interval, scheduler, discardWhenCompleted),
                                 (self.node, .data), file: file, line: line)
        return lift(node) {
            $0.debounce(interval, on: scheduler, discardWhenCompleted: discardWhenCompleted, asynchronous: true, node: node)
        }
    }

    /// ReactiveCocoa 2's `throttle:`, which is a debounce: a value passes only after
    /// `quietPeriod` seconds without a newer one. Not ReactiveSwift's `throttle(_:on:)`.
    /// See `Signal.throttle(quietPeriod:on:)`.
    public func throttle(quietPeriod: TimeInterval, on scheduler: DateScheduler,
                         file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("throttle(quietPeriod:)",
                                 parameters: intervalParameters(quietPeriod, on: scheduler),
                                 (self.node, .data), file: file, line: line)
        return lift(node) {
            $0.debounce(quietPeriod, on: scheduler, discardWhenCompleted: true, asynchronous: false, node: node)
        }
    }
}
