import TraceLog

extension PipelineGraph {
    /// The pipeline a trace recorded: its nodes as operators, sources and sinks; an edge
    /// per upstream link labelled with the events that crossed it (values, failures,
    /// interruptions), exactly, from the subscriptions' observation links where the trace has
    /// them (`ObservedCrossings`), else inferred from causes (`EdgeCrossings`), drawn as
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
        // Exact counts from the links the recorder wrote; inferred from causes for a trace
        // without them, or an edge none joins.
        let observed = ObservedCrossings(trace)
        var inferred: EdgeCrossings?
        func crossed(from upstream: UInt64, into downstream: UInt64) -> EventCounts {
            if let exact = observed?.crossed(from: upstream, into: downstream) { return exact }
            if inferred == nil { inferred = EdgeCrossings(trace) }
            return inferred!.crossed(from: upstream, into: downstream)
        }
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
        for record in trace.nodes {
            for upstream in record.upstream {
                let style: EdgeStyle
                switch upstream.role {
                case .data, .latest, .fallback: style = .data
                case .inner: style = .inner
                default: style = .control
                }
                let crossed = crossed(from: upstream.node, into: record.id)
                edges.append(Edge(from: String(upstream.node), to: String(record.id), style: style,
                                  label: record.kind == .sink ? nil : crossed.label,
                                  failed: record.kind != .sink && crossed.failed > 0))
            }
        }
        // The links that are no upstream edge: an inner stream into the operator that observed
        // it (a flatMap's, the service's body under its call), a binding into its property.
        var linkedInner: Set<UInt64> = []
        for (pair, counts) in (observed?.crossings ?? []).sorted(by: { ($0.pair.from, $0.pair.to) < ($1.pair.from, $1.pair.to) })
        where pair.from != pair.to && trace.node(pair.to)?.upstream.contains(where: { $0.node == pair.from }) == false {
            let binding = trace.node(pair.from)?.kind == .sink
            if !binding { linkedInner.insert(pair.from) }
            edges.append(Edge(from: String(pair.from), to: String(pair.to), style: binding ? .data : .inner,
                              label: counts.label, failed: counts.failed > 0))
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

    /// The events a node sent, by kind.
    struct EventCounts {
        var values = 0
        var failed = 0
        var interrupted = 0

        mutating func add(_ kind: EventKind) {
            switch kind {
            case .value: values += 1
            case .failed: failed += 1
            case .interrupted: interrupted += 1
            default: break
            }
        }

        /// "3 values · 2 failed · 1 interrupted": the values always, the others when any.
        var label: String {
            var parts = [values == 1 ? "1 value" : "\(values) values"]
            if failed > 0 { parts.append("\(failed) failed") }
            if interrupted > 0 { parts.append("\(interrupted) interrupted") }
            return parts.joined(separator: " \u{00B7} ")
        }
    }

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
private struct EdgeCrossings {
    typealias EventCounts = PipelineGraph.EventCounts
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
    fileprivate func crossed(from upstream: UInt64, into downstream: UInt64) -> EventCounts {
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
