import TraceLog

/// Groups a diff's differences under the changes that explain them: a reviewer reads the
/// headline first, and it has to be the change that explains the rest, not whichever
/// consequence happened first.
///
/// A *root* is a difference nothing else in the diff explains:
/// - every changed node (its parameters or call site): code changed there;
/// - a node in one trace only, a call asked another question or made only once, a race
///   decided the other way, or an event that differs, unless a root upstream of its node
///   (however far, through any edge: data, inner streams, triggers) or at its node already
///   explains it.
///
/// Every other difference is a *consequence* of the first root, in that order, whose node is
/// its node or upstream of it. Candidates are taken changed nodes first, then nodes and calls,
/// then races, then events, then nodes whose call site only moved (which explain nothing);
/// within each, most upstream first (in the order of the pipeline, both traces' nodes
/// together), then in causal order. Roots keep that order: the first is the headline.
struct RootCauses {
    /// Per group, the root's index in the given differences, then its consequences' in causal order.
    let groups: [(root: Int, consequences: [Int])]

    /// `kinds[i]` and `nodes[i]`: difference i's kind and node key, the differences in causal
    /// order; `downstream`: for each node key, the keys of the nodes it feeds directly.
    /// `movedOnly[i]`: difference i is a changed node whose parameters are the same (only its
    /// call site moved); such a change is a root, listed after the others, explaining nothing.
    init(kinds: [TraceDiff.Kind], nodes: [UInt64], movedOnly: [Bool], downstream: [UInt64: [UInt64]]) {
        let rank = Self.ranks(of: Set(nodes), downstream: downstream)
        func tier(_ index: Int) -> Int {
            switch kinds[index] {
            case .nodeChanged: return movedOnly[index] ? 4 : 0
            case .nodeOnlyInA, .nodeOnlyInB, .requestDiffers, .callOnlyInA, .callOnlyInB: return 1
            case .orderDiffers: return 2
            case .valueDiffers, .missingInB, .extraInB, .terminalDiffers, .timeShifted, .threadDiffers: return 3
            }
        }
        let order = kinds.indices.sorted {
            (tier($0), rank[nodes[$0]] ?? .max, $0) < (tier($1), rank[nodes[$1]] ?? .max, $1)
        }
        var roots: [(root: Int, reach: Set<UInt64>, consequences: [Int])] = []
        for index in order {
            let node = nodes[index]
            if kinds[index] != .nodeChanged, let owner = roots.firstIndex(where: { $0.reach.contains(node) }) {
                roots[owner].consequences.append(index)
            } else {
                // Code that only moved does not change what runs: it explains nothing.
                roots.append((index, movedOnly[index] ? [] : Self.reach(from: node, downstream: downstream), []))
            }
        }
        groups = roots.map { ($0.root, $0.consequences.sorted()) }
    }

    /// The nodes `start` feeds, however far, and itself.
    private static func reach(from start: UInt64, downstream: [UInt64: [UInt64]]) -> Set<UInt64> {
        var seen: Set<UInt64> = [start]
        var stack = [start]
        while let node = stack.popLast() {
            for next in downstream[node] ?? [] where seen.insert(next).inserted { stack.append(next) }
        }
        return seen
    }

    /// Each node's place in the pipeline's order, upstream first: the length of the longest
    /// path to it from a node nothing feeds, counted along edges that do not close a cycle
    /// (a feedback edge, a binding back into a property, is not followed twice). Only the
    /// nodes asked about and what leads to them matter; the rest get a rank too.
    private static func ranks(of wanted: Set<UInt64>, downstream: [UInt64: [UInt64]]) -> [UInt64: Int] {
        var indegree: [UInt64: Int] = [:]
        var all = Set(downstream.keys).union(wanted)
        for targets in downstream.values {
            for target in targets {
                indegree[target, default: 0] += 1
                all.insert(target)
            }
        }
        var rank: [UInt64: Int] = [:]
        var ready = all.filter { (indegree[$0] ?? 0) == 0 }.sorted()
        var head = 0
        var remaining = indegree
        // Kahn's order; a node on a cycle is released, lowest id first, once nothing else is ready.
        var pending = all
        while !pending.isEmpty {
            if head == ready.count, let next = pending.min() {
                ready.append(next)
                remaining[next] = 0
            }
            let node = ready[head]
            head += 1
            guard pending.remove(node) != nil else { continue }
            let own = rank[node] ?? 0
            rank[node] = own
            for next in downstream[node] ?? [] where pending.contains(next) {
                rank[next] = max(rank[next] ?? 0, own + 1)
                remaining[next, default: 1] -= 1
                if remaining[next] == 0 { ready.append(next) }
            }
        }
        return rank
    }
}
