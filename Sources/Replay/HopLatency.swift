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
