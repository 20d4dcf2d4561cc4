/// A trace's subscriptions as the readers that walk them read them: each one's id, node,
/// parent and start, with the two indexes every such reader needs, each node's
/// subscriptions and each subscription's children (those it started), in trace order.
///
/// A `Trace` holds one (`TraceSubscriptions.tree`), made as its subscriptions are read; a
/// figure that keeps a trace's structure but not its events makes one subscription by
/// subscription as it streams a file (`append`). It holds some 28 bytes a subscription (36
/// when the ids are not 1, 2, 3, …), where a `SubscriptionRecord` alone is some 100, for a
/// thread, a request and links that a walk through the tree never reads: a long trace has
/// nearly a million subscriptions.
public struct SubscriptionTree: Sendable {
    /// What the tree holds of one subscription.
    public struct Subscription: Equatable, Sendable {
        public let id: UInt64
        public let node: UInt64
        /// The subscription that started it, or 0.
        public let parent: UInt64
        public let time: Int64
    }

    /// Each one's id, kept only once one is not its position + 1: a recorder numbers
    /// subscriptions 1, 2, 3, … in file order, and their ids are then their positions + 1.
    private var ids: [UInt64] = []
    private var idsAreDense = true
    /// Each one's parent, as its position (-1 for none): a trace defines a parent before what
    /// it starts (`TraceValidator`). The id of a parent not found, by position.
    private var parents: [Int32] = []
    private var parentsNotFound: [Int32: UInt64] = [:]
    private var times: [Int64] = []
    /// Each one's node, as its position in `nodeIDs` (a trace has tens of nodes).
    private var nodes: [UInt32] = []
    private var nodeIDs: [UInt64] = []
    private var nodePositions: [UInt64: UInt32] = [:]
    /// Id to position, made only once ids stop ascending (as `Trace` does): ascending ids
    /// are found by a binary search, ids numbered 1, 2, 3, … at `id - 1`.
    private var index: [UInt64: Int32]?
    /// Each node's subscriptions, by the node's position in `nodeIDs`.
    private var byNode: [[Int32]] = []
    /// The first and the next of the subscriptions a subscription started (-1 for none), by
    /// position, in reverse trace order (`children(of:)` turns them around): a parent is
    /// always defined before what it starts, so each is linked as it is appended.
    private var lastChild: [Int32] = []
    private var previousSibling: [Int32] = []

    /// The number of subscriptions.
    public private(set) var count = 0

    /// No subscriptions.
    public init() {}

    /// Adds the next subscription of the trace.
    public mutating func append(_ subscription: SubscriptionRecord) {
        if idsAreDense, subscription.id != UInt64(count + 1) {
            idsAreDense = false
            ids = (0..<count).map { UInt64($0 + 1) }
        }
        if index == nil, let last = ids.last, subscription.id < last {
            var all: [UInt64: Int32] = [:]
            for (position, id) in ids.enumerated() { all[id] = Int32(position) }
            index = all
        }
        index?[subscription.id] = Int32(count)
        let node: UInt32
        if let known = nodePositions[subscription.node] {
            node = known
        } else {
            node = UInt32(nodeIDs.count)
            nodePositions[subscription.node] = node
            nodeIDs.append(subscription.node)
            byNode.append([])
        }
        if !idsAreDense { ids.append(subscription.id) }
        let position = Int32(count)
        byNode[Int(node)].append(position)
        lastChild.append(-1)
        previousSibling.append(-1)
        let parent = subscription.parent == 0 ? nil : self.position(of: subscription.parent)
        if let parent {
            previousSibling[Int(position)] = lastChild[parent]
            lastChild[parent] = position
        } else if subscription.parent != 0 {
            parentsNotFound[position] = subscription.parent
        }
        count += 1
        parents.append(parent.map(Int32.init) ?? -1)
        times.append(subscription.time)
        nodes.append(node)
    }

    /// The subscription at `position`.
    public subscript(position: Int) -> Subscription {
        Subscription(id: id(at: position), node: nodeIDs[Int(nodes[position])], parent: parent(at: position),
                     time: times[position])
    }

    private func id(at position: Int) -> UInt64 { idsAreDense ? UInt64(position + 1) : ids[position] }

    private func parent(at position: Int) -> UInt64 {
        parents[position] >= 0 ? id(at: Int(parents[position])) : parentsNotFound[Int32(position)] ?? 0
    }

    /// The position of the subscription `id`.
    public func position(of id: UInt64) -> Int? {
        if idsAreDense { return id >= 1 && id <= UInt64(count) ? Int(id) - 1 : nil }
        if id >= 1, id <= UInt64(ids.count), ids[Int(id) - 1] == id { return Int(id) - 1 }
        if let index { return index[id].map(Int.init) }
        var low = 0, high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low < ids.count && ids[low] == id ? low : nil
    }

    /// The positions of a node's subscriptions, in trace order; nil when it has none.
    public func positions(ofNode node: UInt64) -> [Int32]? {
        nodePositions[node].map { byNode[Int($0)] }
    }

    /// The positions of the subscriptions that the subscription `parent` started, in trace
    /// order.
    public func children(of parent: UInt64) -> [Int32] {
        var children: [Int32] = []
        var child = position(of: parent).map { lastChild[$0] } ?? -1
        while child >= 0 {
            children.append(child)
            child = previousSibling[Int(child)]
        }
        return children.reversed()
    }

    /// Inner-stream edges, derived from the subscriptions' parents (see `Trace.innerEdges`),
    /// `node` finding a node by id.
    public func innerEdges(node: (UInt64) -> NodeRecord?) -> [Trace.InnerEdge] {
        Trace.innerEdges(of: (0..<count).lazy.map { (node: self.nodeIDs[Int(self.nodes[$0])], parent: self.parent(at: $0)) },
                         node: node, nodeOfSubscription: { self.position(of: $0).map { self[$0].node } })
    }
}
