import Foundation
import TraceLog

/// A trace file read for a marble figure (`MarbleFigure(file:options:)`) without holding its
/// events: one pass checks every record as `Trace` does (the same errors, at the same lines)
/// and keeps the trace's structure (nodes, threads, subscriptions, each one's count of
/// values) with a few bytes per event for looking causes up (the event's thread). The
/// figure then reads the file once more for the events of the subscriptions it draws, so
/// memory grows with what the figure shows, not with the whole trace.
///
/// The file is read twice: a named pipe cannot be (load it as a `Trace` instead).
public struct MarbleTraceFile {
    /// What the reader skipped, as `Trace.warnings` would hold.
    public var warnings: [TraceWarning] { input.warnings }
    let input: MarbleInput

    /// Reads the structure of the trace at `url`, its errors and warnings named `name`.
    public init(url: URL, name: String) throws {
        input = try MarbleInput(path: PathName(url.path), name: name)
    }

    /// Reads the structure of the trace at `path` (its bytes used as given), its errors and
    /// warnings named `name`.
    package init(path: PathName, name: String) throws {
        input = try MarbleInput(path: path, name: name)
    }
}

/// Where a marble figure's events are read from, as often as the figure needs.
enum MarbleEventFeed {
    case trace(Trace)
    case file(PathName, name: String)

    /// Calls `event` with each event and `other` with each other record, in the order of the
    /// trace, and returns what the reader skipped. A file's records are read again each time;
    /// with `validating`, each is checked as `Trace` checks it (the same errors, at the same
    /// lines). A trace in memory was checked when it was read; `other` sees only its
    /// disposals, after its events.
    @discardableResult
    func forEach(validating: Bool, other: (TraceRecord) throws -> Void = { _ in },
                 event body: (EventRecord) throws -> Void) throws -> [TraceWarning] {
        switch self {
        case let .trace(trace):
            for position in trace.events.indices { try body(trace.events[position]) }
            for disposal in trace.disposals { try other(.dispose(disposal)) }
            return trace.warnings
        case let .file(path, name):
            let reader = try TraceReader(path: path, name: name)
            var validator = TraceValidator()
            while let record = try reader.next() {
                if validating { try validator.check(record, readBy: reader) }
                if case let .event(event) = record { try body(event) } else { try other(record) }
            }
            return reader.warnings
        }
    }
}

/// The positions of a trace's events, by sequence number: held as runs of consecutive
/// numbers while they ascend in the order read (as a recorder writes them), as a dictionary
/// once they do not.
struct EventPositions {
    private var runs: [(sequence: UInt64, position: Int)] = []
    private var index: [UInt64: Int]?
    private(set) var count = 0

    mutating func append(_ sequence: UInt64) {
        if index == nil, let last = runs.last {
            let lastSequence = last.sequence + UInt64(count - last.position - 1)
            if sequence <= lastSequence {
                var all: [UInt64: Int] = [:]
                for (number, run) in runs.enumerated() {
                    let end = number + 1 < runs.count ? runs[number + 1].position : count
                    for position in run.position..<end { all[run.sequence + UInt64(position - run.position)] = position }
                }
                index = all
                runs = []
            } else if sequence != lastSequence + 1 {
                runs.append((sequence, count))
            }
        } else if index == nil {
            runs.append((sequence, count))
        }
        index?[sequence] = count
        count += 1
    }

    func position(of sequence: UInt64) -> Int? {
        if let index { return index[sequence] }
        var low = 0, high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].sequence <= sequence { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let run = runs[low - 1]
        let end = low < runs.count ? runs[low].position : count
        let offset = sequence - run.sequence
        return offset < UInt64(end - run.position) ? run.position + Int(offset) : nil
    }
}

/// A trace's subscriptions as a marble figure reads them: each one's id, node, parent and
/// start, in columns of 28 bytes a subscription (20 when the ids are 1, 2, 3, …). A `Trace` holds 72 (a `SubscriptionRecord`
/// of 64 and its id column), for a thread, a `late` flag and a call's request that no figure
/// draws; a long trace has nearly a million subscriptions.
struct SubscriptionTable {
    /// What a figure reads of one subscription.
    struct Subscription {
        let id: UInt64
        let node: UInt64
        /// The subscription that started it, or 0.
        let parent: UInt64
        let time: Int64
    }

    /// Each one's id, kept only once one is not its position + 1: a recorder numbers
    /// subscriptions 1, 2, 3, … in file order, and their ids are then their positions + 1.
    private var ids: [UInt64] = []
    private var idsAreDense = true
    private var parents: [UInt64] = []
    private var times: [Int64] = []
    /// Each one's node, as its position in `nodeIDs` (a trace has tens of nodes).
    private var nodes: [UInt32] = []
    private var nodeIDs: [UInt64] = []
    private var nodePositions: [UInt64: UInt32] = [:]
    /// Id to position, made only once ids stop ascending (as `Trace` does): ascending ids
    /// are found by a binary search, ids numbered 1, 2, 3, … at `id - 1`.
    private var index: [UInt64: Int32]?

    private(set) var count = 0

    mutating func append(_ subscription: SubscriptionRecord) {
        if idsAreDense, subscription.id != UInt64(count + 1) {
            idsAreDense = false
            ids = (0..<count).map { UInt64($0 + 1) }
        }
        if index == nil, let last = ids.last, subscription.id < last {
            var all: [UInt64: Int32] = [:]
            for (position, id) in ids.enumerated() { all[id] = Int32(position) }
            index = all
        }
        index?[subscription.id] = Int32(count)
        let node: UInt32
        if let known = nodePositions[subscription.node] {
            node = known
        } else {
            node = UInt32(nodeIDs.count)
            nodePositions[subscription.node] = node
            nodeIDs.append(subscription.node)
        }
        if !idsAreDense { ids.append(subscription.id) }
        count += 1
        parents.append(subscription.parent)
        times.append(subscription.time)
        nodes.append(node)
    }

    subscript(position: Int) -> Subscription {
        Subscription(id: idsAreDense ? UInt64(position + 1) : ids[position], node: nodeIDs[Int(nodes[position])], parent: parents[position], time: times[position])
    }

    /// Each subscription's node and parent, in trace order.
    var nodesAndParents: some Sequence<(node: UInt64, parent: UInt64)> {
        (0..<count).lazy.map { (node: self.nodeIDs[Int(self.nodes[$0])], parent: self.parents[$0]) }
    }

    /// The position of the subscription `id`.
    func position(of id: UInt64) -> Int? {
        if idsAreDense { return id >= 1 && id <= UInt64(count) ? Int(id) - 1 : nil }
        if id >= 1, id <= UInt64(ids.count), ids[Int(id) - 1] == id { return Int(id) - 1 }
        if let index { return index[id].map(Int.init) }
        var low = 0, high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low < ids.count && ids[low] == id ? low : nil
    }
}

/// What a marble figure needs of a trace before it reads the events it draws: the trace's
/// structure (a `Trace` without events or subscriptions), its subscriptions (the parts a
/// figure reads), each subscription's count of values, each event's
/// thread by sequence number, and for each node the nodes whose events were the primary
/// causes of its values (which inner streams feed a higher-order operator).
struct MarbleInput {
    let feed: MarbleEventFeed
    /// Nodes, threads and labels (no events or subscriptions when read from a file).
    private(set) var structure: Trace
    private(set) var subscriptions = SubscriptionTable()
    private(set) var warnings: [TraceWarning] = []
    /// By position in `subscriptions`: how many values it sent.
    private(set) var valueCounts: [Int32] = []
    private(set) var positions = EventPositions()
    /// By event position: the position of its thread in `structure.threads`.
    private(set) var eventThreads: [UInt32] = []
    /// For each node, the nodes of the primary causes of its values.
    private(set) var valueCauseNodes: [UInt64: Set<UInt64>] = [:]
    /// The nodes that recorded pulls: an `AsyncSequence`'s taps.
    private(set) var pullingNodes: Set<UInt64> = []
    /// The times of the first and the last event in the trace's order.
    private(set) var firstTime: Int64?
    private(set) var lastTime: Int64?

    /// The input of a trace in memory: its events read from it.
    init(trace: Trace) throws {
        try self.init(feed: .trace(trace), structure: trace)
    }

    /// The input of the trace file at `path`: its records checked and its structure kept.
    init(path: PathName, name: String) throws {
        try self.init(feed: .file(path, name: name), structure: Trace(header: TraceReader(path: path, name: name).header))
    }

    private init(feed: MarbleEventFeed, structure given: Trace) throws {
        self.feed = feed
        var structure = given
        var threadPositions: [UInt64: UInt32] = [:], nodePositions: [UInt64: UInt32] = [:]
        for (position, thread) in structure.threads.enumerated() { threadPositions[thread.id] = UInt32(position) }
        for (position, node) in structure.nodes.enumerated() { nodePositions[node.id] = UInt32(position) }
        var positions = EventPositions(), eventThreads: [UInt32] = [], valueCauseNodes: [UInt64: Set<UInt64>] = [:]
        var pullingNodes: Set<UInt64> = []
        var subscriptions = SubscriptionTable()
        for subscription in structure.subscriptions { subscriptions.append(subscription) }
        var valueCounts = [Int32](repeating: 0, count: subscriptions.count)
        var firstTime: Int64?, lastTime: Int64?
        // Each event's node (its position in `structure.nodes`), while causes are looked up;
        // and the value events whose primary cause was not read yet (a trace whose sequence
        // numbers do not ascend).
        var eventNodes: [UInt32] = []
        var pending: [(node: UInt64, cause: UInt64)] = []
        warnings = try feed.forEach(validating: true, other: { record in
            switch record {
            case let .node(node):
                nodePositions[node.id] = UInt32(structure.nodes.count)
                structure.add(record)
            case let .subscribe(subscription):
                // Checked by the feed's validator.
                subscriptions.append(subscription)
                valueCounts.append(0)
            case .label:
                structure.add(record)
            case let .thread(thread):
                threadPositions[thread.id] = UInt32(structure.threads.count)
                structure.add(record)
            default:
                break
            }
        }) { event in
            if firstTime == nil { firstTime = event.time }
            lastTime = event.time
            positions.append(event.sequence)
            eventThreads.append(threadPositions[event.thread] ?? 0)
            eventNodes.append(nodePositions[event.node] ?? 0)
            if event.kind == .pull { pullingNodes.insert(event.node) }
            guard event.kind == .value else { return }
            if let position = subscriptions.position(of: event.subscription) { valueCounts[position] += 1 }
            if let cause = event.causes.first {
                if let position = positions.position(of: cause) {
                    valueCauseNodes[event.node, default: []].insert(structure.nodes[Int(eventNodes[position])].id)
                } else {
                    pending.append((event.node, cause))
                }
            }
        }
        for (node, cause) in pending {
            if let position = positions.position(of: cause) {
                valueCauseNodes[node, default: []].insert(structure.nodes[Int(eventNodes[position])].id)
            }
        }
        self.structure = structure
        self.subscriptions = subscriptions
        self.positions = positions
        self.eventThreads = eventThreads
        self.valueCauseNodes = valueCauseNodes
        self.pullingNodes = pullingNodes
        self.valueCounts = valueCounts
        self.firstTime = firstTime
        self.lastTime = lastTime
    }

    /// Frees each event's thread, which only reading the events drawn looks up
    /// (`thread(ofEvent:)` finds none after): two million events hold 8 MB of them.
    mutating func releaseEventThreads() {
        eventThreads = []
    }

    /// The position in `structure.threads` of the thread of the event numbered `sequence`.
    func thread(ofEvent sequence: UInt64) -> UInt32? {
        positions.position(of: sequence).map { eventThreads[$0] }
    }
}
