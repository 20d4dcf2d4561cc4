import Foundation
import TraceLog

/// Numbers for the strings both sides of a diff share: two events carry the same payload (or
/// run on the same logical thread) exactly when their numbers are equal, whichever trace they
/// come from.
final class DiffStrings {
    private var numbers: [String: UInt32] = [:]
    private var strings: [String] = []

    func number(_ string: String) -> UInt32 {
        if let known = numbers[string] { return known }
        let number = UInt32(strings.count)
        strings.append(string)
        numbers[string] = number
        return number
    }

    func string(_ number: UInt32) -> String { strings[Int(number)] }
}

/// One event as a diff compares it: 40 bytes, its texts as shared numbers (`DiffStrings`).
struct DiffEvent {
    var sequence: UInt64
    var time: Int64
    /// The event's position among its trace's events, in the order they were read.
    var position: UInt32
    /// The logical thread name's number.
    var thread: UInt32
    /// The payload's number (the empty text's for none).
    var payload: UInt32
    /// The request of the boundary call whose answer the event carries, as its number in
    /// `DiffTexts.requests` plus one; 0 for none (see `RequestContexts`).
    var request: UInt32
    /// The kind's number (`EventKind.number`), plus `payloadFlag` when the event has a payload.
    var kindAndFlag: UInt8

    static let payloadFlag: UInt8 = 0x80

    init(sequence: UInt64, time: Int64, position: Int, thread: UInt32, kind: EventKind, payload: String?,
         request: UInt32 = 0, strings: DiffStrings) {
        self.sequence = sequence
        self.request = request
        self.time = time
        self.position = UInt32(position)
        self.thread = thread
        self.payload = strings.number(payload ?? "")
        kindAndFlag = payload == nil ? kind.number : kind.number | Self.payloadFlag
    }

    var kind: EventKind { EventKind(number: kindAndFlag & ~Self.payloadFlag) ?? .value }
    var hasPayload: Bool { kindAndFlag & Self.payloadFlag != 0 }

    /// What events are aligned by: the kind and the payload (none is the empty text).
    var key: UInt64 { UInt64(kindAndFlag & ~Self.payloadFlag) << 32 | UInt64(payload) }
}

/// The payloads, logical thread names and call requests of both sides of a diff.
struct DiffTexts {
    let payloads = DiffStrings()
    let threads = DiffStrings()
    let requests = DiffStrings()
}

/// The request each event answers: events are told apart by it where they are paired up
/// (`TraceDiff`), so that an answer to one question is never reported as a changed answer to
/// another. An event answers a request when
/// - its subscription is a start of a boundary call (a `call` node's, with a request),
/// - or its subscription began, by the same parent, after such a start (the service's own
///   streams and what the call runs beside it: the last start under that parent says which),
/// - or else its first cause answers one (the call's answer passed on downstream).
///
/// Fed the records in the order read: nodes and subscriptions before the events that use
/// them. Keeps 4 bytes per event and an entry per subscription that answers a request.
struct RequestContexts {
    private let requests: DiffStrings
    private var calls = Set<UInt64>()
    private var bySubscription: [UInt64: UInt32] = [:]
    /// By parent subscription: the request of its last call start.
    private var lastStart: [UInt64: UInt32] = [:]
    /// By event position, with positions by sequence number for the causes.
    private(set) var byPosition: [UInt32] = []
    private var positions = SequencePositions()

    init(requests: DiffStrings) { self.requests = requests }

    mutating func node(_ node: NodeRecord) {
        if node.name == "call" { calls.insert(node.id) }
    }

    mutating func subscription(_ subscription: SubscriptionRecord) {
        if calls.contains(subscription.node), let request = subscription.requestKey {
            let number = requests.number(request) + 1
            bySubscription[subscription.id] = number
            if subscription.parent != 0 { lastStart[subscription.parent] = number }
        } else if subscription.parent != 0, let number = lastStart[subscription.parent] {
            bySubscription[subscription.id] = number
        }
    }

    /// The next event's request number (0: none), noted for the events it causes.
    mutating func event(sequence: UInt64, subscription: UInt64, firstCause: UInt64?) -> UInt32 {
        var number = bySubscription[subscription] ?? 0
        if number == 0, let firstCause, let position = positions.position(of: firstCause) {
            number = byPosition[position]
        }
        positions.append(sequence)
        byPosition.append(number)
        return number
    }
}

/// One side of a diff: a trace's nodes, and its events node by node.
///
/// Made from a `Trace` in memory, or read from a file as a stream: then only the nodes, a
/// count and first event per node and the events in 32-byte form are kept, the events in a
/// temporary file once more than `EventSpill.limit` wait in memory. What a diff needs of every
/// event at once (the causes of events only in B, the subscriptions around boundary calls) it
/// reads in another pass over the file.
final class DiffSide {
    let header: TraceHeader
    private(set) var nodes: [NodeRecord] = []
    /// How many events the trace has.
    private(set) var eventCount = 0
    /// How many of them are pulls (an AsyncSequence tap's demand).
    private(set) var pullCount = 0
    /// The sequence number of each node's first event, by node id.
    private(set) var firstSequence: [UInt64: UInt64] = [:]
    /// Whether the events' sequence numbers ascend in the order they were read.
    private(set) var ascending = true
    /// What the reader skipped.
    private(set) var warnings: [TraceWarning] = []

    private var nodeIndex: [UInt64: Int] = [:]
    private var counts: [Int] = []
    private let texts: DiffTexts
    /// For a trace in memory: the request number of each event, by position (`RequestContexts`).
    private var requestByPosition: [UInt32] = []
    private let source: Source

    private enum Source {
        case trace(Trace)
        case file(PathName, name: String, EventSpill)
    }

    /// The side of `trace`, held in memory.
    init(_ trace: Trace, texts: DiffTexts) {
        header = trace.header
        nodes = trace.nodes
        self.texts = texts
        source = .trace(trace)
        for (position, node) in nodes.enumerated() {
            nodeIndex[node.id] = position
            counts.append(trace.eventCount(of: node.id))
        }
        let events = trace.events
        eventCount = events.count
        var contexts = RequestContexts(requests: texts.requests)
        for node in nodes { contexts.node(node) }
        for subscription in trace.subscriptions { contexts.subscription(subscription) }
        var previous: UInt64?
        for position in events.indices {
            let sequence = events.sequence(at: position), node = events.node(at: position)
            _ = contexts.event(sequence: sequence, subscription: trace.subscriptions[events.subscriptionIndex(at: position)].id,
                               firstCause: events.firstCause(at: position))
            if sequence < firstSequence[node] ?? .max { firstSequence[node] = sequence }
            if let previous, sequence <= previous { ascending = false }
            previous = sequence
            if events.kind(at: position) == .pull { pullCount += 1 }
        }
        requestByPosition = contexts.byPosition
    }

    /// Reads the trace at `path`, named `name` in messages, checking every record as `Trace`
    /// does (the same errors, at the same lines), and keeps its events by node.
    init(path: PathName, name: String, texts: DiffTexts, spillLimit: Int = EventSpill.limit) throws {
        let reader = try TraceReader(path: path, name: name)
        header = reader.header
        self.texts = texts
        let spill = EventSpill(limit: spillLimit, name: reader.name)
        source = .file(path, name: name, spill)
        var validator = TraceValidator()
        var threadNumbers: [UInt64: UInt32] = [:]
        var contexts = RequestContexts(requests: texts.requests)
        var previous: UInt64?
        while let record = try reader.next() {
            try validator.check(record, readBy: reader)
            switch record {
            case let .subscribe(subscription):
                contexts.subscription(subscription)
            case let .node(node):
                contexts.node(node)
                nodeIndex[node.id] = nodes.count
                nodes.append(node)
                counts.append(0)
            case let .thread(thread):
                threadNumbers[thread.id] = texts.threads.number(thread.scheduler ?? thread.name)
            case let .label(label):
                if let index = nodeIndex[label.node] { nodes[index].label = label.label }
            case let .event(event):
                // The validator has checked that the node and thread are defined.
                guard let node = nodeIndex[event.node], let thread = threadNumbers[event.thread] else { continue }
                counts[node] += 1
                if event.sequence < firstSequence[event.node] ?? .max { firstSequence[event.node] = event.sequence }
                if let previous, event.sequence <= previous { ascending = false }
                previous = event.sequence
                let request = contexts.event(sequence: event.sequence, subscription: event.subscription,
                                             firstCause: event.causes.first)
                try spill.append(DiffEvent(sequence: event.sequence, time: event.time, position: eventCount, thread: thread,
                                           kind: event.kind, payload: event.json ?? event.text, request: request,
                                           strings: texts.payloads),
                                 node: node)
                eventCount += 1
                if event.kind == .pull { pullCount += 1 }
            default:
                break
            }
        }
        warnings = reader.warnings
    }

    func node(_ id: UInt64) -> NodeRecord? { nodeIndex[id].map { nodes[$0] } }

    /// The position of the node `id` in `nodes`.
    func nodePosition(_ id: UInt64) -> Int? { nodeIndex[id] }

    /// How many events the node `id` sent, over all its subscriptions.
    func eventCount(of id: UInt64) -> Int { nodeIndex[id].map { counts[$0] } ?? 0 }

    /// The events of every subscription of the node `id`, in the order they were read.
    /// From the `start`th on, at most `limit` of them; a trace held in memory gives all the
    /// rest at once.
    func events(of id: UInt64, from start: Int = 0, limit: Int = .max) throws -> [DiffEvent] {
        guard let index = nodeIndex[id] else { return [] }
        switch source {
        case let .file(_, _, spill):
            return try spill.events(of: index, from: start, limit: limit)
        case let .trace(trace):
            var threadNumbers: [UInt64: UInt32] = [:]
            return trace.eventPositions(of: id).dropFirst(start).map { position in
                let events = trace.events, threadID = events.thread(at: position)
                let thread = threadNumbers[threadID] ?? texts.threads.number(trace.logicalThreadName(threadID))
                threadNumbers[threadID] = thread
                return DiffEvent(sequence: events.sequence(at: position), time: events.time(at: position),
                                 position: position, thread: thread, kind: events.kind(at: position),
                                 payload: events.payload(at: position), request: requestByPosition[position],
                                 strings: texts.payloads)
            }
        }
    }

    /// An event of this side as a difference shows it.
    func ref(_ event: DiffEvent) -> TraceDiff.EventRef {
        TraceDiff.EventRef(seq: event.sequence, time: event.time, kind: event.kind.rawValue,
                           value: event.hasPayload ? texts.payloads.string(event.payload) : nil,
                           thread: texts.threads.string(event.thread))
    }

    // MARK: Passes over every event

    /// Calls `body` with each event's sequence number and time, in the order they were read.
    func forEachEventTime(_ body: (_ sequence: UInt64, _ time: Int64) throws -> Void) throws {
        switch source {
        case let .trace(trace):
            let events = trace.events
            for position in events.indices { try body(events.sequence(at: position), events.time(at: position)) }
        case let .file(path, name, _):
            let reader = try TraceReader(path: path, name: name)
            while let record = try reader.next() {
                if case let .event(event) = record { try body(event.sequence, event.time) }
            }
        }
    }

    /// One event as a pass over a side's events (`forEachEvent`) gives it.
    struct PassEvent {
        /// Its position among the side's events, in the order read.
        var position: Int
        var sequence: UInt64
        var time: Int64
        /// The thread as the trace numbers it.
        var threadID: UInt64
        /// The logical thread, as `DiffEvent.thread` numbers it.
        var thread: UInt32
        var node: UInt64
        var kind: EventKind
        var causes: ArraySlice<UInt64>
        /// Its subscription, and the thread (the trace's id) and time of that subscription's
        /// subscribe record, when the trace has one.
        var subscription: UInt64
        var subscribed: (threadID: UInt64, time: Int64)?
    }

    /// Calls `body` with each event, in the order they were read.
    func forEachEvent(_ body: (PassEvent) throws -> Void) throws {
        var threadNumbers: [UInt64: UInt32] = [:]
        switch source {
        case let .trace(trace):
            let events = trace.events
            let subscriptions = trace.subscriptions
            for position in events.indices {
                let threadID = events.thread(at: position)
                let thread = threadNumbers[threadID] ?? texts.threads.number(trace.logicalThreadName(threadID))
                threadNumbers[threadID] = thread
                let index = events.subscriptionIndex(at: position)
                let record = index < subscriptions.count ? subscriptions[index] : nil
                try body(PassEvent(position: position, sequence: events.sequence(at: position), time: events.time(at: position),
                                   threadID: threadID, thread: thread, node: events.node(at: position),
                                   kind: events.kind(at: position), causes: events.causes(at: position),
                                   subscription: record?.id ?? 0, subscribed: record.map { ($0.thread, $0.time) }))
            }
        case let .file(path, name, _):
            let reader = try TraceReader(path: path, name: name)
            var position = 0
            var subscribed: [UInt64: (threadID: UInt64, time: Int64)] = [:]
            while let record = try reader.next() {
                switch record {
                case let .thread(thread):
                    threadNumbers[thread.id] = texts.threads.number(thread.scheduler ?? thread.name)
                case let .subscribe(subscription):
                    subscribed[subscription.id] = (subscription.thread, subscription.time)
                case let .event(event):
                    // The first pass checked that every event's thread is defined.
                    try body(PassEvent(position: position, sequence: event.sequence, time: event.time,
                                       threadID: event.thread, thread: threadNumbers[event.thread] ?? 0, node: event.node,
                                       kind: event.kind, causes: event.causes[...], subscription: event.subscription,
                                       subscribed: subscribed[event.subscription]))
                    position += 1
                default:
                    break
                }
            }
        }
    }

    /// Calls `body` with the thread (the trace's id) and time of each subscribe and dispose
    /// record: the work a thread did between events.
    func forEachSubscriptionChange(_ body: (_ threadID: UInt64, _ time: Int64) throws -> Void) throws {
        switch source {
        case let .trace(trace):
            for subscription in trace.subscriptions { try body(subscription.thread, subscription.time) }
            for disposal in trace.disposals { try body(disposal.thread, disposal.time) }
        case let .file(path, name, _):
            let reader = try TraceReader(path: path, name: name)
            while let record = try reader.next() {
                switch record {
                case let .subscribe(subscription): try body(subscription.thread, subscription.time)
                case let .dispose(disposal): try body(disposal.thread, disposal.time)
                default: break
                }
            }
        }
    }

    /// Calls `body` with each hop that started: its subscription, the thread it ran on and
    /// when it started.
    func forEachHopStart(_ body: (_ subscription: UInt64, _ threadID: UInt64, _ started: Int64) throws -> Void) throws {
        switch source {
        case let .trace(trace):
            for hop in trace.hops {
                if let started = hop.started, let to = hop.to { try body(hop.subscription, to, started) }
            }
        case let .file(path, name, _):
            let reader = try TraceReader(path: path, name: name)
            while let record = try reader.next() {
                if case let .hop(hop) = record, let started = hop.started, let to = hop.to {
                    try body(hop.subscription, to, started)
                }
            }
        }
    }

    /// The name of a logical thread `DiffEvent.thread` numbers.
    func threadName(_ number: UInt32) -> String { texts.threads.string(number) }

    /// Calls `body` with each subscription, in the order they were read.
    func forEachSubscription(_ body: (SubscriptionRecord) throws -> Void) throws {
        switch source {
        case let .trace(trace):
            for subscription in trace.subscriptions { try body(subscription) }
        case let .file(path, name, _):
            let reader = try TraceReader(path: path, name: name)
            while let record = try reader.next() {
                if case let .subscribe(subscription) = record { try body(subscription) }
            }
        }
    }
}

/// Positions of events by sequence number, held as runs of consecutive numbers at
/// consecutive positions: a recorder numbers its events 1, 2, 3, … in the order it writes
/// them, which one run holds whatever their number. A lookup is a binary search over the runs
/// while the numbers ascend, a dictionary from the first that does not.
struct SequencePositions {
    /// (first sequence number, first position, count), in the order appended.
    private var runs: [(sequence: UInt64, position: Int, count: Int)] = []
    private var index: [UInt64: Int]?
    private(set) var count = 0

    mutating func append(_ sequence: UInt64) {
        // Sequence numbers are unique (`TraceValidator`).
        if index == nil, let last = runs.last, sequence <= last.sequence + UInt64(last.count - 1) {
            var index: [UInt64: Int] = [:]
            for run in runs {
                for offset in 0..<run.count { index[run.sequence + UInt64(offset)] = run.position + offset }
            }
            self.index = index
        }
        index?[sequence] = count
        if let last = runs.last, last.sequence.addingReportingOverflow(UInt64(last.count)) == (sequence, false) {
            runs[runs.count - 1].count += 1
        } else {
            runs.append((sequence, count, 1))
        }
        count += 1
    }

    func sequence(at position: Int) -> UInt64 {
        var low = 0, high = runs.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if runs[middle].position <= position { low = middle } else { high = middle - 1 }
        }
        return runs[low].sequence + UInt64(position - runs[low].position)
    }

    func position(of sequence: UInt64) -> Int? {
        if let index { return index[sequence] }
        var low = 0, high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].sequence + UInt64(runs[middle].count - 1) < sequence { low = middle + 1 } else { high = middle }
        }
        guard low < runs.count, runs[low].sequence <= sequence else { return nil }
        return runs[low].position + Int(sequence - runs[low].sequence)
    }
}

/// A trace's events grouped by node, in memory until more than `limit` wait, then in an
/// unlinked temporary file: each overflow writes every node's waiting events as one segment.
final class EventSpill {
    /// Events held in memory before they are written out: 8 MB of them.
    static let limit = 1 << 18

    private let limit: Int
    /// The trace's name, for messages.
    private let name: String
    private var waiting: [[DiffEvent]] = []
    private var waitingCount = 0
    /// Per node: its segments in the file, as (byte offset, event count).
    private var segments: [[(offset: Int64, count: Int)]] = []
    private var descriptor: Int32 = -1
    private var fileSize: Int64 = 0

    init(limit: Int, name: String) {
        self.limit = max(1, limit)
        self.name = name
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    func append(_ event: DiffEvent, node: Int) throws {
        while waiting.count <= node {
            waiting.append([])
            segments.append([])
        }
        waiting[node].append(event)
        waitingCount += 1
        if waitingCount >= limit { try writeOut() }
    }

    /// The node's events from the `start`th on, at most `limit` of them, in the order they
    /// were appended.
    func events(of node: Int, from start: Int, limit: Int) throws -> [DiffEvent] {
        guard node < waiting.count else { return [] }
        var events: [DiffEvent] = []
        var skip = start, remaining = limit
        for segment in segments[node] where remaining > 0 {
            guard skip < segment.count else {
                skip -= segment.count
                continue
            }
            let count = min(segment.count - skip, remaining)
            events += try read(count, at: segment.offset + Int64(skip * MemoryLayout<DiffEvent>.stride))
            skip = 0
            remaining -= count
        }
        let inMemory = waiting[node]
        if remaining > 0, skip < inMemory.count {
            events += inMemory[skip..<(skip + min(inMemory.count - skip, remaining))]
        }
        return events
    }

    private func read(_ count: Int, at offset: Int64) throws -> [DiffEvent] {
        let bytes = count * MemoryLayout<DiffEvent>.stride
        var complete = false
        let events = [DiffEvent](unsafeUninitializedCapacity: count) { buffer, initialized in
            let target = UnsafeMutableRawPointer(buffer.baseAddress!)
            var done = 0
            while done < bytes {
                let read = pread(descriptor, target + done, bytes - done, off_t(offset) + off_t(done))
                guard read > 0 else { break }
                done += read
            }
            complete = done == bytes
            initialized = complete ? count : 0
        }
        guard complete else { throw failure("cannot read back the temporary file") }
        return events
    }

    private func writeOut() throws {
        if descriptor < 0 { try open() }
        for node in waiting.indices where !waiting[node].isEmpty {
            let offset = fileSize
            let written = waiting[node].withUnsafeBytes { bytes -> Bool in
                var done = 0
                while done < bytes.count {
                    let count = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
                    guard count > 0 else { return false }
                    done += count
                }
                return true
            }
            guard written else { throw failure("cannot write the temporary file: \(String(cString: strerror(errno)))") }
            segments[node].append((offset, waiting[node].count))
            fileSize += Int64(waiting[node].count * MemoryLayout<DiffEvent>.stride)
            waiting[node] = []
        }
        waitingCount = 0
    }

    private func open() throws {
        var template = Array((NSTemporaryDirectory() + "/marbles-diff-XXXXXX").utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw failure("cannot create a temporary file: \(String(cString: strerror(errno)))") }
        // Unlinked at once: the file goes away with the descriptor, however the process ends.
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    }

    private func failure(_ message: String) -> TraceError {
        TraceError(file: name, line: 0, column: 0, message: "holding the events of a diff: \(message)")
    }
}
