import CConcurrencyHooks
import Locks
import Signals

/// Runs async code, and every task it starts, in virtual time: one job at a time, on the
/// calling thread, in an order decided by the run alone, so two runs of the same code do
/// the same things in the same order at the same virtual times.
///
/// ```swift
/// let driver = VirtualTimeDriver()
/// let (typed, keys) = AsyncStream<String>.makeStream()
/// let settled = try driver.run {
///     Task {
///         keys.yield("s"); keys.yield("sw")
///         try await driver.clock.sleep(for: .seconds(1))
///         keys.yield("swift"); keys.finish()
///     }
///     var seen: [String] = []
///     for await text in typed.debounce(for: .milliseconds(300), clock: driver.clock) { seen.append(text) }
///     return seen
/// }
/// print(settled)   // ["sw", "swift"], every run, without waiting a second
/// ```
///
/// **How.** Swift 6.3 offers three ways to choose where jobs run; only the first reaches every
/// job of an async pipeline:
/// - The runtime's global enqueue hook (`swift_task_enqueueGlobal_hook`), which this driver
///   sets while it runs: every job the runtime hands the global concurrent executor comes to
///   the driver instead, whichever task made it: `Task {}` and `Task.detached`, child tasks,
///   continuations resumed, default actors' work. swift-async-algorithms' operators
///   (`debounce`, `merge`, `combineLatest`, `chunks(ofCount:or:)`) start unstructured tasks of
///   their own; their jobs come here too. The driver keeps them in one queue, first in first
///   out, and runs each with the global concurrent executor as its task executor.
/// - A task executor preference (`withTaskExecutorPreference`) reaches child tasks only: an
///   unstructured `Task {}` inside does not inherit it, so an operator's own task would escape.
/// - A custom global executor (`ExecutorFactory`) is experimental SPI in 6.3, and chosen once
///   per process before its first task: not something a test can install for one run.
///
/// **The loop.** Run every ready job; when none is ready, move the clock to the earliest thing
/// waiting on it (a `VirtualClock` sleep, an action on `scheduler`), run that one, and go on.
/// Time therefore never moves while a job is ready, and things due at one instant run one at
/// a time, each followed by all the jobs it made ready.
///
/// **Limits.**
/// - One driver runs at a time in a process (the hook is global); `run` refuses to start
///   inside a task (call it from synchronous code: an XCTest method that is not `async`),
///   because the calling task's own executor would be taken over.
/// - While it runs, jobs enqueued by *any* thread of the process on the global executor come
///   to it. One from a thread outside the run (a Dispatch callback, a real timer) lands in the
///   queue whenever that thread gets there, which is not deterministic.
/// - Sleeps on a real clock (`Task.sleep(for:)`, `ContinuousClock`, `SuspendingClock`) are
///   scheduled by the platform executor without passing the hook: virtual time does not move
///   them, and their tasks resume (through the hook) only when real time passes. Pass the
///   driver's `clock` instead. A run waiting only on such a sleep is reported as stuck.
/// - Jobs of the main actor go to the main queue (in 6.3 even the main executor's hook is
///   passed by), and jobs of actors with custom executors to those executors: neither is run
///   by the driver. Code that hops to them waits outside virtual time; a run waiting only on
///   them is reported as stuck.
/// - When `body` returns, the driver winds down: it runs the ready jobs, then cancels the
///   clock's remaining sleeps (they throw `CancellationError`) and runs what that makes ready,
///   so tasks the run started end inside it rather than later, in another run's queue. A task
///   waiting on something else (an `AsyncStream` never finished) stays suspended.
public final class VirtualTimeDriver: @unchecked Sendable {  // `ready` under `lock`; driven from one thread
    /// The virtual time and what waits on it.
    public let scheduler: TestScheduler
    /// The clock to give the code run: `now` is the scheduler's time; sleeps wait for it.
    public let clock: VirtualClock
    /// The most jobs one run may take before it is stopped as a loop that never waits.
    public var jobLimit = 10_000_000
    /// The jobs run by the last `run`, winding down included.
    public private(set) var jobsRun = 0
    /// The thread the jobs' events show on in a recording: the driver's name unless set. A
    /// `ReplayAsyncEnvironment` sets it to the thread its recording's tasks ran on, so that a
    /// replay of a live recording shows its work where the live run did.
    public var threadName: String

    private let lock = Lock()
    private var ready: [UnownedJob] = []
    private var readyHead = 0
    private let sleepers = Sleepers()

    /// A driver whose clock starts at `start` nanoseconds. `name` is the thread its jobs' events
    /// show on in a recording.
    public init(name: String = "tasks", start: Int64 = 0) {
        scheduler = TestScheduler(name: name, start: start)
        threadName = name
        clock = VirtualClock(scheduler: scheduler, sleepers: sleepers)
    }

    /// Runs `body` in a task, and every job of the tasks it starts, on this thread in virtual
    /// time, until it returns; then winds down (see the type's limits) and returns its result.
    ///
    /// With `horizon`, time stops there: when nothing is due by then and `body` has not
    /// returned, the clock moves to `horizon` and `body`'s task is cancelled (a consumer of an
    /// endless sequence ends this way).
    ///
    /// - Throws: `VirtualTimeError` when another driver runs, when called inside a task, when
    ///   the run is stuck (nothing ready, nothing due, `body` still waiting) or passes
    ///   `jobLimit`; what `body` throws otherwise.
    ///
    /// `body` need not be `Sendable`, nor what it captures: it runs on the calling thread, as
    /// does every job of the run, while the caller waits for `run` to return.
    public func run<Result>(until horizon: VirtualClock.Instant? = nil,
                            _ body: @escaping () async throws -> Result) throws -> Result {
        if withUnsafeCurrentTask(body: { $0 != nil }) {
            throw VirtualTimeError(.insideTask, at: scheduler.now)
        }
        try Self.install(self)
        defer { Self.uninstall(self) }
        jobsRun = 0
        let outcome = Outcome<Result>()
        let work = OnDriverThread(body)
        // Started with the hook set: its first job is the driver's.
        let task = Task {
            do {
                outcome.value = .success(try await work.body())
            } catch {
                outcome.value = .failure(error)
            }
        }
        var cancelled = false
        while true {
            try drain()
            if outcome.value != nil { break }
            let due = scheduler.nextDue()
            if let due, horizon.map({ due <= $0.nanoseconds }) ?? true {
                scheduler.run(until: due, limit: 1)
                continue
            }
            if let horizon, !cancelled {
                if scheduler.now < horizon.nanoseconds { scheduler.advance(toNanoseconds: horizon.nanoseconds) }
                cancelled = true
                task.cancel()
                continue
            }
            throw VirtualTimeError(.stuck(sleeping: sleepers.count), at: scheduler.now)
        }
        try windDown()
        switch outcome.value! {
        case let .success(result): return result
        case let .failure(error): throw error
        }
    }

    /// Runs the ready jobs, and those they make ready, until none is.
    private func drain() throws {
        let scope = scheduler.recordingScope
        let lane = ProbeContext.Captured(cause: 0, parentSubscription: 0, scope: scope)
        let threadName = self.threadName
        while let job = takeReady() {
            jobsRun += 1
            guard jobsRun <= jobLimit else { throw VirtualTimeError(.jobLimit(jobLimit), at: scheduler.now) }
            // Each job on the driver's lane, in its recording's scope, with no cause left
            // over from the job before.
            if Instrumentation.isAttached {
                ProbeContext.current.with(lane, scheduler: threadName) {
                    job.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor())
                }
            } else {
                job.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor())
            }
        }
    }

    /// Ends what `body` left sleeping: cancels the clock's sleeps and runs what that makes
    /// ready, until nothing sleeps.
    private func windDown() throws {
        try drain()
        for _ in 0..<1000 {
            let waiting = sleepers.takeAll()
            if waiting.isEmpty { return }
            for sleeper in waiting { sleeper.end(throwing: CancellationError()) }
            try drain()
        }
    }

    private func takeReady() -> UnownedJob? {
        lock.withLock {
            guard readyHead < ready.count else { return nil }
            let job = ready[readyHead]
            readyHead += 1
            if readyHead == ready.count {
                ready.removeAll(keepingCapacity: true)
                readyHead = 0
            }
            return job
        }
    }

    fileprivate func enqueue(_ job: UnownedJob) {
        lock.withLock { ready.append(job) }
    }

    // MARK: The hook

    /// The driver running now, which the hook hands every job.
    private static let current = Protected<VirtualTimeDriver?>(nil)

    private static func install(_ driver: VirtualTimeDriver) throws {
        try current.lock.withLock {
            guard current.value == nil else { throw VirtualTimeError(.alreadyDriving, at: driver.scheduler.now) }
            current.value = driver
            swift_task_enqueueGlobal_hook = { job, original in
                let driver = VirtualTimeDriver.current.lock.withLock { VirtualTimeDriver.current.value }
                guard let driver else { return original(job) }
                driver.enqueue(unsafeBitCast(job, to: UnownedJob.self))
            }
        }
    }

    private static func uninstall(_ driver: VirtualTimeDriver) {
        let left: [UnownedJob] = current.lock.withLock {
            guard current.value === driver else { return [] }
            current.value = nil
            swift_task_enqueueGlobal_hook = nil
            return driver.lock.withLock {
                defer { (driver.ready, driver.readyHead) = ([], 0) }
                return Array(driver.ready[driver.readyHead...])
            }
        }
        // Jobs made ready after the run (a thread outside it): the global executor runs them.
        for job in left { globalConcurrentExecutor.enqueue(job) }
    }
}

/// A run's body, taken into its task: it runs on the thread that called `run`, which waits.
private struct OnDriverThread<Result>: @unchecked Sendable {  // used on the driver's thread only
    let body: () async throws -> Result
    init(_ body: @escaping () async throws -> Result) { self.body = body }
}

/// What `body` returned or threw, set by its task on the driver's thread.
private final class Outcome<Value>: @unchecked Sendable {  // touched only by the driver's thread
    var value: Result<Value, any Error>?
}

/// Why a `VirtualTimeDriver` run did not complete.
///
/// ```swift
/// let driver = VirtualTimeDriver()
/// do {
///     let (never, _) = AsyncStream<Int>.makeStream()
///     try driver.run { for await _ in never {} }   // never finished
/// } catch let error as VirtualTimeError {
///     print(error)   // virtual time 0s: stuck: ...
/// }
/// ```
public struct VirtualTimeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What stopped the run.
    public enum Reason: Equatable, Sendable {
        /// Another driver is running in this process (the runtime's hook is global).
        case alreadyDriving
        /// `run` was called inside a task.
        case insideTask
        /// No job was ready, nothing waited on the virtual clock before the horizon, and the
        /// body had not returned; `sleeping` sleeps of the clock were waiting past it.
        case stuck(sleeping: Int)
        /// The run took more jobs than the limit without returning.
        case jobLimit(Int)
    }

    public let reason: Reason
    /// Virtual nanoseconds when it stopped.
    public let time: Int64

    public init(_ reason: Reason, at time: Int64) {
        self.reason = reason
        self.time = time
    }

    public var description: String {
        let at = "virtual time \(MarbleTimeText.text(time))"
        switch reason {
        case .alreadyDriving:
            return "\(at): another VirtualTimeDriver is running in this process; runs cannot overlap"
        case .insideTask:
            return "\(at): VirtualTimeDriver.run was called inside a task; call it from synchronous code "
                + "(an XCTest method that is not async), whose thread it can drive"
        case let .stuck(sleeping):
            let past = sleeping == 0 ? "" : " before the horizon (\(sleeping) sleeps wait past it)"
            return "\(at): stuck: the body has not returned, no job is ready and nothing waits on the virtual "
                + "clock\(past); it waits on something virtual time does not drive: "
                + "a stream never finished, a real clock's sleep, the main actor or another thread"
        case let .jobLimit(limit):
            return "\(at): more than \(limit) jobs ran without the body returning: a loop that never waits?"
        }
    }
}
