import Foundation

/// A scheduler that stands in for the timers started on it: a replay's, which re-sends each
/// timer's recorded ticks at their recorded times rather than computing ticks at exact
/// multiples of the interval (a live timer drifts and its ticks run late; what the pipeline
/// sampled is what happened, not what the interval says).
public protocol TimerReplayingScheduler: DateScheduler {
    /// Called as a start of the timer `node` is made, so in the order a trace records the
    /// timer's subscriptions (an operator may begin its inputs in another order): the start
    /// handler that sends that start its recorded ticks until its lifetime ends; nil when
    /// there is no recording of that timer, which then runs as a timer on this scheduler.
    func recordedTicks(of node: Node) -> ((Observer<Date, Never>, Lifetime) -> Void)?
}

extension SignalProducer where Value == Date, Error == Never {
    /// Sends the scheduler's current date every `interval`, first one `interval` after the
    /// start, until interrupted. Each start has its own timer. On a `TimerReplayingScheduler`
    /// (a replay's), the start gets the recorded ticks of the same timer instead.
    ///
    /// - Parameters:
    ///   - interval: the period; must be positive.
    ///   - scheduler: where the ticks run and the dates are read.
    ///   - leeway: how late a tick may run, to let the system coalesce wake-ups.
    ///   - file: the call site's file, recorded with the timer's node.
    ///   - line: the call site's line, recorded with the timer's node.
    public static func timer(interval: DispatchTimeInterval, on scheduler: DateScheduler,
                             leeway: DispatchTimeInterval = .nanoseconds(0),
                             file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Date, Never> {
        let node = Node.make(.source, "timer",
                             parameters: intervalParameters(interval.timeInterval, on: scheduler),
                             file: file, line: line)
        return SignalProducer(node: node, handlerWhenMade: {
            // A replay stands in for the timer with what it recorded (see TimerReplayingScheduler).
            if let replaying = scheduler as? TimerReplayingScheduler, let recorded = replaying.recordedTicks(of: node) {
                return recorded
            }
            return { observer, lifetime in
                let machine = Machine(TimerStateMachine())
                let first = scheduler.currentDate.addingTimeInterval(interval.timeInterval)
                let ticks = scheduler.schedule(after: first, interval: interval, leeway: leeway) {
                    machine.step({ $0.tick() }) { action in
                        if action == .emitTick { observer.send(value: scheduler.currentDate) }
                    }
                }
                lifetime.observeEnded {
                    machine.step({ $0.stop() }) { action in
                        if action == .cancelTimer { ticks?.dispose() }
                    }
                }
            }
        })
    }
}

extension SignalProducer where Error == Never {
    /// Sends the elements of `values` one `interval` apart, the first one `interval` after the
    /// start, and completes at the tick after the last (ReactiveSwift's `interval`). An
    /// endless sequence never completes. Each start walks the sequence anew. It is the
    /// `timer` of the same call site (so a replay gives it the recorded ticks) feeding an
    /// `interval` node.
    public static func interval<S: Sequence>(_ values: S, interval: DispatchTimeInterval, on scheduler: DateScheduler,
                                             file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer<S.Element, Never> where S.Element == Value {
        let ticks = SignalProducer<Date, Never>.timer(interval: interval, on: scheduler, file: file, line: line)
        let node = Node.operator("interval", (ticks.node, .data), file: file, line: line)
        return ticks.lift(node) { signal in
            var iterator = values.makeIterator()
            return signal.derive(node) { (event: Signals.Event<Date, Never>, observer: Signals.Observer<S.Element, Never>) in
                switch event {
                case .value:
                    if let next = iterator.next() { observer.send(value: next) } else { observer.sendCompleted() }
                case .completed: observer.sendCompleted()
                case .interrupted: observer.sendInterrupted()
                }
            }
        }
    }
}

extension SignalProducer where Value == Int, Error == Never {
    /// Sends 0, 1, 2, … one `interval` apart, the first one `interval` after the start, until
    /// interrupted (ReactiveSwift's `interval(interval:on:)`).
    public static func interval(_ interval: DispatchTimeInterval, on scheduler: DateScheduler,
                                file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Int, Never> {
        SignalProducer.interval(0..., interval: interval, on: scheduler, file: file, line: line)
    }
}
