import TraceLog

/// What a marble diagram of a trace shows.
public struct MarbleOptions: Sendable, Equatable {
    /// Which nodes get lanes.
    public enum Selection: Sendable, Equatable {
        /// The nodes on a path from a source to a sink (every node when nothing is observed).
        case paths
        /// Every node but sinks (a sink's lane would repeat the lane it observes).
        case all
        /// These nodes, each named by label, name or id (`3` or `#3`).
        case nodes([String])
    }

    public var selection: Selection
    /// Draw an arrow from each marble to the marbles it caused.
    public var causes: Bool
    public var title: String?

    public init(selection: Selection = .paths, causes: Bool = false, title: String? = nil) {
        self.selection = selection
        self.causes = causes
        self.title = title
    }
}

extension MarbleFigure {
    /// The marble diagram of a trace: a lane per subscription of each chosen node in
    /// pipeline order (node ids are in first-appearance order, upstream first), the node's
    /// operator in a box above its lane, inner streams of higher-order operators as short
    /// lanes under the operator's box, starting where they were subscribed; marbles coloured
    /// by the thread that delivered them.
    ///
    /// - Throws: `DiagramError.invalidRequest` when a chosen node is not in the trace or
    ///   nothing is left to draw.
    public init(trace: Trace, options: MarbleOptions = MarbleOptions()) throws {
        let builder = TraceMarbleBuilder(trace: trace, options: options)
        self = try builder.figure()
    }
}

private struct TraceMarbleBuilder {
    let trace: Trace
    let options: MarbleOptions
    var disposals: [UInt64: Int64] = [:]
    var subscriptionsByNode: [UInt64: [SubscriptionRecord]] = [:]
    var eventsBySubscription: [UInt64: [EventRecord]] = [:]
    let innerStreams: InnerStreams

    init(trace: Trace, options: MarbleOptions) {
        self.trace = trace
        self.options = options
        for disposal in trace.disposals where disposals[disposal.subscription] == nil {
            disposals[disposal.subscription] = disposal.time
        }
        for subscription in trace.subscriptions {
            subscriptionsByNode[subscription.node, default: []].append(subscription)
        }
        for event in trace.events {
            eventsBySubscription[event.subscription, default: []].append(event)
        }
        innerStreams = InnerStreams(trace: trace)
    }

    /// A node whose every subscription was started by a higher-order operator.
    func isInnerOnly(_ node: NodeRecord) -> Bool {
        guard node.kind != .sink, let subscriptions = subscriptionsByNode[node.id], !subscriptions.isEmpty else { return false }
        return subscriptions.allSatisfy { $0.parent != 0 }
    }

    func chosenNodes() throws -> [NodeRecord] {
        let candidates = trace.nodes.filter { $0.kind != .sink && subscriptionsByNode[$0.id] != nil }
        switch options.selection {
        case .all:
            return candidates.filter { !isInnerOnly($0) }
        case .paths:
            let main = candidates.filter { !isInnerOnly($0) }
            var reaches: Set<UInt64> = []
            for node in trace.nodes.reversed() {
                let downstream = trace.nodes.filter { $0.upstream.contains { $0.node == node.id } }
                if node.kind == .sink || downstream.contains(where: { reaches.contains($0.id) }) {
                    reaches.insert(node.id)
                }
            }
            let onPaths = main.filter { reaches.contains($0.id) }
            return onPaths.isEmpty ? main : onPaths
        case let .nodes(names):
            var chosen: [UInt64] = []
            for name in names {
                guard let node = resolve(name) else {
                    let known = trace.nodes.map { "#\($0.id) \($0.displayName)" }.joined(separator: ", ")
                    throw DiagramError.invalidRequest("no node \"\(TextSafety.singleLine(name))\" in the trace; its nodes are: \(known)")
                }
                if !chosen.contains(node.id) { chosen.append(node.id) }
            }
            return trace.nodes.filter { chosen.contains($0.id) }
        }
    }

    func resolve(_ name: String) -> NodeRecord? {
        let digits = name.hasPrefix("#") ? String(name.dropFirst()) : name
        if let id = UInt64(digits), let node = trace.node(id) { return node }
        return trace.nodes.first { $0.label == name } ?? trace.nodes.first { $0.name == name }
    }

    func figure() throws -> MarbleFigure {
        let nodes = try chosenNodes()
        guard !nodes.isEmpty else { throw DiagramError.invalidRequest("the trace has no subscribed nodes to draw") }
        let chosenIDs = Set(nodes.map(\.id))
        var threads = ThreadIndex(trace: trace)
        var rows: [MarbleFigure.Row] = []
        var drawn: Set<UInt64> = []
        let topLevel: [SubscriptionRecord] = nodes.flatMap { subscriptionsByNode[$0.id] ?? [] }.filter { $0.parent == 0 }
        let firstEvent: Int64 = trace.events.first?.time ?? 0
        let start: Int64 = topLevel.map(\.time).min() ?? firstEvent
        let span: Int64 = max(0, TimeFormat.clamped(trace.events.last?.time ?? start) - TimeFormat.clamped(start))
        var previous: UInt64?

        for node in nodes {
            let innerOnly = isInnerOnly(node)
            if innerOnly, let outer = outerNode(of: node), chosenIDs.contains(outer) {
                continue
            }
            if !node.upstream.isEmpty || innerOnly {
                var op = MarbleFigure.Operator(name: node.name, parameters: node.parameters, detail: "\(node.file):\(node.line)")
                // Name the inputs unless the only one is the lane just above.
                let inputs = node.upstream.compactMap { trace.node($0.node) }
                if inputs.count > 1 || (inputs.first.map { $0.id != previous } ?? false) {
                    op.input = inputs.map(\.displayName).joined(separator: ", ")
                }
                rows.append(.operator(op))
            }
            for inner in innerStreams.of(node.id) where !innerOnly && (!options.isNodes || chosenIDs.contains(inner)) {
                guard let innerNode = trace.node(inner) else { continue }
                let parents = Set((subscriptionsByNode[node.id] ?? []).map(\.id))
                for subscription in (subscriptionsByNode[inner] ?? []) where parents.contains(subscription.parent) {
                    rows.append(.lane(lane(for: subscription, node: innerNode, title: innerTitle(innerNode),
                                           inner: true, start: start, span: span, threads: &threads, drawn: &drawn)))
                }
            }
            let subscriptions = (subscriptionsByNode[node.id] ?? []).filter { innerOnly || $0.parent == 0 || !isTopLevelNode(node) }
            var lanes: [MarbleFigure.Lane] = []
            for (index, subscription) in subscriptions.enumerated() {
                let title = subscriptions.count > 1 && !innerOnly ? "\(node.displayName) #\(index + 1)" : node.displayName
                lanes.append(lane(for: subscription, node: node, title: title, inner: innerOnly,
                                  start: start, span: span, threads: &threads, drawn: &drawn))
            }
            if lanes.count > Self.maxSeparateSubscriptions {
                lanes = [merged(lanes, title: "\(node.displayName) \u{00D7}\(lanes.count)")]
            }
            rows += lanes.map(MarbleFigure.Row.lane)
            previous = node.id
        }

        removeRepeatedLanes(&rows, drawn: &drawn)
        var causes: [MarbleFigure.Cause] = []
        if options.causes {
            var seen: Set<String> = []
            for event in trace.events where drawn.contains(event.sequence) {
                for cause in event.causes {
                    guard let from = nearestDrawn(cause, drawn: drawn), from != event.sequence,
                          seen.insert("\(from) \(event.sequence)").inserted else { continue }
                    causes.append(.init(from: from, to: event.sequence))
                }
            }
        }
        return MarbleFigure(title: options.title, rows: rows, threads: threads.names, causes: causes)
    }

    /// More subscriptions of one node than this are drawn as one lane (a cold producer
    /// started per photo would otherwise stack a lane per start).
    static let maxSeparateSubscriptions = 3

    /// One lane holding every marble of `lanes`; it ends when the last of them ends, and
    /// only if all of them ended.
    func merged(_ lanes: [MarbleFigure.Lane], title: String) -> MarbleFigure.Lane {
        var lane = MarbleFigure.Lane(title: title, detail: lanes.first?.detail, isInner: lanes.first?.isInner ?? false)
        lane.marbles = lanes.flatMap(\.marbles).sorted { ($0.time, $0.id) < ($1.time, $1.id) }
        let starts = lanes.map(\.subscribed)
        lane.subscribed = starts.contains(nil) ? nil : starts.compactMap { $0 }.min()
        let ends = lanes.compactMap(\.end)
        if ends.count == lanes.count { lane.end = ends.max { $0.time < $1.time } }
        return lane
    }

    /// Drops a lane that a later lane repeats: same title, same marbles at the same times,
    /// same end. A named source wrapped in a producer of the same name (how a spec's hot
    /// input is built) would otherwise be drawn twice.
    func removeRepeatedLanes(_ rows: inout [MarbleFigure.Row], drawn: inout Set<UInt64>) {
        func key(_ lane: MarbleFigure.Lane) -> [String] {
            [lane.title, String(lane.isInner), String(describing: lane.end)]
                + lane.marbles.map { "\($0.time) \($0.thread) \($0.display)" }
        }
        var later: Set<[String]> = []
        var kept: [MarbleFigure.Row] = []
        for row in rows.reversed() {
            if case let .lane(lane) = row {
                guard later.insert(key(lane)).inserted else {
                    for marble in lane.marbles { drawn.remove(marble.id) }
                    continue
                }
            }
            kept.append(row)
        }
        rows = kept.reversed()
    }

    /// An inner stream's title: its label, else where its chain starts and its last step,
    /// `search → observe(on:)`.
    func innerTitle(_ node: NodeRecord) -> String {
        if let label = node.label { return label }
        var root = node
        var steps = 0
        while let upstream = root.upstream.first.flatMap({ trace.node($0.node) }), steps < 1_000 {
            root = upstream
            steps += 1
        }
        return root.id == node.id ? node.name : "\(root.displayName) \u{2192} \(node.name)"
    }

    func isTopLevelNode(_ node: NodeRecord) -> Bool {
        (subscriptionsByNode[node.id] ?? []).contains { $0.parent == 0 }
    }

    func outerNode(of node: NodeRecord) -> UInt64? {
        innerStreams.byOuter.keys.sorted().first { innerStreams.of($0).contains(node.id) }
    }

    /// The cause itself when it is drawn, else the nearest drawn event up its chain of
    /// primary causes.
    func nearestDrawn(_ sequence: UInt64, drawn: Set<UInt64>) -> UInt64? {
        var current = sequence
        for _ in 0..<256 {
            if drawn.contains(current) { return current }
            guard let next = trace.event(sequence: current)?.causes.first else { return nil }
            current = next
        }
        return nil
    }

    func lane(for subscription: SubscriptionRecord, node: NodeRecord, title: String, inner: Bool, start: Int64, span: Int64,
              threads: inout ThreadIndex, drawn: inout Set<UInt64>) -> MarbleFigure.Lane {
        var lane = MarbleFigure.Lane(title: title, detail: "\(node.file):\(node.line)", isInner: inner)
        // In a real-time trace every lane subscribes a few microseconds apart; only a lane
        // subscribed noticeably later than the first (or an inner one) shows the mark.
        if inner || TimeFormat.clamped(subscription.time) - TimeFormat.clamped(start) > span / 50 {
            lane.subscribed = subscription.time
        }
        for event in eventsBySubscription[subscription.id] ?? [] {
            switch event.kind {
            case .value:
                // The reader accepts texts of any length; a figure draws and keeps a bounded part.
                let text = event.text ?? ""
                lane.marbles.append(.init(id: event.sequence, time: event.time,
                                          display: TextSafety.truncated(text, to: TextSafety.displayLimit),
                                          full: TextSafety.truncated(text, to: TextSafety.fullLimit),
                                          thread: threads.index(event.thread)))
                drawn.insert(event.sequence)
            case .completed:
                lane.end = .completed(at: event.time)
            case .failed:
                lane.end = .failed(at: event.time, message: TextSafety.truncated(event.text ?? "", to: TextSafety.fullLimit))
            case .interrupted:
                lane.end = .interrupted(at: event.time)
            }
        }
        if lane.end == nil, let disposed = disposals[subscription.id] {
            lane.end = .disposed(at: disposed)
        }
        return lane
    }
}

/// Figure thread indices in order of first use, one per thread label: records of the same
/// scheduler on different OS threads share an index and a colour.
private struct ThreadIndex {
    let trace: Trace
    var indices: [String: Int] = [:]
    var names: [String] = []

    init(trace: Trace) { self.trace = trace }

    mutating func index(_ thread: UInt64) -> Int {
        let name = trace.thread(thread).map(ThreadLabel.of) ?? "thread \(thread)"
        if let index = indices[name] { return index }
        indices[name] = names.count
        names.append(name)
        return names.count - 1
    }
}

/// How figures name a thread of a trace.
enum ThreadLabel {
    /// The scheduler running on it when there is one (`main`, `background`: what the code
    /// chose), else the thread's own name. Dispatch names its worker threads by quality of
    /// service, which says nothing about the pipeline.
    static func of(_ thread: ThreadRecord) -> String {
        thread.scheduler ?? thread.name
    }
}

private extension MarbleOptions {
    var isNodes: Bool {
        if case .nodes = selection { return true }
        return false
    }
}
