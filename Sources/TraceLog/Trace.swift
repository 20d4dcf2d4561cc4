import Foundation

/// A whole trace in memory: nodes, subscriptions, threads, events, hops and marks, with
/// lookups by id. Built on `TraceReader`; use the reader directly for traces too large for
/// memory.
///
/// ```swift
/// let trace = try Trace(contentsOf: URL(fileURLWithPath: "traces/search.trace"))
/// for node in trace.nodes where node.label != nil {
///     print(node.name, node.label!, trace.eventCount(of: node.id), "events")
/// }
/// ```
public struct Trace: Sendable {
    /// An inner-stream edge derived from subscriptions' parents: `inner`'s subscriptions were
    /// started by subscriptions of `outer` (a `flatMap`, `flatten`, ...).
    public struct InnerEdge: Equatable, Hashable, Sendable {
        public var inner: UInt64
        public var outer: UInt64

        public init(inner: UInt64, outer: UInt64) {
            self.inner = inner
            self.outer = outer
        }
    }

    /// Kinds of record a trace can be read without, when what reads it never looks at them:
    /// a figure or a diff of a trace of millions of events saves their memory. They are still
    /// checked (`TraceValidator`); their lists stay empty.
    public struct Parts: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// `hops`: thread hops.
        public static let hops = Parts(rawValue: 1 << 0)
        /// `marks`: the user's marks.
        public static let marks = Parts(rawValue: 1 << 1)
        /// `disposals`: the ends of subscriptions.
        public static let disposals = Parts(rawValue: 1 << 2)
    }

    public var header: TraceHeader
    /// Nodes in id order.
    public private(set) var nodes: [NodeRecord] = []
    /// Subscriptions in the order read, and their tree (`TraceSubscriptions.tree`).
    public private(set) var subscriptions = TraceSubscriptions()
    public private(set) var disposals: [DisposeRecord] = []
    /// Where each subscribe record stood among the events: how many events were read before
    /// it, by index in `subscriptions`. A subscription observes what its upstream sent after
    /// its record (see `PipelineGraph`'s edge counts).
    public private(set) var subscriptionEventPositions: [UInt32] = []
    /// Where each subscription's first dispose record stood among the events (the end of its
    /// observations), by index in `subscriptions`; `UInt32.max` for one never disposed. Kept
    /// when `disposals` are left out too.
    public private(set) var subscriptionDisposalPositions: [UInt32] = []
    public private(set) var threads: [ThreadRecord] = []
    /// Events in the order they were read (sequence order, as a recorder writes them), held
    /// compactly (see `TraceEvents`).
    public internal(set) var events = TraceEvents()
    public private(set) var hops: [HopRecord] = []
    public private(set) var marks: [MarkRecord] = []
    public private(set) var summary: SummaryRecord?
    /// What the reader skipped.
    public private(set) var warnings: [TraceWarning] = []

    /// Node id to index in `nodes`, made only when a trace's node ids are not 1, 2, 3, … in
    /// file order (a recorder numbers them so): until then a node is found at `id - 1`
    /// (`densePosition`).
    private var nodeIndex: [UInt64: Int]?
    /// Thread id to index in `threads`, made only when thread ids are not 1, 2, 3, … (as for
    /// `nodeIndex`).
    private var threadIndex: [UInt64: Int]?
    /// Sequence number to index in `events`, made only when a trace's events are not in
    /// ascending sequence order (a recorder writes them ascending): until then a lookup is a
    /// binary search, which saves a dictionary entry per event (some 30 bytes).
    var eventIndex: [UInt64: Int]?
    /// Positions in `events` of each node's events, by the node's position in `nodes`.
    var eventsByNode: [[UInt32]] = []
    var validator = TraceValidator()
    private var leftOut: Parts = []

    /// An empty trace.
    public init(header: TraceHeader) {
        self.header = header
    }

    /// A trace whose events a recorder placed in `recordedEvents` as it recorded them
    /// (`RecordedColumns`), each node, subscription and thread at its id's position
    /// (`id - 1`): the recording's other records are then added (`add`, events excepted), and
    /// `finishRecordedEvents()` checks the events against them and indexes them.
    package init(header: TraceHeader, recordedEvents: TraceEvents) {
        self.header = header
        events = recordedEvents
    }

    /// Checks and indexes the events a recorder placed (`init(header:recordedEvents:)`) once
    /// every other record is added; returns what does not hold instead: ids numbered other
    /// than 1, 2, 3, … in the order defined, an event's node, subscription or thread not
    /// defined, sequence numbers not one after another. A recorder defines an id before it
    /// writes an event with it, numbers ids in that order and events one by one, and writes a
    /// cause only below its event's number, so what a trace read from its bytes checks event
    /// by event holds here for the whole run at once.
    package mutating func finishRecordedEvents() -> String? {
        func numberedInOrder(_ ids: [UInt64]) -> Bool {
            ids.withUnsafeBufferPointer { ids in ids.indices.allSatisfy { ids[$0] == UInt64($0 + 1) } }
        }
        guard numberedInOrder(events.nodeIDs), numberedInOrder(events.subscriptionIDs),
              numberedInOrder(events.threadIDs) else {
            return "expected the recording's ids numbered 1, 2, 3, … in the order defined"
        }
        guard events.recordedPositionsFit(), eventIndex == nil, validator.highestSequence == nil else {
            return "expected every event's node, subscription and thread defined, and events numbered one by one"
        }
        guard !events.isEmpty else { return nil }
        validator.noteSequences(events.sequence(at: 0)...events.sequence(at: events.endIndex - 1))
        var byNode: [[UInt32]] = []
        swap(&byNode, &eventsByNode)
        byNode.withUnsafeMutableBufferPointer { byNode in
            events.forEachNodePosition { position, node in byNode[node].append(UInt32(position)) }
        }
        swap(&byNode, &eventsByNode)
        return nil
    }

    /// Loads the trace at `url`, without the records in `leavingOut`.
    public init(contentsOf url: URL, leavingOut: Parts = []) throws {
        try self.init(reader: TraceReader(url: url), leavingOut: leavingOut)
    }

    /// Loads the trace at `path` (its bytes used as given), named `name` in messages (the
    /// path as shown when nil), without the records in `leavingOut`.
    package init(path: PathName, name: String? = nil, leavingOut: Parts = []) throws {
        try self.init(reader: TraceReader(path: path, name: name), leavingOut: leavingOut)
    }

    /// Loads a trace held in memory (a `Recorder`'s `bytes`).
    public init(bytes: [UInt8], name: String = "<memory>") throws {
        try self.init(reader: TraceReader(bytes: bytes, name: name))
    }

    /// Reads every remaining record of `reader`, checking each with a `TraceValidator`: every
    /// id a record uses was defined by an earlier record, and every cause is an earlier event.
    /// The records in `leavingOut` are checked, not kept.
    public init(reader: TraceReader, leavingOut: Parts = []) throws {
        self.init(header: reader.header)
        leftOut = leavingOut
        // No event line is shorter than `shortestEventLine` (no binary event than its fixed
        // record): what is left of a file of known size holds at most so many events. The columns are allocated once for them, not
        // doubled (and copied) as they fill; room never written is never made resident.
        if let size = reader.size {
            let shortest = reader.encoding == .binary ? 1 + BinaryTraceFormat.eventLength : Self.shortestEventLine
            let most = Int(max(0, size - reader.bytesRead)) / shortest
            events.reserveCapacity(events: most, causes: most)
        }
        // Event lines as the writer writes them go into the event columns straight from the
        // line's bytes: no record, no strings, no causes array made for each. Those a recorder
        // numbered one after another, with an integer value or none, wait in a batch whose
        // columns are appended together (`stage`); every other line first appends the batch.
        // The batch is reached through a pointer: a variable the closure below captured would
        // be checked for exclusive access at run time at each use.
        let batch = UnsafeMutablePointer<TraceEvents.Batch>.allocate(capacity: 1)
        batch.initialize(to: TraceEvents.Batch())
        defer {
            batch.pointee.deallocate()
            batch.deallocate()
        }
        // What is wrong with an event is located where it is caught, not in the closure: the
        // closure capturing the reader retained and released it at every line.
        func handle(_ event: inout WrittenEvent, _ bytes: UnsafeBufferPointer<UInt8>) throws {
            if stage(&event, bytes, in: &batch.pointee) { return }
            append(&batch.pointee)
            if let problem = add(&event, bytes) { throw Refusal(problem: problem) }
        }
        do {
            while let record = try reader.next(handlingEvents: handle) {
                append(&batch.pointee)
                if let problem = add(record) {
                    throw reader.problem(problem)
                }
            }
        } catch let refusal as Refusal {
            throw reader.problem(refusal.problem)
        }
        append(&batch.pointee)
        warnings = reader.warnings
    }

    /// The length of the shortest event line, its newline not counted: every field it must have,
    /// each with its shortest value (`{"type":"event","seq":1,"time":0,"node":1,"sub":1,
    /// "kind":"value","thread":1,"causes":[]}`).
    package static let shortestEventLine = 88

    /// What is wrong with an event line, thrown from the reader's call back to `Trace(reader:)`,
    /// which says where (the reader is still at that line).
    private struct Refusal: Error {
        let problem: String
    }

    /// Puts a scanned event into `batch` instead of adding it, when it is one that `add`
    /// would accept and store as a batch holds it: its sequence number follows the batch's
    /// last (or, first in the batch, is above every one checked, with events so far in
    /// order), its node, subscription and thread are at `id - 1` of their lists (so defined:
    /// only what the validator accepted is listed), it has at most one cause, below its own
    /// number, and its value is an integer whose text is its JSON, or none. Returns false,
    /// changing nothing, for any other event: `add` then checks it and says what is wrong.
    @inline(__always)
    private mutating func stage(_ event: inout WrittenEvent, _ bytes: UnsafeBufferPointer<UInt8>,
                                in batch: inout TraceEvents.Batch) -> Bool {
        if event.jsonInteger != nil {
            guard event.textIsJSON(in: bytes) else { return false }
        } else {
            guard case .none = event.text, event.json == nil else { return false }
        }
        guard event.moreCauses.isEmpty, event.firstCause < event.sequence, !event.truncated,
              event.omittedJSONBytes == 0, event.jsonError == nil, event.sequence != .max else { return false }
        if batch.count == 0 {
            guard eventIndex == nil, !validator.hasSummary,
                  validator.highestSequence.map({ event.sequence > $0 }) ?? true else { return false }
        } else {
            guard event.sequence == batch.firstSequence &+ UInt64(batch.count) else { return false }
        }
        guard let node = Self.densePosition(event.node, in: events.nodeIDs),
              let subscription = Self.densePosition(event.subscription, in: events.subscriptionIDs),
              let thread = Self.densePosition(event.thread, in: events.threadIDs) else { return false }
        let payload = event.jsonInteger.map { events.number(ofInteger: $0) } ?? 0
        if batch.count == 0 { batch.reset(firstSequence: event.sequence) }
        batch.add(time: event.time, node: node, subscription: subscription, thread: thread, kind: event.kind,
                  payload: payload, cause: event.firstCause)
        if batch.isFull { append(&batch) }
        return true
    }

    /// Adds the events waiting in `batch` (`stage`) and empties it.
    private mutating func append(_ batch: inout TraceEvents.Batch) {
        guard batch.count > 0 else { return }
        // Each event's position in its node's list, the lists' array checked once a batch of
        // a run (a batch of one, cut short by another record, gains nothing by it).
        let first = events.endIndex
        if batch.count == 1 {
            eventsByNode[batch.node(at: 0)].append(UInt32(first))
        } else {
            eventsByNode.withUnsafeMutableBufferPointer { byNode in
                for index in 0..<batch.count { byNode[batch.node(at: index)].append(UInt32(first + index)) }
            }
        }
        validator.noteSequences(batch.firstSequence...(batch.firstSequence + UInt64(batch.count - 1)))
        events.append(batch)
        batch.reset(firstSequence: 0)
    }

    /// Adds a record; returns what is wrong with it instead (see `TraceValidator`), and then
    /// adds nothing.
    @discardableResult
    public mutating func add(_ record: TraceRecord) -> String? {
        add(record, eventsBefore: events.count)
    }

    /// Adds a record that stood after the trace's first `eventsBefore` events: a recording's
    /// record added to its placed events (`init(header:recordedEvents:)`), which are all there
    /// already. Returns what is wrong with it instead, as `add(_:)` does.
    package mutating func add(_ record: TraceRecord, eventsBefore: Int) -> String? {
        if let problem = validator.check(record) { return problem }
        switch record {
        case .header:
            break
        case let .node(node):
            if nodeIndex == nil, node.id != UInt64(nodes.count + 1) {
                nodeIndex = Dictionary(uniqueKeysWithValues: nodes.enumerated().map { ($1.id, $0) })
            }
            nodeIndex?[node.id] = nodes.count
            nodes.append(node)
            eventsByNode.append([])
            events.nodeIDs.append(node.id)
        case let .subscribe(subscription):
            subscriptions.append(subscription)
            subscriptionEventPositions.append(UInt32(clamping: eventsBefore))
            subscriptionDisposalPositions.append(.max)
            events.subscriptionIDs.append(subscription.id)
        case let .dispose(dispose):
            if let index = subscriptionPosition(dispose.subscription), subscriptionDisposalPositions[index] == .max {
                subscriptionDisposalPositions[index] = UInt32(clamping: eventsBefore)
            }
            if !leftOut.contains(.disposals) { disposals.append(dispose) }
        case let .thread(thread):
            if threadIndex == nil, thread.id != UInt64(threads.count + 1) {
                threadIndex = Dictionary(uniqueKeysWithValues: threads.enumerated().map { ($1.id, $0) })
            }
            threadIndex?[thread.id] = threads.count
            threads.append(thread)
            events.threadIDs.append(thread.id)
        case let .event(event):
            guard let (node, subscription, thread) = placeEvent(sequence: event.sequence, node: event.node,
                                                                subscription: event.subscription, thread: event.thread)
            else { return nil }
            events.append(event, node: node, subscription: subscription, thread: thread)
        case let .hop(hop):
            if !leftOut.contains(.hops) { hops.append(hop) }
        case let .mark(mark):
            if !leftOut.contains(.marks) { marks.append(mark) }
        case let .label(label):
            if let index = nodePosition(label.node) { nodes[index].label = label.label }
        case let .summary(summary):
            self.summary = summary
        }
        return nil
    }

    /// Adds an event read from a line (`bytes`) as `add(.event(record))` adds its record;
    /// returns what is wrong with it instead, and then adds nothing.
    private mutating func add(_ event: inout WrittenEvent, _ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let problem: String?
        if event.moreCauses.isEmpty {
            // One cause or none: checked without making an array.
            let causes = CollectionOfOne(event.firstCause).prefix(event.firstCause == 0 ? 0 : 1)
            problem = validator.checkEvent(sequence: event.sequence, node: event.node, subscription: event.subscription,
                                           thread: event.thread, causes: causes)
        } else {
            problem = validator.checkEvent(sequence: event.sequence, node: event.node, subscription: event.subscription,
                                           thread: event.thread, causes: JSONParser.causes(of: event, in: bytes))
        }
        if let problem { return problem }
        guard let (node, subscription, thread) = placeEvent(sequence: event.sequence, node: event.node,
                                                            subscription: event.subscription, thread: event.thread)
        else { return nil }
        events.append(&event, bytes, node: node, subscription: subscription, thread: thread)
        return nil
    }

    /// The positions of a checked event's node, subscription and thread in their lists, with
    /// the event noted in the indexes as the next one of `events`.
    private mutating func placeEvent(sequence: UInt64, node: UInt64, subscription: UInt64,
                                     thread: UInt64) -> (node: Int, subscription: Int, thread: Int)? {
        // The validator has checked that the node, subscription and thread are defined.
        guard let nodePosition = nodePosition(node), let subscriptionPosition = subscriptionPosition(subscription),
              let threadPosition = threadPosition(thread) else { return nil }
        let position = events.endIndex
        if eventIndex == nil, let last = events.lastSequence, sequence < last {
            eventIndex = Dictionary(uniqueKeysWithValues: events.indices.map { (events.sequence(at: $0), $0) })
        }
        if eventIndex != nil { eventIndex?[sequence] = position }
        eventsByNode[nodePosition].append(UInt32(position))
        return (nodePosition, subscriptionPosition, threadPosition)
    }

    /// Sets the warnings a reader gave while the trace was read record by record (`add`).
    package mutating func setWarnings(_ warnings: [TraceWarning]) {
        self.warnings = warnings
    }

    // MARK: Lookups

    public func node(_ id: UInt64) -> NodeRecord? { nodePosition(id).map { nodes[$0] } }
    public func subscription(_ id: UInt64) -> SubscriptionRecord? { subscriptionPosition(id).map { subscriptions[$0] } }
    public func thread(_ id: UInt64) -> ThreadRecord? { threadPosition(id).map { threads[$0] } }
    public func event(sequence: UInt64) -> EventRecord? {
        eventPosition(sequence: sequence).map { events[$0] }
    }

    /// The index in `subscriptions` of the subscription `id`.
    public func subscriptionIndex(_ id: UInt64) -> Int? { subscriptionPosition(id) }

    /// A recorder numbers nodes, subscriptions and threads 1, 2, 3, … in file order: the one
    /// numbered `id` is then at `id - 1` of its list `ids`, found without hashing or searching
    /// (the events' id columns are read, not the records, which would be copied out whole).
    @inline(__always)
    static func densePosition(_ id: UInt64, in ids: [UInt64]) -> Int? {
        guard id >= 1, id <= UInt64(ids.count), ids[Int(id) - 1] == id else { return nil }
        return Int(id) - 1
    }

    @inline(__always)
    private func nodePosition(_ id: UInt64) -> Int? {
        Self.densePosition(id, in: events.nodeIDs) ?? nodeIndex?[id]
    }

    @inline(__always)
    private func threadPosition(_ id: UInt64) -> Int? {
        Self.densePosition(id, in: events.threadIDs) ?? threadIndex?[id]
    }

    /// The index in `subscriptions` (and in `subscriptionEventPositions`) of the subscription
    /// `id`, or nil for an id the trace does not define.
    @inline(__always)
    public func subscriptionPosition(_ id: UInt64) -> Int? {
        Self.densePosition(id, in: events.subscriptionIDs) ?? subscriptions.tree.position(of: id)
    }

    /// The position in `events` of the event numbered `sequence`.
    public func eventPosition(sequence: UInt64) -> Int? {
        if let eventIndex { return eventIndex[sequence] }
        var low = 0, high = events.count
        while low < high {
            let middle = (low + high) / 2
            if events.sequence(at: middle) < sequence { low = middle + 1 } else { high = middle }
        }
        return low < events.count && events.sequence(at: low) == sequence ? low : nil
    }

    /// The events of every subscription of a node, in sequence order.
    public func events(of node: UInt64) -> [EventRecord] {
        eventPositionList(of: node).map { events[Int($0)] }
    }

    /// The positions in `events` of the events of every subscription of a node, in sequence order.
    public func eventPositions(of node: UInt64) -> [Int] {
        eventPositionList(of: node).map { Int($0) }
    }

    /// How many events a node sent, over all its subscriptions.
    public func eventCount(of node: UInt64) -> Int { eventPositionList(of: node).count }

    private func eventPositionList(of node: UInt64) -> [UInt32] {
        nodePosition(node).map { eventsByNode[$0] } ?? []
    }

    /// The nodes of the events that were the primary causes of a node's values: which
    /// streams fed what it sent (the inner streams a higher-order operator delivered, the
    /// work a tap's elements started).
    public func valueCauseNodes(of node: UInt64) -> Set<UInt64> {
        var nodes: Set<UInt64> = []
        for position in eventPositionList(of: node) where events.kind(at: Int(position)) == .value {
            if let cause = events.firstCause(at: Int(position)), let origin = eventPosition(sequence: cause) {
                nodes.insert(events.node(at: origin))
            }
        }
        return nodes
    }

    /// Whether a node recorded pulls: an `AsyncSequence`'s tap.
    public func recordsPulls(_ node: UInt64) -> Bool {
        eventPositionList(of: node).contains { events.kind(at: Int($0)) == .pull }
    }

    /// The first node whose label (or, failing that, name) is `name`.
    public func node(named name: String) -> NodeRecord? {
        nodes.first { $0.label == name } ?? nodes.first { $0.name == name }
    }

    /// The nodes no other node reads from, but sinks read: the ends of the pipelines.
    public var sinks: [NodeRecord] { nodes.filter { $0.kind == .sink } }

    /// The nodes with no upstream: sources.
    public var sources: [NodeRecord] { nodes.filter { $0.upstream.isEmpty } }

    /// Inner-stream edges, derived from subscriptions' parents (the recorder does not write
    /// them): for each subscription started by a higher-order subscription, the edge from its
    /// node to the parent's node — leaving out nodes that only feed another node started by
    /// the same parent, so an inner chain `source → map` yields one edge, from `map`.
    /// Sorted by (inner, outer).
    public var innerEdges: [InnerEdge] {
        subscriptions.tree.innerEdges { self.node($0) }
    }

    /// `innerEdges` of the subscriptions given by each one's node and parent, `node` finding a
    /// node by id and `nodeOfSubscription` a subscription's node by the subscription's id: for
    /// readers that keep subscriptions in a form of their own (a marble figure of a long trace
    /// keeps only what it draws of them).
    package static func innerEdges(of subscriptions: some Sequence<(node: UInt64, parent: UInt64)>,
                                   node: (UInt64) -> NodeRecord?,
                                   nodeOfSubscription: (UInt64) -> UInt64?) -> [InnerEdge] {
        var childrenByParent: [UInt64: Set<UInt64>] = [:]
        for subscription in subscriptions where subscription.parent != 0 {
            guard let child = node(subscription.node), child.kind != .sink else { continue }
            childrenByParent[subscription.parent, default: []].insert(subscription.node)
        }
        var edges = Set<InnerEdge>()
        for (parent, children) in childrenByParent {
            guard let outer = nodeOfSubscription(parent) else { continue }
            let fed = Set(children.flatMap { node($0)?.upstream.map(\.node) ?? [] })
            for child in children where !fed.contains(child) && child != outer {
                edges.insert(InnerEdge(inner: child, outer: outer))
            }
        }
        return edges.sorted { ($0.inner, $0.outer) < ($1.inner, $1.outer) }
    }
}
