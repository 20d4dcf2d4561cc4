import Dispatch

// collect(every:on:): values gathered into arrays on a clock.

/// The decisions of `collect(every:on:)`, without effects.
struct CollectEveryStateMachine<Value> {
    let skipEmpty: Bool
    private var values: [Value] = []
    /// Completed upstream, the last array still to be sent at the next tick.
    private(set) var completing = false

    init(skipEmpty: Bool) { self.skipEmpty = skipEmpty }

    mutating func value(_ value: Value) { values.append(value) }

    mutating func completeAtNextTick() { completing = true }

    /// A tick: the array to send (nil for an empty one when empty ones are skipped), and
    /// whether to complete after it.
    mutating func tick() -> (array: [Value]?, complete: Bool) {
        defer { values = [] }
        return (values.isEmpty && skipEmpty ? nil : values, completing)
    }
}

extension Signal {
    /// Sends the values gathered during each `interval` on `scheduler`, as one array per
    /// tick (an empty one when none came, unless `skipEmpty`). On completion, the values
    /// gathered since the last tick are dropped and the completion sent at once on the
    /// scheduler, or, when not `discardWhenCompleted`, sent at the next tick followed by the
    /// completion. A failure or interruption stops the clock and is forwarded on the scheduler.
    public func collect(every interval: DispatchTimeInterval, on scheduler: DateScheduler, skipEmpty: Bool = false,
                        discardWhenCompleted: Bool = true,
                        file: StaticString = #fileID, line: UInt = #line) -> Signal<[Value], Error> {
        let parameters = "every: \(intervalParameters(interval.timeInterval, on: scheduler)), skipEmpty: \(skipEmpty), "
            + "discardWhenCompleted: \(discardWhenCompleted)"
        return collect(every: interval, on: scheduler, skipEmpty: skipEmpty, discardWhenCompleted: discardWhenCompleted,
                       node: .operator("collect", parameters: parameters, (node, .data), file: file, line: line))
    }

    func collect(every interval: DispatchTimeInterval, on scheduler: DateScheduler, skipEmpty: Bool,
                 discardWhenCompleted: Bool, node: Node) -> Signal<[Value], Error> {
        Signal<[Value], Error>.scheduled(node) { observer, lifetime, core in
            let machine = LockedState(CollectEveryStateMachine<Value>(skipEmpty: skipEmpty))
            let clock = SerialDisposable()
            lifetime += clock
            clock.inner = scheduler.schedule(after: scheduler.currentDate.addingTimeInterval(interval),
                                             interval: interval, leeway: .nanoseconds(0)) {
                let (array, complete) = machine.withLock { $0.tick() }
                if let array { observer.send(value: array) }
                if complete { observer.sendCompleted() }
            }
            lifetime += self.observeInternally { event in
                switch event {
                case let .value(value):
                    machine.withLock { $0.value(value) }
                case .completed where !discardWhenCompleted:
                    machine.withLock { $0.completeAtNextTick() }
                case .completed, .failed, .interrupted:
                    clock.dispose()
                    scheduleHop(on: scheduler, of: core) { observer.send(event.map { [$0] }) }
                }
            }
        }
    }
}

extension SignalProducer {
    /// Sends the values each start gathers during each `interval` on `scheduler`, as one
    /// array per tick (see `Signal.collect(every:on:skipEmpty:discardWhenCompleted:)`).
    public func collect(every interval: DispatchTimeInterval, on scheduler: DateScheduler, skipEmpty: Bool = false,
                        discardWhenCompleted: Bool = true,
                        file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<[Value], Error> {
        let parameters = "every: \(intervalParameters(interval.timeInterval, on: scheduler)), skipEmpty: \(skipEmpty), "
            + "discardWhenCompleted: \(discardWhenCompleted)"
        let node = Node.operator("collect", parameters: parameters, (self.node, .data), file: file, line: line)
        return lift(node) {
            $0.collect(every: interval, on: scheduler, skipEmpty: skipEmpty, discardWhenCompleted: discardWhenCompleted,
                       node: node)
        }
    }
}
