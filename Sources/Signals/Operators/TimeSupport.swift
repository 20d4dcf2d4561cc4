import Locks
import Foundation

// The effects side shared by the time-based operators: a locked state machine, a signal
// whose generator knows its own subscription, and reported thread hops.

/// A state machine owned by one operator instance. Upstream events and scheduled actions
/// arrive on different threads; each runs one transition and then its action, under one
/// recursive lock, so actions leave in the order their transitions were taken.
final class Machine<State>: @unchecked Sendable {  // state only under `lock`
    private let lock = Lock(recursive: true)
    private var state: State

    init(_ state: State) { self.state = state }

    /// Takes a transition, then performs the action it returned. The action runs after the
    /// transition's exclusive access to the state has ended, because sending an event may
    /// re-enter the operator (an observer that sends back into the upstream).
    func step<Action>(_ transition: (inout State) -> Action, _ perform: (Action) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        let action = transition(&state)
        perform(action)
    }
}

extension Signal {
    /// A serialised operator signal of `node` whose generator also gets the new signal's
    /// subscription id (to report hops and to parent the streams it starts). Inlinable so the
    /// send closure is made where the value type is known (see `Signal.init(node:...)`).
    @inlinable
    static func scheduled(
        _ node: Node,
        _ generator: (Observer, Lifetime, UInt64) -> Void
    ) -> Signal {
        let core = SignalCore<Value, Error>(node: node, serialized: true, detachWhenUnobserved: true)
        generator(Observer(core.send), Lifetime(core.resources), core.subscription)
        return Signal(core: core)
    }
}

/// Enqueues `action` on `scheduler` as a thread hop of `node`'s `subscription`: the probe
/// hears `hopEnqueued` now and `hopStarted` when the action begins on the target. With no
/// probe attached this is a plain `schedule`.
@usableFromInline @discardableResult
func scheduleHop(on scheduler: Scheduler, node: Node, subscription: UInt64,
                 _ action: @escaping () -> Void) -> Disposable? {
    guard let probe = Instrumentation.probe else { return scheduler.schedule(action) }
    let hop = probe.hopEnqueued(node, subscription: subscription, scheduler: scheduler.name)
    return scheduler.schedule {
        // A probe detached meanwhile must hear nothing more.
        if Instrumentation.probe === probe { probe.hopStarted(hop) }
        action()
    }
}

/// What a time-based operator's state machine asks for after a transition, performed in
/// this order: arm the timer (replacing the armed one), send a value, complete.
struct TimedEffect<Value> {
    var arm: TimerRequest?
    var send: Value?
    var complete = false
}

extension Signal {
    /// The effects around a time-based operator's state machine, which owns one timer at a
    /// time: values and timer firings take a transition and perform its `TimedEffect`;
    /// completion does too, cancelling the timer first when it completes; failure and
    /// interruption are forwarded when `terminate` allows, cancelling the timer.
    ///
    /// - Parameters:
    ///   - receive: a value arrived at the scheduler's current date.
    ///   - fire: the timer armed for the request fired.
    ///   - complete: the upstream completed.
    ///   - terminate: the upstream failed or was interrupted; whether to forward it.
    func timed<State>(_ node: Node, on scheduler: DateScheduler, _ state: State,
                      receive: @escaping (inout State, Value, Date) -> TimedEffect<Value>,
                      fire: @escaping (inout State, TimerRequest) -> TimedEffect<Value>,
                      complete: @escaping (inout State) -> TimedEffect<Value>,
                      terminate: @escaping (inout State) -> Bool) -> Signal<Value, Error> {
        Signal.scheduled(node) { observer, lifetime, _ in
            let machine = Machine(state)
            let timer = SerialDisposable()
            lifetime += timer
            func perform(_ effect: TimedEffect<Value>) {
                if let request = effect.arm {
                    timer.inner = scheduler.schedule(after: request.date) {
                        machine.step({ fire(&$0, request) }, perform)
                    }
                }
                if let value = effect.send { observer.send(value: value) }
                if effect.complete { observer.sendCompleted() }
            }
            lifetime += self.observeInternally { event in
                switch event {
                case let .value(value):
                    machine.step({ receive(&$0, value, scheduler.currentDate) }, perform)
                case .completed:
                    machine.step(complete) { effect in
                        if effect.complete { timer.dispose() }
                        perform(effect)
                    }
                case .failed, .interrupted:
                    machine.step(terminate) { forward in
                        guard forward else { return }
                        timer.dispose()
                        observer.send(event)
                    }
                }
            }
        }
    }

    /// The effects around a deadline operator's state machine: the first deadline is armed
    /// now; each upstream event is forwarded when `receive` allows, re-arming the deadline
    /// when it asks to and cancelling it on a terminal event. A deadline that `fire` says
    /// timed the stream out stops observing the upstream and runs `onTimeout`.
    ///
    /// - Parameters:
    ///   - start: the first deadline, from the scheduler's current date.
    ///   - receive: an upstream event, terminal or not: whether to forward it, and the next
    ///     deadline if any.
    ///   - fire: the deadline of a token passed; whether it timed the stream out.
    ///   - onTimeout: fails, or starts a fallback (`startingFallback(_:)`).
    func withDeadline<State>(_ node: Node, on scheduler: DateScheduler, _ state: State,
                             start: @escaping (inout State, Date) -> TimerRequest,
                             receive: @escaping (inout State, _ isTerminating: Bool) -> (forward: Bool, rearm: TimerRequest?),
                             fire: @escaping (inout State, UInt64) -> Bool,
                             onTimeout: @escaping (Observer, Lifetime, UInt64) -> Void) -> Signal<Value, Error> {
        Signal.scheduled(node) { observer, lifetime, subscription in
            let machine = Machine(state)
            let upstream = SerialDisposable()
            let deadline = SerialDisposable()
            lifetime += upstream
            lifetime += deadline
            func arm(_ request: TimerRequest) {
                deadline.inner = scheduler.schedule(after: request.date) {
                    machine.step({ fire(&$0, request.token) }) { timedOut in
                        guard timedOut else { return }
                        upstream.dispose()
                        onTimeout(observer, lifetime, subscription)
                    }
                }
            }
            machine.step({ start(&$0, scheduler.currentDate) }, arm)
            upstream.inner = self.observeInternally { event in
                machine.step({ receive(&$0, event.isTerminating) }) { decision in
                    guard decision.forward else { return }
                    if let request = decision.rearm { arm(request) }
                    if event.isTerminating { deadline.dispose() }
                    observer.send(event)
                }
            }
        }
    }

    /// A deadline operator's `onTimeout` that starts `fallback` and forwards its events: its
    /// subscription is a child of the operator's, and interrupting the operator interrupts it.
    static func startingFallback(_ fallback: SignalProducer<Value, Error>) -> (Observer, Lifetime, UInt64) -> Void {
        { observer, lifetime, subscription in
            ProbeContext.current.asParent(subscription) {
                fallback.startWithSignal { signal, interrupter in
                    lifetime += interrupter
                    signal.observeInternally(observer.send)
                }
            }
        }
    }
}

/// A scheduled action's request: when to run, and the token that tells a current timer
/// from one superseded after it was already on its way.
public struct TimerRequest: Equatable, Sendable {
    /// When the action should run.
    public let date: Date
    /// Handed back to the state machine when the action runs.
    public let token: UInt64
}

/// Formats an interval for node parameters: the shortest round-tripping decimal, stable.
func formatInterval(_ interval: TimeInterval) -> String { "\(interval)s" }

/// The node parameters of an operator timed by `interval` on `scheduler`: `0.5s, on: main`.
func intervalParameters(_ interval: TimeInterval, on scheduler: Scheduler) -> String {
    "\(formatInterval(interval)), on: \(scheduler.name)"
}

/// The node parameters of a timeout: `each: ` before the interval of a per-gap deadline, then
/// the error it raises (nil when it switches to a fallback), then the scheduler.
func timeoutParameters(each: Bool = false, _ interval: TimeInterval, raising error: String?,
                       on scheduler: Scheduler) -> String {
    (each ? "each: " : "") + formatInterval(interval) + (error.map { ", raising: \($0)" } ?? "") + ", on: \(scheduler.name)"
}
