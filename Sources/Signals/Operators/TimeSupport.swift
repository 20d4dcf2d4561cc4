import Foundation

// The effects side shared by the time-based operators: a locked state machine, a signal
// whose generator knows its own subscription, and reported thread hops.

/// A state machine owned by one operator instance. Upstream events and scheduled actions
/// arrive on different threads; each runs one transition and then its action, under one
/// recursive lock, so actions leave in the order their transitions were taken.
final class Machine<State>: @unchecked Sendable {
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
