import TraceLog

/// Which node of one trace is which node of another, found from the pipelines' structure.
///
/// A node's identity is its place in the pipeline: a source is known by its kind (`input`,
/// `call`, `pipe`...) and label; any other node by its kind, operator name and label, and by
/// its upstream nodes — each already aligned — with the role of each edge. Parameters and
/// call site are attributes: they decide between candidates of the same identity (equal
/// parameters and call site first, then equal parameters, then equal call site, then in
/// order of appearance), never whether two nodes align.
///
/// Alignment runs from the sources down. A node is considered once every upstream node is
/// decided — aligned, or found to be in one trace only. When nothing more aligns, the nodes
/// waiting are either edits or not yet reachable: a waiting node whose shape (kind, name,
/// label) the other trace has within `lookAhead` single-input nodes below the same aligned
/// upstream keeps waiting (the other trace inserted nodes above it); any other waiting node
/// is in one trace only (it was removed, inserted or replaced). A node in one trace only is
/// transparent to its downstream when it has one upstream: the node below an inserted `map`
/// aligns under the `map`'s upstream. A node in one trace only that cannot be seen through
/// (a source, a node with several inputs) stands for no aligned node: a node with other,
/// aligned upstream nodes still aligns under those (a `combineLatest` one of whose inputs
/// was renamed), and a node under nothing aligned is in one trace only. When every waiting node could still align (operators
/// swapped, names repeated along a chain), the nearest explanation wins: of the waiting node
/// whose likeness is fewest levels down, the node of the other trace in between is taken to
/// be in that trace only, and alignment goes on; when no node stands in between (inputs
/// swapped between roles), B's first waiting node is. Every stall decides at least one node.
///
/// Each node is made ready, keyed and paired once; a look-ahead visits at most `lookAhead`
/// levels below a waiting node: for a pipeline with a few edits, time and memory are linear
/// in the number of nodes.
///
/// ```swift
/// let a = try Trace(contentsOf: URL(fileURLWithPath: "a.trace"))
/// let b = try Trace(contentsOf: URL(fileURLWithPath: "b.trace"))
/// let alignment = NodeAlignment(a, b)
/// for id in alignment.onlyInB { print("new in B:", b.node(id)?.name ?? "?") }
/// ```
public struct NodeAlignment: Sendable {
    /// Two aligned nodes, by their trace-local ids.
    public struct Pair: Equatable, Sendable {
        public var a: UInt64
        public var b: UInt64
    }

    /// The aligned nodes, in A's order.
    public let pairs: [Pair]
    /// The ids of A's nodes that B lacks, in A's order.
    public let onlyInA: [UInt64]
    /// The ids of B's nodes that A lacks, in B's order.
    public let onlyInB: [UInt64]

    private let partnerOfA: [UInt64: UInt64]
    private let partnerOfB: [UInt64: UInt64]

    /// How many single-input nodes deep an insertion is looked for below an aligned node.
    public static let lookAhead = 64

    /// Aligns the nodes of `a` and `b`.
    public init(_ a: Trace, _ b: Trace) {
        self.init(a.nodes, b.nodes)
    }

    /// Aligns two traces' nodes, each list in its trace's order (a node after its upstream nodes).
    init(_ a: [NodeRecord], _ b: [NodeRecord]) {
        var run = Run(a: Graph(a), b: Graph(b))
        run.align()
        var pairs: [Pair] = [], onlyInA: [UInt64] = [], onlyInB: [UInt64] = []
        var partnerOfA: [UInt64: UInt64] = [:], partnerOfB: [UInt64: UInt64] = [:]
        for (i, node) in a.enumerated() {
            if run.partner[0][i] >= 0 {
                let other = b[run.partner[0][i]].id
                pairs.append(Pair(a: node.id, b: other))
                partnerOfA[node.id] = other
                partnerOfB[other] = node.id
            } else {
                onlyInA.append(node.id)
            }
        }
        for (j, node) in b.enumerated() where run.partner[1][j] < 0 { onlyInB.append(node.id) }
        self.pairs = pairs
        self.onlyInA = onlyInA
        self.onlyInB = onlyInB
        self.partnerOfA = partnerOfA
        self.partnerOfB = partnerOfB
    }

    /// The node of B aligned with A's node `id`, or nil.
    public func partner(ofA id: UInt64) -> UInt64? { partnerOfA[id] }

    /// The node of A aligned with B's node `id`, or nil.
    public func partner(ofB id: UInt64) -> UInt64? { partnerOfB[id] }

    // MARK: The graphs

    /// One trace's nodes by position, with their downstream edges.
    private struct Graph {
        let nodes: [NodeRecord]
        /// Per node, its upstream nodes' positions with the edges' roles (unknown ids left out).
        let upstream: [[(node: Int, role: EdgeRole)]]
        /// Per node, the positions of the nodes it feeds, once each, in order.
        let downstream: [[Int]]

        init(_ nodes: [NodeRecord]) {
            self.nodes = nodes
            var position: [UInt64: Int] = [:]
            for (i, node) in nodes.enumerated() { position[node.id] = i }
            var upstream: [[(node: Int, role: EdgeRole)]] = []
            var downstream = [[Int]](repeating: [], count: nodes.count)
            for (i, node) in nodes.enumerated() {
                var edges: [(node: Int, role: EdgeRole)] = []
                for edge in node.upstream {
                    // The format puts a node after its upstream nodes; an edge to a later or
                    // unknown node cannot be followed from the sources, so it is left out.
                    guard let from = position[edge.node], from < i else { continue }
                    edges.append((from, edge.role))
                    if downstream[from].last != i { downstream[from].append(i) }
                }
                upstream.append(edges)
            }
            self.upstream = upstream
            self.downstream = downstream
        }
    }

    /// What a node is, apart from its upstream nodes.
    private struct Shape: Hashable {
        let kind: NodeKind
        let name: String
        let label: String?

        init(_ node: NodeRecord) {
            kind = node.kind
            name = node.name
            label = node.label
        }
    }

    /// A node's identity under the alignment so far: its shape and, per upstream edge, the
    /// role and the aligned pair it comes from (by A's position; -1 for an upstream in one
    /// trace only that cannot be seen through).
    private struct Key: Hashable {
        let shape: Shape
        let edges: [Edge]

        struct Edge: Hashable, Comparable {
            let role: EdgeRole
            let pair: Int
            static func < (lhs: Edge, rhs: Edge) -> Bool { (lhs.role.rawValue, lhs.pair) < (rhs.role.rawValue, rhs.pair) }
        }
    }

    /// The attributes that choose between nodes of one identity.
    private struct Attributes: Hashable {
        let parameters: String?
        let file: String?
        let line: UInt64?
    }

    private struct Run {
        /// Side 0 is A, side 1 is B.
        let graphs: [Graph]
        /// Per side and node: the partner's position, or -1.
        var partner: [[Int]]
        /// Per side and node: in that trace only (decided, not aligned).
        var alone: [[Bool]]
        /// Per side and node: how many upstream nodes are not decided yet.
        var undecided: [[Int]]
        /// Per side: ready nodes not aligned yet, by key, in the order they became ready.
        var waiting: [[Key: [Int]]] = [[:], [:]]
        /// Per side: the key each waiting node waits under.
        var waitingKey: [[Int: Key]] = [[:], [:]]
        /// Per side: nodes that became ready and have not been keyed yet.
        var ready: [[Int]] = [[], []]

        init(a: Graph, b: Graph) {
            graphs = [a, b]
            partner = [Array(repeating: -1, count: a.nodes.count), Array(repeating: -1, count: b.nodes.count)]
            alone = [Array(repeating: false, count: a.nodes.count), Array(repeating: false, count: b.nodes.count)]
            undecided = [a.upstream.map(\.count), b.upstream.map(\.count)]
            for side in 0...1 {
                ready[side] = undecided[side].indices.filter { undecided[side][$0] == 0 }
            }
        }

        mutating func align() {
            while true {
                while !ready[0].isEmpty || !ready[1].isEmpty { matchReady() }
                guard !waiting[0].isEmpty || !waiting[1].isEmpty else { return }
                resolveStall()
            }
        }

        // MARK: Deciding

        /// The pair (by A's position) an upstream node stands for: its own when aligned;
        /// when in one trace only with one upstream, that upstream's, seen through; else -1.
        private func pair(_ side: Int, _ node: Int) -> Int {
            var current = node
            while true {
                if partner[side][current] >= 0 { return side == 0 ? current : partner[side][current] }
                let edges = graphs[side].upstream[current]
                guard alone[side][current], edges.count == 1 else { return -1 }
                current = edges[0].node
            }
        }

        private func key(_ side: Int, _ node: Int) -> Key {
            let edges = graphs[side].upstream[node].map { Key.Edge(role: $0.role, pair: pair(side, $0.node)) }
            return Key(shape: Shape(graphs[side].nodes[node]), edges: edges.sorted())
        }

        private mutating func decided(_ side: Int, _ node: Int) {
            for next in graphs[side].downstream[node] {
                // A node fed twice by one upstream is listed once downstream of it.
                let count = graphs[side].upstream[next].lazy.filter { $0.node == node }.count
                undecided[side][next] -= count
                // A node found to be in one trace only before all its upstream nodes were
                // decided is not keyed.
                if undecided[side][next] == 0, !alone[side][next] { ready[side].append(next) }
            }
        }

        private mutating func pairUp(_ i: Int, _ j: Int) {
            partner[0][i] = j
            partner[1][j] = i
            decided(0, i)
            decided(1, j)
        }

        private mutating func setAlone(_ side: Int, _ node: Int) {
            alone[side][node] = true
            decided(side, node)
        }

        // MARK: Matching

        /// Keys the nodes that became ready and pairs them with waiting or ready nodes of the
        /// other trace of the same key; the rest wait.
        private mutating func matchReady() {
            var fresh: [[Int]] = [ready[0], ready[1]]
            ready = [[], []]
            var keys: [Key] = []
            var seen = Set<Key>()
            var orphans: [(side: Int, node: Int)] = []
            for side in 0...1 {
                for node in fresh[side] {
                    let key = key(side, node)
                    if !key.edges.isEmpty, key.edges.allSatisfy({ $0.pair < 0 }) {
                        orphans.append((side, node))
                        continue
                    }
                    waitingKey[side][node] = key
                    waiting[side][key, default: []].append(node)
                    if seen.insert(key).inserted { keys.append(key) }
                }
            }
            fresh = [[], []]
            // Under nothing aligned (a renamed source, a removed node with several inputs) a
            // node has no place to align: in its trace only, like everything it feeds alone.
            for (side, node) in orphans { setAlone(side, node) }
            for key in keys {
                guard let left = waiting[0][key], let right = waiting[1][key] else { continue }
                let matched = Self.choose(left, right, graphs[0].nodes, graphs[1].nodes)
                var takenA = Set<Int>(), takenB = Set<Int>()
                for (i, j) in matched {
                    takenA.insert(i)
                    takenB.insert(j)
                }
                let restA = left.filter { !takenA.contains($0) }, restB = right.filter { !takenB.contains($0) }
                waiting[0][key] = restA.isEmpty ? nil : restA
                waiting[1][key] = restB.isEmpty ? nil : restB
                for (i, j) in matched {
                    waitingKey[0][i] = nil
                    waitingKey[1][j] = nil
                    pairUp(i, j)
                }
            }
        }

        /// Pairs nodes of one identity: equal parameters and call site first, then equal
        /// parameters, then equal call site, then the rest in order.
        private static func choose(_ left: [Int], _ right: [Int], _ nodesA: [NodeRecord],
                                   _ nodesB: [NodeRecord]) -> [(Int, Int)] {
            let passes: [(NodeRecord) -> Attributes] = [
                { Attributes(parameters: $0.parameters, file: $0.file, line: $0.line) },
                { Attributes(parameters: $0.parameters, file: nil, line: nil) },
                { Attributes(parameters: nil, file: $0.file, line: $0.line) },
                { _ in Attributes(parameters: nil, file: nil, line: nil) },
            ]
            var restA = left, restB = right
            var matched: [(Int, Int)] = []
            for attributes in passes {
                guard !restA.isEmpty, !restB.isEmpty else { break }
                var queues: [Attributes: [Int]] = [:]
                for j in restB { queues[attributes(nodesB[j]), default: []].append(j) }
                var heads: [Attributes: Int] = [:]
                var unmatchedA: [Int] = []
                var takenB = Set<Int>()
                for i in restA {
                    let value = attributes(nodesA[i])
                    let head = heads[value, default: 0]
                    if let queue = queues[value], head < queue.count {
                        matched.append((i, queue[head]))
                        takenB.insert(queue[head])
                        heads[value] = head + 1
                    } else {
                        unmatchedA.append(i)
                    }
                }
                restA = unmatchedA
                restB = restB.filter { !takenB.contains($0) }
            }
            return matched
        }

        // MARK: Stalls

        /// Nothing more aligns: decides which waiting nodes are in one trace only.
        private mutating func resolveStall() {
            var hopeless: [(side: Int, node: Int)] = []
            var nearest: (distance: Int, side: Int, through: Int)?
            for side in [1, 0] {
                for node in waitingNodes(side) {
                    guard let found = lookAhead(side, node) else {
                        hopeless.append((side, node))
                        continue
                    }
                    if let through = found.through, nearest == nil || found.distance < nearest!.distance {
                        nearest = (found.distance, side, through)
                    }
                }
            }
            for (side, node) in hopeless {
                removeWaiting(side, node)
                setAlone(side, node)
            }
            guard hopeless.isEmpty else { return }
            if let nearest {
                // Every waiting node could still align below nodes of the other trace
                // (operators swapped, or names repeated along a chain): the nearest
                // explanation wins — the node of the other trace standing between the waiting
                // node and its likeness is in that trace only.
                let other = 1 - nearest.side
                removeWaiting(other, nearest.through)
                setAlone(other, nearest.through)
            } else if let side = [1, 0].first(where: { !waiting[$0].isEmpty }), let node = waitingNodes(side).first {
                // Each waiting node's likeness sits right beside it under other upstream
                // nodes (inputs swapped between roles): waiting cannot help; B's first is in
                // B only, so that every stall decides a node.
                removeWaiting(side, node)
                setAlone(side, node)
            }
        }

        private func waitingNodes(_ side: Int) -> [Int] {
            waiting[side].values.flatMap { $0 }.sorted()
        }

        private mutating func removeWaiting(_ side: Int, _ node: Int) {
            guard let key = waitingKey[side][node] else { return }
            waitingKey[side][node] = nil
            let rest = (waiting[side][key] ?? []).filter { $0 != node }
            waiting[side][key] = rest.isEmpty ? nil : rest
        }

        /// Where the other trace has a node of `node`'s shape, not decided, within
        /// `lookAhead` single-input nodes below the first aligned upstream of `node`
        /// (seeing through nodes already found to be in that trace only): how many levels
        /// down, and the first undecided node on the way, if any; nil when it has none.
        private func lookAhead(_ side: Int, _ node: Int) -> (distance: Int, through: Int?)? {
            let other = 1 - side
            guard let anchor = graphs[side].upstream[node].lazy.map({ pair(side, $0.node) }).first(where: { $0 >= 0 }) else {
                return nil
            }
            let start = other == 0 ? anchor : partner[0][anchor]
            let shape = Shape(graphs[side].nodes[node])
            func below(_ node: Int, _ through: Int?) -> [(node: Int, through: Int?)] {
                graphs[other].downstream[node].filter { partner[other][$0] < 0 }.map { ($0, through) }
            }
            var level = below(start, nil)
            var depth = 0
            while !level.isEmpty, depth < NodeAlignment.lookAhead {
                var next: [(node: Int, through: Int?)] = []
                for candidate in level {
                    let undecided = !alone[other][candidate.node]
                    if undecided, Shape(graphs[other].nodes[candidate.node]) == shape {
                        return (depth, candidate.through)
                    }
                    guard graphs[other].upstream[candidate.node].count == 1 else { continue }
                    next += below(candidate.node, candidate.through ?? (undecided ? candidate.node : nil))
                }
                level = next
                depth += 1
            }
            return nil
        }
    }
}
