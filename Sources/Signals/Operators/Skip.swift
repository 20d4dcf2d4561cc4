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
            let gate = SerialDisposable()
            lifetime += gate
            gate.inner = trigger.observeInternally { event in
                switch event {
                case .value, .completed:
                    guard !gate.isDisposed else { return }
                    gate.inner = self.observeInternally(observer.send)
                case .interrupted: break
                }
            }
        }
    }
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
