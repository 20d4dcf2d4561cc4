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
    /// When set, the only subscriptions drawn as lanes of the selected nodes (with the inner
    /// streams they started); a selected node with none of them is left out. A spec's run
    /// starts every named stream on its own, so each stream's upstream nodes have one
    /// subscription per stream that uses them: this draws each stream's own once.
    public var subscriptions: Set<UInt64>?

    public init(selection: Selection = .paths, causes: Bool = false, title: String? = nil,
                subscriptions: Set<UInt64>? = nil) {
        self.selection = selection
        self.causes = causes
        self.title = title
        self.subscriptions = subscriptions
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
        var builder = TraceMarbleBuilder(input: MarbleInput(trace: trace), options: options)
        self = try builder.figure()
    }

    /// The marble diagram of a trace file, the same figure as `init(trace:options:)` of the
    /// trace it holds, read without holding the trace: the events of the lanes drawn are
    /// read in a second pass over the file, straight into the figure.
    ///
    /// - Throws: `DiagramError.invalidRequest` as `init(trace:options:)` does; a `TraceError`
    ///   when the file cannot be read again.
    public init(file: consuming MarbleTraceFile, options: MarbleOptions = MarbleOptions()) throws {
        var builder = TraceMarbleBuilder(input: (consume file).input, options: options)
        self = try builder.figure()
    }
}

private struct TraceMarbleBuilder {
    private(set) var input: MarbleInput
    let options: MarbleOptions
    /// The trace's nodes and threads (its events are read from `input.feed`).
    var trace: Trace { input.structure }
    /// The trace's subscriptions, as the figure reads them; everything below holds positions
    /// in it, not copies of its records: a trace of millions of events has hundreds of
    /// thousands of subscriptions.
    var table: SubscriptionTree { input.subscriptions }
    let innerStreams: InnerStreams
    /// Work started following a node's elements, drawn after that node's lanes.
    let followed: FollowedWork
    /// What the second pass over the events keeps (`readEvents`) of each subscription a lane
    /// draws: its end, its first disposal, and where its marbles go. Each marble's `thread`
    /// and `hoppedFrom` are still positions in `trace.threads` there (the figure numbers
    /// threads in the order its lanes use them).
    var laneEvents: [LaneEvents] = []
    /// By entry in `laneEvents`: the message of its failure, when it ended by failing.
    var failureMessages: [Int32: String] = [:]
    /// By subscription position: its entry in `laneEvents`, -1 for none.
    var laneEventIndex: [Int32] = []
    /// The marbles read, in the trace's order: one list per lane, or one for all the lanes
    /// of a merged group (a lane merging tens of thousands of subscriptions is then one
    /// array, sized from the first pass's counts, and the merged lane takes it whole).
    var marbleLists: [[MarbleFigure.Marble]] = []
    /// By planned row: for a group merged into one list, the threads its lanes use, each
    /// with its first use (lane in the group, marble in the lane, then 0 for the marble's
    /// own thread, 1 for its cause's), the order in which lane by lane would number them.
    var groupThreads: [Int: [(thread: Int, lane: Int, marble: Int, cause: Int)]] = [:]
    /// The failures and interruptions of every subscription (a chain's marks), each with its
    /// subscription's position, sorted by position and in the trace's order within one
    /// (`endings(of:)`): 40 bytes an end, where a dictionary of arrays took over 80.
    var endings: [(position: Int32, end: MarbleFigure.End)] = []
    /// With causal arrows: each value event of a drawn subscription with its causes, in the
    /// trace's order, and every event's primary cause by position (`UInt64.max` for none).
    var valueCauses: [(sequence: UInt64, causes: [UInt64])] = []
    var firstCauses: [UInt64] = []

    /// 48 bytes a drawn subscription (a long trace draws hundreds of thousands in merged
    /// lanes): its end's kind and time, a failure's message in `failureMessages`, where an
    /// optional `MarbleFigure.End` and disposal time took 72.
    struct LaneEvents {
        var endTime: Int64 = 0
        /// The time of its first disposal, when `isDisposed`.
        var disposedTime: Int64 = 0
        /// The time of its latest value.
        var lastValueTime: Int64 = .min
        /// How many lanes still read it.
        var readers: Int32 = 0
        /// Its list in `marbleLists`, and for a lane of a merged group the group's row in the
        /// plan (-1 otherwise), its place in the group and how many marbles it has had.
        var list: Int32 = -1
        var group: Int32 = -1
        var lane: Int32 = 0
        var marbles: Int32 = 0
        var ending = Ending.none
        var isDisposed = false
    }

    /// How a drawn subscription ended by an event of its own.
    enum Ending: UInt8 {
        case none, completed, failed, interrupted
    }

    /// The end of the subscription drawn by the entry `entry` of `laneEvents`: its terminal
    /// event, else its first disposal.
    func end(of entry: Int) -> MarbleFigure.End? {
        let events = laneEvents[entry]
        switch events.ending {
        case .completed: return .completed(at: events.endTime)
        case .failed: return .failed(at: events.endTime, message: failureMessages[Int32(entry)] ?? "")
        case .interrupted: return .interrupted(at: events.endTime)
        // A value delivered after its subscription's disposal (live, a delivery on one thread
        // racing the teardown on another) is drawn, and the disposal at its time: nothing
        // follows a lane's end.
        case .none: return events.isDisposed ? .disposed(at: max(events.disposedTime, events.lastValueTime)) : nil
        }
    }

    init(input: MarbleInput, options: MarbleOptions) {
        self.input = input
        self.options = options
        let trace = input.structure
        let innerEdges = input.subscriptions.innerEdges { trace.node($0) }
        innerStreams = InnerStreams(nodes: trace.nodes, innerEdges: innerEdges, valueCauseNodes: input.valueCauseNodes(of:))
        followed = FollowedWork(nodes: trace.nodes, innerStreams: innerStreams, taps: input.pullingNodes,
                                valueCauseNodes: input.valueCauseNodes(of:))
    }

    /// Reads the trace's events once more, keeping those `plan` draws (`laneEvents`,
    /// `marbleLists`), every failure and interruption (`endings`), and with causal arrows
    /// what they need.
    mutating func readEvents(for plan: [PlannedRow]) throws {
        laneEventIndex = [Int32](repeating: -1, count: table.count)
        var planned = 0, entries: Int32 = 0
        for case let .lanes(group) in plan {
            for position in group.subscriptions where laneEventIndex[Int(position)] < 0 {
                laneEventIndex[Int(position)] = entries
                entries += 1
            }
        }
        // Sized once: grown by doubling, the list held up to twice the room it needed.
        laneEvents = [LaneEvents](repeating: LaneEvents(), count: Int(entries))
        for case let .lanes(group) in plan {
            for position in group.subscriptions {
                laneEvents[Int(laneEventIndex[Int(position)])].readers += 1
                planned += 1
            }
        }
        // A merged group's lanes share one list, unless a subscription is drawn twice (an
        // inner stream of two operators): then every lane keeps a list of its own.
        let shared = planned == laneEvents.count
        for (row, planned) in plan.enumerated() {
            guard case let .lanes(group) = planned else { continue }
            if shared, group.merged != nil {
                let count = group.subscriptions.reduce(0) { $0 + Int(self.input.valueCounts[Int($1)]) }
                marbleLists.append([])
                marbleLists[marbleLists.count - 1].reserveCapacity(count)
                for (lane, position) in group.subscriptions.enumerated() {
                    let entry = Int(laneEventIndex[Int(position)])
                    laneEvents[entry].list = Int32(marbleLists.count - 1)
                    laneEvents[entry].group = Int32(row)
                    laneEvents[entry].lane = Int32(lane)
                }
                groupThreads[row] = []
            } else {
                for position in group.subscriptions where laneEvents[Int(laneEventIndex[Int(position)])].list < 0 {
                    marbleLists.append([])
                    marbleLists[marbleLists.count - 1].reserveCapacity(Int(self.input.valueCounts[Int(position)]))
                    laneEvents[Int(laneEventIndex[Int(position)])].list = Int32(marbleLists.count - 1)
                }
            }
        }
        let table = self.table, input = self.input, causes = options.causes
        var laneEvents = self.laneEvents, failureMessages = self.failureMessages, endings = self.endings
        var marbleLists = self.marbleLists
        var valueCauses = self.valueCauses, firstCauses = self.firstCauses, groupThreads = self.groupThreads
        let laneEventIndex = self.laneEventIndex
        self.laneEvents = []
        self.marbleLists = []
        /// Notes a use of `thread` by a marble of a merged group's lane, when it is the first.
        func use(_ thread: Int, by entry: LaneEvents, cause: Int) {
            let row = Int(entry.group), key = (thread, Int(entry.lane), Int(entry.marbles), cause)
            if let known = groupThreads[row]?.firstIndex(where: { $0.thread == thread }) {
                if (key.1, key.2, key.3) < (groupThreads[row]![known].lane, groupThreads[row]![known].marble,
                                            groupThreads[row]![known].cause) {
                    groupThreads[row]![known] = key
                }
            } else {
                groupThreads[row]!.append(key)
            }
        }
        var eventPosition = 0
        try input.feed.forEach(validating: false, other: { record in
            guard case let .dispose(disposal) = record, let position = table.position(of: disposal.subscription) else { return }
            let entry = Int(laneEventIndex[position])
            if entry >= 0, !laneEvents[entry].isDisposed {
                laneEvents[entry].isDisposed = true
                laneEvents[entry].disposedTime = disposal.time
            }
        }) { event in
            defer { eventPosition += 1 }
            if causes { firstCauses.append(event.causes.first ?? .max) }
            guard let position = table.position(of: event.subscription) else { return }
            let entry = Int(laneEventIndex[position])
            switch event.kind {
            case .value:
                guard entry >= 0 else { return }
                // The reader accepts texts of any length; a figure draws and keeps a bounded part.
                let text = event.text ?? ""
                let thread = input.thread(atEvent: eventPosition)
                let hop = event.causes.first.flatMap(input.thread(ofEvent:))
                if laneEvents[entry].group >= 0 {
                    use(thread, by: laneEvents[entry], cause: 0)
                    if let hop { use(hop, by: laneEvents[entry], cause: 1) }
                }
                laneEvents[entry].marbles += 1
                laneEvents[entry].lastValueTime = max(laneEvents[entry].lastValueTime, event.time)
                marbleLists[Int(laneEvents[entry].list)].append(.init(
                    id: event.sequence, time: event.time, display: TextSafety.truncated(text, to: TextSafety.displayLimit),
                    full: TextSafety.truncated(text, to: TextSafety.fullLimit), thread: thread, hoppedFrom: hop))
                if causes { valueCauses.append((event.sequence, event.causes)) }
            case .completed:
                if entry >= 0 { laneEvents[entry].ending = .completed; laneEvents[entry].endTime = event.time }
            case .failed:
                let message = TextSafety.truncated(event.text ?? "", to: TextSafety.fullLimit)
                if entry >= 0 {
                    laneEvents[entry].ending = .failed
                    laneEvents[entry].endTime = event.time
                    failureMessages[Int32(entry)] = message
                }
                endings.append((Int32(position), .failed(at: event.time, message: message)))
            case .interrupted:
                if entry >= 0 { laneEvents[entry].ending = .interrupted; laneEvents[entry].endTime = event.time }
                endings.append((Int32(position), .interrupted(at: event.time)))
            case .pull:
                // Demand is not drawn: a consumer's `for await` pulls again as soon as it has
                // an element, so a tick would sit beside nearly every marble, and a marble line
                // (`AsyncMarbleTest`, `validate`) has no symbol for it. `stats` counts pulls.
                break
            }
        }
        self.laneEvents = laneEvents
        self.failureMessages = failureMessages
        self.marbleLists = marbleLists
        self.endings = endings.indices.sorted { (endings[$0].position, $0) < (endings[$1].position, $1) }.map { endings[$0] }
        self.valueCauses = valueCauses
        self.firstCauses = firstCauses
        self.groupThreads = groupThreads
    }

    /// The failures and interruptions of the subscription at `position`, in the trace's order.
    func endings(of position: Int) -> ArraySlice<(position: Int32, end: MarbleFigure.End)> {
        var low = 0, high = endings.count
        while low < high {
            let middle = (low + high) / 2
            if Int(endings[middle].position) < position { low = middle + 1 } else { high = middle }
        }
        var end = low
        while end < endings.count, Int(endings[end].position) == position { end += 1 }
        return endings[low..<end]
    }

    /// The marbles of the list `list`, taken from `marbleLists` by the last lane to read
    /// them (`last`), else copied.
    mutating func takeMarbles(_ list: Int32, last: Bool) -> [MarbleFigure.Marble] {
        guard last else { return marbleLists[Int(list)] }
        var marbles: [MarbleFigure.Marble] = []
        swap(&marbles, &marbleLists[Int(list)])
        return marbles
    }

    /// A node's subscriptions in trace order; nil when it has none.
    func subscriptions(of node: UInt64) -> [SubscriptionTree.Subscription]? {
        table.positions(ofNode: node).map { $0.map { table[Int($0)] } }
    }

    /// The subscriptions `parent` started, in trace order.
    func children(of parent: UInt64) -> [SubscriptionTree.Subscription] {
        table.children(of: parent).map { table[Int($0)] }
    }

    /// A node whose every subscription was started by a higher-order operator.
    func isInnerOnly(_ node: NodeRecord) -> Bool {
        guard node.kind != .sink, let subscriptions = subscriptions(of: node.id), !subscriptions.isEmpty else { return false }
        return subscriptions.allSatisfy { $0.parent != 0 }
    }

    func chosenNodes() throws -> [NodeRecord] {
        let candidates = trace.nodes.filter { $0.kind != .sink && table.positions(ofNode: $0.id) != nil }
        switch options.selection {
        case .all:
            return candidates.filter { !isInnerOnly($0) }
        case .paths:
            let main = candidates.filter { !isInnerOnly($0) }
            // Which nodes reach a sink, from the last back (a node is defined before what it
            // feeds), each node's downstream found in one index (filtering every node for each
            // node cost n², issue 33 item 3).
            let nodes = trace.nodes
            var downstream: [UInt64: [UInt64]] = [:]
            for node in nodes {
                for edge in node.upstream { downstream[edge.node, default: []].append(node.id) }
            }
            var reaches: Set<UInt64> = []
            for node in nodes.reversed() {
                if node.kind == .sink || (downstream[node.id] ?? []).contains(where: { reaches.contains($0) }) {
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
                guard table.positions(ofNode: node.id) != nil else {
                    throw DiagramError.invalidRequest("node \"\(TextSafety.singleLine(name))\" (#\(node.id) \(node.displayName)) "
                                                      + "was never subscribed in the trace: it has no lane to draw")
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

    /// Whether `subscription` may be drawn as a lane (`MarbleOptions.subscriptions`).
    func isDrawn(_ subscription: SubscriptionTree.Subscription) -> Bool {
        options.subscriptions?.contains(subscription.id) ?? true
    }

    /// A row of the figure before its events are read: an operator's box, or the lanes of
    /// one node's subscriptions (positions in `table`), merged into one lane
    /// titled `merged` when there are too many to draw apart.
    enum PlannedRow {
        case `operator`(MarbleFigure.Operator)
        case lanes(PlannedLanes)
    }

    struct PlannedLanes {
        var node: NodeRecord
        var inner: Bool
        /// Every lane's title; nil: the node's name numbered by subscription (`search #2`).
        var title: String?
        var subscriptions: [Int32]
        var merged: String?

        func title(ofLane index: Int) -> String {
            title ?? "\(node.displayName) #\(index + 1)"
        }
    }

    mutating func figure() throws -> MarbleFigure {
        var nodes = try chosenNodes()
        if options.subscriptions != nil {
            nodes = nodes.filter { (subscriptions(of: $0.id) ?? []).contains(where: isDrawn) }
        }
        guard !nodes.isEmpty else { throw DiagramError.invalidRequest("the trace has no subscribed nodes to draw") }
        let chosenIDs = Set(nodes.map(\.id))
        // Nodes drawn on lanes of their own: a chain's marks leave them out.
        var laneNodes = chosenIDs
        for node in nodes where !isInnerOnly(node) {
            laneNodes.formUnion(innerStreams.of(node.id).filter { !options.isNodes || chosenIDs.contains($0) })
        }
        let topLevel: [SubscriptionTree.Subscription] = nodes.flatMap { subscriptions(of: $0.id) ?? [] }.filter { $0.parent == 0 }
        let firstEvent: Int64 = input.firstTime ?? 0
        let start: Int64 = topLevel.map(\.time).min() ?? firstEvent
        let span: Int64 = max(0, TimeFormat.clamped(input.lastTime ?? start) - TimeFormat.clamped(start))
        var previous: UInt64?

        var plan: [PlannedRow] = []
        /// The lanes of `inner`'s subscriptions that `node`'s drawn subscriptions started.
        func innerLanes(_ inner: UInt64, of node: NodeRecord) -> PlannedRow? {
            guard let innerNode = trace.node(inner) else { return nil }
            let parents = Set((subscriptions(of: node.id) ?? []).filter(isDrawn).map(\.id))
            let title = innerTitle(innerNode)
            let lanes = (table.positions(ofNode: inner) ?? []).filter { parents.contains(table[Int($0)].parent) }
            guard !lanes.isEmpty else { return nil }
            return .lanes(PlannedLanes(node: innerNode, inner: true, title: title, subscriptions: lanes,
                                       merged: lanes.count > Self.maxSeparateInnerLanes ? "\(title) \u{00D7}\(lanes.count)" : nil))
        }
        for node in followed.order(nodes) {
            let innerOnly = isInnerOnly(node)
            // Drawn under its operator's box when that operator gets lanes with inner streams
            // (an inner-only operator's lanes have none: the node gets its own).
            if innerOnly, let outer = outerNode(of: node), chosenIDs.contains(outer),
               let outerNode = trace.node(outer), !isInnerOnly(outerNode) {
                continue
            }
            if !node.upstream.isEmpty || innerOnly {
                var op = MarbleFigure.Operator(name: node.name, parameters: node.parameters, detail: "\(node.file):\(node.line)")
                // Name the inputs unless the only one is the lane just above.
                let inputs = node.upstream.compactMap { trace.node($0.node) }
                if inputs.count > 1 || (inputs.first.map { $0.id != previous } ?? false) {
                    op.input = inputs.map(\.displayName).joined(separator: ", ")
                }
                plan.append(.operator(op))
            }
            for inner in innerStreams.of(node.id) where !innerOnly && (!options.isNodes || chosenIDs.contains(inner))
            && !followed.isFollowed(inner, by: node.id) {
                if let row = innerLanes(inner, of: node) { plan.append(row) }
            }
            let topLevelNode = isTopLevelNode(node)
            let lanes = (table.positions(ofNode: node.id) ?? []).filter {
                let subscription = table[Int($0)]
                return (innerOnly || subscription.parent == 0 || !topLevelNode) && isDrawn(subscription)
            }
            if !lanes.isEmpty {
                plan.append(.lanes(PlannedLanes(node: node, inner: innerOnly,
                                                title: lanes.count > 1 && !innerOnly ? nil : node.displayName, subscriptions: lanes,
                                                merged: lanes.count > Self.maxSeparateSubscriptions
                                                    ? "\(node.displayName) \u{00D7}\(lanes.count)" : nil)))
            }
            // The work started following its elements, under its lane (the nodes that work fed
            // come next, `followingOrder`).
            for inner in followed.started[node.id] ?? [] where !innerOnly && (!options.isNodes || chosenIDs.contains(inner)) {
                if let row = innerLanes(inner, of: node) { plan.append(row) }
            }
            previous = node.id
        }

        try readEvents(for: plan)
        input.releaseEventThreads()
        var threads = ThreadIndex(trace: trace)
        var rows: [MarbleFigure.Row] = []
        var drawn: Set<UInt64> = []
        for (row, planned) in plan.enumerated() {
            switch planned {
            case let .operator(op):
                rows.append(.operator(op))
            case let .lanes(group):
                let used = groupThreads[row]?.sorted { ($0.lane, $0.marble, $0.cause) < ($1.lane, $1.marble, $1.cause) }
                for use in used ?? [] { _ = threads.index(use.thread) }
                // A merged group's lanes are folded into the merged lane one by one: a group of
                // hundreds of thousands of subscriptions would otherwise hold a lane of each.
                var lanes: [MarbleFigure.Lane] = []
                var merging = group.merged.map(MergedLane.init(title:))
                for (index, position) in group.subscriptions.enumerated() {
                    let made = lane(at: Int(position), node: group.node, title: group.title(ofLane: index), inner: group.inner,
                                    start: start, span: span, laneNodes: laneNodes, threads: &threads, drawn: &drawn)
                    if merging != nil { merging!.add(made) } else { lanes.append(made) }
                }
                if used != nil, let first = group.subscriptions.first {
                    var marbles = takeMarbles(laneEvents[Int(laneEventIndex[Int(first)])].list, last: true)
                    number(&marbles, threads: &threads, drawn: &drawn)
                    if merging != nil { merging!.laneMarbles[0] = marbles } else { lanes[0].marbles = marbles }
                }
                if merging != nil { lanes = [merging!.lane()] }
                rows += lanes.map(MarbleFigure.Row.lane)
            }
        }

        removeRepeatedLanes(&rows, drawn: &drawn)
        var causes: [MarbleFigure.Cause] = []
        if options.causes {
            var seen: Set<String> = []
            for event in valueCauses where drawn.contains(event.sequence) {
                for cause in event.causes {
                    guard let from = nearestDrawn(cause, drawn: drawn), from != event.sequence,
                          seen.insert("\(from) \(event.sequence)").inserted else { continue }
                    causes.append(.init(from: from, to: event.sequence))
                }
            }
        }
        // Coloured as the whole trace's threads are, so every figure and view of it agrees.
        let colours = ThreadColours.colours(of: [trace])
        return MarbleFigure(title: options.title, rows: rows, threads: threads.names,
                            threadColours: threads.names.map { colours[$0] ?? ThreadColours.several }, causes: causes)
    }

    /// More subscriptions of one node than this are drawn as one lane (a cold producer
    /// started per photo would otherwise stack a lane per start).
    static let maxSeparateSubscriptions = 3

    /// More inner streams of one node under an operator than this are drawn as one lane,
    /// each start and end a mark on it: a lane per search of a long session would make a
    /// figure tens of thousands of lanes tall, taller than any image can be, and a stack
    /// of hundreds of lanes of one stream is a scroll, not a figure. The tutorials draw at
    /// most four.
    static let maxSeparateInnerLanes = 32

    /// Drops a top-level lane that a later one repeats: same title, same marbles at the same
    /// times, same end. A named source wrapped in a producer of the same name (how a spec's
    /// hot input is built) would otherwise be drawn twice. Inner lanes are never dropped: two
    /// operators' inner streams may well carry the same values at the same times.
    func removeRepeatedLanes(_ rows: inout [MarbleFigure.Row], drawn: inout Set<UInt64>) {
        var later: Set<RepeatKey> = []
        var kept: [MarbleFigure.Row] = []
        for row in rows.reversed() {
            if case let .lane(lane) = row, !lane.isInner {
                guard later.insert(RepeatKey(lane)).inserted else {
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

    /// The nodes upstream of `node`, transitively.
    func ancestors(of node: UInt64) -> Set<UInt64> {
        var found: Set<UInt64> = []
        var pending = trace.node(node)?.upstream.map(\.node) ?? []
        while let next = pending.popLast() {
            guard found.insert(next).inserted else { continue }
            pending += trace.node(next)?.upstream.map(\.node) ?? []
        }
        return found
    }

    func isTopLevelNode(_ node: NodeRecord) -> Bool {
        (subscriptions(of: node.id) ?? []).contains { $0.parent == 0 }
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
            guard let position = input.position(ofEvent: current), firstCauses[position] != .max else { return nil }
            let next = firstCauses[position]
            current = next
        }
        return nil
    }

    /// Gives marbles read with thread positions the figure's thread numbers, in the order
    /// the lanes use the threads: each value's thread, then its cause's (a value on another
    /// thread than its cause hopped).
    func number(_ marbles: inout [MarbleFigure.Marble], threads: inout ThreadIndex, drawn: inout Set<UInt64>) {
        for index in marbles.indices {
            let thread = threads.index(marbles[index].thread)
            let causeThread = marbles[index].hoppedFrom.map { threads.index($0) }
            marbles[index].thread = thread
            marbles[index].hoppedFrom = causeThread == thread ? nil : causeThread
            // Only causal arrows need the drawn events: a set of every value costs tens of
            // bytes each.
            if options.causes { drawn.insert(marbles[index].id) }
        }
    }

    /// The lane of the subscription at `position`, its events taken from those read for it.
    mutating func lane(at position: Int, node: NodeRecord, title: String, inner: Bool, start: Int64, span: Int64,
                       laneNodes: Set<UInt64>, threads: inout ThreadIndex, drawn: inout Set<UInt64>) -> MarbleFigure.Lane {
        let subscription = table[position]
        var lane = MarbleFigure.Lane(title: title, detail: "\(node.file):\(node.line)", isInner: inner, node: node.id)
        // In a real-time trace every lane subscribes a few microseconds apart; only a lane
        // subscribed noticeably later than the first (or an inner one) shows the mark.
        if inner || TimeFormat.clamped(subscription.time) - TimeFormat.clamped(start) > span / 50 {
            lane.subscribed = subscription.time
        }
        let entry = Int(laneEventIndex[position])
        laneEvents[entry].readers -= 1
        let events = laneEvents[entry]
        // A merged group's lanes leave their marbles in the group's list (`figure()`).
        if events.group < 0 {
            lane.marbles = takeMarbles(events.list, last: events.readers == 0)
            number(&lane.marbles, threads: &threads, drawn: &drawn)
        }
        lane.end = end(of: entry)
        lane.marks = chainMarks(beside: subscription, leavingOut: laneNodes)
        return lane
    }

    /// What the rest of an inner lane's chain did: the subscriptions its parent started
    /// together with it for the nodes upstream of it (one start of `call → retry →
    /// flatMapError` subscribes each once, in a run of consecutive ids), and
    /// everything those and the lane's own subscription started in turn. Their starts after
    /// the lane's own (a retry's resubscriptions) and their failures and interruptions are
    /// drawn on the lane, each with its node: the chain is drawn as the lane of its last
    /// node, and its service's failures happened on the other nodes.
    ///
    /// A top-level lane gets the marks of what it started for the nodes upstream of it (a
    /// top-level `retry`'s resubscriptions of its source), not of the inner streams of a
    /// higher-order operator, which have lanes of their own.
    func chainMarks(beside subscription: SubscriptionTree.Subscription, leavingOut laneNodes: Set<UInt64>) -> [MarbleFigure.Mark] {
        // The nodes upstream, found only when a subscription started or beside this one asks:
        // found for every lane, a chain of n operators cost n² (issue 33 item 3).
        var found: Set<UInt64>?
        func isUpstream(_ node: UInt64) -> Bool {
            if found == nil { found = ancestors(of: subscription.node) }
            return found?.contains(node) ?? false
        }
        guard subscription.parent != 0 else {
            let started = children(of: subscription.id).filter { isUpstream($0.node) }
            return marks(of: started, after: subscription, leavingOut: laneNodes)
        }
        let siblings = children(of: subscription.parent).sorted { $0.id < $1.id }
        guard let index = siblings.firstIndex(where: { $0.id == subscription.id }) else { return [] }
        var run: [SubscriptionTree.Subscription] = [subscription]
        var nodes: Set<UInt64> = [subscription.node]
        // The chain's other subscriptions are the siblings next to it in id order, one per
        // upstream node, started between the previous and the next start of the lane's own
        // node. Not "at the same time": in a real-time trace they are microseconds apart.
        let previous = siblings[..<index].last { $0.node == subscription.node }?.time ?? .min
        let next = siblings[(index + 1)...].first { $0.node == subscription.node }?.time ?? .max
        func joins(_ sibling: SubscriptionTree.Subscription) -> Bool {
            previous <= sibling.time && sibling.time <= next && isUpstream(sibling.node)
                && nodes.insert(sibling.node).inserted
        }
        var before = index - 1
        while before >= 0, joins(siblings[before]) { run.append(siblings[before]); before -= 1 }
        var after = index + 1
        while after < siblings.count, joins(siblings[after]) { run.append(siblings[after]); after += 1 }
        return marks(of: run, after: subscription, leavingOut: laneNodes)
    }

    /// The starts after `subscription`'s own, failures and interruptions of `roots` and of
    /// everything they started, but for `subscription` itself and nodes with lanes of their own.
    func marks(of roots: [SubscriptionTree.Subscription], after subscription: SubscriptionTree.Subscription,
               leavingOut laneNodes: Set<UInt64>) -> [MarbleFigure.Mark] {
        var all: [SubscriptionTree.Subscription] = []
        var pending = roots
        var seen: Set<UInt64> = []
        while let next = pending.popLast() {
            guard seen.insert(next.id).inserted else { continue }
            pending += children(of: next.id)
            all.append(next)
        }
        var marks: [MarbleFigure.Mark] = []
        var started: Set<UInt64> = []
        for next in all.sorted(by: { $0.id < $1.id }) {
            guard next.id != subscription.id, !laneNodes.contains(next.node), trace.node(next.node)?.kind != .sink else { continue }
            // A start later than the lane's, or a node's second start at the same time (a
            // retry resubscribing at once, in virtual time).
            if !started.insert(next.node).inserted || next.time > subscription.time {
                marks.append(.init(.subscribed(at: next.time), node: next.node))
            }
            if let position = table.position(of: next.id) {
                for ending in endings(of: position) { marks.append(.init(.ended(ending.end), node: next.node)) }
            }
        }
        return marks.sorted { ($0.time, $0.node ?? 0) < ($1.time, $1.node ?? 0) }
    }
}

/// What makes a lane repeat another: its title, whether it is inner, its end and marks, and
/// each marble's time, thread and text. The lane itself is the key (its marbles and marks are
/// shared, not copied): a key string per marble, or a description of a merged lane's tens of
/// thousands of marks, cost more than the figure's marbles.
private struct RepeatKey: Hashable {
    let lane: MarbleFigure.Lane

    init(_ lane: MarbleFigure.Lane) {
        self.lane = lane
    }

    static func == (lhs: RepeatKey, rhs: RepeatKey) -> Bool {
        lhs.lane.title == rhs.lane.title && lhs.lane.isInner == rhs.lane.isInner && lhs.lane.end == rhs.lane.end
            && lhs.lane.marks == rhs.lane.marks && lhs.lane.marbles.count == rhs.lane.marbles.count
            && zip(lhs.lane.marbles, rhs.lane.marbles).allSatisfy {
                $0.time == $1.time && $0.thread == $1.thread && $0.display == $1.display
            }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(lane.title)
        hasher.combine(lane.isInner)
        hasher.combine(lane.end?.time)
        hasher.combine(lane.marks.count)
        for mark in lane.marks {
            hasher.combine(mark.time)
            hasher.combine(mark.node)
        }
        hasher.combine(lane.marbles.count)
        for marble in lane.marbles {
            hasher.combine(marble.time)
            hasher.combine(marble.thread)
            hasher.combine(marble.display)
        }
    }
}

/// Figure thread indices in order of first use, one per thread label: records of the same
/// scheduler on different OS threads share an index and a colour.
private struct ThreadIndex {
    let trace: Trace
    var indices: [String: Int] = [:]
    var names: [String] = []

    init(trace: Trace) { self.trace = trace }

    /// The figure's index of the thread at `position` in the trace's threads.
    mutating func index(_ position: Int) -> Int {
        let name = ThreadLabel.of(trace.threads[position])
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

/// One lane holding every marble of the lanes added to it; it ends when the last of them
/// ends, and only if all of them ended. Every other subscription's start and end is a mark
/// on it, so each subscription's terminal kind shows. Each lane added keeps only its start,
/// end and marks here; its marbles are moved, not copied: a lane merging tens of thousands
/// of subscriptions holds a big part of a long trace's values.
private struct MergedLane {
    let title: String
    private var first: MarbleFigure.Lane?
    /// Each lane's marbles, in the order added.
    var laneMarbles: [[MarbleFigure.Marble]] = []
    private var marks: [MarbleFigure.Mark] = []
    private var starts: [Int64] = []
    private var unstarted = false
    private var ends: [MarbleFigure.End] = []
    private var count = 0

    init(title: String) {
        self.title = title
    }

    mutating func add(_ lane: MarbleFigure.Lane) {
        if first == nil {
            var kept = lane
            kept.marbles = []
            kept.marks = []
            first = kept
        }
        laneMarbles.append(lane.marbles)
        marks += lane.marks
        if let start = lane.subscribed { starts.append(start) } else { unstarted = true }
        if let end = lane.end { ends.append(end) }
        count += 1
    }

    /// The merged lane; the lanes' marbles are moved into it.
    mutating func lane() -> MarbleFigure.Lane {
        var lane = MarbleFigure.Lane(title: title, detail: first?.detail, isInner: first?.isInner ?? false, node: first?.node)
        if laneMarbles.count(where: { !$0.isEmpty }) == 1, let only = laneMarbles.firstIndex(where: { !$0.isEmpty }) {
            swap(&lane.marbles, &laneMarbles[only])
        } else {
            lane.marbles.reserveCapacity(laneMarbles.reduce(0) { $0 + $1.count })
            for index in laneMarbles.indices {
                lane.marbles += laneMarbles[index]
                laneMarbles[index] = []
            }
        }
        lane.marbles.sort { ($0.time, $0.id) < ($1.time, $1.id) }
        lane.subscribed = unstarted ? nil : starts.min()
        let last = ends.indices.max { (ends[$0].time, $0) < (ends[$1].time, $1) }
        if ends.count == count, let last { lane.end = ends[last] }
        // The marks are gathered and sorted in place: a merged lane may hold hundreds of
        // thousands of them.
        swap(&lane.marks, &marks)
        lane.marks.reserveCapacity(lane.marks.count + starts.count + ends.count)
        var firstStart = true
        starts.sort()
        for start in starts {
            if firstStart, start == lane.subscribed { firstStart = false; continue }
            lane.marks.append(.init(.subscribed(at: start), node: lane.node))
        }
        for (index, end) in ends.enumerated() where !(index == last && lane.end != nil) {
            lane.marks.append(.init(.ended(end), node: lane.node))
        }
        lane.marks.sort { ($0.time, $0.node ?? 0) < ($1.time, $1.node ?? 0) }
        return lane
    }
}
