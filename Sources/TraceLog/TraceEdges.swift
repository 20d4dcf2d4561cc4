/// The events that crossed an edge, or that a node sent, by kind. Completions are not
/// counted: every edge of a finished pipeline carries one per subscription, which says
/// nothing a reader looks for.
public struct EdgeCounts: Equatable, Hashable, Sendable {
    public var values = 0
    public var failed = 0
    public var interrupted = 0

    public init(values: Int = 0, failed: Int = 0, interrupted: Int = 0) {
        self.values = values
        self.failed = failed
        self.interrupted = interrupted
    }

    /// Counts one event of `kind` (a completion or a pull counts nothing).
    public mutating func add(_ kind: EventKind) {
        switch kind {
        case .value: values += 1
        case .failed: failed += 1
        case .interrupted: interrupted += 1
        case .completed, .pull: break
        }
    }
}

/// What crossed each edge of a recorded pipeline: one index of a trace, which the pipeline
/// figure labels its edges with and `marbles stats --edges` prints, so the two cannot disagree.
///
/// An edge's counts are exact where the recorder wrote observation links (`observes`,
/// `observedBy` on subscribe records: `ObservedCrossings`), and inferred from causes for a trace
/// recorded before them, or an edge no link joins (`EdgeCrossings`); each edge says which.
public struct TraceEdges: Sendable {
    /// One edge: from an upstream node into the node that observed it.
    public struct Edge: Equatable, Sendable {
        public var from: UInt64
        public var to: UInt64
        /// The upstream's role in the downstream node's record (`data`, `trigger`, `inner`, …);
        /// nil for an edge no upstream entry names: an inner stream into the operator that
        /// observed it (a `flatMap`'s, a service's body under its call) or a `<~` binding into
        /// its property, which only links show.
        public var role: EdgeRole?
        public var counts: EdgeCounts
        /// Whether observation links counted it (else it was inferred from causes).
        public var exact: Bool
    }

    /// Every edge: each node's upstream entries, in the order of the trace's nodes and of each
    /// node's upstream list, then the linked edges no upstream entry names, by (from, to).
    public let edges: [Edge]

    /// Reads what crossed each edge of `trace`: one pass over its subscriptions and events for
    /// the links, and one more for the inference when some edge needs it.
    public init(_ trace: Trace) {
        let observed = ObservedCrossings(trace)
        var inferred: EdgeCrossings?
        var edges: [Edge] = []
        for record in trace.nodes {
            for upstream in record.upstream {
                if let exact = observed?.crossed(from: upstream.node, into: record.id) {
                    edges.append(Edge(from: upstream.node, to: record.id, role: upstream.role, counts: exact, exact: true))
                } else {
                    if inferred == nil { inferred = EdgeCrossings(trace) }
                    edges.append(Edge(from: upstream.node, to: record.id, role: upstream.role,
                                      counts: inferred!.crossed(from: upstream.node, into: record.id), exact: false))
                }
            }
        }
        for (pair, counts) in (observed?.crossings ?? []).sorted(by: { ($0.pair.from, $0.pair.to) < ($1.pair.from, $1.pair.to) })
        where pair.from != pair.to && trace.node(pair.to)?.upstream.contains(where: { $0.node == pair.from }) == false {
            edges.append(Edge(from: pair.from, to: pair.to, role: nil, counts: counts, exact: true))
        }
        self.edges = edges
    }

    /// The edge from `upstream` into `downstream`: the first, when the downstream node lists
    /// the upstream twice (a `merge` of a stream with itself); nil when none joins them.
    public func edge(from upstream: UInt64, into downstream: UInt64) -> Edge? {
        edges.first { $0.from == upstream && $0.to == downstream }
    }
}
