import Locks

// The plumbing of multi-input operators (merge, combineLatest, zip, sample, withLatest):
// type-erased inputs, a state object that decides under one lock, and the producer lift
// over any number of producers.

/// One input of a multi-input operator with its type erased: each value arrives as a thunk
/// that stores the typed value where the operator's typed combine step reads it. The state
/// runs the thunk under its lock, so the typed storage needs no lock of its own.
struct JoinInput<Error: Swift.Error> {
    let observe: (@escaping (Signals.Event<() -> Void, Error>) -> Void) -> Disposable?
}

extension Signal {
    /// This signal as an input of a multi-input operator; `store` keeps each value.
    func joinInput(_ store: @escaping (Value) -> Void) -> JoinInput<Error> {
        JoinInput { handler in
            self.observeInternally { event in handler(event.map { value in { store(value) } }) }
        }
    }
}

/// The state of one multi-input operator instance: it receives every input's events,
/// numbered by input, and sends into the result.
protocol JoinState: AnyObject {
    associatedtype Error: Swift.Error
    func receive(_ event: Signals.Event<() -> Void, Error>, at index: Int)
}

extension Signal {
    /// A signal of `node` fed by `inputs` through the state `makeState` builds around the
    /// signal's input. Its sends are serialised (`combining`); it stops observing the inputs
    /// when it terminates or loses its last observer.
    static func joined<State: JoinState>(
        _ node: Node, _ inputs: [JoinInput<Error>],
        _ makeState: (Signals.Observer<Value, Error>) -> State
    ) -> Signal where State.Error == Error {
        combining(node) { input, lifetime in
            let state = makeState(input)
            for (index, joinInput) in inputs.enumerated() {
                lifetime += joinInput.observe { state.receive($0, at: index) }
            }
        }
    }
}

/// Collects the instances of the producers a multi-input producer starts, so that their
/// signals can be wired before any of them begins its work.
final class InstanceCollector {
    private(set) var interrupters: [Disposable] = []
    private(set) var begins: [() -> Void] = []

    /// A new instance of `producer`: its signal, to wire; its work begins later, in order.
    func signal<V, G>(_ producer: SignalProducer<V, G>) -> Signal<V, G> {
        let instance = producer.instantiate()
        interrupters.append(instance.interrupter)
        begins.append(instance.begin)
        return instance.signal
    }
}

extension SignalProducer {
    /// A producer of `node` that, on each start, instantiates the producers `build` asks the
    /// collector for, wires their signals into one, then begins them in the order asked.
    /// Interrupting it interrupts them all; when the result terminates they are interrupted.
    static func joining(_ node: Node, _ build: @escaping (InstanceCollector) -> Signal<Value, Error>) -> SignalProducer {
        SignalProducer(node: node) {
            let collector = InstanceCollector()
            let signal = build(collector)
            let upstreams = CompositeDisposable(collector.interrupters)
            signal.core.resources.add(upstreams)
            let begins = collector.begins
            return .init(signal: signal, interrupter: interrupting(signal, after: upstreams)) {
                begins.forEach { $0() }
            }
        }
    }
}

extension Node {
    /// The node of a multi-input operator over `upstream`, all feeding it as data.
    static func joining(_ name: String, parameters: String = "", _ upstream: [Node],
                        file: StaticString, line: UInt) -> Node {
        make(.operator, name, parameters: parameters, upstream: upstream.map { Edge(node: $0, role: .data) },
             file: file, line: line)
    }
}

/// The lock around the state of a multi-input or higher-order operator instance.
///
/// Values are sent while it is held, so that what is sent follows the order of the state's
/// decisions (a `combineLatest` never sends an older combination after a newer one). A
/// terminal event and the disposal of inner streams wait until the outermost holder lets
/// go: both interrupt upstream streams, and an upstream delivering on another thread may be
/// waiting for this very lock while holding its own. It is recursive, so an inner stream
/// that sends synchronously while it is being started re-enters safely.
final class OperatorLock<Value, Error: Swift.Error>: @unchecked Sendable {  // depth and pending work only under `lock`
    private let lock = Lock(recursive: true)
    private let output: Observer<Value, Error>
    private var depth = 0
    private var pendingTerminal: Signals.Event<Value, Error>?
    private var pendingDisposals: [Disposable] = []
    /// Work another thread left while this lock was held (`runOrLeave`), run by the holder
    /// before it lets go, or by the thread that left it once the lock is free.
    private let left = Protected<[() -> Void]>([])
    /// Whether the output's end has been decided; nothing is sent after it.
    private(set) var isTerminated = false

    init(_ output: Observer<Value, Error>) { self.output = output }

    /// Runs `body` holding the lock, then, once no caller holds it, disposes what `body`
    /// asked to and sends the terminal event it decided on.
    func run(_ body: () -> Void) {
        lock.lock()
        holding(body)
    }

    /// Runs `body` as `run` does, unless another thread holds the lock: then leaves it to
    /// that thread, which runs it before it lets go, and returns at once. For a teardown
    /// coming up from downstream on another thread (an interruption of the outer stream, the
    /// disposal of the inner ones): the holder may be delivering through this operator
    /// towards that thread, waiting for a lock that thread holds, and waiting here would
    /// deadlock.
    func runOrLeave(_ body: @escaping () -> Void) {
        if lock.tryLock() {
            holding(body)
            return
        }
        left.modify { $0.append(body) }
        // The holder may have let go before the work was left: run it here then.
        while left.current.isEmpty == false && lock.tryLock() {
            holding {}
        }
    }

    /// With the lock taken: runs `body`, then, once no caller holds it, the work left by
    /// other threads, and lets go; then disposes what was asked and sends the terminal
    /// event decided on. Work left after the lock was let go is taken up again.
    private func holding(_ body: () -> Void) {
        depth += 1
        body()
        if depth == 1 {
            while true {
                let work = left.modify { work -> [() -> Void] in
                    defer { work = [] }
                    return work
                }
                if work.isEmpty { break }
                work.forEach { $0() }
            }
        }
        depth -= 1
        let outermost = depth == 0
        var disposals: [Disposable] = []
        var terminal: Signals.Event<Value, Error>?
        if outermost {
            swap(&disposals, &pendingDisposals)
            terminal = pendingTerminal
            pendingTerminal = nil
        }
        lock.unlock()
        disposals.forEach { $0.dispose() }
        if let terminal { output.send(terminal) }
        // Work left between the last look and the lock's release: taken up if the lock is free.
        if outermost && !left.current.isEmpty && lock.tryLock() { holding {} }
    }

    /// Sends a value now, with `otherCauses` as further causes for the probe. Inside `run`.
    func send(_ value: Value, otherCauses: [UInt64] = []) {
        guard !isTerminated else { return }
        if otherCauses.isEmpty || !Instrumentation.isAttached {
            output.send(value: value)
        } else {
            ProbeContext.current.withOtherCauses(otherCauses) { output.send(value: value) }
        }
    }

    /// Ends the output when the lock is released; only the first end counts. Inside `run`.
    func terminate(_ event: Signals.Event<Value, Error>) {
        guard !isTerminated else { return }
        isTerminated = true
        pendingTerminal = event
    }

    /// Disposes `disposable` when the lock is released. Inside `run`.
    func disposeLater(_ disposable: Disposable) {
        pendingDisposals.append(disposable)
    }
}
