import TraceLog

extension PipelineGraph {
    /// The pipeline a trace recorded: its nodes as operators, sources and sinks; an edge
    /// per upstream link labelled with how many values crossed it; inner streams dashed into
    /// the operator that started them; a dashed red edge from where each failure began to the
    /// sink that received it; nodes grouped by the thread they delivered on.
    ///
    /// - Parameters:
    ///   - latencies: a stage latency per node id (nanoseconds, e.g. `TraceStats`' p95), to
    ///     colour nodes on a heat scale; nil draws no heat.
    public init(trace: Trace, title: String? = nil, latencies: [UInt64: Int64]? = nil) {
        var values: [UInt64: Int] = [:]
        var threadCounts: [UInt64: [UInt64: Int]] = [:]
        for event in trace.events {
            if event.kind == .value { values[event.node, default: 0] += 1 }
            threadCounts[event.node, default: [:]][event.thread, default: 0] += 1
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
                latency: latencies?[record.id]
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
                let label = record.kind == .sink ? nil : Self.countLabel(values[upstream.node] ?? 0)
                edges.append(Edge(from: String(upstream.node), to: String(record.id), style: style, label: label))
            }
        }
        let innerStreams = InnerStreams(trace: trace)
        for outer in innerStreams.byOuter.keys.sorted() {
            for inner in innerStreams.of(outer)
            where !edges.contains(where: { $0.from == String(inner) && $0.to == String(outer) }) {
                edges.append(Edge(from: String(inner), to: String(outer), style: .inner,
                                  label: Self.countLabel(values[inner] ?? 0)))
            }
        }
        edges += Self.errorPaths(trace)
        // A node with no edge at all (a helper every inner stream runs through, whose own
        // subscriptions are not inner streams of anything drawn) would float alone.
        let connected = Set(edges.flatMap { [$0.from, $0.to] })
        if !connected.isEmpty { nodes.removeAll { !connected.contains($0.id) } }
        self.init(title: title, nodes: nodes, edges: edges, heat: latencies != nil)
    }

    private static func countLabel(_ count: Int) -> String {
        count == 1 ? "1 value" : "\(count) values"
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
