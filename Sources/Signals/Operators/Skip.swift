// skip(first:), skip(while:), skip(until:): dropping the start of a stream.

extension Signal {
    /// Drops the first `count` values.
    public func skip(first count: Int, file: StaticString = #fileID, line: UInt = #line) -> Signal {
        skip(first: count, node: .operator("skip", parameters: "first: \(count)", (node, .data), file: file, line: line))
    }

    func skip(first count: Int, node: Node) -> Signal {
        var skipped = 0
        return derive(node) { event, observer in
            if case .value = event, skipped < count {
                skipped += 1
                return
            }
            observer.send(event)
        }
    }

    /// Drops values while `shouldContinue` holds; from the first value that fails it on,
    /// sends everything.
    public func skip(while shouldContinue: @escaping (Value) -> Bool,
                     file: StaticString = #fileID, line: UInt = #line) -> Signal {
        skip(while: shouldContinue, node: .operator("skip", parameters: "while:", (node, .data), file: file, line: line))
    }

    func skip(while shouldContinue: @escaping (Value) -> Bool, node: Node) -> Signal {
        var skipping = true
        return derive(node) { event, observer in
            if skipping, case let .value(value) = event {
                if shouldContinue(value) { return }
                skipping = false
            }
            observer.send(event)
        }
    }
}

extension Signal {
    /// Drops everything until `trigger` sends a value or completes; from then on forwards
    /// this signal's events. A trigger that is interrupted opens nothing.
    public func skip<T>(until trigger: Signal<T, Never>, file: StaticString = #fileID, line: UInt = #line) -> Signal {
        skip(until: trigger, node: .operator("skip", parameters: "until:", (node, .data), (trigger.node, .trigger),
                                             file: file, line: line))
    }

    func skip<T>(until trigger: Signal<T, Never>, node: Node) -> Signal {
        Signal.combining(node) { observer, lifetime in
            let gate = LockedState(SkipUntilGate())
            let triggering = SerialDisposable()
            lifetime += triggering
            // The trigger is observed first, so one that fires while this signal is being
            // observed (a producer's trigger is started first) opens the gate before any value.
            triggering.inner = trigger.observeInternally { event in
                switch event {
                case .value, .completed:
                    guard !triggering.isDisposed else { return }
                    let sourceEnded = gate.withLock { gate -> Bool in
                        gate.open = true
                        return gate.sourceEnded
                    }
                    triggering.dispose()
                    // A signal that ended before the gate opened is observed only once it has
                    // ended: an interruption, as observing any ended signal is.
                    if sourceEnded { observer.sendInterrupted() }
                case .interrupted: break
                }
            }
            // This signal is observed from the start, what it sends before the gate opens
            // dropped, so the observation is made (and recorded) while the operator is made:
            // what crossed into it is everything this signal sent while it ran.
            lifetime += self.observeInternally { event in
                let open = gate.withLock { gate -> Bool in
                    if !gate.open && event.isTerminating { gate.sourceEnded = true }
                    return gate.open
                }
                if open { observer.send(event) }
            }
        }
    }
}

/// `skip(until:)`'s state: whether the trigger has opened the gate, and whether the signal
/// it gates ended while the gate was closed.
private struct SkipUntilGate {
    var open = false
    var sourceEnded = false
}

extension SignalProducer {
    /// Drops the first `count` values of each start.
    public func skip(first count: Int, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("skip", parameters: "first: \(count)", (self.node, .data), file: file, line: line)
        return lift(node) { $0.skip(first: count, node: node) }
    }

    /// Drops values while `shouldContinue` holds, then sends everything.
    public func skip(while shouldContinue: @escaping (Value) -> Bool,
                     file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("skip", parameters: "while:", (self.node, .data), file: file, line: line)
        return lift(node) { $0.skip(while: shouldContinue, node: node) }
    }

    /// Drops everything each start sends until `trigger` (started with it, first) sends a
    /// value or completes; from then on forwards the start's events.
    public func skip<T>(until trigger: SignalProducer<T, Never>,
                        file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("skip", parameters: "until:", (self.node, .data), (trigger.node, .trigger),
                                 file: file, line: line)
        return lift(node, trigger, otherFirst: true) { $0.skip(until: $1, node: node) }
    }

    /// Drops everything each start sends until the hot `trigger` sends a value or completes.
    public func skip<T>(until trigger: Signal<T, Never>, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("skip", parameters: "until:", (self.node, .data), (trigger.node, .trigger),
                                 file: file, line: line)
        return lift(node) { $0.skip(until: trigger, node: node) }
    }
}
