/// Checks the ids of a trace's records as they are read: every id a record uses was defined
/// by an earlier record, no id is defined twice, no sequence number repeats, and every cause
/// is an earlier event (so causes never form a cycle).
///
/// `Trace` checks each record it holds with one; the streaming verbs (`TraceStats`,
/// `PerfettoExport`) check with one too, so every reader accepts and rejects the same traces.
/// Memory grows with the gaps in the ids, not with their number: the recorder numbers ids
/// 1, 2, 3, … in file order, which a few ranges hold.
public struct TraceValidator: Sendable {
    private var nodes = IDSet()
    private var subscriptions = IDSet()
    private var threads = IDSet()
    private var sequences = IDSet()
    /// Whether the summary was checked: it is the last record, and there is one.
    private(set) var hasSummary = false

    public init() {}

    /// Checks `record` and remembers the ids it defines; returns what is wrong with it instead
    /// (it then defines nothing).
    public mutating func check(_ record: TraceRecord) -> String? {
        if hasSummary { return "expected the summary to be the last record, found \(record.typeName == "event" ? "an" : "a") \(record.typeName) record after it" }
        switch record {
        case .header:
            return "expected one header, found a second"
        case let .node(node):
            guard !nodes.contains(node.id) else { return "expected a new node id, found node \(node.id) again" }
            for edge in node.upstream where !nodes.contains(edge.node) {
                return "expected upstream node \(edge.node) to be defined before node \(node.id)"
            }
            nodes.insert(node.id)
        case let .subscribe(subscription):
            guard !subscriptions.contains(subscription.id) else {
                return "expected a new subscription id, found subscription \(subscription.id) again"
            }
            if let problem = require(node: subscription.node) ?? require(thread: subscription.thread) { return problem }
            if subscription.parent != 0, !subscriptions.contains(subscription.parent) {
                return "expected parent subscription \(subscription.parent) to be defined before it is used"
            }
            for (key, linked) in [("observes", subscription.observes), ("observedBy", subscription.observedBy)] {
                for other in linked ?? [] where !subscriptions.contains(other) {
                    return "expected subscription \(other) of \"\(key)\" to be defined before it is used"
                }
            }
            subscriptions.insert(subscription.id)
        case let .dispose(dispose):
            if let problem = require(subscription: dispose.subscription) ?? require(thread: dispose.thread) { return problem }
        case let .thread(thread):
            guard !threads.contains(thread.id) else { return "expected a new thread id, found thread \(thread.id) again" }
            threads.insert(thread.id)
        case let .event(event):
            return checkEvent(sequence: event.sequence, node: event.node, subscription: event.subscription,
                              thread: event.thread, causes: event.causes)
        case let .hop(hop):
            if let problem = require(thread: hop.from) ?? hop.to.flatMap(require(thread:)) { return problem }
        case let .mark(mark):
            if let problem = require(thread: mark.thread) { return problem }
        case let .label(label):
            guard nodes.contains(label.node) else { return "expected node \(label.node) to be defined before its label" }
        case .summary:
            hasSummary = true
        }
        return nil
    }

    /// Checks an event given by its fields, as `check(.event(…))` checks its record.
    package mutating func checkEvent(sequence: UInt64, node: UInt64, subscription: UInt64, thread: UInt64,
                                     causes: some Collection<UInt64>) -> String? {
        if let problem = require(node: node) ?? require(subscription: subscription) ?? require(thread: thread) {
            return problem
        }
        if hasSummary { return "expected the summary to be the last record, found an event record after it" }
        guard !sequences.contains(sequence) else {
            return "expected a new sequence number, found \(sequence) again"
        }
        // A cause at or after its effect is a cycle: following causes would never end.
        for cause in causes where cause >= sequence {
            let what = cause == sequence ? "the event itself" : "a later event"
            return "expected causes to be earlier events (sequence numbers below \(sequence)), found \(cause): \(what)"
        }
        sequences.insert(sequence)
        return nil
    }

    /// The highest sequence number checked, nil before the first: a higher one is new.
    var highestSequence: UInt64? { sequences.highest }

    /// Notes the sequence numbers of events checked together, every one above
    /// `highestSequence`, as `checkEvent` notes each.
    mutating func noteSequences(_ numbers: ClosedRange<UInt64>) {
        sequences.insert(above: numbers)
    }

    /// Checks the record `reader` just read; throws a `TraceError` at its line when it is wrong.
    public mutating func check(_ record: TraceRecord, readBy reader: TraceReader) throws {
        if let problem = check(record) {
            throw reader.problem(problem)
        }
    }

    @inline(__always)
    private func require(node id: UInt64) -> String? {
        nodes.contains(id) ? nil : "expected node \(id) to be defined before it is used"
    }

    @inline(__always)
    private func require(subscription id: UInt64) -> String? {
        subscriptions.contains(id) ? nil : "expected subscription \(id) to be defined before it is used"
    }

    @inline(__always)
    private func require(thread id: UInt64) -> String? {
        threads.contains(id) ? nil : "expected thread \(id) to be defined before it is used"
    }
}

/// A set of ids held as ascending ranges of consecutive ids, plus a hash set for ids that
/// arrive below the highest one: ids written 1, 2, 3, … take one range whatever their number,
/// and any order still costs constant time per id.
struct IDSet: Sendable {
    /// Disjoint, ascending, not adjacent.
    private var ranges: [ClosedRange<UInt64>] = []
    private var others: Set<UInt64> = []

    /// Whether the set holds `id`: an id of the last range (the commonest case, every id
    /// for ids written in order) without a call.
    @inline(__always)
    func contains(_ id: UInt64) -> Bool {
        guard let last = ranges.last, id <= last.upperBound else { return false }
        return id >= last.lowerBound || containsBelowLastRange(id)
    }

    private func containsBelowLastRange(_ id: UInt64) -> Bool {
        var low = 0, high = ranges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < id {
                low = middle + 1
            } else if ranges[middle].lowerBound > id {
                high = middle - 1
            } else {
                return true
            }
        }
        return others.contains(id)
    }

    /// The highest id, nil for none.
    var highest: UInt64? { ranges.last?.upperBound }

    /// Adds ids all above `highest`.
    mutating func insert(above ids: ClosedRange<UInt64>) {
        if let last = ranges.last, ids.lowerBound == last.upperBound + 1 {
            ranges[ranges.count - 1] = last.lowerBound...ids.upperBound
        } else {
            ranges.append(ids)
        }
    }

    /// Adds an id not yet in the set.
    @inline(__always)
    mutating func insert(_ id: UInt64) {
        guard let last = ranges.last else {
            ranges.append(id...id)
            return
        }
        if id > last.upperBound {
            if id == last.upperBound + 1 {
                ranges[ranges.count - 1] = last.lowerBound...id
            } else {
                ranges.append(id...id)
            }
        } else {
            others.insert(id)
        }
    }
}

extension TraceRecord {
    /// The record's `type`, as its line names it.
    var typeName: String {
        switch self {
        case .header: return "header"
        case .node: return "node"
        case .subscribe: return "subscribe"
        case .dispose: return "dispose"
        case .thread: return "thread"
        case .event: return "event"
        case .hop: return "hop"
        case .mark: return "mark"
        case .label: return "label"
        case .summary: return "summary"
        }
    }
}
