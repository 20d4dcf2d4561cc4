import Dispatch

extension Signal {
    /// Forwards every event on `scheduler` (ReactiveCocoa 2: `deliverOn:`), in order when the
    /// scheduler is serial. Each event is a thread hop the probe sees: `hopEnqueued` when it
    /// is enqueued, `hopStarted` when it runs on the target, and the event sent there has the
    /// upstream event as its cause. An interruption by a disposal (of a producer's start) is
    /// delivered on `scheduler` too, and drops the events still on their way, as in ReactiveSwift.
    @inlinable
    public func observe(on scheduler: Scheduler,
                        file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, Error> {
        observe(on: scheduler, node: .operator("observe(on:)", parameters: scheduler.name,
                                               (node, .data), file: file, line: line))
    }

    @inlinable
    func observe(on scheduler: Scheduler, node: Node) -> Signal<Value, Error> {
        // With no probe attached, a hop onto a queue scheduler is a bare `async`: the hops are
        // not kept (below), so the cancellable wrapper `schedule` makes would be made for nothing.
        let queue = (scheduler as? QueueScheduler)?.queue
        return Signal.scheduled(node, interruptingOn: scheduler) { observer, lifetime, core in
            lifetime += self.observeInternally { event in
                if let queue, !Instrumentation.isAttached {
                    // Values of any type cross to the queue, as with every scheduler (see
                    // `QueueScheduler.schedule(_:)`); the queue delivers them serialised.
                    nonisolated(unsafe) let event = event
                    queue.async { observer.send(event) }
                    return
                }
                // Not kept for cancellation: a hop that runs after the signal ended finds it
                // terminated and sends nothing, and per-event bookkeeping would cost every event.
                scheduleHop(on: scheduler, of: core) {
                    observer.send(event)
                }
            }
        }
    }
}

extension SignalProducer {
    /// Forwards every event of each start on `scheduler` (ReactiveCocoa 2: `deliverOn:`).
    /// See `Signal.observe(on:)`; to move the *work* of starting, use `start(on:)`.
    public func observe(on scheduler: Scheduler,
                        file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("observe(on:)", parameters: scheduler.name, (self.node, .data), file: file, line: line)
        return lift(node) { $0.observe(on: scheduler, node: node) }
    }
}
