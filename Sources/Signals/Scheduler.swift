import Dispatch
import Foundation
import Synchronization

/// Runs actions: now, on a queue, on the main thread, or in virtual time.
///
/// ```swift
/// let background: Scheduler = QueueScheduler(name: "background")
/// SignalProducer(value: 42)
///     .start(on: background)          // the work starts on the background queue
///     .observe(on: QueueScheduler.main)
///     .startWithValues { print("on main:", $0) }
/// ```
public protocol Scheduler: AnyObject, Sendable {
    /// A short name shown in traces and figures as the thread the actions run on.
    var name: String { get }

    /// Enqueues `action`; the disposable cancels it if it has not started.
    @discardableResult
    func schedule(_ action: @escaping () -> Void) -> Disposable?
}

/// A scheduler that knows the time and can run actions later.
///
/// ```swift
/// func autosave(_ edits: Signal<String, Never>, on scheduler: DateScheduler) -> Signal<String, Never> {
///     edits.debounce(0.5, on: scheduler)   // time-based operators take a DateScheduler
/// }
/// let saved = autosave(Signal<String, Never>.never, on: QueueScheduler.main)
/// ```
public protocol DateScheduler: Scheduler {
    /// The scheduler's current time.
    var currentDate: Date { get }

    /// Runs `action` at `date` (at once if it has passed).
    @discardableResult
    func schedule(after date: Date, action: @escaping () -> Void) -> Disposable?

    /// Runs `action` at `date` and then every `interval`, until disposed.
    @discardableResult
    func schedule(after date: Date, interval: DispatchTimeInterval, leeway: DispatchTimeInterval,
                  action: @escaping () -> Void) -> Disposable?
}

extension DateScheduler {
    /// Runs `action` after `interval` seconds.
    @discardableResult
    public func schedule(after interval: TimeInterval, action: @escaping () -> Void) -> Disposable? {
        schedule(after: currentDate.addingTimeInterval(interval), action: action)
    }

    @discardableResult
    public func schedule(after date: Date, interval: DispatchTimeInterval, action: @escaping () -> Void) -> Disposable? {
        schedule(after: date, interval: interval, leeway: .nanoseconds(0), action: action)
    }

    /// Runs `action` after `delay` from now.
    @discardableResult
    public func schedule(after delay: DispatchTimeInterval, action: @escaping () -> Void) -> Disposable? {
        schedule(after: currentDate.addingTimeInterval(delay), action: action)
    }

    /// Runs `action` after `delay` from now, then every `interval`, until disposed.
    @discardableResult
    public func schedule(after delay: DispatchTimeInterval, interval: DispatchTimeInterval,
                         leeway: DispatchTimeInterval = .seconds(0), action: @escaping () -> Void) -> Disposable? {
        schedule(after: currentDate.addingTimeInterval(delay), interval: interval, leeway: leeway, action: action)
    }
}

extension Date {
    /// This date moved by `interval` (never: the distant future of an infinite interval).
    func addingTimeInterval(_ interval: DispatchTimeInterval) -> Date {
        addingTimeInterval(interval.timeInterval)
    }
}

extension DispatchTimeInterval {
    /// The interval in nanoseconds; `.never` is `Int64.max`.
    public var nanoseconds: Int64 {
        switch self {
        case let .seconds(s): return Int64(s) * 1_000_000_000
        case let .milliseconds(ms): return Int64(ms) * 1_000_000
        case let .microseconds(us): return Int64(us) * 1_000
        case let .nanoseconds(ns): return Int64(ns)
        case .never: return Int64.max
        @unknown default: return Int64.max
        }
    }

    /// The interval in seconds; `.never` is infinite, as in ReactiveSwift.
    public var timeInterval: TimeInterval {
        if case .never = self { return .infinity }
        return Double(nanoseconds) / 1e9
    }
}

/// Wraps scheduled actions so the cause of what they send is the event that scheduled them,
/// and the probe sees which scheduler runs them. Free when no probe is attached.
@inline(__always)
func instrumented(_ action: @escaping () -> Void, on name: String) -> () -> Void {
    guard Instrumentation.isAttached else { return action }
    let captured = ProbeContext.current.capture()
    return { ProbeContext.current.with(captured, scheduler: name, action) }
}

/// Runs every action at once, on the calling thread.
///
/// ```swift
/// SignalProducer(value: 1)
///     .observe(on: ImmediateScheduler())   // delivers at once, on the sending thread
///     .startWithValues { print($0) }
/// ```
public final class ImmediateScheduler: Scheduler {
    public let name = "immediate"
    public init() {}

    @discardableResult
    public func schedule(_ action: @escaping () -> Void) -> Disposable? {
        action()
        return nil
    }
}

/// How urgent a background scheduler's work is (ReactiveCocoa's `RACSchedulerPriority`).
///
/// ```swift
/// let thumbnails = QueueScheduler.background(priority: .low, name: "thumbnails")
/// ```
public enum SchedulerPriority: String, Sendable {
    case high, `default`, low, background

    var qos: DispatchQoS {
        switch self {
        case .high: return .userInitiated
        case .default: return .default
        case .low: return .utility
        case .background: return .background
        }
    }
}

/// Runs actions in order on a serial dispatch queue.
///
/// ```swift
/// let io = QueueScheduler(qos: .utility, name: "io")    // its name is the thread traces show
/// SignalProducer(value: "data")
///     .start(on: io)
///     .observe(on: QueueScheduler.main)
///     .startWithValues { print("on the main queue:", $0) }
/// ```
public final class QueueScheduler: DateScheduler, @unchecked Sendable {  // immutable; the queue serialises the actions
    public let name: String
    /// The serial queue the actions run on.
    public let queue: DispatchQueue

    /// A scheduler over an existing serial queue.
    public init(queue: DispatchQueue, name: String) {
        self.queue = queue
        self.name = name
    }

    /// A scheduler over a new serial queue, which targets `targeting` when one is given. By
    /// default (`.unspecified`) the queue has no QoS of its own: the work runs at the QoS of
    /// whoever scheduled it, as with ReactiveSwift's `QueueScheduler`.
    public convenience init(qos: DispatchQoS = .unspecified, name: String = "queue", targeting: DispatchQueue? = nil) {
        self.init(queue: DispatchQueue(label: "marbles.\(name)", qos: qos, target: targeting), name: name)
    }

    /// A background scheduler of the given priority (ReactiveCocoa's
    /// `[RACScheduler schedulerWithPriority:]`).
    public static func background(priority: SchedulerPriority = .default, name: String? = nil) -> QueueScheduler {
        QueueScheduler(qos: priority.qos, name: name ?? "background-\(priority.rawValue)")
    }

    /// The main queue. On Linux a command-line program runs it with `MainLoop.run(until:)`.
    public static let main = QueueScheduler(queue: .main, name: "main")

    public var currentDate: Date { Date() }

    @discardableResult
    public func schedule(_ action: @escaping () -> Void) -> Disposable? {
        let disposable = AnyDisposable()
        // Not Sendable by type: a scheduler's actions carry values of any type across threads,
        // as ReactiveSwift's do; the queue runs each once, serialised, which is the guarantee.
        nonisolated(unsafe) let action = instrumented(action, on: name)
        queue.async {
            if !disposable.isDisposed { action() }
        }
        return disposable
    }

    @discardableResult
    public func schedule(after date: Date, action: @escaping () -> Void) -> Disposable? {
        let disposable = AnyDisposable()
        nonisolated(unsafe) let action = instrumented(action, on: name)  // as in `schedule(_:)`
        queue.asyncAfter(wallDeadline: Self.wallTime(date)) {
            if !disposable.isDisposed { action() }
        }
        return disposable
    }

    @discardableResult
    public func schedule(after date: Date, interval: DispatchTimeInterval, leeway: DispatchTimeInterval,
                         action: @escaping () -> Void) -> Disposable? {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        nonisolated(unsafe) let action = instrumented(action, on: name)  // as in `schedule(_:)`
        timer.schedule(wallDeadline: Self.wallTime(date), repeating: interval, leeway: leeway)
        // The handler holds the timer, so it repeats until the disposable cancels it, whether
        // or not anything holds the disposable (as in ReactiveSwift); cancelling releases the
        // handler, and with it the timer.
        timer.setEventHandler { withExtendedLifetime(timer) { action() } }
        timer.resume()
        return AnyDisposable { timer.cancel() }
    }

    private static func wallTime(_ date: Date) -> DispatchWallTime {
        let delay = max(0, date.timeIntervalSinceNow)
        return .now() + .nanoseconds(Int(delay * 1e9))
    }
}

/// Runs actions on the main thread: at once when already there and nothing is queued
/// before it, otherwise enqueued on the main queue (ReactiveSwift's `UIScheduler`).
///
/// ```swift
/// let (status, input) = Signal<String, Never>.pipe()
/// status.observe(on: UIScheduler()).observeValues { print("show", $0) }   // on the main thread
/// input.send(value: "loaded")
/// ```
public final class UIScheduler: Scheduler, @unchecked Sendable {  // immutable but for an atomic counter
    public let name = "main"
    private let queued = Synchronization.Atomic<Int>(0)

    public init() {}

    @discardableResult
    public func schedule(_ action: @escaping () -> Void) -> Disposable? {
        nonisolated(unsafe) let action = instrumented(action, on: name)  // as in `QueueScheduler`
        let position = queued.add(1, ordering: .acquiringAndReleasing).newValue
        if Thread.isMainThread && position == 1 {
            action()
            queued.subtract(1, ordering: .acquiringAndReleasing)
            return nil
        }
        let disposable = AnyDisposable()
        DispatchQueue.main.async {
            if !disposable.isDisposed { action() }
            self.queued.subtract(1, ordering: .acquiringAndReleasing)
        }
        return disposable
    }
}

/// Runs the main queue of a command-line program, which has no UI run loop of its own.
///
/// ```swift
/// var done = false
/// QueueScheduler.main.schedule(after: 0.1) { done = true }
/// let finished = MainLoop.run(until: { done }, timeout: 2)   // true: the action ran
/// ```
public enum MainLoop {
    /// Pumps the main run loop (and so the main dispatch queue) until `done` returns true
    /// or `timeout` seconds pass. Returns whether `done` became true. Call on the main thread.
    @discardableResult
    public static func run(until done: () -> Bool, timeout: TimeInterval = 60) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !done() {
            if Date() >= deadline { return false }
            _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.005))
        }
        return true
    }
}
