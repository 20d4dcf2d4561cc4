/// What crossed each edge of a recorded pipeline, exactly: from the links the recorder wrote
/// into the subscribe records (`observes`, `observedBy`), each a subscription that observed
/// another. A link carries the events the observed subscription sent after the record that
/// holds the link (when the observation began) and before the observer's disposal; the events
/// of a sink (a `<~` binding, observed by the property it sets) are those of the subscription
/// it observes (its parent).
///
/// Traces recorded before the links were written have none: `init` returns nil and
/// `TraceEdges` infers the counts from causes instead (`EdgeCrossings`). A subscription without a link whose
/// parent (the subscription that started it) belongs to a node it is upstream of counts as
/// observed by that parent. An edge with no link between nodes whose every subscription of the
/// upstream one had ended before the downstream one's first began carried nothing: an
/// observation of an ended subscription (a start of a property's producer after the property
/// ended) has no link, the recorder having let go of the ended one's id. Any other edge with no
/// link in a trace that has some (an observation the recorder could not see) is inferred,
/// except one from an `Action`: its answers list every observer on their own records, so an
/// edge no link joins to them (into the action's `isExecuting` or `isEnabled`, which it sets
/// itself) carried nothing.
struct ObservedCrossings {
    typealias EventCounts = EdgeCounts

    /// The node pairs links join, by (observed node, observer node), each with its index in
    /// `counts`: what crossed between them.
    private var pairs: [Pair: Int] = [:]
    private var counts: [EventCounts] = []
    /// By node: the event position its last subscription ended at (`UInt32.max` while one
    /// never did), and the one its first subscription began at.
    private var lastEnd: [UInt64: UInt32] = [:]
    private var firstStart: [UInt64: UInt32] = [:]
    /// The nodes whose every subscription lists all its observers on its own record: an
    /// `Action`'s, each an answer to one start of an application, linked to what observes it
    /// before it is reported (`events`, `disabledErrors`, the application).
    private var linkedWhole: Set<UInt64> = []

    struct Pair: Hashable {
        var from: UInt64
        var to: UInt64
    }

    /// What crossed between each pair of nodes links join.
    var crossings: [(pair: Pair, counts: EventCounts)] {
        pairs.map { ($0.key, counts[$0.value]) }
    }

    init?(_ trace: Trace) {
        /// One link, in 16 bytes (a big trace has hundreds of thousands): the index of its node
        /// pair, the observer (by subscription index, for the end of its window), the event
        /// position its window starts at, and the next link counting the same subscription's
        /// events (-1: none).
        struct Link {
            var pair: Int32
            var observer: Int32
            var start: UInt32
            var next: Int32
        }
        let subscriptions = trace.subscriptions
        // Where each subscription's observations end: its first dispose record.
        let disposed = trace.subscriptionDisposalPositions
        var links: [Link] = []
        // The first link counting each subscription's events, in a flat array (a big trace
        // has hundreds of thousands of subscriptions).
        var firstLink = [Int32](repeating: -1, count: subscriptions.count)
        func add(observer: Int, observed: Int, start: UInt32) {
            let observedRecord = subscriptions[observed]
            var source = observed
            if trace.node(observedRecord.node)?.kind == .sink {
                guard let parent = trace.subscriptionPosition(observedRecord.parent) else { return }
                source = parent
            }
            let pair = Pair(from: observedRecord.node, to: subscriptions[observer].node)
            let index = pairs[pair] ?? counts.count
            if index == counts.count {
                pairs[pair] = index
                counts.append(EventCounts())
            }
            links.append(Link(pair: Int32(index), observer: Int32(observer), start: start, next: firstLink[source]))
            firstLink[source] = Int32(links.count - 1)
        }
        for (index, record) in subscriptions.enumerated() where record.observes != nil || record.observedBy != nil {
            let start = trace.subscriptionEventPositions[index]
            for upstream in record.observes ?? [] {
                if let observed = trace.subscriptionPosition(upstream) { add(observer: index, observed: observed, start: start) }
            }
            for downstream in record.observedBy ?? [] {
                if let observer = trace.subscriptionPosition(downstream) { add(observer: observer, observed: index, start: start) }
            }
        }
        guard !links.isEmpty else { return nil }
        for record in trace.nodes where record.kind == .source && record.name == "Action" { linkedWhole.insert(record.id) }
        for (index, record) in subscriptions.enumerated() {
            lastEnd[record.node] = max(lastEnd[record.node] ?? 0, disposed[index])
            firstStart[record.node] = min(firstStart[record.node] ?? .max, trace.subscriptionEventPositions[index])
        }
        // A subscription no link counts, started by a subscription of a node it is upstream
        // of (its parent): that node's observation, begun in its own work where the recorder
        // saw no link (a `retry` resubscribing from the thread its upstream failed on). It is
        // counted as the parent's, from its subscribe record on.
        for (index, record) in subscriptions.enumerated() where firstLink[index] < 0 && trace.node(record.node)?.kind != .sink {
            guard let parent = trace.subscriptionPosition(record.parent),
                  trace.node(subscriptions[parent].node)?.upstream.contains(where: { $0.node == record.node }) == true
            else { continue }
            add(observer: parent, observed: index, start: trace.subscriptionEventPositions[index])
        }
        let events = trace.events
        for position in events.indices {
            var index = firstLink[events.subscriptionIndex(at: position)]
            guard index >= 0 else { continue }
            let kind = events.kind(at: position)
            let at = UInt32(clamping: position)
            while index >= 0 {
                let link = links[Int(index)]
                if link.start <= at && at < disposed[Int(link.observer)] { counts[Int(link.pair)].add(kind) }
                index = link.next
            }
        }
    }

    /// What crossed from `upstream` into `downstream`, or nil when no link joins them and
    /// `upstream` may have sent something while `downstream` ran.
    func crossed(from upstream: UInt64, into downstream: UInt64) -> EventCounts? {
        if let index = pairs[Pair(from: upstream, to: downstream)] { return counts[index] }
        if linkedWhole.contains(upstream) { return EventCounts() }
        if let ended = lastEnd[upstream], let began = firstStart[downstream], ended <= began { return EventCounts() }
        return nil
    }
}
