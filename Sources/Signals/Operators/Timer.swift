import Foundation

extension SignalProducer where Value == Date, Error == Never {
    /// Sends the scheduler's current date every `interval`, first one `interval` after the
    /// start, until interrupted. Each start has its own timer.
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
        return SignalProducer(node: node) { observer, lifetime in
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
    }
}
