extension PipelineGraph {
    /// The most nodes a pipeline figure hands to Graphviz. Measured on the 2-core AMD EPYC
    /// machine of 2026-11-28 with `marbles draw --pipeline` of generated traces: a chain of
    /// 4,000 operators is laid out in 1.6 s, 8,000 in 5.7 s, and 20,000 ran for minutes and
    /// crashed inside libgvc's `dot_mincross` (out of memory); 2,000 source → sink pairs took
    /// 1.1 s. Past this, the figure is bounded first (`bounded(toNodes:)`).
    public static let nodeLimit = 4_000

    /// This graph within `limit` nodes, and what was left out, or nil when it fits: first
    /// each run of more than two operators with one way in and one way out (a long chain) is
    /// drawn as its first and last operator with one node between them that counts the rest
    /// ("… 19,996 operators …"); then, if that is still too many, the first `limit` nodes in
    /// pipeline order are drawn with a node saying how many more were not.
    public func bounded(toNodes limit: Int = PipelineGraph.nodeLimit) -> (graph: PipelineGraph, note: String)? {
        guard nodes.count > limit else { return nil }
        var incoming: [String: Int] = [:], outgoing: [String: Int] = [:]
        var next: [String: String] = [:]
        for edge in edges {
            incoming[edge.to, default: 0] += 1
            outgoing[edge.from, default: 0] += 1
            next[edge.from] = edge.to
        }
        let kinds = Dictionary(nodes.map { ($0.id, $0.kind) }, uniquingKeysWith: { first, _ in first })
        func linear(_ id: String) -> Bool {
            kinds[id] == .operator && incoming[id] == 1 && outgoing[id] == 1
        }
        var previous: [String: String] = [:]
        for (from, to) in next where outgoing[from] == 1 { previous[to] = from }
        // Each maximal run of linear operators, from its first.
        var removed = Set<String>()
        var elided: [(after: String, before: String, count: Int, id: String)] = []
        for node in nodes where linear(node.id) && !(previous[node.id].map(linear) ?? false) {
            var run = [node.id]
            while let following = next[run[run.count - 1]], linear(following), run.count <= nodes.count { run.append(following) }
            guard run.count > 2 else { continue }
            let middle = run[1..<(run.count - 1)]
            removed.formUnion(middle)
            elided.append((run[0], run[run.count - 1], middle.count, "elided-\(elided.count + 1)"))
        }
        var graph = self
        var note = "the pipeline has \(nodes.count) nodes, more than the \(limit) Graphviz lays out in seconds"
        if !elided.isEmpty {
            graph.nodes = nodes.filter { !removed.contains($0.id) }
            graph.edges = edges.filter { !removed.contains($0.from) && !removed.contains($0.to) }
            for run in elided {
                graph.nodes.append(Node(id: run.id, kind: .operator, name: "… \(run.count) operators …",
                                        note: "a chain drawn short"))
                graph.edges.append(Edge(from: run.after, to: run.id))
                graph.edges.append(Edge(from: run.id, to: run.before))
            }
            note += "; \(elided.count) chain\(elided.count == 1 ? "" : "s") of operators drawn short "
                + "(\(removed.count) operators counted, not drawn)"
        }
        if graph.nodes.count > limit {
            let kept = Array(graph.nodes.prefix(limit - 1))
            let keptIDs = Set(kept.map(\.id))
            let left = graph.nodes.count - kept.count
            graph.nodes = kept + [Node(id: "not-drawn", kind: .operator, name: "… \(left) more nodes not drawn …",
                                       note: "over the limit of \(limit)")]
            graph.edges = graph.edges.filter { keptIDs.contains($0.from) && keptIDs.contains($0.to) }
            note += "; the first \(limit - 1) nodes in pipeline order drawn, \(left) more not"
        }
        return (graph, note + ". Open the trace with 'marbles view' or read 'marbles stats' for every node.")
    }
}
