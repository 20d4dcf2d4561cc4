// lazyMap: map on a scheduler, transforming only the latest value when the scheduler gets to it.

extension Signal {
    /// Transforms values on `scheduler`, lazily: a value that arrives while an earlier one
    /// still waits for the scheduler replaces it, so `transform` runs once per turn of the
    /// scheduler, with the latest value. Completion and failure follow on the scheduler,
    /// after the waiting value; an interruption drops the waiting value.
    public func lazyMap<U>(on scheduler: Scheduler, file: StaticString = #fileID, line: UInt = #line,
                           transform: @escaping (Value) -> U) -> Signal<U, Error> {
        lazyMap(on: scheduler, transform: transform,
                node: .operator("lazyMap", parameters: scheduler.name, (node, .data), file: file, line: line))
    }

    func lazyMap<U>(on scheduler: Scheduler, transform: @escaping (Value) -> U, node: Node) -> Signal<U, Error> {
        Signal<U, Error>.scheduled(node) { observer, lifetime, core in
            let waiting = LockedState<Value?>(nil)
            let scheduledValue = SerialDisposable()
            lifetime += scheduledValue
            lifetime += self.observeInternally { event in
                switch event {
                case let .value(value):
                    let wasEmpty = waiting.withLock { waiting in
                        defer { waiting = value }
                        return waiting == nil
                    }
                    guard wasEmpty else { return }
                    scheduledValue.inner = scheduleHop(on: scheduler, of: core) {
                        let latest = waiting.withLock { waiting in
                            defer { waiting = nil }
                            return waiting
                        }
                        if let latest { observer.send(value: transform(latest)) }
                    }
                case .interrupted:
                    scheduledValue.dispose()
                    scheduleHop(on: scheduler, of: core) { observer.sendInterrupted() }
                case let .failed(error):
                    scheduleHop(on: scheduler, of: core) { observer.send(error: error) }
                case .completed:
                    scheduleHop(on: scheduler, of: core) { observer.sendCompleted() }
                }
            }
        }
    }
}

extension SignalProducer {
    /// Transforms the values of each start on `scheduler`, lazily (see `Signal.lazyMap`).
    public func lazyMap<U>(on scheduler: Scheduler, file: StaticString = #fileID, line: UInt = #line,
                           transform: @escaping (Value) -> U) -> SignalProducer<U, Error> {
        let node = Node.operator("lazyMap", parameters: scheduler.name, (self.node, .data), file: file, line: line)
        return lift(node) { $0.lazyMap(on: scheduler, transform: transform, node: node) }
    }
}
