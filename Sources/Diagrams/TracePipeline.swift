import TraceLog

extension PipelineGraph {
    /// The pipeline a trace recorded: its nodes as operators, sources and sinks; an edge
    /// per upstream link labelled with the events that crossed it (values, failures,
    /// interruptions), drawn as failing when a failure crossed it; a node that failed or was
    /// interrupted says so under its name; inner streams dashed into the node that created
    /// them (the node their events feed: a service's body under its `call`, not the `retry`
    /// resubscribing the call); a dashed red edge from where each failure began to the sink
    /// that received it; nodes grouped by the thread they delivered on.
    ///
    /// - Parameters:
    ///   - latencies: a stage latency per node id (nanoseconds, e.g. `TraceStats`' p95), to
    ///     colour nodes on a heat scale (but for nodes that wait on purpose, drawn apart);
    ///     nil draws no heat.
    public init(trace: Trace, title: String? = nil, latencies: [UInt64: Int64]? = nil) {
        var counts: [UInt64: EventCounts] = [:]
        var threadCounts: [UInt64: [UInt64: Int]] = [:]
        var bySubscription: [UInt64: EventCounts] = [:]
        for event in trace.events {
            counts[event.node, default: EventCounts()].add(event.kind)
            bySubscription[event.subscription, default: EventCounts()].add(event.kind)
            threadCounts[event.node, default: [:]][event.thread, default: 0] += 1
        }
        let crossings = Self.crossings(trace)
        var consumers: [UInt64: Set<UInt64>] = [:]
        for record in trace.nodes {
            for upstream in record.upstream { consumers[upstream.node, default: []].insert(record.id) }
        }
        func busiestThread(_ node: UInt64) -> UInt64? {
            threadCounts[node]?.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.first?.key
        }

        var nodes: [Node] = []
        for record in trace.nodes {
            var threadID = busiestThread(record.id)
            if threadID == nil, record.kind == .sink, let observed = record.upstream.first?.node {
                threadID = busiestThread(observed)
            }
            let kind: Kind = record.kind == .source ? .source : (record.kind == .sink ? .sink : .operator)
            nodes.append(Node(
                id: String(record.id), kind: kind, name: record.name, parameters: record.parameters,
                label: record.label, callSite: "\(record.file):\(record.line)",
                group: threadID.flatMap { trace.thread($0).map(ThreadLabel.of) },
                latency: latencies?[record.id],
                waitsOnPurpose: record.kind == .operator && Self.waitsOnPurpose(record.name),
                note: counts[record.id].flatMap { $0.failed + $0.interrupted > 0 ? $0.label : nil }
            ))
        }

        var edges: [Edge] = []
        for record in trace.nodes {
            for upstream in record.upstream {
                let style: EdgeStyle
                switch upstream.role {
                case .data, .latest, .fallback: style = .data
                case .inner: style = .inner
                default: style = .control
                }
                let crossed = Self.crossed(from: upstream.node, into: record.id, counts: counts,
                                           bySubscription: bySubscription, crossings: crossings, consumers: consumers,
                                           trace: trace)
                edges.append(Edge(from: String(upstream.node), to: String(record.id), style: style,
                                  label: record.kind == .sink ? nil : crossed.label,
                                  failed: record.kind != .sink && crossed.failed > 0))
            }
        }
        let innerStreams = InnerStreams(trace: trace)
        let creators = Self.creators(trace, of: Set(innerStreams.byOuter.values.joined()))
        for outer in innerStreams.byOuter.keys.sorted() {
            for inner in innerStreams.of(outer) {
                let fed = creators[inner] ?? []
                for creator in fed.isEmpty || fed.contains(outer) ? [outer] : fed.sorted()
                where !edges.contains(where: { $0.from == String(inner) && $0.to == String(creator) }) {
                    let crossed = counts[inner] ?? EventCounts()
                    edges.append(Edge(from: String(inner), to: String(creator), style: .inner,
                                      label: crossed.label, failed: crossed.failed > 0))
                }
            }
        }
        edges += Self.errorPaths(trace)
        // A node with no edge at all (a helper every inner stream runs through, whose own
        // subscriptions are not inner streams of anything drawn) would float alone.
        let connected = Set(edges.flatMap { [$0.from, $0.to] })
        if !connected.isEmpty { nodes.removeAll { !connected.contains($0.id) } }
        self.init(title: title, nodes: nodes, edges: edges, heat: latencies != nil)
    }

    /// What crossed the edge from `upstream` into `downstream`: the events of the upstream
    /// subscriptions that the downstream node's subscriptions observed. An upstream node
    /// started once per consumer (a cold producer feeding a `combineLatest` and a `zip`) has a
    /// subscription per consumer, and each edge carries only its own. Which ones a consumer
    /// observed is known from the causes (`crossings`): an event of the consumer caused by
    /// one of the subscription's. A subscription that caused nothing downstream (it only
    /// failed into a `flatMapError`, whose fallback answered) went to the upstream's only
    /// consumer, when it has one; and an upstream with one subscription (a hot signal) feeds
    /// every consumer with it.
    private static func crossed(from upstream: UInt64, into downstream: UInt64, counts: [UInt64: EventCounts],
                                bySubscription: [UInt64: EventCounts], crossings: [Crossing: Set<UInt64>],
                                consumers: [UInt64: Set<UInt64>], trace: Trace) -> EventCounts {
        let subscriptions = Set(trace.subscriptions.filter { $0.node == upstream }.map(\.id))
        var observed = crossings[Crossing(upstream: upstream, downstream: downstream)] ?? []
        if subscriptions.count == 1 {
            observed = subscriptions
        } else if consumers[upstream]?.count == 1 {
            // Linked by its causes to a consumer (a fallback started by a failure is not one).
            let linked = crossings.filter { $0.key.upstream == upstream && consumers[upstream]?.contains($0.key.downstream) == true }
                .values.reduce(into: Set<UInt64>()) { $0.formUnion($1) }
            observed.formUnion(subscriptions.subtracting(linked))
        }
        var total = EventCounts()
        for subscription in observed.sorted() {
            guard let crossed = bySubscription[subscription] else { continue }
            total.values += crossed.values
            total.failed += crossed.failed
            total.interrupted += crossed.interrupted
        }
        return total
    }

    /// An upstream and a downstream node: an edge of the recorded pipeline.
    private struct Crossing: Hashable {
        var upstream: UInt64
        var downstream: UInt64
    }

    /// For each pair of nodes where an event of one caused an event of the other, the
    /// subscriptions of the cause's node whose events did: those the effect's node observed.
    private static func crossings(_ trace: Trace) -> [Crossing: Set<UInt64>] {
        var result: [Crossing: Set<UInt64>] = [:]
        for event in trace.events {
            for cause in event.causes {
                guard let source = trace.event(sequence: cause), source.node != event.node else { continue }
                result[Crossing(upstream: source.node, downstream: event.node), default: []].insert(source.subscription)
            }
        }
        return result
    }

    /// The events a node sent, by kind.
    private struct EventCounts {
        var values = 0
        var failed = 0
        var interrupted = 0

        mutating func add(_ kind: EventKind) {
            switch kind {
            case .value: values += 1
            case .failed: failed += 1
            case .interrupted: interrupted += 1
            default: break
            }
        }

        /// "3 values · 2 failed · 1 interrupted": the values always, the others when any.
        var label: String {
            var parts = [values == 1 ? "1 value" : "\(values) values"]
            if failed > 0 { parts.append("\(failed) failed") }
            if interrupted > 0 { parts.append("\(interrupted) interrupted") }
            return parts.joined(separator: " \u{00B7} ")
        }
    }

    /// For each node of `inner`, the nodes that created it: nodes started in the same
    /// subscription as it (by the same higher-order operator) whose events its events directly
    /// caused (their primary cause), without it as an upstream. A service's body subscribed
    /// under a `retry` feeds the `call` node started beside it, which created it.
    private static func creators(_ trace: Trace, of inner: Set<UInt64>) -> [UInt64: Set<UInt64>] {
        guard !inner.isEmpty else { return [:] }
        var startedIn: [UInt64: Set<UInt64>] = [:]
        for subscription in trace.subscriptions where subscription.parent != 0 {
            startedIn[subscription.node, default: []].insert(subscription.parent)
        }
        var result: [UInt64: Set<UInt64>] = [:]
        for event in trace.events {
            guard let primary = event.causes.first, let cause = trace.event(sequence: primary),
                  cause.node != event.node, inner.contains(cause.node),
                  let parents = startedIn[cause.node], !parents.isDisjoint(with: startedIn[event.node] ?? []),
                  trace.node(event.node)?.upstream.contains(where: { $0.node == cause.node }) == false else { continue }
            result[cause.node, default: []].insert(event.node)
        }
        return result
    }

    /// For each failure a sink received: the node where it began (following the causes of
    /// failed events back to one not caused by a failure) to the sink, labelled with the
    /// error. One edge per (origin, sink, error text).
    private static func errorPaths(_ trace: Trace) -> [Edge] {
        var sinksObserving: [UInt64: [UInt64]] = [:]
        for node in trace.nodes where node.kind == .sink {
            for upstream in node.upstream { sinksObserving[upstream.node, default: []].append(node.id) }
        }
        var seen: Set<String> = []
        var edges: [Edge] = []
        // The origin node of each failure, in sequence order: a failure caused by an earlier
        // one has that one's origin, so a chain of any length costs one lookup per failure.
        var origins: [UInt64: UInt64] = [:]
        for event in trace.events where event.kind == .failed {
            var origin = event.node
            if let cause = event.causes.first, cause < event.sequence, let known = origins[cause] { origin = known }
            origins[event.sequence] = origin
            guard let sinks = sinksObserving[event.node] else { continue }
            let text = TextSafety.truncated(event.text ?? "failed", to: 40)
            for sink in sinks where seen.insert("\(origin) \(sink) \(text)").inserted {
                edges.append(Edge(from: String(origin), to: String(sink), style: .error, label: text))
            }
        }
        return edges
    }
}
