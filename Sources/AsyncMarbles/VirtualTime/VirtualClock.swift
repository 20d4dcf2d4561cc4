import Locks
import Signals

/// A clock in virtual time for async pipelines: `now` is a `TestScheduler`'s time, and a
/// sleep suspends until the scheduler reaches its deadline, which it does only when a
/// `VirtualTimeDriver` advances it. Pass it where a pipeline takes a clock
/// (`debounce(for:clock:)`, `_throttle(for:clock:)`, `AsyncTimerSequence`).
///
/// ```swift
/// let driver = VirtualTimeDriver()
/// let clock = driver.clock
/// try driver.run {
///     try await clock.sleep(for: .seconds(5))   // no real waiting
///     print(clock.now)                          // 5s
/// }
/// ```
///
/// A sleep cancelled before its deadline throws `CancellationError`, as a real clock's does.
/// A sleep whose deadline has passed still suspends and resumes at the current instant, after
/// the jobs ready now: a deterministic place in the run.
public struct VirtualClock: Clock, Sendable {
    /// A point in virtual time: nanoseconds from the scheduler's zero.
    public struct Instant: InstantProtocol, Sendable, CustomStringConvertible {
        /// Nanoseconds from virtual time zero.
        public var nanoseconds: Int64

        /// The instant `nanoseconds` from virtual time zero.
        public init(nanoseconds: Int64) {
            self.nanoseconds = nanoseconds
        }

        public func advanced(by duration: Swift.Duration) -> Instant {
            let (sum, overflow) = nanoseconds.addingReportingOverflow(Self.nanoseconds(of: duration))
            return Instant(nanoseconds: overflow ? (duration < .zero ? .min : .max) : sum)
        }

        public func duration(to other: Instant) -> Swift.Duration {
            .nanoseconds(other.nanoseconds) - .nanoseconds(nanoseconds)
        }

        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

        /// `1.5s`, `300ms`: the time as marble lines write a progression.
        public var description: String { MarbleTimeText.text(nanoseconds) }

        /// A duration as whole nanoseconds, clamped to `Int64`: a sleep past the end of virtual
        /// time never falls due instead of trapping.
        static func nanoseconds(of duration: Swift.Duration) -> Int64 {
            let (seconds, attoseconds) = duration.components
            let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
            if overflow { return seconds < 0 ? .min : .max }
            let (total, overflowAgain) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
            if overflowAgain { return seconds < 0 ? .min : .max }
            return total
        }
    }

    /// Swift's `Duration`, as the standard clocks': `.milliseconds(300)`.
    public typealias Duration = Swift.Duration

    /// The scheduler whose time this clock reads and on which its sleepers wait.
    public let scheduler: TestScheduler
    let sleepers: Sleepers

    init(scheduler: TestScheduler, sleepers: Sleepers) {
        self.scheduler = scheduler
        self.sleepers = sleepers
    }

    public var now: Instant { Instant(nanoseconds: scheduler.now) }

    /// One nanosecond: the scheduler's unit.
    public var minimumResolution: Swift.Duration { .nanoseconds(1) }

    public func sleep(until deadline: Instant, tolerance: Swift.Duration? = nil) async throws {
        let sleeper = Sleeper()
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                guard sleeper.begin(continuation) else { return }
                sleepers.add(sleeper)
                let wake = scheduler.schedule(atNanoseconds: deadline.nanoseconds) { [sleepers] in
                    sleepers.remove(sleeper)
                    sleeper.end(throwing: nil)
                }
                sleeper.cancelWake = { wake?.dispose() }
            }
        } onCancel: {
            sleepers.remove(sleeper)
            sleeper.end(throwing: CancellationError())
        }
    }
}

/// A sleep of a `VirtualClock`: its continuation, resumed once, by its deadline or by its
/// task's cancellation, whichever comes first.
final class Sleeper: @unchecked Sendable {  // all state under `lock`
    private let lock = Lock()
    private var continuation: UnsafeContinuation<Void, any Error>?
    /// Set when it ended before it began (cancelled at once): `begin` then resumes at once.
    private var endedEarly: (any Error)??
    /// Cancels the scheduled wake-up when the sleep ends otherwise.
    var cancelWake: (@Sendable () -> Void)? {
        get { lock.withLock { wake } }
        set {
            let ended = lock.withLock {
                if continuation == nil { return true }
                wake = newValue
                return false
            }
            if ended { newValue?() }
        }
    }
    private var wake: (@Sendable () -> Void)?

    /// Takes the continuation; false when the sleep already ended (it is resumed here).
    func begin(_ continuation: UnsafeContinuation<Void, any Error>) -> Bool {
        let early: (any Error)?? = lock.withLock {
            if let endedEarly { return endedEarly }
            self.continuation = continuation
            return nil
        }
        guard let early else { return true }
        if let error = early { continuation.resume(throwing: error) } else { continuation.resume() }
        return false
    }

    /// Resumes the sleep (with `error`, or normally), if it has not ended yet.
    func end(throwing error: (any Error)?) {
        let (taken, wake): (UnsafeContinuation<Void, any Error>?, (@Sendable () -> Void)?) = lock.withLock {
            guard let continuation else {
                if endedEarly == nil { endedEarly = .some(error) }
                return (nil, nil)
            }
            defer { (self.continuation, self.wake) = (nil, nil) }
            return (continuation, self.wake)
        }
        guard let taken else { return }
        if error != nil { wake?() }
        if let error { taken.resume(throwing: error) } else { taken.resume() }
    }
}

/// The sleeps of a clock not ended yet, in the order they began: what a driver's wind-down
/// cancels.
final class Sleepers: @unchecked Sendable {  // `waiting` under `lock`
    private let lock = Lock()
    private var waiting: [ObjectIdentifier: (order: UInt64, sleeper: Sleeper)] = [:]
    private var next: UInt64 = 0

    func add(_ sleeper: Sleeper) {
        lock.withLock {
            next += 1
            waiting[ObjectIdentifier(sleeper)] = (next, sleeper)
        }
    }

    func remove(_ sleeper: Sleeper) {
        _ = lock.withLock { waiting.removeValue(forKey: ObjectIdentifier(sleeper)) }
    }

    /// Takes every sleep still waiting, oldest first.
    func takeAll() -> [Sleeper] {
        lock.withLock {
            defer { waiting = [:] }
            return waiting.values.sorted { $0.order < $1.order }.map(\.sleeper)
        }
    }

    var count: Int { lock.withLock { waiting.count } }
}

/// Virtual times as marble lines write progressions: `0ms`, `300ms`, `1.5s`.
enum MarbleTimeText {
    static func text(_ nanoseconds: Int64) -> String {
        if nanoseconds % 1_000_000_000 == 0 { return "\(nanoseconds / 1_000_000_000)s" }
        if nanoseconds % 1_000_000 == 0 { return "\(nanoseconds / 1_000_000)ms" }
        return "\(nanoseconds)ns"
    }
}
