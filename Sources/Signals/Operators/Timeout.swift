import Foundation

extension Signal {
    /// Fails with `error` if the signal has not terminated `interval` seconds after this
    /// operator was applied (ReactiveSwift's `timeout`: a deadline for the whole stream, not
    /// for the gap between values). The failure is sent on `scheduler`; the upstream is no
    /// longer observed after it.
    public func timeout(after interval: TimeInterval, raising error: Error, on scheduler: DateScheduler,
                        file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, Error> {
        timeout(after: interval, raising: error, on: scheduler,
                node: .operator("timeout", parameters: "\(formatInterval(interval)), raising: \(error), on: \(scheduler.name)",
                                (node, .data), file: file, line: line))
    }

    func timeout(after interval: TimeInterval, raising error: Error, on scheduler: DateScheduler,
                 node: Node) -> Signal<Value, Error> {
        withDeadline(interval, on: scheduler, node: node) { observer, _, _ in
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
                node: .operator("timeout", parameters: "\(formatInterval(interval)), on: \(scheduler.name)",
                                (node, .data), (fallback.node, .fallback), file: file, line: line))
    }

    func timeout(after interval: TimeInterval, switchingTo fallback: SignalProducer<Value, Error>,
                 on scheduler: DateScheduler, node: Node) -> Signal<Value, Error> {
        withDeadline(interval, on: scheduler, node: node) { observer, lifetime, subscription in
            ProbeContext.current.asParent(subscription) {
                fallback.startWithSignal { signal, interrupter in
                    lifetime += interrupter
                    signal.observeInternally(observer.send)
                }
            }
        }
    }

    /// Forwards the upstream until it terminates or the deadline passes; in the latter case
    /// stops observing it and runs `onTimeout`.
    private func withDeadline(_ interval: TimeInterval, on scheduler: DateScheduler, node: Node,
                              _ onTimeout: @escaping (Observer, Lifetime, UInt64) -> Void) -> Signal<Value, Error> {
        Signal.scheduled(node) { observer, lifetime, subscription in
            let machine = Machine(TimeoutState())
            let upstream = SerialDisposable()
            let deadline = SerialDisposable()
            lifetime += upstream
            lifetime += deadline
            deadline.inner = scheduler.schedule(after: scheduler.currentDate.addingTimeInterval(interval)) {
                machine.step({ $0.deadlinePassed() }) { won in
                    guard won else { return }
                    upstream.dispose()
                    onTimeout(observer, lifetime, subscription)
                }
            }
            upstream.inner = self.observeInternally { event in
                machine.step({ $0.receive(isTerminating: event.isTerminating) }) { forward in
                    guard forward else { return }
                    if event.isTerminating { deadline.dispose() }
                    observer.send(event)
                }
            }
        }
    }
}

extension SignalProducer {
    /// Fails with `error` if a start has not terminated within `interval` seconds.
    /// See `Signal.timeout(after:raising:on:)`.
    public func timeout(after interval: TimeInterval, raising error: Error, on scheduler: DateScheduler,
                        file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("timeout", parameters: "\(formatInterval(interval)), raising: \(error), on: \(scheduler.name)",
                                 (self.node, .data), file: file, line: line)
        return lift(node) { $0.timeout(after: interval, raising: error, on: scheduler, node: node) }
    }

    /// Switches to `fallback` if a start has not terminated within `interval` seconds.
    /// See `Signal.timeout(after:switchingTo:on:)`.
    public func timeout(after interval: TimeInterval, switchingTo fallback: SignalProducer<Value, Error>,
                        on scheduler: DateScheduler,
                        file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("timeout", parameters: "\(formatInterval(interval)), on: \(scheduler.name)",
                                 (self.node, .data), (fallback.node, .fallback), file: file, line: line)
        return lift(node) { $0.timeout(after: interval, switchingTo: fallback, on: scheduler, node: node) }
    }
}
