import Locks
import Dispatch
import Foundation
import Synchronization

/// A scheduler in virtual time: nothing runs until the test advances the clock.
///
/// Time is integer nanoseconds from 0. Actions due at the same instant run in the order
/// they were scheduled; an action scheduled while others run, for a time already reached,
/// runs in the same advance. Dates convert to the nearest nanosecond.
///
/// ```swift
/// let scheduler = TestScheduler()
/// var received: [String] = []
/// let (typed, input) = Signal<String, Never>.pipe()
/// typed.debounce(0.5, on: scheduler).observeValues { received.append($0) }
/// input.send(value: "sw")
/// input.send(value: "swift")
/// scheduler.advance(by: 0.5)   // virtual time: nothing waits
/// print(received)              // ["swift"]
/// ```
public final class TestScheduler: DateScheduler, @unchecked Sendable {  // driven from one thread at a time, as a virtual clock must be
    /// A scheduled action, and the disposable that cancels it.
    private final class Item: Disposable, @unchecked Sendable {  // all but `disposed` only under the scheduler's lock
        /// When the action (or a series' next step) is due, and its place among actions due
        /// at once: a series' entry moves on to its next step's.
        @exclusivity(unchecked) private(set) var due: Int64
        @exclusivity(unchecked) private(set) var order: UInt64
        /// Nil once cancelled: a cancelled action releases what it captured at once rather
        /// than when the clock reaches it.
        @exclusivity(unchecked) var action: (() -> Void)?
        /// The actions this entry stands for in turn (`schedule(series:)`), nil once cancelled
        /// or run; `step` is the next one's position in their running order.
        @exclusivity(unchecked) var series: Series?
        @exclusivity(unchecked) private(set) var step = 0
        /// A repeating timer's next tick: work that never ends by itself.
        @exclusivity(unchecked) var periodic = false
        private weak var scheduler: TestScheduler?
        private let disposed = Synchronization.Atomic<Bool>(false)

        init(due: Int64, order: UInt64, scheduler: TestScheduler, action: (() -> Void)?, series: Series? = nil) {
            self.due = due
            self.order = order
            self.scheduler = scheduler
            self.action = action
            self.series = series
        }

        func precedes(_ other: Item) -> Bool {
            due != other.due ? due < other.due : order < other.order
        }

        /// Whether anything is left to run.
        var isPending: Bool { action != nil || series != nil }

        /// Moves a series' entry to its next step; false when it has none left.
        func advance() -> Bool {
            guard let series, step + 1 < series.count else { return false }
            step += 1
            (due, order) = series.key(step)
            return true
        }

        var isDisposed: Bool { disposed.load(ordering: .acquiring) }

        func dispose() {
            guard !disposed.exchange(true, ordering: .acquiringAndReleasing), let scheduler else { return }
            // Taken out under the lock, released after it: what it captured may dispose more.
            let taken: (action: (() -> Void)?, series: Series?) = scheduler.lock.withLock {
                defer { (self.action, self.series) = (nil, nil) }
                return (self.action, self.series)
            }
            _ = taken
        }
    }

    /// Actions scheduled at once by `schedule(series:)`, run as if each had been scheduled on
    /// its own, one after another: each keeps its due time and its place in the scheduling
    /// order, so what is scheduled meanwhile interleaves with them exactly as with separate
    /// actions. One waiting entry stands for the next of them, instead of an entry, a closure
    /// and a disposable each.
    fileprivate final class Series: @unchecked Sendable {  // immutable
        /// Due times (clamped to the clock when scheduled), in running order.
        let dues: [Int64]
        /// The action index of each step, when the running order is not the given one.
        let indices: [Int]?
        /// The scheduling order of the first action; the k-th has `firstOrder + k`.
        let firstOrder: UInt64
        let lanes: [Int]
        let names: [String]
        /// The cause and scope where the series was scheduled, when a probe was attached.
        let captured: ProbeContext.Captured?
        let action: (Int) -> Void

        init(dues: [Int64], indices: [Int]?, firstOrder: UInt64, lanes: [Int], names: [String],
             captured: ProbeContext.Captured?, action: @escaping (Int) -> Void) {
            self.dues = dues
            self.indices = indices
            self.firstOrder = firstOrder
            self.lanes = lanes
            self.names = names
            self.captured = captured
            self.action = action
        }

        var count: Int { dues.count }

        /// The due time and scheduling order of the step at `position`.
        func key(_ position: Int) -> (Int64, UInt64) {
            (dues[position], firstOrder + UInt64(indices?[position] ?? position))
        }

        /// Runs the step at `position`, on its lane, as `instrumented` runs a single action.
        func run(_ position: Int) {
            let index = indices?[position] ?? position
            guard let captured else { return action(index) }
            ProbeContext.current.with(captured, scheduler: names[lanes[index]]) { action(index) }
        }
    }

    /// What `popDue` found: a single action, or a step of a series.
    private enum Due {
        case action(() -> Void)
        case step(Series, Int)

        func run() {
            switch self {
            case let .action(action): action()
            case let .step(series, position): series.run(position)
            }
        }
    }

    /// A view of a test scheduler under another name: the same clock and queue, but its
    /// actions run as that name (a replay keeps each recorded thread this way).
    ///
    /// ```swift
    /// let scheduler = TestScheduler()
    /// let main = scheduler.lane("main")       // the same clock; actions show as the "main" thread
    /// let background = scheduler.lane("background")
    /// main.schedule(after: 1) { print("on main at 1s") }
    /// background.schedule(after: 2) { print("on background at 2s") }
    /// scheduler.run()
    /// ```
    public final class Lane: DateScheduler, @unchecked Sendable {  // immutable; its scheduler is driven from one thread at a time
        public let name: String
        /// The scheduler whose clock this lane shares.
        public private(set) weak var scheduler: TestScheduler?

        init(scheduler: TestScheduler, name: String) {
            self.scheduler = scheduler
            self.name = name
        }

        // Once its scheduler is gone a lane's time stands still and its actions never run:
        // defined behaviour for a scheduler used after its owner released it.
        public var currentDate: Date { scheduler?.currentDate ?? Date(timeIntervalSinceReferenceDate: 0) }

        @discardableResult
        public func schedule(_ action: @escaping () -> Void) -> Disposable? {
            guard let scheduler else { return nil }
            return scheduler.enqueue(at: scheduler.now, lane: name, action)
        }

        @discardableResult
        public func schedule(after date: Date, action: @escaping () -> Void) -> Disposable? {
            scheduler?.enqueue(at: TestScheduler.nanoseconds(date), lane: name, action)
        }

        @discardableResult
        public func schedule(after date: Date, interval: DispatchTimeInterval, leeway: DispatchTimeInterval,
                             action: @escaping () -> Void) -> Disposable? {
            scheduler?.repeating(from: TestScheduler.nanoseconds(date), every: interval.nanoseconds, lane: name, action)
        }
    }

    public let name: String
    /// The recording that follows this scheduler (0: none): while a thread runs its actions
    /// (`advance`, `run`), the thread's work belongs to that recording's scope, whichever
    /// thread drives the clock. A virtual `Recorder` sets it when it starts and clears it when
    /// it stops.
    public var recordingScope: UInt64 {
        get { scope.load(ordering: .acquiring) }
        set { scope.store(newValue, ordering: .releasing) }
    }
    private let scope = Synchronization.Atomic<UInt64>(0)
    private let lock = Lock(recursive: true)
    /// Waiting actions in (due, order) order, from `queueHead`: an action is appended here when
    /// it is due no earlier than the last one (the usual case: inputs scheduled in time order,
    /// work for now), at no cost of sifting; any other goes into `heap`. The next action is
    /// the earlier of the two fronts.
    @exclusivity(unchecked) private var queue: [Item] = []
    @exclusivity(unchecked) private var queueHead = 0
    /// The other waiting actions, a binary min-heap on (due, order).
    @exclusivity(unchecked) private var heap: [Item] = []
    @exclusivity(unchecked) private var nextOrder: UInt64 = 0
    /// The virtual time: moved under the lock, read without it (a recorder stamps every event
    /// with it).
    private let time: Synchronization.Atomic<Int64>
    private var clock: Int64 {
        get { time.load(ordering: .relaxed) }
        set { time.store(newValue, ordering: .releasing) }
    }

    /// A scheduler whose clock starts at `start` nanoseconds.
    public init(name: String = "test", start: Int64 = 0) {
        self.name = name
        self.time = Synchronization.Atomic(start)
        self.startDate = nil
    }

    /// A scheduler whose clock starts at `startDate` (ReactiveSwift's
    /// `TestScheduler(startDate:)`): `currentDate` is that very date until the clock moves.
    public init(startDate: Date, name: String = "test") {
        self.name = name
        let start = Self.nanoseconds(startDate)
        self.time = Synchronization.Atomic(start)
        self.startDate = (startDate, start)
    }

    /// The date the clock started at and its time in nanoseconds, when it was given as a
    /// date: a date of today in whole nanoseconds does not round-trip through a `Double`,
    /// so dates are counted from it.
    private let startDate: (date: Date, nanoseconds: Int64)?

    /// The virtual time, in nanoseconds.
    public var now: Int64 { time.load(ordering: .acquiring) }

    /// The virtual time as a date (seconds from the reference date).
    public var currentDate: Date {
        guard let startDate else { return Date(timeIntervalSinceReferenceDate: Double(now) / 1e9) }
        return startDate.date.addingTimeInterval(Double(now - startDate.nanoseconds) / 1e9)
    }

    /// Whether any action is waiting.
    public var isEmpty: Bool {
        lock.withLock { !heap.contains { $0.isPending } && !queue[queueHead...].contains { $0.isPending } }
    }

    /// The virtual time of the earliest action waiting, nil when none is. Without
    /// `includingPeriodic`, a repeating timer's ticks are left out: the earliest work that
    /// ends by itself, which is what running to quiescence waits for.
    public func nextDue(includingPeriodic: Bool = true) -> Int64? {
        lock.withLock {
            var earliest: Int64?
            for item in heap where item.isPending && (includingPeriodic || !item.periodic) {
                earliest = min(earliest ?? item.due, item.due)
            }
            for item in queue[queueHead...] where item.isPending && (includingPeriodic || !item.periodic) {
                earliest = min(earliest ?? item.due, item.due)
            }
            return earliest
        }
    }

    /// A view of this scheduler whose actions run under `name`.
    public func lane(_ name: String) -> Lane { Lane(scheduler: self, name: name) }

    static func nanoseconds(_ date: Date) -> Int64 {
        saturatingNanoseconds(date.timeIntervalSinceReferenceDate)
    }

    /// A date as the scheduler's nanoseconds, as `schedule(after:action:)` takes it.
    package static func time(of date: Date) -> Int64 { nanoseconds(date) }

    /// Seconds as whole nanoseconds, clamped to `Int64`'s range: a due date past the end of
    /// virtual time (a delay of `1e300` seconds, an infinite one) never falls due instead of
    /// trapping in the conversion. NaN counts as now.
    static func saturatingNanoseconds(_ seconds: TimeInterval) -> Int64 {
        let nanoseconds = (seconds * 1e9).rounded()
        if nanoseconds.isNaN { return 0 }
        if nanoseconds >= 9.2e18 { return Int64.max }
        if nanoseconds <= -9.2e18 { return Int64.min }
        return Int64(nanoseconds)
    }

    @discardableResult
    public func schedule(_ action: @escaping () -> Void) -> Disposable? {
        enqueue(at: now, lane: name, action)
    }

    @discardableResult
    public func schedule(after date: Date, action: @escaping () -> Void) -> Disposable? {
        enqueue(at: Self.nanoseconds(date), lane: name, action)
    }

    @discardableResult
    public func schedule(after date: Date, interval: DispatchTimeInterval, leeway: DispatchTimeInterval,
                         action: @escaping () -> Void) -> Disposable? {
        repeating(from: Self.nanoseconds(date), every: interval.nanoseconds, lane: name, action)
    }

    /// Runs `action` at virtual time `nanoseconds` (at once, in this advance, if passed).
    @discardableResult
    public func schedule(atNanoseconds nanoseconds: Int64, action: @escaping () -> Void) -> Disposable? {
        enqueue(at: nanoseconds, lane: name, action)
    }

    fileprivate func enqueue(at due: Int64, lane: String, periodic: Bool = false, _ action: @escaping () -> Void) -> Disposable {
        let action = instrumented(action, on: lane)
        return lock.withLock {
            nextOrder += 1
            let item = Item(due: max(due, clock), order: nextOrder, scheduler: self, action: action)
            item.periodic = periodic
            push(item)
            return item
        }
    }

    /// Schedules `dues.count` actions at once, as if `schedule(atNanoseconds:action:)` were
    /// called for each in turn on the lane named `names[lanes[k]]`: the k-th runs `action(k)`
    /// at virtual time `dues[k]` (at once, in the advance, when passed), after every action
    /// scheduled before it for that time and before every one scheduled after it. Costs one
    /// waiting entry however many actions (a replay's recorded inputs, thousands at a time).
    /// The disposable cancels those not run yet.
    @discardableResult
    package func schedule(series dues: [Int64], lanes: [Int], names: [String],
                          action: @escaping (Int) -> Void) -> Disposable? {
        guard !dues.isEmpty else { return nil }
        let captured = Instrumentation.isAttached ? ProbeContext.current.capture() : nil
        return lock.withLock {
            let clamped = dues.map { max($0, clock) }
            // Separate actions run by (due, order): the same order, by due time, ties in the order given.
            var indices: [Int]?
            if zip(clamped, clamped.dropFirst()).contains(where: { $0 > $1 }) {
                indices = clamped.indices.sorted { (clamped[$0], $0) < (clamped[$1], $1) }
            }
            let series = Series(dues: indices.map { $0.map { clamped[$0] } } ?? clamped, indices: indices,
                                firstOrder: nextOrder + 1, lanes: lanes, names: names, captured: captured, action: action)
            nextOrder += UInt64(dues.count)
            let (due, order) = series.key(0)
            let item = Item(due: due, order: order, scheduler: self, action: nil, series: series)
            push(item)
            return item
        }
    }

    fileprivate func repeating(from start: Int64, every interval: Int64, lane: String,
                               _ action: @escaping () -> Void) -> Disposable {
        let serial = SerialDisposable()
        let step = max(interval, 1)
        func arm(_ due: Int64) {
            serial.inner = enqueue(at: due, lane: lane, periodic: true) {
                action()
                let (next, overflow) = due.addingReportingOverflow(step)
                if !overflow { arm(next) }
            }
        }
        arm(start)
        return serial
    }

    /// Runs the actions due now.
    public func advance() { advance(toNanoseconds: now) }

    /// Moves the clock forward by `interval` seconds, running what falls due.
    public func advance(by interval: TimeInterval) {
        let (target, overflow) = now.addingReportingOverflow(Self.saturatingNanoseconds(interval))
        advance(toNanoseconds: overflow ? (interval < 0 ? Int64.min : Int64.max) : target)
    }

    /// Moves the clock forward by `interval`, running what falls due.
    public func advance(by interval: DispatchTimeInterval) {
        advance(toNanoseconds: now + interval.nanoseconds)
    }

    /// Moves the clock to `date`, running what falls due.
    public func advance(to date: Date) { advance(toNanoseconds: Self.nanoseconds(date)) }

    /// Moves the clock to `target` nanoseconds (never backwards), running each due action
    /// at its own time, in order.
    public func advance(toNanoseconds target: Int64) {
        driving {
            while let due = popDue(upTo: target) {
                due.run()
            }
        }
        lock.withLock { clock = max(clock, target) }
    }

    /// Moves the clock back by `interval`, running nothing (a user setting the device's clock
    /// back). Actions keep their due times: those now in the future wait for the clock
    /// to come back to them.
    public func rewind(by interval: DispatchTimeInterval) {
        lock.withLock {
            let (target, overflow) = clock.subtractingReportingOverflow(interval.nanoseconds)
            clock = overflow ? Int64.min : target
        }
    }

    /// Runs every action, moving the clock as far as needed. Stops after `limit` actions,
    /// so a repeating timer cannot make it run forever; returns how many ran.
    @discardableResult
    public func run(limit: Int = 10_000_000) -> Int {
        run(until: Int64.max, limit: limit)
    }

    /// Runs the actions due up to `target`, each at its own time, at most `limit` of them;
    /// returns how many ran. Unlike `advance(toNanoseconds:)`, the clock stays at the last
    /// action's time, so a caller can tell where a run that hit the limit was.
    @discardableResult
    public func run(until target: Int64, limit: Int) -> Int {
        var count = 0
        driving {
            while count < limit, let due = popDue(upTo: target) {
                due.run()
                count += 1
            }
        }
        return count
    }

    /// Runs `body` (which runs actions) in the scope of the recording following this
    /// scheduler, if any.
    private func driving(_ body: () -> Void) {
        // A signal made just before is reported at the time it was made, before time moves.
        if Instrumentation.isAttached { ProbeContext.reportPending() }
        let scope = recordingScope
        if scope == 0 { return body() }
        ProbeContext.current.inScope(scope, body)
    }

    /// The next action due by `target`, taken under the lock (a cancellation may race it).
    /// A series' entry goes back in line at its next step's place.
    private func popDue(upTo target: Int64) -> Due? {
        lock.withLock {
            while true {
                let fromQueue: Bool
                let top: Item
                // The queue's first read where it is compared and taken: bound to a name of its
                // own, it was retained and released once more per step.
                if queueHead < queue.count, heap.isEmpty || queue[queueHead].precedes(heap[0]) {
                    (fromQueue, top) = (true, queue[queueHead])
                } else if let first = heap.first {
                    (fromQueue, top) = (false, first)
                } else {
                    return nil
                }
                if top.isPending && top.due > target { return nil }
                guard let series = top.series else {
                    if fromQueue { dequeue() } else { pop() }
                    guard let action = top.action else { continue }
                    clock = max(clock, top.due)
                    return .action(action)
                }
                clock = max(clock, top.due)
                let step = top.step
                if !top.advance() {
                    top.series = nil
                    if fromQueue { dequeue() } else { pop() }
                } else if fromQueue {
                    // Still the queue's first while its next step precedes the second.
                    if queueHead + 1 < queue.count && !top.precedes(queue[queueHead + 1]) {
                        dequeue()
                        push(top)
                    }
                } else {
                    siftDown(from: 0)
                }
                return .step(series, step)
            }
        }
    }

    private func push(_ item: Item) {
        if let last = queue.last, queueHead < queue.count, item.precedes(last) {
            siftUp(item)
        } else {
            queue.append(item)
        }
    }

    /// Takes the queue's front off; an emptied queue starts over, and a long-drained front is let go.
    private func dequeue() {
        queueHead += 1
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        } else if queueHead >= 4096 && queueHead * 2 >= queue.count {
            queue = Array(queue[queueHead...])
            queueHead = 0
        }
    }

    // A binary min-heap on (due, order).
    private func siftUp(_ item: Item) {
        heap.append(item)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private func pop() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        siftDown(from: 0)
    }

    /// Moves the entry at `parent` down to its place (its key grew, or it was swapped in).
    private func siftDown(from parent: Int) {
        var parent = parent
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].precedes(heap[smallest]) { smallest = left }
            if right < heap.count && heap[right].precedes(heap[smallest]) { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
