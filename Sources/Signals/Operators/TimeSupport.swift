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
    /// re-enter the operator (an observer that sends back into the upstream), but still
    /// holding the lock, which is recursive: that is what keeps the actions in the order of
    /// their transitions. So a thread that takes this lock while holding another that a
    /// delivery through here may wait for can deadlock; operators on `OperatorLock` send
    /// their ends and disposals after letting go of it for that reason.
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
    ///
    /// `interruptingOn`: the scheduler of an asynchronous operator (ReactiveSwift's
    /// `observe(on:)`, `delay`, `debounce`, `throttle`), on which its interruption by a
    /// disposal is delivered (`SignalCore.interrupt()`).
    @inlinable
    static func scheduled(
        _ node: Node,
        interruptingOn scheduler: Scheduler? = nil,
        _ generator: (Observer, Lifetime, SignalCore<Value, Error>) -> Void
    ) -> Signal {
        let core = SignalCore<Value, Error>(node: node, detachWhenUnobserved: true, interruptingOn: scheduler)
        core.constructing { generator(core.input, Lifetime(core.resources), core) }
        return Signal(core: core)
    }
}

/// Enqueues `action` on `scheduler` as a thread hop of the signal instance `core`: the probe
/// hears `hopEnqueued` now (with the instance's node as it is now, labelled if it was named)
/// and `hopStarted` when the action begins on the target. With no probe attached this is a
/// plain `schedule`.
@usableFromInline @discardableResult
func scheduleHop<Value, Error>(on scheduler: Scheduler, of core: SignalCore<Value, Error>,
                               _ action: @escaping () -> Void) -> Disposable? {
    guard let probe = Instrumentation.probe else { return scheduler.schedule(action) }
    let hop = probe.hopEnqueued(core.node, subscription: core.subscription, scheduler: scheduler.name)
    return scheduler.schedule {
        // A probe detached meanwhile must hear nothing more.
        if Instrumentation.probe === probe { probe.hopStarted(hop) }
        action()
    }
}

/// A scheduler that decides when an operator's timer runs, given the operator's node: a
/// replay's, which runs each timer as late as the recorded one ran (`HopRecord.due`). The
/// operators ask it only while a probe is attached (a recording or a replay).
///
/// ```swift
/// // Every debounce timer 5 ms late, to see what a slow main queue does to a search box.
/// final class LateDebounces: TimerDecidingScheduler, @unchecked Sendable {
///     let base: TestScheduler
///     init(_ base: TestScheduler) { self.base = base }
///     var name: String { "main" }
///     var currentDate: Date { base.currentDate }
///     func schedule(_ action: @escaping () -> Void) -> Disposable? { base.schedule(action) }
///     func schedule(after date: Date, action: @escaping () -> Void) -> Disposable? {
///         base.schedule(after: date, action: action)
///     }
///     func schedule(after date: Date, interval: DispatchTimeInterval, leeway: DispatchTimeInterval,
///                   action: @escaping () -> Void) -> Disposable? {
///         base.schedule(after: date, interval: interval, leeway: leeway, action: action)
///     }
///     func scheduleTimer(of node: Node, after date: Date, action: @escaping () -> Void) -> Disposable? {
///         base.schedule(after: node.name == "debounce" ? date.addingTimeInterval(0.005) : date, action: action)
///     }
/// }
/// ```
public protocol TimerDecidingScheduler: DateScheduler {
    /// Runs `action`, `node`'s timer due at `date`, when the scheduler decides (at `date` or
    /// later).
    func scheduleTimer(of node: Node, after date: Date, action: @escaping () -> Void) -> Disposable?
}

/// Arms `core`'s timer: runs `action` on `scheduler` at `date`. With a probe attached, the
/// probe hears `timerArmed` now and `hopStarted` when the timer runs, and a scheduler that
/// decides when timers run (`TimerDecidingScheduler`) is told whose timer it is. With no
/// probe attached this is a plain `schedule(after:action:)`.
@discardableResult
func scheduleTimer<Value, Error>(on scheduler: DateScheduler, after date: Date, of core: SignalCore<Value, Error>,
                                 _ action: @escaping () -> Void) -> Disposable? {
    scheduleTimer(on: scheduler, after: date, node: core.node, subscription: core.subscription, action)
}

/// `scheduleTimer(on:after:of:_:)` for a timer whose action decides whether it ran: the action
/// calls `started` (which tells the probe `hopStarted`) at the point where it takes effect; a
/// timer that never calls it is recorded as one that never ran.
@discardableResult
func scheduleDecidingTimer<Value, Error>(on scheduler: DateScheduler, after date: Date, of core: SignalCore<Value, Error>,
                                         _ action: @escaping (_ started: () -> Void) -> Void) -> Disposable? {
    scheduleDecidingTimer(on: scheduler, after: date, node: core.node, subscription: core.subscription, action)
}

/// `scheduleTimer(on:after:of:_:)` for an operator known by its node and subscription (a
/// retry's backoff, which has no signal instance of its own).
@discardableResult
func scheduleTimer(on scheduler: DateScheduler, after date: Date, node: Node, subscription: UInt64,
                   _ action: @escaping () -> Void) -> Disposable? {
    guard Instrumentation.probe != nil else { return scheduler.schedule(after: date, action: action) }
    return scheduleDecidingTimer(on: scheduler, after: date, node: node, subscription: subscription) { started in
        started()
        action()
    }
}

/// The one way a timer is armed (`scheduleDecidingTimer(on:after:of:_:)`, for an operator known
/// by its node and subscription).
@discardableResult
func scheduleDecidingTimer(on scheduler: DateScheduler, after date: Date, node: Node, subscription: UInt64,
                           _ action: @escaping (_ started: () -> Void) -> Void) -> Disposable? {
    guard let probe = Instrumentation.probe else { return scheduler.schedule(after: date) { action {} } }
    let delay = date.timeIntervalSince(scheduler.currentDate)
    let nanoseconds = delay > 0 ? Int64(min((delay * 1e9).rounded(), 9.2e18)) : 0
    let hop = probe.timerArmed(node, subscription: subscription, scheduler: scheduler.name, delay: nanoseconds)
    let run: () -> Void = {
        action {
            // A probe detached meanwhile must hear nothing more.
            if hop != 0, Instrumentation.probe === probe { probe.hopStarted(hop) }
        }
    }
    if let deciding = scheduler as? TimerDecidingScheduler {
        return deciding.scheduleTimer(of: node, after: date, action: run)
    }
    return scheduler.schedule(after: date, action: run)
}

/// What a timer-driven operator does after a transition of its state machine
/// (``TimedStateMachine``). The operator owns one timer at a time.
public enum TimedAction<Value> {
    /// Nothing.
    case none
    /// Arm the timer for `request`, cancelling the armed one.
    case schedule(TimerRequest)
    /// Send the value.
    case emit(Value)
    /// Arm the timer for `request` (cancelling the armed one), then send the value: sending
    /// opens a window that the timer closes.
    case scheduleThenEmit(TimerRequest, Value)
    /// Cancel the timer, send `emittingFirst` if there is one, then complete.
    case complete(emittingFirst: Value?)
    /// Cancel the timer and forward the upstream's failure or interruption.
    case forwardTermination
}

/// The decisions of a timer-driven operator (debounce, throttle, audit), free of clocks and
/// schedulers: each input is a transition that returns the action to perform. Once a
/// transition has ended the stream, every later input returns `.none`.
public protocol TimedStateMachine {
    /// The values the operator forwards.
    associatedtype Value
    /// A value arrived at `now`.
    mutating func receive(_ value: Value, now: Date) -> TimedAction<Value>
    /// The timer armed for `request` fired at `now` (a superseded timer may still fire: its
    /// token is stale).
    mutating func fire(_ request: TimerRequest, now: Date) -> TimedAction<Value>
    /// Whether `request` is the latest timer asked for, so that its firing is the operator's
    /// timer running rather than a superseded one that lost the race to the value that
    /// superseded it (its action began before the value came, but took the operator's lock
    /// after it). A recording writes a superseded timer as one that never ran. By default,
    /// every request is current.
    func isCurrent(_ request: TimerRequest) -> Bool
    /// The upstream completed.
    mutating func complete() -> TimedAction<Value>
    /// The upstream failed or was interrupted.
    mutating func terminate() -> TimedAction<Value>
}

extension TimedStateMachine {
    public func isCurrent(_ request: TimerRequest) -> Bool { true }
}

extension Signal {
    /// The effects around a timer-driven operator's state machine: each upstream event and
    /// each firing of the one timer takes a transition, then performs the action it returned.
    ///
    /// `asynchronous`: the operator is one of ReactiveSwift's asynchronous operators
    /// (`debounce`, `throttle`), which deliver every terminal event on their scheduler, as a
    /// hop of its own after what the scheduler already holds, and whose interruption by a
    /// disposal is delivered there too. The others (RxJS's, which end at once) send a
    /// terminal event where its transition was taken.
    func timed<State: TimedStateMachine>(_ node: Node, on scheduler: DateScheduler,
                                         _ state: State, asynchronous: Bool = false) -> Signal<Value, Error>
    where State.Value == Value {
        Signal.scheduled(node, interruptingOn: asynchronous ? scheduler : nil) { observer, lifetime, core in
            let machine = Machine(state)
            let timer = SerialDisposable()
            lifetime += timer
            // `ending` is the failure or interruption whose transition returned the action.
            func perform(_ action: TimedAction<Value>, ending event: Signals.Event<Value, Error>?) {
                switch action {
                case .none:
                    return
                case let .schedule(request):
                    arm(request)
                case let .emit(value):
                    observer.send(value: value)
                case let .scheduleThenEmit(request, value):
                    arm(request)
                    observer.send(value: value)
                case let .complete(value):
                    timer.dispose()
                    if let value { observer.send(value: value) }
                    terminate(.completed)
                case .forwardTermination:
                    timer.dispose()
                    if let event { terminate(event) }
                }
            }
            func terminate(_ event: Signals.Event<Value, Error>) {
                guard asynchronous else { return observer.send(event) }
                scheduleHop(on: scheduler, of: core) { observer.send(event) }
            }
            func arm(_ request: TimerRequest) {
                // The timer is reported as running where it decides, under the operator's lock,
                // and only when it is still the current one (`isCurrent`).
                timer.inner = scheduleDecidingTimer(on: scheduler, after: request.date, of: core) { started in
                    machine.step({ state in
                        if state.isCurrent(request) { started() }
                        return state.fire(request, now: scheduler.currentDate)
                    }) { perform($0, ending: nil) }
                }
            }
            lifetime += self.observeInternally { event in
                switch event {
                case let .value(value):
                    machine.step({ $0.receive(value, now: scheduler.currentDate) }) { perform($0, ending: nil) }
                case .completed:
                    machine.step({ $0.complete() }) { perform($0, ending: nil) }
                case .failed, .interrupted:
                    machine.step({ $0.terminate() }) { perform($0, ending: event) }
                }
            }
        }
    }

    /// The effects around a deadline operator's state machine: the first deadline is armed
    /// now; each upstream event and each passing deadline takes a transition, then performs
    /// the action it returned. A timeout stops observing the upstream and runs `onTimeout`,
    /// which fails or starts a fallback (`startingFallback(_:)`).
    func withDeadline<State: DeadlineStateMachine>(_ node: Node, on scheduler: DateScheduler, _ state: State,
                                                   onTimeout: @escaping (Observer, Lifetime, UInt64) -> Void)
        -> Signal<Value, Error> {
        Signal.scheduled(node) { observer, lifetime, core in
            let subscription = core.subscription
            let machine = Machine(state)
            let upstream = SerialDisposable()
            let deadline = SerialDisposable()
            lifetime += upstream
            lifetime += deadline
            // `event` is the upstream event whose transition returned the action, if any.
            func perform(_ action: DeadlineAction, for event: Signals.Event<Value, Error>?) {
                switch action {
                case .none:
                    return
                case let .schedule(request):
                    arm(request)
                case .forward:
                    if let event { observer.send(event) }
                case let .rescheduleThenForward(request):
                    arm(request)
                    if let event { observer.send(event) }
                case .cancelDeadlineThenForward:
                    deadline.dispose()
                    if let event { observer.send(event) }
                case .timeOut:
                    upstream.dispose()
                    onTimeout(observer, lifetime, subscription)
                }
            }
            func arm(_ request: TimerRequest) {
                deadline.inner = scheduleTimer(on: scheduler, after: request.date, of: core) {
                    machine.step({ $0.deadlinePassed(request) }) { perform($0, for: nil) }
                }
            }
            machine.step({ $0.start(now: scheduler.currentDate) }) { perform($0, for: nil) }
            upstream.inner = self.observeInternally { event in
                machine.step({ $0.receive(isTerminating: event.isTerminating, now: scheduler.currentDate) }) {
                    perform($0, for: event)
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

    /// A request to run at `date`, identified by `token`.
    public init(date: Date, token: UInt64) {
        self.date = date
        self.token = token
    }
}

extension TimedAction: Equatable where Value: Equatable {}

/// What a deadline operator (`timeout`) does after a transition of its state machine
/// (``DeadlineStateMachine``). The operator owns one deadline at a time.
public enum DeadlineAction: Equatable, Sendable {
    /// Nothing: the event or the deadline lost the race, or the deadline is stale.
    case none
    /// Arm the deadline for `request` (at the start).
    case schedule(TimerRequest)
    /// Forward the upstream event.
    case forward
    /// Arm the deadline for `request`, cancelling the armed one, then forward the event.
    case rescheduleThenForward(TimerRequest)
    /// Cancel the deadline, then forward the upstream's terminal event.
    case cancelDeadlineThenForward
    /// The deadline won: stop observing the upstream, then fail or start the fallback.
    case timeOut
}

/// The decisions of a deadline operator, free of clocks and schedulers: the upstream races
/// a deadline; each input is a transition that returns the action to perform.
public protocol DeadlineStateMachine {
    /// The operator started at `now`: arm the first deadline.
    mutating func start(now: Date) -> DeadlineAction
    /// An upstream event arrived at `now`; `isTerminating` for a terminal event.
    mutating func receive(isTerminating: Bool, now: Date) -> DeadlineAction
    /// The deadline armed for `request` passed (a superseded one may still pass: its token
    /// is stale).
    mutating func deadlinePassed(_ request: TimerRequest) -> DeadlineAction
}

/// Formats an interval for node parameters: the shortest decimal that reads back as the
/// interval rounded to the nanosecond (the clock's resolution in a trace), stable. So an
/// interval computed in floating point reads as it was meant (`0.05 * 1.5` is `0.075s`, not
/// `0.07500000000000001s`), while a whole second still reads `1.0s`.
package func formatInterval(_ interval: TimeInterval) -> String {
    let nanoseconds = (interval * 1e9).rounded()
    guard interval.isFinite, nanoseconds.magnitude < 0x1p53 else { return "\(interval)s" }
    return "\(nanoseconds / 1e9)s"
}

/// The node parameters of an operator timed by `interval` on `scheduler`: `0.5s, on: main`.
func intervalParameters(_ interval: TimeInterval, on scheduler: Scheduler) -> String {
    "\(formatInterval(interval)), on: \(scheduler.name)"
}

/// The node parameters of a timeout: `each: ` before the interval of a per-gap deadline, then
/// the scheduler. The error it raises is not one of them: it is run-time data, which the
/// failure event carries (text and JSON), never the node's identity, so a timeout raising a
/// per-request error is one node however many requests it serves.
func timeoutParameters(each: Bool = false, _ interval: TimeInterval, on scheduler: Scheduler) -> String {
    (each ? "each: " : "") + formatInterval(interval) + ", on: \(scheduler.name)"
}
