/// The subscriptions of a `Trace`, in the order they were read, held as columns rather than
/// as `SubscriptionRecord`s: their tree (`tree`: ids, nodes, parents, starts, and each node's
/// subscriptions and each subscription's children, indexed once as they are added), each
/// one's thread, and the few with a request or observation links apart. Some 45 bytes a
/// subscription, where a record alone is over 100; a long trace has nearly a million.
///
/// Reading an element builds its `SubscriptionRecord`.
public struct TraceSubscriptions: RandomAccessCollection, Equatable, Sendable {
    /// Ids, nodes, parents and starts, with the indexes every walk through them needs.
    public private(set) var tree = SubscriptionTree()
    private var threads: [UInt64] = []
    /// `lateFlag`, `observesFlag` and `observedByFlag` of each.
    private var flags: [UInt8] = []
    /// Where each one's `observes` begin in `links`; its `observedBy` follow them, up to
    /// where the next one's `observes` begin.
    private var observesStarts: [UInt32] = []
    private var observedByStarts: [UInt32] = []
    private var links: [UInt64] = []
    /// The requests, and the digests of requests left out, of the few boundary calls, by position.
    private var requests: [Int32: String] = [:]
    private var omittedRequests: [Int32: RequestDigest] = [:]

    private static let lateFlag: UInt8 = 1, observesFlag: UInt8 = 2, observedByFlag: UInt8 = 4

    /// No subscriptions.
    public init() {}

    public var startIndex: Int { 0 }
    public var endIndex: Int { tree.count }

    public subscript(position: Int) -> SubscriptionRecord {
        let subscription = tree[position]
        let flag = flags[position], end = position + 1 < observesStarts.count ? Int(observesStarts[position + 1]) : links.count
        let key = Int32(position)
        return SubscriptionRecord(id: subscription.id, node: subscription.node, parent: subscription.parent,
                                  time: subscription.time, thread: threads[position], late: flag & Self.lateFlag != 0,
                                  request: requests.isEmpty ? nil : requests[key],
                                  requestOmitted: omittedRequests.isEmpty ? nil : omittedRequests[key],
                                  observes: flag & Self.observesFlag == 0 ? nil
                                      : Array(links[Int(observesStarts[position])..<Int(observedByStarts[position])]),
                                  observedBy: flag & Self.observedByFlag == 0 ? nil
                                      : Array(links[Int(observedByStarts[position])..<end]))
    }

    /// Adds the next subscription of the trace.
    mutating func append(_ subscription: SubscriptionRecord) {
        let key = Int32(tree.count)
        tree.append(subscription)
        threads.append(subscription.thread)
        flags.append((subscription.late ? Self.lateFlag : 0) | (subscription.observes == nil ? 0 : Self.observesFlag)
            | (subscription.observedBy == nil ? 0 : Self.observedByFlag))
        observesStarts.append(UInt32(links.count))
        links += subscription.observes ?? []
        observedByStarts.append(UInt32(links.count))
        links += subscription.observedBy ?? []
        if let request = subscription.request { requests[key] = request }
        if let omitted = subscription.requestOmitted { omittedRequests[key] = omitted }
    }

    public static func == (lhs: TraceSubscriptions, rhs: TraceSubscriptions) -> Bool {
        lhs.elementsEqual(rhs)
    }
}
