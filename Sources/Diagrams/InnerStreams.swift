import TraceLog

/// The inner streams of each higher-order operator in a trace, as figures draw them.
///
/// `Trace.innerEdges` counts every node a higher-order subscription started. Figures keep
/// the nodes whose values the operator delivered (the primary causes of its values), or,
/// when none delivered anything, every such node that feeds no other node: a node feeding a
/// sink is work a subscriber started while the operator was delivering, not an inner stream.
package struct InnerStreams {
    private(set) var byOuter: [UInt64: [UInt64]] = [:]

    package init(trace: Trace) {
        self.init(nodes: trace.nodes, innerEdges: trace.innerEdges, valueCauseNodes: trace.valueCauseNodes(of:))
    }

    /// The inner streams of the higher-order operators of a trace with these nodes and inner
    /// edges (`Trace.innerEdges`), `valueCauseNodes(outer)` giving the nodes of the primary
    /// causes of `outer`'s values.
    init(nodes: [NodeRecord], innerEdges: [Trace.InnerEdge], valueCauseNodes: (UInt64) -> Set<UInt64>) {
        var feedsOtherNodes: Set<UInt64> = []
        for node in nodes {
            for upstream in node.upstream { feedsOtherNodes.insert(upstream.node) }
        }
        var candidates: [UInt64: Set<UInt64>] = [:]
        for edge in innerEdges where !feedsOtherNodes.contains(edge.inner) {
            candidates[edge.outer, default: []].insert(edge.inner)
        }
        for (outer, inner) in candidates {
            let feeding = valueCauseNodes(outer).intersection(inner)
            byOuter[outer] = (feeding.isEmpty ? inner : feeding).sorted()
        }
    }

    /// The inner nodes of `outer`, in id order.
    func of(_ outer: UInt64) -> [UInt64] { byOuter[outer] ?? [] }
}
