// take(first:), take(while:), take(until:), take(last:), take(during:), take(untilReplacement:):
// how much of a stream to keep.

extension Signal {
    /// Sends the first `count` values, then completes. With a `count` of 0 (or less) the
    /// signal has completed before anyone can observe it, so, like any terminated signal, it
    /// interrupts its observers at once; the producer form completes each start instead.
    public func take(first count: Int, file: StaticString = #fileID, line: UInt = #line) -> Signal {
        take(first: count, node: .operator("take", parameters: "first: \(count)", (node, .data), file: file, line: line))
    }

    func take(first count: Int, node: Node) -> Signal {
        guard count > 0 else {
            return Signal(node: node) { observer, _ in observer.sendCompleted() }
        }
        var taken = 0
        return derive(node) { event, observer in
            guard case .value = event else { return observer.send(event) }
            taken += 1
            observer.send(event)
            if taken == count { observer.sendCompleted() }
        }
    }

    /// Sends values while `shouldContinue` holds; completes at the first value that fails it
    /// (that value is not sent).
    public func take(while shouldContinue: @escaping (Value) -> Bool,
                     file: StaticString = #fileID, line: UInt = #line) -> Signal {
        take(while: shouldContinue, node: .operator("take", parameters: "while:", (node, .data), file: file, line: line))
    }

    func take(while shouldContinue: @escaping (Value) -> Bool, node: Node) -> Signal {
        derive(node) { event, observer in
            if case let .value(value) = event, !shouldContinue(value) {
                observer.sendCompleted()
            } else {
                observer.send(event)
            }
        }
    }

    /// Forwards events until `trigger` sends a value or completes, then completes
    /// (ReactiveCocoa 2: `takeUntil:`). A trigger that is interrupted stops nothing.
    /// A value and a trigger at the same instant go in delivery order: whichever is delivered
    /// first (on a TestScheduler, whichever was scheduled first) decides whether the value passes.
    public func take<T>(until trigger: Signal<T, Never>, file: StaticString = #fileID, line: UInt = #line) -> Signal {
        take(until: trigger, node: .operator("take", parameters: "until:", (node, .data), (trigger.node, .trigger),
                                             file: file, line: line))
    }

    /// ReactiveCocoa 2's `takeUntil:`, the same as `take(until:)`.
    public func takeUntil<T>(_ trigger: Signal<T, Never>, file: StaticString = #fileID, line: UInt = #line) -> Signal {
        take(until: trigger, file: file, line: line)
    }

    func take<T>(until trigger: Signal<T, Never>, node: Node) -> Signal {
        Signal.combining(node) { observer, lifetime in
            // The trigger is observed first, so a trigger that fires while this signal is being
            // observed (a producer's trigger is started first) ends the output before any value.
            // Otherwise events go in delivery order: a value delivered before the trigger's is
            // forwarded, one after it is not. On a TestScheduler, a value and a trigger due at
            // the same instant are delivered in the order they were scheduled, so either can win.
            lifetime += trigger.observeInternally { event in
                switch event {
                case .value, .completed: observer.sendCompleted()
                case .interrupted: break
                }
            }
            lifetime += self.observeInternally(observer.send)
        }
    }

    /// Sends values while `shouldContinue` holds, and the first value that fails it too,
    /// then completes: ReactiveSwift's `take(until:)` with a predicate, a `take(while:)`
    /// that keeps the value it stops at. (The predicate says whether to go on, as in
    /// `take(while:)`, not whether to stop.)
    @_disfavoredOverload
    public func take(until shouldContinue: @escaping (Value) -> Bool,
                     file: StaticString = #fileID, line: UInt = #line) -> Signal {
        take(until: shouldContinue, node: .operator("take", parameters: "until:", (node, .data), file: file, line: line))
    }

    func take(until shouldContinue: @escaping (Value) -> Bool, node: Node) -> Signal {
        derive(node) { event, observer in
            observer.send(event)
            if case let .value(value) = event, !shouldContinue(value) { observer.sendCompleted() }
        }
    }

    /// Forwards events until `duration` ends, then completes (at once when it has ended).
    public func take(during duration: Lifetime, file: StaticString = #fileID, line: UInt = #line) -> Signal {
        take(during: duration, node: .operator("take", parameters: "during:", (node, .data), file: file, line: line))
    }

    func take(during duration: Lifetime, node: Node) -> Signal {
        Signal.combining(node) { observer, lifetime in
            lifetime += self.observeInternally(observer.send)
            lifetime += duration.observeEnded { observer.sendCompleted() }
        }
    }

    /// Forwards this signal's values, failure and interruption (not its completion) until
    /// `replacement` sends its first event; from then on forwards `replacement` only.
    public func take(untilReplacement replacement: Signal, file: StaticString = #fileID, line: UInt = #line) -> Signal {
        take(untilReplacement: replacement,
             node: .operator("take", parameters: "untilReplacement:", (node, .data), (replacement.node, .data),
                             file: file, line: line))
    }

    func take(untilReplacement replacement: Signal, node: Node) -> Signal {
        Signal.combining(node) { observer, lifetime in
            let own = SerialDisposable()
            lifetime += own
            own.inner = self.observeInternally { event in
                if case .completed = event { return }
                observer.send(event)
            }
            lifetime += replacement.observeInternally { event in
                own.dispose()
                observer.send(event)
            }
        }
    }

    /// Sends the last `count` values when this signal completes, then completes. A failure
    /// or interruption sends none of them.
    public func take(last count: Int, file: StaticString = #fileID, line: UInt = #line) -> Signal {
        take(last: count, node: .operator("take", parameters: "last: \(count)", (node, .data), file: file, line: line))
    }

    func take(last count: Int, node: Node) -> Signal {
        var buffer: [Value] = []
        return derive(node) { event, observer in
            switch event {
            case let .value(value):
                guard count > 0 else { return }
                if buffer.count == count { buffer.removeFirst() }
                buffer.append(value)
            case .completed:
                buffer.forEach(observer.send(value:))
                observer.sendCompleted()
            case .failed, .interrupted:
                observer.send(event)
            }
        }
    }
}

extension SignalProducer {
    /// Sends the first `count` values of each start, then completes and interrupts the start.
    /// With a `count` of 0 (or less) each start is interrupted at once without starting
    /// upstream, as ReactiveSwift's is: the signal it would give has already completed, and
    /// observing a terminated signal is an interruption.
    public func take(first count: Int, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("take", parameters: "first: \(count)", (self.node, .data), file: file, line: line)
        guard count > 0 else {
            return SignalProducer(node: node) { observer, _ in observer.sendInterrupted() }
        }
        return lift(node) { $0.take(first: count, node: node) }
    }

    /// Sends values while `shouldContinue` holds; completes at the first value that fails it.
    public func take(while shouldContinue: @escaping (Value) -> Bool,
                     file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("take", parameters: "while:", (self.node, .data), file: file, line: line)
        return lift(node) { $0.take(while: shouldContinue, node: node) }
    }

    /// Forwards events until `trigger` (started with each start, before this producer's work)
    /// sends a value or completes, then completes (ReactiveCocoa 2: `takeUntil:`).
    public func take<T>(until trigger: SignalProducer<T, Never>,
                        file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("take", parameters: "until:", (self.node, .data), (trigger.node, .trigger),
                                 file: file, line: line)
        return lift(node, trigger, otherFirst: true) { $0.take(until: $1, node: node) }
    }

    /// Forwards events until the hot `trigger` sends a value or completes, then completes
    /// (a cell's "prepare for reuse" signal ending an image load).
    public func take<T>(until trigger: Signal<T, Never>, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("take", parameters: "until:", (self.node, .data), (trigger.node, .trigger),
                                 file: file, line: line)
        return lift(node) { $0.take(until: trigger, node: node) }
    }

    /// ReactiveCocoa 2's `takeUntil:`, the same as `take(until:)`.
    public func takeUntil<T>(_ trigger: SignalProducer<T, Never>,
                             file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        take(until: trigger, file: file, line: line)
    }

    /// ReactiveCocoa 2's `takeUntil:` with a hot trigger, the same as `take(until:)`.
    public func takeUntil<T>(_ trigger: Signal<T, Never>, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        take(until: trigger, file: file, line: line)
    }

    /// Sends values of each start while `shouldContinue` holds, and the first value that
    /// fails it too, then completes.
    @_disfavoredOverload
    public func take(until shouldContinue: @escaping (Value) -> Bool,
                     file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("take", parameters: "until:", (self.node, .data), file: file, line: line)
        return lift(node) { $0.take(until: shouldContinue, node: node) }
    }

    /// Forwards the events of each start until `duration` ends, then completes.
    public func take(during duration: Lifetime, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("take", parameters: "during:", (self.node, .data), file: file, line: line)
        return lift(node) { $0.take(during: duration, node: node) }
    }

    /// Forwards each start's values, failure and interruption (not its completion) until
    /// `replacement`, started with it (first), sends its first event; from then on forwards
    /// `replacement` only.
    public func take(untilReplacement replacement: SignalProducer,
                     file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("take", parameters: "untilReplacement:", (self.node, .data), (replacement.node, .data),
                                 file: file, line: line)
        return lift(node, replacement, otherFirst: true) { $0.take(untilReplacement: $1, node: node) }
    }

    /// `take(untilReplacement:)` with anything convertible to a producer.
    @_disfavoredOverload
    public func take<Replacement: SignalProducerConvertible>(
        untilReplacement replacement: Replacement, file: StaticString = #fileID, line: UInt = #line
    ) -> SignalProducer where Replacement.Value == Value, Replacement.Error == Error {
        take(untilReplacement: replacement.producer, file: file, line: line)
    }

    /// Sends the last `count` values of each start when it completes, then completes.
    public func take(last count: Int, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("take", parameters: "last: \(count)", (self.node, .data), file: file, line: line)
        return lift(node) { $0.take(last: count, node: node) }
    }
}
