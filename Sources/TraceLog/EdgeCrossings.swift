/// What crossed each edge of a recorded pipeline, inferred, for a trace without observation
/// links (recorded before they were written) or an edge none joins (see `ObservedCrossings`):
/// the events of the upstream subscriptions the downstream node observed. An upstream node started once per consumer (a cold producer
/// feeding a `combineLatest` and a `zip`) has a subscription per consumer, and each edge
/// carries only its own. Which ones a consumer observed is known from the causes: an event of
/// the consumer caused by one of the subscription's, or an event of an inner stream the
/// consumer started (a `flatMap`'s call, caused by the value that asked). An interruption is
/// no data: it links only through an interruption passed down to it, or through a call's
/// request. A subscription that caused nothing in any consumer (it only failed into a
/// `flatMapError`, whose fallback answered) went to the upstream's only consumer, when it has
/// one; and an upstream with one subscription (a hot signal) feeds every consumer with it.
///
/// Kept per subscription in flat arrays (about a dozen bytes each), not in sets and dictionaries: a
/// trace of two million events has hundreds of thousands of subscriptions.
struct EdgeCrossings {
    typealias EventCounts = EdgeCounts
    /// By subscription index (`TraceEvents.subscriptionIndex(at:)`): its values; its terminal
    /// event (`failedBit`, `interruptedBit`; a subscription ends once) and whether it was met
    /// (`seenBit`); and the node its events caused events of (0: none; `several` for more than
    /// one, listed in `severalLinked`; a node id past `several` is kept there too).
    private var values: [UInt32] = []
    private var flags: [UInt8] = []
    private var linked: [UInt32] = []
    private var severalLinked: [Int: Set<UInt64>] = [:]
    /// The subscription indices of each node.
    private var subscriptionsOf: [UInt64: [Int32]] = [:]
    /// The nodes each node feeds.
    private var consumers: [UInt64: Set<UInt64>] = [:]
    private static let several = UInt32.max
    private static let seenBit: UInt8 = 1, failedBit: UInt8 = 2, interruptedBit: UInt8 = 4
    /// Subscriptions whose events caused nothing in any consumer, given by elimination to the
    /// one consumer still short of an upstream subscription (see `assignUnlinked`), by index.
    private var assigned: [Int: UInt64] = [:]

    init(_ trace: Trace) {
        var calls: Set<UInt64> = []
        for record in trace.nodes {
            for upstream in record.upstream { consumers[upstream.node, default: []].insert(record.id) }
            if record.kind == .source && record.name == "call" { calls.insert(record.id) }
        }
        let events = trace.events
        var highest = -1
        for position in events.indices { highest = max(highest, events.subscriptionIndex(at: position)) }
        values = Array(repeating: 0, count: highest + 1)
        flags = Array(repeating: 0, count: highest + 1)
        linked = Array(repeating: 0, count: highest + 1)
        for position in events.indices {
            let subscription = events.subscriptionIndex(at: position)
            let node = events.node(at: position)
            if flags[subscription] & Self.seenBit == 0 {
                flags[subscription] |= Self.seenBit
                subscriptionsOf[node, default: []].append(Int32(subscription))
            }
            switch events.kind(at: position) {
            case .value: values[subscription] &+= 1
            case .failed: flags[subscription] |= Self.failedBit
            case .interrupted: flags[subscription] |= Self.interruptedBit
            case .completed, .pull: break
            }
            // The operators that started this subscription, when operators did (a flatMap's
            // inner stream, a retry's attempt inside it): the value that caused an inner
            // event reached them.
            var starters: [UInt64] = []
            var parent = trace.subscriptions[subscription].parent
            while parent != 0, starters.count < 8, let started = trace.subscription(parent) {
                starters.append(started.node)
                parent = started.parent
            }
            // An interruption comes from a disposal, which is no data crossing an edge: the
            // event being delivered when it came may be another branch's (a take(until:)
            // ending tore this branch down). So an interruption's cause links only when it is
            // an interruption passed down an edge; but a boundary call's interruption names,
            // last, the value that started it, which reached its starters as its answer would
            // have (a call torn down before it answered).
            let causes = events.causes(at: position)
            let interrupted = events.kind(at: position) == .interrupted
            for (index, cause) in zip(causes.indices, causes) {
                guard let origin = trace.eventPosition(sequence: cause) else { continue }
                if interrupted && events.kind(at: origin) != .interrupted
                    && !(calls.contains(node) && index == causes.endIndex - 1) { continue }
                let originNode = events.node(at: origin)
                if originNode != node { link(events.subscriptionIndex(at: origin), to: node) }
                for starter in starters where starter != originNode && starter != node {
                    link(events.subscriptionIndex(at: origin), to: starter)
                }
            }
        }
        assignUnlinked(trace)
    }

    /// A subscription of a node fed to several consumers whose values every consumer dropped
    /// (a `filter` that let none through, its stream then torn down) is linked to none by
    /// causes. Each consumer's subscription observes one subscription of the node; when
    /// exactly one consumer has more subscriptions than subscriptions of the node linked to it,
    /// the unlinked ones are its.
    private mutating func assignUnlinked(_ trace: Trace) {
        var counts: [UInt64: Int] = [:]
        for record in trace.subscriptions { counts[record.node, default: 0] += 1 }
        for (upstream, subscriptions) in subscriptionsOf where subscriptions.count > 1 {
            guard let fed = consumers[upstream], fed.count > 1 else { continue }
            let unlinked = subscriptions.filter { !isLinked(Int($0), toAnyOf: fed) }
            guard !unlinked.isEmpty else { continue }
            let short = fed.filter { consumer in
                (counts[consumer] ?? 0) > subscriptions.filter { isLinked(Int($0), to: consumer) }.count
            }
            guard short.count == 1, let consumer = short.first else { continue }
            for subscription in unlinked { assigned[Int(subscription)] = consumer }
        }
    }

    private mutating func link(_ subscription: Int, to node: UInt64) {
        let current = linked[subscription]
        if current == 0 && node < UInt64(Self.several) {
            linked[subscription] = UInt32(node)
        } else if current == Self.several {
            severalLinked[subscription]?.insert(node)
        } else if UInt64(current) != node {
            linked[subscription] = Self.several
            severalLinked[subscription] = current == 0 ? [node] : [UInt64(current), node]
        }
    }

    /// Whether the events of `subscription` caused events of `node`.
    private func isLinked(_ subscription: Int, to node: UInt64) -> Bool {
        let target = linked[subscription]
        return UInt64(target) == node || (target == Self.several && severalLinked[subscription]?.contains(node) == true)
    }

    /// Whether the events of `subscription` caused events of any of `nodes`.
    private func isLinked(_ subscription: Int, toAnyOf nodes: Set<UInt64>) -> Bool {
        let target = linked[subscription]
        if target == Self.several { return !(severalLinked[subscription] ?? []).isDisjoint(with: nodes) }
        return target != 0 && nodes.contains(UInt64(target))
    }

    /// What crossed the edge from `upstream` into `downstream`.
    func crossed(from upstream: UInt64, into downstream: UInt64) -> EventCounts {
        let subscriptions = subscriptionsOf[upstream] ?? []
        let fed = consumers[upstream] ?? []
        var total = EventCounts()
        for index in subscriptions {
            let subscription = Int(index)
            let observed = subscriptions.count == 1 || isLinked(subscription, to: downstream)
                || (fed.count == 1 && !isLinked(subscription, toAnyOf: fed)) || assigned[subscription] == downstream
            guard observed else { continue }
            total.values += Int(values[subscription])
            if flags[subscription] & Self.failedBit != 0 { total.failed += 1 }
            if flags[subscription] & Self.interruptedBit != 0 { total.interrupted += 1 }
        }
        return total
    }
}
