import TraceLog

extension PipelineGraph {
    /// The pipeline a trace recorded: its nodes as operators, sources and sinks; an edge
    /// per upstream link labelled with the events that crossed it (values, failures,
    /// interruptions) as the trace's edge index says (`TraceEdges`: exact from the
    /// subscriptions' observation links where the trace has them, else inferred), drawn as
    /// failing when a failure crossed it; a `<~` binding into the property it sets; a node
    /// that failed or was
    /// interrupted says so under its name; inner streams dashed into the node that created
    /// them (the node their events feed: a service's body under its `call`, not the `retry`
    /// resubscribing the call); a dashed red edge from where each failure began to the sink
    /// that received it; nodes grouped by the thread they delivered on, each box in its
    /// thread's colour (`ThreadColours`); a node that delivered on several threads is in none.
    ///
    /// - Parameters:
    ///   - latencies: a stage latency per node id (nanoseconds, e.g. `TraceStats`' p95), to
    ///     colour nodes on a heat scale (but for nodes that wait on purpose, drawn apart);
    ///     nil draws no heat.
    public init(trace: Trace, title: String? = nil, latencies: [UInt64: Int64]? = nil) {
        var counts: [UInt64: EventCounts] = [:]
        // The threads each node sent its own events on, and those it was interrupted on: an
        // interruption comes on the thread of whoever cancelled (main disposing a sensor's
        // timer), which is not where the node runs.
        var threadsOf: [UInt64: Set<UInt64>] = [:]
        var interruptedOn: [UInt64: Set<UInt64>] = [:]
        // A pull is made on the consumer's thread, and is no event the node sent.
        for event in trace.events where event.kind.isSent {
            counts[event.node, default: EventCounts()].add(event.kind)
            if event.kind == .interrupted {
                interruptedOn[event.node, default: []].insert(event.thread)
            } else {
                threadsOf[event.node, default: []].insert(event.thread)
            }
        }
        // What crossed each edge: the trace's own index (`TraceEdges`), exact from the links
        // the recorder wrote, inferred from causes for a trace without them.
        let crossings = TraceEdges(trace)
        /// The names of the threads `node` delivered its values, failures and completions on
        /// (its interruptions' when it sent nothing else; nil for a thread the trace does not
        /// name).
        func threadNames(_ node: UInt64) -> Set<String?> {
            Set((threadsOf[node] ?? interruptedOn[node] ?? []).map { trace.thread($0).map(ThreadLabel.of) })
        }

        let order = ThreadColours.names(of: [trace])
        var nodes: [Node] = []
        for record in trace.nodes {
            var names = threadNames(record.id)
            if names.isEmpty, record.kind == .sink, let observed = record.upstream.first?.node {
                names = threadNames(observed)
            }
            let kind: Kind = record.kind == .source ? .source : (record.kind == .sink ? .sink : .operator)
            nodes.append(Node(
                id: String(record.id), kind: kind, name: record.name, parameters: record.parameters,
                label: record.label, callSite: "\(record.file):\(record.line)",
                group: names.count == 1 ? names.first ?? nil : nil,
                latency: latencies?[record.id],
                waitsOnPurpose: record.kind == .operator && Self.waitsOnPurpose(record.name),
                note: counts[record.id].flatMap { $0.failed + $0.interrupted > 0 ? $0.label : nil },
                threads: names.count > 1 ? order.filter { names.contains($0) } : []
            ))
        }

        var edges: [Edge] = []
        var linkedInner: Set<UInt64> = []
        for crossed in crossings.edges {
            let style: EdgeStyle
            switch crossed.role {
            case .data?, .latest?, .fallback?: style = .data
            case .inner?: style = .inner
            case nil:
                // A link that is no upstream edge: an inner stream into the operator that
                // observed it (a flatMap's, the service's body under its call), or a binding
                // into its property.
                let binding = trace.node(crossed.from)?.kind == .sink
                if !binding { linkedInner.insert(crossed.from) }
                style = binding ? .data : .inner
            default: style = .control
            }
            let intoSink = crossed.role != nil && trace.node(crossed.to)?.kind == .sink
            edges.append(Edge(from: String(crossed.from), to: String(crossed.to), style: style,
                              label: intoSink ? nil : crossed.counts.label,
                              failed: !intoSink && crossed.counts.failed > 0))
        }
        let innerStreams = InnerStreams(trace: trace)
        let creators = Self.creators(trace, of: Set(innerStreams.byOuter.values.joined()))
        let followed = Self.followedWork(trace, innerStreams)
        edges += followed.edges
        for outer in innerStreams.byOuter.keys.sorted() {
            for inner in innerStreams.of(outer) where !linkedInner.contains(inner) && !followed.work.isFollowed(inner, by: outer) {
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
        let colours = ThreadColours.colours(of: [trace])
        self.init(title: title, nodes: nodes, edges: edges, heat: latencies != nil,
                  groupColours: colours.mapValues(\.fill).filter { name, _ in nodes.contains { $0.group == name } })
    }

    /// The events a node sent, or that crossed an edge, by kind (the trace's `EdgeCounts`).
    typealias EventCounts = EdgeCounts

    /// The trace's followed work (`FollowedWork`) and its edges: from a node to the work
    /// started following its elements, labelled with the elements that started some (the
    /// primary causes of the work's events), and from that work to each node its events caused,
    /// labelled with the events that caused some.
    private static func followedWork(_ trace: Trace, _ innerStreams: InnerStreams) -> (work: FollowedWork, edges: [Edge]) {
        let work = FollowedWork(trace: trace, innerStreams: innerStreams)
        var pairs: [(from: UInt64, to: UInt64)] = []
        for (outer, inners) in work.started {
            for inner in inners {
                pairs.append((outer, inner))
                pairs += (work.feeds[inner] ?? []).map { (inner, $0) }
            }
        }
        guard !pairs.isEmpty else { return (work, []) }
        // The events of `from` that caused events of `to` (their primary cause), each once.
        var crossed: [Pair: Set<UInt64>] = [:]
        let wanted = Set(pairs.map { Pair(from: $0.from, to: $0.to) })
        for event in trace.events {
            guard let primary = event.causes.first, let cause = trace.event(sequence: primary) else { continue }
            let pair = Pair(from: cause.node, to: event.node)
            if wanted.contains(pair) { crossed[pair, default: []].insert(primary) }
        }
        var edges: [Edge] = []
        for pair in pairs.sorted(by: { ($0.from, $0.to) < ($1.from, $1.to) }) {
            var counts = EventCounts()
            for sequence in crossed[Pair(from: pair.from, to: pair.to)] ?? [] {
                if let kind = trace.event(sequence: sequence)?.kind { counts.add(kind) }
            }
            edges.append(Edge(from: String(pair.from), to: String(pair.to), style: .data, label: counts.label,
                              failed: counts.failed > 0))
        }
        return (work, edges)
    }

    /// Two nodes, from the one whose events caused the other's.
    private struct Pair: Hashable {
        var from: UInt64
        var to: UInt64
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

extension EdgeCounts {
    /// "3 values · 2 failed · 1 interrupted": the values always, the others when any.
    var label: String {
        var parts = [values == 1 ? "1 value" : "\(values) values"]
        if failed > 0 { parts.append("\(failed) failed") }
        if interrupted > 0 { parts.append("\(interrupted) interrupted") }
        return parts.joined(separator: " \u{00B7} ")
    }
}
