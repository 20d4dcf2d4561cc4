import TraceLog

/// What crossed each edge of a recorded pipeline, exactly: from the links the recorder wrote
/// into the subscribe records (`observes`, `observedBy`), each a subscription that observed
/// another. A link carries the events the observed subscription sent after the record that
/// holds the link (when the observation began) and before the observer's disposal; the events
/// of a sink (a `<~` binding, observed by the property it sets) are those of the subscription
/// it observes (its parent).
///
/// Traces recorded before the links were written have none: `init` returns nil and figures
/// infer the counts from causes instead (`EdgeCrossings`). An edge with no link in a trace that
/// has some (an observation the recorder could not see) is inferred too.
struct ObservedCrossings {
    typealias EventCounts = PipelineGraph.EventCounts

    /// What crossed between two nodes, by (observed node, observer node).
    private(set) var crossings: [Pair: EventCounts] = [:]

    struct Pair: Hashable {
        var from: UInt64
        var to: UInt64
    }

    init?(_ trace: Trace) {
        /// One link: the node pair it joins, the window of event positions it holds for, and
        /// the next link counting the same subscription's events (-1: none).
        struct Link {
            var pair: Pair
            var start: Int
            var end: Int
            var next: Int32
        }
        let subscriptions = trace.subscriptions
        // Per subscription, in flat arrays (a big trace has hundreds of thousands): where its
        // first dispose record stood, and the first link counting its events.
        var disposed = [Int](repeating: Int.max, count: subscriptions.count)
        for (dispose, position) in zip(trace.disposals, trace.disposalEventPositions) {
            guard let index = trace.subscriptionPosition(dispose.subscription) else { continue }
            disposed[index] = min(disposed[index], position)
        }
        var links: [Link] = []
        var firstLink = [Int32](repeating: -1, count: subscriptions.count)
        func add(observer: Int, observed: Int, start: Int) {
            let observedRecord = subscriptions[observed]
            var source = observed
            if trace.node(observedRecord.node)?.kind == .sink {
                guard let parent = trace.subscriptionPosition(observedRecord.parent) else { return }
                source = parent
            }
            let pair = Pair(from: observedRecord.node, to: subscriptions[observer].node)
            links.append(Link(pair: pair, start: start, end: disposed[observer], next: firstLink[source]))
            firstLink[source] = Int32(links.count - 1)
            if crossings[pair] == nil { crossings[pair] = EventCounts() }
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
        let events = trace.events
        for position in events.indices {
            var index = firstLink[events.subscriptionIndex(at: position)]
            guard index >= 0 else { continue }
            let kind = events.kind(at: position)
            while index >= 0 {
                let link = links[Int(index)]
                if link.start <= position && position < link.end { crossings[link.pair]?.add(kind) }
                index = link.next
            }
        }
    }

    /// What crossed from `upstream` into `downstream`, or nil when no link joins them.
    func crossed(from upstream: UInt64, into downstream: UInt64) -> EventCounts? {
        crossings[Pair(from: upstream, to: downstream)]
    }
}
