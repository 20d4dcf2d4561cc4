import Locks
import Foundation
import Signals
import TraceLog
import Recording

/// The queue waits a trace recorded, per hopping node, in the order the hops were enqueued,
/// handed out one by one as the replay's hops are enqueued.
///
/// A hop is matched by its node (name, parameters, call site) and its position among that
/// node's hops. Which node is hopping comes from the probe: `observe(on:)` and `start(on:)`
/// report `hopEnqueued` right before they hand their action to the scheduler, so the replay's
/// probe notes the node and the scheduler takes the note. Operator timers (hops with `due`)
/// are `TimerDecisions`' and hold no place here: a debounce's terminal event hops on its
/// scheduler after its timers did.
///
/// As with a timer (`TimerDecisions`), a replay enqueues a hop earlier than live by the time
/// its cause's cascade took, so a hop enqueued up to `TimerDecisions.cascadeSlack` before the
/// recorded one starts no earlier than the recorded one started, though no later than just
/// before what set off the next value that reached its node after it live.
final class HopWaits: @unchecked Sendable {  // mutable state only under `lock`
    private let lock = Lock()
    private let hops: RecordedRuns
    private var used: [String: Int] = [:]
    private var pending: (node: String, scheduler: String)?

    init(trace: Trace) {
        // A hop that never ran (the recording stopped first) still holds its place in order.
        hops = RecordedRuns(trace: trace, timers: false)
    }

    static func key(name: String, parameters: String, file: String, line: UInt64) -> String {
        "\(name)(\(parameters))@\(file):\(line)"
    }

    /// A node is about to enqueue a hop onto `scheduler`.
    func noteHop(_ node: Node?, scheduler: String) {
        let key = node.map { Self.key(name: $0.name, parameters: $0.parameters, file: $0.file, line: UInt64($0.line)) }
        lock.withLock { pending = key.map { ($0, scheduler) } }
    }

    /// Anything else the probe hears ends the window in which a hop is being enqueued.
    func clearNote() {
        lock.withLock { pending = nil }
    }

    /// When the hop being enqueued onto `scheduler` at `now` (trace nanoseconds) runs: after
    /// its recorded wait, held as the type's note says; `now` when no node is hopping (a plain
    /// scheduled action) or the trace has no such hop.
    func runTime(scheduler: String, now: Int64) -> Int64 {
        lock.withLock {
            guard let note = pending, note.scheduler == scheduler else { return now }
            pending = nil
            let index = used[note.node, default: 0]
            used[note.node] = index + 1
            guard let list = hops.byNode[note.node], index < list.count else { return now }
            return list[index].runTime(scheduledAt: now) ?? now
        }
    }
}

/// The replay's probe when hops keep their recorded latency: forwards everything to the
/// recorder, and tells `HopWaits` which node is enqueuing a hop.
final class HopNotingProbe: Probe, @unchecked Sendable {  // immutable; the recorder and the waits guard themselves
    let recorder: Recorder
    let waits: HopWaits

    init(recorder: Recorder, waits: HopWaits) {
        self.recorder = recorder
        self.waits = waits
    }

    func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64) {
        waits.clearNote()
        recorder.didSubscribe(node, subscription: subscription, parent: parent)
    }

    func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64, request: Any) {
        waits.clearNote()
        recorder.didSubscribe(node, subscription: subscription, parent: parent, request: request)
    }

    func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64, request: Any?,
                      observes: [UInt64], observedBy: [UInt64]) {
        waits.clearNote()
        recorder.didSubscribe(node, subscription: subscription, parent: parent, request: request,
                              observes: observes, observedBy: observedBy)
    }

    func willSend(_ node: Node, subscription: UInt64, kind: EventKind, value: Any?, causes: Causes) -> UInt64 {
        waits.clearNote()
        return recorder.willSend(node, subscription: subscription, kind: kind, value: value, causes: causes)
    }

    func didDispose(_ node: Node, subscription: UInt64) {
        waits.clearNote()
        recorder.didDispose(node, subscription: subscription)
    }

    func hopEnqueued(_ node: Node?, subscription: UInt64, scheduler: String) -> UInt64 {
        let hop = recorder.hopEnqueued(node, subscription: subscription, scheduler: scheduler)
        waits.noteHop(node, scheduler: scheduler)
        return hop
    }

    func timerArmed(_ node: Node, subscription: UInt64, scheduler: String, delay: Int64) -> UInt64 {
        waits.clearNote()
        return recorder.timerArmed(node, subscription: subscription, scheduler: scheduler, delay: delay)
    }

    var numbersEvents: Bool { true }

    func hopStarted(_ hop: UInt64) {
        waits.clearNote()
        recorder.hopStarted(hop)
    }

    func mark(_ label: String) {
        waits.clearNote()
        recorder.mark(label)
    }
}

/// When each operator timer of a live trace ran (`HopRecord.due`), per node, in the order the
/// timers were armed, handed out one by one as the replay's timers are armed: a replay runs a
/// timer as late as the recorded one ran, so that a decision the lateness made live (a
/// debounce's timer that ran after the next value had arrived, and so never sent the value
/// before) is made again.
///
/// A timer is matched like a hop: its node (name, parameters, call site) and its position
/// among that node's timers. A node's timers run in the order they were armed, none before
/// the one armed ahead of it: a delay's value and its completion, due moments apart, can read
/// as late in the other order through the skew between the trace's clock and the scheduler's,
/// where live the queue ran them in order. One that never ran live (cancelled first, or armed
/// when the recording stopped) runs only after the recording's end, so that what
/// cancelled it live cancels it in the replay; if nothing does, it still runs (a replay runs
/// to quiescence). A timer the trace lacks runs when it is due. A virtual trace has no timer
/// hops: its timers ran when due.
///
/// A replay runs each cascade in no time, so it arms a timer earlier than live did by the time
/// the cascade took to reach it (tens of microseconds): its due time is that much earlier, and
/// so would be its run at the recorded lateness. Another thread's event that came between the
/// recorded timer's due time plus that gap and its start would then come after the timer in the
/// replay (live seed 50000006: a `delay` ran 15 µs before another thread's input value instead
/// of 110 µs after it). So a timer due no later than the recorded one, and earlier by less than
/// `cascadeSlack` (5 ms), runs no earlier than the recorded one started. One due later (its cause was
/// delivered late, or the code changed) runs at the recorded lateness after its own due time.
final class TimerDecisions: @unchecked Sendable {  // mutable state only under `lock`
    private let lock = Lock()
    /// The most a replayed timer's due time may precede the recorded one's and still be held to
    /// the recorded start: longer than a cascade takes to reach a timer live, the pipeline's
    /// setup included (a replay sets up at once; live, the first setup took 1.5 ms in seed
    /// 51000047, its timers armed that much later). 1 ms left 28 of 620 kept live recordings
    /// unexplained, 5 ms 16, and 50 ms the same 16; a timer armed much earlier than recorded is
    /// another run (changed code), run at the recorded lateness after its own due time.
    static let cascadeSlack: Int64 = 5_000_000
    /// By node key, each timer as recorded.
    private let recorded: [String: [RecordedRuns.Run]]
    private var used: [String: Int] = [:]
    /// The latest time each node's timers were given to run: one armed later never runs
    /// earlier (live, a serial queue that ran a timer late ran the next one after it, later
    /// by less than its own lateness says).
    private var lastRun: [String: Int64] = [:]
    private var matched = 0, neverRanLive = 0
    /// The timers matched with recorded ones so far, and how many of those never ran live.
    var counts: (matched: Int, neverRanLive: Int) { lock.withLock { (matched, neverRanLive) } }
    /// The recording's end, as the replay runs to it (`Replayer.end`).
    let recordingEnd: Int64

    /// Nil when `trace` has no timer hops, or was cut off (no summary): a recording writes a
    /// timer that never ran (a cancelled one) when it stops, so a killed one lacks those, and
    /// the next timers of their node would be matched with the wrong recorded ones.
    init?(trace: Trace) {
        guard trace.summary != nil else { return nil }
        let recorded = RecordedRuns(trace: trace, timers: true).byNode
        guard !recorded.isEmpty else { return nil }
        self.recorded = recorded
        recordingEnd = Replayer.end(of: trace)
    }

    /// When the replay runs `node`'s next timer, due at `due` (trace nanoseconds).
    func runTime(of node: Node, due: Int64) -> Int64 {
        let key = HopWaits.key(name: node.name, parameters: node.parameters, file: node.file, line: UInt64(node.line))
        return lock.withLock {
            guard let list = recorded[key] else { return due }
            let index = used[key, default: 0]
            used[key] = index + 1
            guard index < list.count else { return due }
            matched += 1
            guard var run = list[index].runTime(scheduledAt: due) else {
                neverRanLive += 1
                return max(due, recordingEnd.saturatingAdding(1))
            }
            run = max(run, lastRun[key] ?? .min)
            lastRun[key] = run
            return run
        }
    }
}

/// The hops a trace recorded, operator timers (`due`) or plain ones, per node key in the order
/// they were enqueued, with what a replay needs to run each as it ran live (`Run.runTime`).
struct RecordedRuns {
    /// One recorded hop: when it was scheduled to run (a timer's due time, a plain hop's
    /// enqueue), when it started (nil: it never ran), and the latest a replay may hold it to.
    struct Run {
        var scheduled: Int64
        var started: Int64?
        /// Just before the time of what set off the first value that reached the hop's operator
        /// after the hop started live (its first causes followed back to one with none, across
        /// threads: a replay runs a plain hop's work at once, so that is when it delivers the
        /// value; a timed operator's event that ran from its timer on another thread is a root,
        /// since a replay runs that when the timer runs): holding the hop to its recorded
        /// start must not put it after a value that came after it live. `Int64.max` when
        /// nothing came after it.
        var hold: Int64 = .max

        /// When a replay runs this hop, scheduled at `replayed` (trace nanoseconds): as late
        /// after that as it ran after its recorded schedule; and when the replay scheduled it
        /// earlier than live only by a cascade's time (less than `TimerDecisions.cascadeSlack`),
        /// no earlier than the recorded start, though not past `hold`. Nil when it never ran.
        func runTime(scheduledAt replayed: Int64) -> Int64? {
            guard let started else { return nil }
            let run = replayed.saturatingAdding(max(started.saturatingSubtracting(scheduled), 0))
            guard replayed <= scheduled, scheduled.saturatingSubtracting(replayed) < TimerDecisions.cascadeSlack else {
                return run
            }
            return max(run, min(started, hold))
        }
    }

    let byNode: [String: [Run]]

    /// The operator timers of `trace` (`timers`) or its plain hops.
    init(trace: Trace, timers: Bool) {
        let hops = trace.hops.sorted(by: { $0.id < $1.id }).filter { ($0.due != nil) == timers && $0.node != 0 }
        let arrivals = Self.arrivals(at: Set(hops.map(\.subscription)), in: trace,
                                     timed: Set(trace.hops.filter { $0.due != nil }.map(\.node)))
        var byNode: [String: [Run]] = [:]
        for hop in hops {
            guard let node = trace.node(hop.node) else { continue }
            var run = Run(scheduled: hop.due ?? hop.enqueued, started: hop.started)
            if let started = hop.started, let next = arrivals[hop.subscription]?.first(where: { $0.time > started }) {
                run.hold = next.root.saturatingSubtracting(1)
            }
            byNode[HopWaits.key(name: node.name, parameters: node.parameters, file: node.file, line: node.line),
                   default: []].append(run)
        }
        self.byNode = byNode
    }

    /// For each of `subscriptions`, the values and ends that reached it from the subscriptions
    /// it observes, in order: each one's time and the time of its root (`Run.hold`).
    private static func arrivals(at subscriptions: Set<UInt64>, in trace: Trace,
                                         timed: Set<UInt64>) -> [UInt64: [(time: Int64, root: Int64)]] {
        guard !subscriptions.isEmpty else { return [:] }
        var observers: [UInt64: [UInt64]] = [:]
        for record in trace.subscriptions {
            for upstream in record.observes ?? [] where subscriptions.contains(record.id) {
                observers[upstream, default: []].append(record.id)
            }
            for downstream in record.observedBy ?? [] where subscriptions.contains(downstream) {
                observers[record.id, default: []].append(downstream)
            }
        }
        guard !observers.isEmpty else { return [:] }
        let events = trace.events
        var arrivals: [UInt64: [(time: Int64, root: Int64)]] = [:]
        for position in 0..<events.count {
            let index = events.subscriptionIndex(at: position)
            guard index < trace.subscriptions.count, let to = observers[trace.subscriptions[index].id] else { continue }
            var root = position
            while let cause = events.firstCause(at: root), let parent = trace.eventPosition(sequence: cause), parent < root {
                // A timed operator's event on another thread than its cause ran from a timer,
                // which a replay runs when it decides, not when its cause came.
                if timed.contains(events.node(at: root)), events.thread(at: parent) != events.thread(at: root) { break }
                root = parent
            }
            for subscription in Set(to) {
                arrivals[subscription, default: []].append((events.time(at: position), events.time(at: root)))
            }
        }
        return arrivals
    }
}
