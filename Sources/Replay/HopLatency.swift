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
/// probe notes the node and the scheduler takes the note.
final class HopWaits: @unchecked Sendable {  // mutable state only under `lock`
    private let lock = Lock()
    private var waits: [String: [Int64]]
    private var used: [String: Int] = [:]
    private var pending: (node: String, scheduler: String)?

    init(trace: Trace) {
        var waits: [String: [Int64]] = [:]
        for hop in trace.hops.sorted(by: { $0.id < $1.id }) {
            guard hop.node != 0, let node = trace.node(hop.node) else { continue }
            // A hop that never ran (the recording stopped first) still holds its place in order.
            waits[Self.key(name: node.name, parameters: node.parameters, file: node.file, line: node.line), default: []]
                .append(max(hop.queueWait ?? 0, 0))
        }
        self.waits = waits
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

    /// The recorded wait of the hop being enqueued onto `scheduler` now, or 0 when no node is
    /// hopping (a plain scheduled action) or the trace has no such hop.
    func takeWait(scheduler: String) -> Int64 {
        lock.withLock {
            guard let note = pending, note.scheduler == scheduler else { return 0 }
            pending = nil
            let index = used[note.node, default: 0]
            used[note.node] = index + 1
            guard let list = waits[note.node], index < list.count else { return 0 }
            return list[index]
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
final class TimerDecisions: @unchecked Sendable {  // mutable state only under `lock`
    private let lock = Lock()
    /// By node key, each timer's lateness in nanoseconds, or nil for one that never ran.
    private let lateness: [String: [Int64?]]
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
        var lateness: [String: [Int64?]] = [:]
        for hop in trace.hops.sorted(by: { $0.id < $1.id }) where hop.due != nil {
            guard hop.node != 0, let node = trace.node(hop.node) else { continue }
            lateness[HopWaits.key(name: node.name, parameters: node.parameters, file: node.file, line: node.line),
                     default: []].append(hop.lateness.map { max($0, 0) })
        }
        guard !lateness.isEmpty else { return nil }
        self.lateness = lateness
        recordingEnd = Replayer.end(of: trace)
    }

    /// When the replay runs `node`'s next timer, due at `due` (trace nanoseconds).
    func runTime(of node: Node, due: Int64) -> Int64 {
        let key = HopWaits.key(name: node.name, parameters: node.parameters, file: node.file, line: UInt64(node.line))
        return lock.withLock {
            guard let list = lateness[key] else { return due }
            let index = used[key, default: 0]
            used[key] = index + 1
            guard index < list.count else { return due }
            matched += 1
            guard let late = list[index] else {
                neverRanLive += 1
                return max(due, recordingEnd.saturatingAdding(1))
            }
            let run = max(due.saturatingAdding(late), lastRun[key] ?? .min)
            lastRun[key] = run
            return run
        }
    }
}
