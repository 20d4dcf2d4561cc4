// repeat: run a producer again each time it completes.

extension SignalProducer {
    /// Starts this producer `count` times in a row: each time a start completes, the next
    /// begins; the last one's completion completes the result. Values are forwarded as they
    /// come; a failure or interruption ends the result at once. A `count` of 0 completes at
    /// once. Each run is recorded as a child of the repeat's subscription.
    ///
    /// - Precondition: `count` is not negative.
    public func `repeat`(_ count: Int, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        precondition(count >= 0, "repeat(_:) needs a count of zero or more, got \(count)")
        let node = Node.operator("repeat", parameters: "\(count)", (self.node, .data), file: file, line: line)
        let upstream = self
        return SignalProducer(parenting: node) { observer, lifetime, subscription in
            guard count > 0 else {
                observer.sendCompleted()
                return
            }
            let current = SerialDisposable()
            lifetime += current
            var remaining = count
            // A run that completes while it starts asks for the next from inside that start:
            // the trampoline runs it after the start returns, in constant stack.
            let trampoline = Trampoline()
            func next() {
                trampoline.run(startRun)
            }
            func startRun() {
                upstream.startAsChild(of: subscription, in: current) { event in
                    guard case .completed = event else { return observer.send(event) }
                    remaining -= 1
                    if remaining > 0 {
                        next()
                    } else {
                        observer.sendCompleted()
                    }
                }
            }
            next()
        }
    }
}
