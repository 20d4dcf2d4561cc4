import Foundation

extension Signal {
    /// Fails with `error` if the signal has not terminated `interval` seconds after this
    /// operator was applied (ReactiveSwift's `timeout`: a deadline for the whole stream, not
    /// for the gap between values). The failure is sent on `scheduler`; the upstream is no
    /// longer observed after it.
    public func timeout(after interval: TimeInterval, raising error: Error, on scheduler: DateScheduler,
                        file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, Error> {
        timeout(after: interval, raising: error, on: scheduler,
                node: .operator("timeout", parameters: timeoutParameters(interval, on: scheduler),
                                (node, .data), file: file, line: line))
    }

    func timeout(after interval: TimeInterval, raising error: Error, on scheduler: DateScheduler,
                 node: Node) -> Signal<Value, Error> {
        deadline(interval, on: scheduler, node: node) { observer, _, _ in
            observer.send(error: error)
        }
    }

    /// Switches to `fallback` if the signal has not terminated `interval` seconds after this
    /// operator was applied: the upstream is no longer observed, `fallback` is started on
    /// `scheduler` and its events are forwarded (RxSwift's `timeout(_:other:scheduler:)`).
    /// The fallback's subscription is a child of this operator's, its edge role `.fallback`.
    public func timeout(after interval: TimeInterval, switchingTo fallback: SignalProducer<Value, Error>,
                        on scheduler: DateScheduler,
                        file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, Error> {
        timeout(after: interval, switchingTo: fallback, on: scheduler,
                node: .operator("timeout", parameters: timeoutParameters(interval, on: scheduler),
                                (node, .data), (fallback.node, .fallback), file: file, line: line))
    }

    func timeout(after interval: TimeInterval, switchingTo fallback: SignalProducer<Value, Error>,
                 on scheduler: DateScheduler, node: Node) -> Signal<Value, Error> {
        deadline(interval, on: scheduler, node: node, Signal.startingFallback(fallback))
    }

    /// Forwards the upstream until it terminates or the deadline passes; in the latter case
    /// stops observing it and runs `onTimeout`.
    private func deadline(_ interval: TimeInterval, on scheduler: DateScheduler, node: Node,
                          _ onTimeout: @escaping (Observer, Lifetime, UInt64) -> Void) -> Signal<Value, Error> {
        withDeadline(node, on: scheduler, TimeoutStateMachine(interval: interval), onTimeout: onTimeout)
    }
}

extension SignalProducer {
    /// Fails with `error` if a start has not terminated within `interval` seconds.
    /// See `Signal.timeout(after:raising:on:)`.
    public func timeout(after interval: TimeInterval, raising error: Error, on scheduler: DateScheduler,
                        file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("timeout", parameters: timeoutParameters(interval, on: scheduler),
                                 (self.node, .data), file: file, line: line)
        return lift(node) { $0.timeout(after: interval, raising: error, on: scheduler, node: node) }
    }

    /// Switches to `fallback` if a start has not terminated within `interval` seconds.
    /// See `Signal.timeout(after:switchingTo:on:)`.
    public func timeout(after interval: TimeInterval, switchingTo fallback: SignalProducer<Value, Error>,
                        on scheduler: DateScheduler,
                        file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("timeout", parameters: timeoutParameters(interval, on: scheduler),
                                 (self.node, .data), (fallback.node, .fallback), file: file, line: line)
        return lift(node) { $0.timeout(after: interval, switchingTo: fallback, on: scheduler, node: node) }
    }
}

extension Signal where Error == Never {
    /// `timeout(after:raising:on:)` on a signal that cannot fail: the result fails with the
    /// given error's type.
    @_disfavoredOverload
    public func timeout<NewError>(after interval: TimeInterval, raising error: NewError, on scheduler: DateScheduler,
                                  file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, NewError> {
        promoteError(NewError.self, file: file, line: line)
            .timeout(after: interval, raising: error, on: scheduler, file: file, line: line)
    }
}

extension SignalProducer where Error == Never {
    /// `timeout(after:raising:on:)` on a producer that cannot fail: the result fails with
    /// the given error's type.
    @_disfavoredOverload
    public func timeout<NewError>(after interval: TimeInterval, raising error: NewError, on scheduler: DateScheduler,
                                  file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, NewError> {
        promoteError(NewError.self, file: file, line: line)
            .timeout(after: interval, raising: error, on: scheduler, file: file, line: line)
    }
}
