import Foundation

extension Signal {
    /// ReactiveSwift's `throttle`: sends at most one value per `interval` seconds, on
    /// `scheduler`. A value arriving when `interval` has passed since the last value sent is
    /// sent at once; otherwise it waits for the end of the interval, and if newer values
    /// arrive meanwhile only the latest is sent. A busy input thus yields one value every
    /// `interval`.
    ///
    /// Compare `debounce(_:on:)`, which waits for the input to pause. ReactiveCocoa 2's
    /// `throttle:` is that debounce, spelt `throttle(quietPeriod:on:)` here.
    ///
    /// A terminal event is delivered on `scheduler`, after what it already holds (as in
    /// ReactiveSwift), and drops a value still waiting. An interruption by a disposal (of a
    /// producer's start) is delivered on `scheduler` too.
    public func throttle(_ interval: TimeInterval, on scheduler: DateScheduler,
                         file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, Error> {
        throttle(interval, on: scheduler,
                 node: .operator("throttle", parameters: intervalParameters(interval, on: scheduler),
                                 (node, .data), file: file, line: line))
    }

    func throttle(_ interval: TimeInterval, on scheduler: DateScheduler, node: Node) -> Signal<Value, Error> {
        timed(node, on: scheduler, ThrottleStateMachine<Value>(interval: interval), asynchronous: true)
    }
}

extension SignalProducer {
    /// ReactiveSwift's `throttle`: at most one value per `interval`, the latest, at the end
    /// of the interval. See `Signal.throttle(_:on:)`; contrast `debounce(_:on:)` and
    /// `throttle(quietPeriod:on:)`.
    public func throttle(_ interval: TimeInterval, on scheduler: DateScheduler,
                         file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("throttle", parameters: intervalParameters(interval, on: scheduler),
                                 (self.node, .data), file: file, line: line)
        return lift(node) { $0.throttle(interval, on: scheduler, node: node) }
    }
}
