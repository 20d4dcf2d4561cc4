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
    /// A terminal event is forwarded at once and drops a value still waiting.
    public func throttle(_ interval: TimeInterval, on scheduler: DateScheduler,
                         file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, Error> {
        throttle(interval, on: scheduler,
                 node: .operator("throttle", parameters: "\(formatInterval(interval)), on: \(scheduler.name)",
                                 (node, .data), file: file, line: line))
    }

    func throttle(_ interval: TimeInterval, on scheduler: DateScheduler, node: Node) -> Signal<Value, Error> {
        Signal.scheduled(node) { observer, lifetime, _ in
            let machine = Machine(ThrottleState<Value>(interval: interval))
            let timer = SerialDisposable()
            lifetime += timer
            lifetime += self.observeInternally { event in
                switch event {
                case let .value(value):
                    machine.step({ $0.receive(value, now: scheduler.currentDate) }) { request in
                        guard let request else { return }
                        // Rescheduled for each value (same date) so that the value sent is
                        // caused, in the trace, by the value it is.
                        timer.inner = scheduler.schedule(after: request.date) {
                            machine.step({ $0.fire(request) }) { value in
                                if let value { observer.send(value: value) }
                            }
                        }
                    }
                case .failed, .completed, .interrupted:
                    machine.step({ $0.terminate() }) { forward in
                        guard forward else { return }
                        timer.dispose()
                        observer.send(event)
                    }
                }
            }
        }
    }
}

extension SignalProducer {
    /// ReactiveSwift's `throttle`: at most one value per `interval`, the latest, at the end
    /// of the interval. See `Signal.throttle(_:on:)`; contrast `debounce(_:on:)` and
    /// `throttle(quietPeriod:on:)`.
    public func throttle(_ interval: TimeInterval, on scheduler: DateScheduler,
                         file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("throttle", parameters: "\(formatInterval(interval)), on: \(scheduler.name)",
                                 (self.node, .data), file: file, line: line)
        return lift(node) { $0.throttle(interval, on: scheduler, node: node) }
    }
}
