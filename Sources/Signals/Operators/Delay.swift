import Foundation

extension Signal {
    /// Sends values and completion `interval` seconds later, on `scheduler`. Failure and
    /// interruption are sent at once (through `scheduler`) and drop what is still delayed.
    public func delay(_ interval: TimeInterval, on scheduler: DateScheduler,
                      file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, Error> {
        delay(interval, on: scheduler,
              node: .operator("delay", parameters: intervalParameters(interval, on: scheduler),
                              (node, .data), file: file, line: line))
    }

    func delay(_ interval: TimeInterval, on scheduler: DateScheduler, node: Node) -> Signal<Value, Error> {
        Signal.scheduled(node) { observer, lifetime, _ in
            let machine = Machine(DelayStateMachine(interval: interval))
            // The deliveries on their way, so that ending the signal cancels (and releases) them.
            let inFlight = CompositeDisposable()
            lifetime += inFlight
            lifetime += self.observeInternally { event in
                machine.step({ $0.receive(event.kind, now: scheduler.currentDate) }) { action in
                    let slot = Slot()
                    let deliver = {
                        machine.step({ _ in }) { _ in
                            slot.handle?.remove()
                            observer.send(event)
                        }
                    }
                    switch action {
                    case .drop: return
                    case let .deliver(date): slot.handle = inFlight.add(scheduler.schedule(after: date, action: deliver))
                    case .deliverNow: slot.handle = inFlight.add(scheduler.schedule(deliver))
                    }
                }
            }
        }
    }
}

/// Where a scheduled delivery finds its own entry in the in-flight set. Set under the
/// machine's lock before the delivery (which takes the same lock) can run.
private final class Slot: @unchecked Sendable {  // written once before the delayed action can run, read by it on the scheduler
    var handle: CompositeDisposable.Handle?
}

extension SignalProducer {
    /// Sends values and completion `interval` seconds later, on `scheduler`; failure and
    /// interruption at once. See `Signal.delay(_:on:)`.
    public func delay(_ interval: TimeInterval, on scheduler: DateScheduler,
                      file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("delay", parameters: intervalParameters(interval, on: scheduler),
                                 (self.node, .data), file: file, line: line)
        return lift(node) { $0.delay(interval, on: scheduler, node: node) }
    }
}
