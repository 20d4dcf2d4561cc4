import TraceLog

/// Work started for an element, not observed by whoever started it, as figures draw it: a
/// `for await` loop over a tap that starts a task per element (AsyncMarbles' `following`)
/// records the task's calls as children of the tap's subscription, caused by the element, and
/// what the task yields into a stream as caused by the call's answer.
///
/// A higher-order operator's inner stream is a child of the operator's subscription too, but
/// it feeds the operator: its events cause the operator's, never the reverse. A child whose
/// values are caused by events of its parent's own node was started by those events and feeds
/// something else; figures draw it downstream of that node (`settled → call(search)`), and
/// the nodes its events caused downstream of it (`call(search) → searchResults`), instead of
/// as an inner stream of that node.
package struct FollowedWork {
    /// By node: the nodes started following its elements, in id order.
    package private(set) var started: [UInt64: [UInt64]] = [:]
    /// By followed node: the nodes whose values its events caused, in id order (none of them
    /// downstream of it by an edge of their own).
    package private(set) var feeds: [UInt64: [UInt64]] = [:]

    /// No followed work.
    init() {}

    /// The followed work among the inner streams figures draw (`InnerStreams`: work a
    /// subscriber started for a `Signals` operator's value feeds a sink, and is not drawn), in
    /// a trace with these nodes, `valueCauseNodes(node)` giving the nodes of the primary causes
    /// of `node`'s values.
    /// `taps`: the nodes that recorded pulls, an `AsyncSequence`'s taps.
    init(nodes: [NodeRecord], innerStreams: InnerStreams, taps: Set<UInt64>, valueCauseNodes: (UInt64) -> Set<UInt64>) {
        var followed: Set<UInt64> = []
        // Only a tap's elements are followed (`following` is a tap's): a `Signals` operator's
        // inner stream is never followed work, even one whose values a completion of the
        // operator caused (a `flatMap(.concat)`'s next `retry`d call, started by the end of
        // the one before).
        for (outer, inners) in innerStreams.byOuter where taps.contains(outer) {
            for inner in inners where valueCauseNodes(inner).contains(outer) {
                started[outer, default: []].append(inner)
                followed.insert(inner)
            }
        }
        guard !followed.isEmpty else { return }
        for node in nodes where !followed.contains(node.id) {
            let upstream = Set(node.upstream.map(\.node))
            for cause in valueCauseNodes(node.id).intersection(followed).sorted() where !upstream.contains(cause) {
                feeds[cause, default: []].append(node.id)
            }
        }
        for key in started.keys { started[key]?.sort() }
    }

    /// Whether `inner` was started following `outer`'s elements (not an inner stream of it).
    package func isFollowed(_ inner: UInt64, by outer: UInt64) -> Bool {
        started[outer]?.contains(inner) ?? false
    }

    /// The nodes that feed on work followed from some node: drawn after that work.
    package var fedNodes: Set<UInt64> { Set(feeds.values.joined()) }

    /// The followed work of `trace` (its inner streams `innerStreams`): each node's value
    /// causes are asked of the inner nodes, and of every node only when some work was
    /// followed, so a trace without followed work costs nothing more.
    package init(trace: Trace, innerStreams: InnerStreams) {
        guard !innerStreams.byOuter.isEmpty else {
            self.init()
            return
        }
        let taps = Set(innerStreams.byOuter.keys.filter(trace.recordsPulls))
        self.init(nodes: trace.nodes, innerStreams: innerStreams, taps: taps, valueCauseNodes: trace.valueCauseNodes(of:))
    }

    /// `nodes` in their order, but each node fed by work followed from another placed right
    /// after that node, whose lanes end with the work's.
    package func order(_ nodes: [NodeRecord]) -> [NodeRecord] {
        let fed = fedNodes
        guard !fed.isEmpty else { return nodes }
        let byID = Dictionary(nodes.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var ordered: [NodeRecord] = []
        var placed: Set<UInt64> = []
        for root in nodes where !fed.contains(root.id) {
            var pending = [root]
            while let node = pending.popLast() {
                guard placed.insert(node.id).inserted else { continue }
                ordered.append(node)
                let next = (started[node.id] ?? []).flatMap { feeds[$0] ?? [] }.compactMap { byID[$0] }
                pending += next.reversed()
            }
        }
        // Fed by work followed from a node not among `nodes`: in their order, last.
        ordered += nodes.filter { !placed.contains($0.id) }
        return ordered
    }
}
