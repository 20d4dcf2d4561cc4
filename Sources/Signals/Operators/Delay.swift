import Foundation

extension Signal {
    /// Sends values and completion `interval` seconds later, on `scheduler`. Failure and
    /// interruption are sent at once (through `scheduler`) and drop what is still delayed; so
    /// is an interruption by a disposal (of a producer's start), as in ReactiveSwift.
    public func delay(_ interval: TimeInterval, on scheduler: DateScheduler,
                      file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, Error> {
        delay(interval, on: scheduler,
              node: .operator("delay", parameters: intervalParameters(interval, on: scheduler),
                              (node, .data), file: file, line: line))
    }

    func delay(_ interval: TimeInterval, on scheduler: DateScheduler, node: Node,
               completion: DelayStateMachine.Completion = .delayed) -> Signal<Value, Error> {
        Signal.scheduled(node, interruptingOn: scheduler) { observer, lifetime, core in
            let machine = Machine(DelayStateMachine(interval: interval, completion: completion))
            // The deliveries on their way, so that ending the signal cancels (and releases) them.
            let inFlight = CompositeDisposable()
            lifetime += inFlight
            lifetime += self.observeInternally { event in
                machine.step({ $0.receive(event.kind, now: scheduler.currentDate) }) { action in
                    let slot = Slot()
                    let deliver = {
                        machine.step({ machine in event.kind == .value && machine.valueDelivered() }) { completesNow in
                            slot.handle?.remove()
                            observer.send(event)
                            if completesNow { observer.sendCompleted() }
                        }
                    }
                    switch action {
                    case .drop, .holdUntilValuesDelivered: return
                    case let .deliver(date):
                        slot.handle = inFlight.add(scheduleTimer(on: scheduler, after: date, of: core, deliver))
                    case .deliverNow: slot.handle = inFlight.add(scheduler.schedule(deliver))
                    }
                }
            }
        }
    }

    /// RxJS's `delay`: sends values `interval` seconds later, on `scheduler`; completion is not
    /// delayed but waits for the values still on their way (sent at once when there are none,
    /// else right after the last of them). Failure and interruption are sent at once (through
    /// `scheduler`) and drop what is still delayed. Contrast `delay(_:on:)`, which shifts the
    /// completion by `interval` too.
    public func delayValues(_ interval: TimeInterval, on scheduler: DateScheduler,
                            file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, Error> {
        delay(interval, on: scheduler,
              node: .operator("delayValues", parameters: intervalParameters(interval, on: scheduler),
                              (node, .data), file: file, line: line),
              completion: .afterDelayedValues)
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

    /// RxJS's `delay`: values `interval` seconds later; completion once they are sent. See
    /// `Signal.delayValues(_:on:)`.
    public func delayValues(_ interval: TimeInterval, on scheduler: DateScheduler,
                            file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("delayValues", parameters: intervalParameters(interval, on: scheduler),
                                 (self.node, .data), file: file, line: line)
        return lift(node) { $0.delay(interval, on: scheduler, node: node, completion: .afterDelayedValues) }
    }
}
