// Plumbing for operators that start producers of their own while they run (`then`,
// `flatMapError`, `retry`): those starts are recorded as children of the operator's
// subscription, so a trace shows which run of the operator started them.

extension Signal {
    /// A serialised signal of `node` whose generator also gets the new signal's subscription
    /// id, to start inner producers as its children.
    @usableFromInline
    static func parenting(_ node: Node, _ generator: (Signals.Observer<Value, Error>, Lifetime, UInt64) -> Void) -> Signal {
        let core = SignalCore<Value, Error>(node: node, detachWhenUnobserved: true)
        core.constructing { generator(core.input, Lifetime(core.resources), core.subscription) }
        return Signal(core: core)
    }
}

extension SignalProducer {
    /// Starts this producer as a child of subscription `parent`, passing every event to
    /// `action`. The start's interrupter goes into `slot` before the work begins, so an
    /// action that starts again synchronously (a retry) replaces it in the right order.
    @usableFromInline
    func startAsChild(of parent: UInt64, in slot: SerialDisposable,
                      _ action: @escaping (Signals.Event<Value, Error>) -> Void) {
        ProbeContext.current.asParent(parent) {
            startWithSignal { signal, interrupter in
                slot.inner = interrupter
                signal.observeInternally(by: parent, action)
            }
        }
    }

    /// A producer of `node` whose start handler also gets the started signal's subscription id.
    @usableFromInline
    init(parenting node: Node, _ startHandler: @escaping (Signals.Observer<Value, Error>, Lifetime, UInt64) -> Void) {
        self.init(node: node) {
            let core = SignalCore<Value, Error>(node: node, detachWhenUnobserved: false)
            let input = core.input
            let lifetime = Lifetime(core.resources)
            // Holds the observer as long as the start can be interrupted, as a signal holds
            // its generator's observer until it ends.
            let interrupter = AnyDisposable { withExtendedLifetime(input) { core.interrupt() } }
            return Instance(signal: Signal(core: core), interrupter: interrupter) {
                core.constructing { startHandler(input, lifetime, core.subscription) }
            }
        }
    }
}
