extension SignalProducer {
    /// Starts this producer on `scheduler` (ReactiveCocoa 2: `subscribeOn:`): its start
    /// handler, and so whatever it sends synchronously, runs there. Events sent later from
    /// elsewhere are not moved; use `observe(on:)` for that.
    ///
    /// The start is a thread hop the probe sees (`hopEnqueued`, then `hopStarted` on the
    /// target). Interrupting before the hop runs cancels it, and the upstream never starts.
    public func start(on scheduler: Scheduler,
                      file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("start(on:)", parameters: scheduler.name, (self.node, .data), file: file, line: line)
        let upstream = self
        return SignalProducer(node: node, instantiate: {
            let core = SignalCore<Value, Error>(node: node, detachWhenUnobserved: false)
            let interrupter = AnyDisposable { core.interrupt() }
            return Instance(signal: Signal(core: core), interrupter: interrupter) {
                core.resources += scheduleHop(on: scheduler, of: core) {
                    guard !core.resources.isDisposed else { return }
                    upstream.startWithSignal { signal, upstreamInterrupter in
                        core.resources += upstreamInterrupter
                        if Instrumentation.isAttached { Instrumentation.link(observer: core, observed: signal.core) }
                        signal.observeInternally(core.send)
                    }
                }
            }
        })
    }
}
