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

/// What a marble figure needs of a trace before it reads the events it draws: the trace's
/// structure (a `Trace` without events or subscriptions when read from a file), its
/// subscription tree, each subscription's count of values, each event's thread by sequence
/// number, and for each node the nodes whose events were the primary causes of its values
/// (which inner streams feed a higher-order operator). A trace in memory answers from its
/// own columns; a file's pass keeps only the few bytes an event that the lookups need.
struct MarbleInput {
    let feed: MarbleEventFeed
    /// Nodes, threads and labels (no events or subscriptions when read from a file).
    private(set) var structure: Trace
    private(set) var subscriptions = SubscriptionTree()
    private(set) var warnings: [TraceWarning] = []
    /// By position in `subscriptions`: how many values it sent.
    private(set) var valueCounts: [Int32] = []
    /// The nodes that recorded pulls: an `AsyncSequence`'s taps.
    private(set) var pullingNodes: Set<UInt64> = []
    /// The times of the first and the last event in the trace's order.
    private(set) var firstTime: Int64?
    private(set) var lastTime: Int64?
    /// Read from a file: each event's position by sequence number, and by position the
    /// position of its thread in `structure.threads`.
    private var filePositions = EventPositions()
    private var fileEventThreads: [UInt32] = []
    /// Read from a file: for each node, the nodes of the primary causes of its values.
    private var fileValueCauseNodes: [UInt64: Set<UInt64>] = [:]

    /// The input of a trace in memory, read from its columns.
    init(trace: Trace) {
        feed = .trace(trace)
        structure = trace
        subscriptions = trace.subscriptions.tree
        warnings = trace.warnings
        valueCounts = [Int32](repeating: 0, count: trace.subscriptions.count)
        let events = trace.events
        for position in events.indices {
            switch events.kind(at: position) {
            case .pull:
                pullingNodes.insert(events.node(at: position))
            case .value:
                valueCounts[events.subscriptionIndex(at: position)] += 1
            default:
                break
            }
        }
        if !events.isEmpty {
            firstTime = events.time(at: events.startIndex)
            lastTime = events.time(at: events.endIndex - 1)
        }
    }

    /// The input of the trace file at `path`: its records checked and its structure kept.
    init(path: PathName, name: String) throws {
        feed = .file(path, name: name)
        var structure = Trace(header: try TraceReader(path: path, name: name).header)
        var threadPositions: [UInt64: UInt32] = [:], nodePositions: [UInt64: UInt32] = [:]
        var positions = EventPositions(), eventThreads: [UInt32] = [], valueCauseNodes: [UInt64: Set<UInt64>] = [:]
        var pullingNodes: Set<UInt64> = []
        var subscriptions = SubscriptionTree()
        var valueCounts: [Int32] = []
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
        self.filePositions = positions
        self.fileEventThreads = eventThreads
        self.fileValueCauseNodes = valueCauseNodes
        self.pullingNodes = pullingNodes
        self.valueCounts = valueCounts
        self.firstTime = firstTime
        self.lastTime = lastTime
    }

    /// Frees each event's thread, which only reading the events drawn looks up
    /// (`thread(ofEvent:)` finds none after): two million events of a file hold 8 MB of them.
    mutating func releaseEventThreads() {
        fileEventThreads = []
    }

    /// The nodes of the primary causes of `node`'s values (`Trace.valueCauseNodes(of:)`).
    func valueCauseNodes(of node: UInt64) -> Set<UInt64> {
        switch feed {
        case let .trace(trace): trace.valueCauseNodes(of: node)
        case .file: fileValueCauseNodes[node] ?? []
        }
    }

    /// The position of the event numbered `sequence` in the order the feed reads events.
    func position(ofEvent sequence: UInt64) -> Int? {
        switch feed {
        case let .trace(trace): trace.eventPosition(sequence: sequence)
        case .file: filePositions.position(of: sequence)
        }
    }

    /// The position in `structure.threads` of the thread of the event at `position`.
    func thread(atEvent position: Int) -> Int {
        switch feed {
        case let .trace(trace): trace.events.threadIndex(at: position)
        case .file: Int(fileEventThreads[position])
        }
    }

    /// The position in `structure.threads` of the thread of the event numbered `sequence`.
    func thread(ofEvent sequence: UInt64) -> Int? {
        position(ofEvent: sequence).map(thread(atEvent:))
    }
}
