
/// Timing analysis of a trace, computed in one streaming pass (`marbles stats`).
///
/// - **Stage latency** of a node: for each of its events, the time since its primary cause.
/// - **Queue wait** of a hop: the time from enqueue to start, per node and scheduler.
/// - **Dropped values** of an operator: values of its `data` upstream nodes, sent after it
///   first subscribed, that caused none of its events (what `filter`, `throttle`, `debounce`
///   and `skipRepeats` swallow). Reported only for operators whose every value is caused by
///   an upstream value, and that (like each data upstream node) ran as one subscription, so
///   the count is unambiguous; an operator that emits several values per input counts at
///   least 0.
/// - **Pulls** of a tapped `AsyncSequence` (its consumer's demand): counted per node beside
///   what answered them, and the pulls still waiting when the trace ends (`unanswered`). A
///   pull is no event a stream sends: it takes no part in latencies, drops or paths, and the
///   table has its columns only when the trace has pulls (a `Signals` trace has none).
/// - **Sinks** have a line too: the events delivered to them (the events of the subscription
///   each sink subscription observes).
/// - **End-to-end latency** from each source to each sink: for each value reaching a sink,
///   the time since the source event at the root of its primary causes (the trigger).
/// - **Data age** from each source to each sink: for each value reaching a sink, the time
///   since the newest event of that source among all its causes, followed along every cause,
///   not only the primary one. For a value sampled by a timer or combined from several
///   inputs, this is how old the data shown is: the timer is the trigger (its latency is
///   small), while the reading it samples may be long past. Along a chain of single causes
///   the data age equals the latency.
///
/// Memory is bounded: causes are looked up in a window of the last `window` events (older
/// ones are counted as unresolved; the window's storage grows with the events read, up to
/// `window`), and percentiles come from `LatencyDistribution`. The root of an event's
/// primary causes and the newest input of each source among all its causes are kept with
/// the event, so finding them costs constant time however long the chain.
///
/// Records are checked as `Trace` checks them (`TraceValidator`): an undefined or repeated id,
/// or a cause that is not an earlier event, is an error at its line. Latencies between times
/// at the ends of `Int64` saturate instead of trapping.
///
/// ```swift
/// let stats = try TraceStats.compute(TraceReader(url: URL(fileURLWithPath: "traces/search.trace")))
/// print(stats.text)   // the table `marbles stats` prints
/// for path in stats.paths {
///     print(path.source.name, "→", path.sink.name, "p95:", path.latency?.p95 ?? 0, "ns")
/// }
/// ```
public struct TraceStats: Sendable {
    /// One node's line of the table. A sink's events are the ones delivered to it.
    public struct NodeStats: Sendable {
        public var node: NodeRecord
        public var values = 0
        public var failed = 0
        public var completed = 0
        public var interrupted = 0
        /// Pulls of the node's subscriptions (the demand of a tapped `AsyncSequence`'s consumer).
        public var pulls = 0
        public var stageLatency: LatencySummary?
        /// Nil when the operator's events are not all caused by upstream values.
        public var dropped: Int?

        /// Pulls no value or end answered: the consumer was still waiting when the trace ended
        /// (each pull of a tap gets one answer, the next event of its subscription).
        public var unanswered: Int { max(0, pulls - (values + failed + completed + interrupted)) }
    }

    /// The queue wait of one node's hops onto one scheduler.
    public struct HopStats: Sendable {
        public var node: NodeRecord?
        public var scheduler: String
        /// A plain hop's queue wait (started − enqueued); an operator timer's lateness
        /// (started − due, `isTimer`), not the wait it was asked for.
        public var wait: LatencySummary?
        /// Hops enqueued that never started (a timer: cancelled, or armed at the end).
        public var neverRan: Int
        /// Whether these are an operator's timers (`HopRecord.due`).
        public var isTimer: Bool = false
    }

    /// Latency and data age from a source to a sink along causality.
    public struct PathStats: Sendable {
        public var source: NodeRecord
        public var sink: NodeRecord
        /// The time from the source event at the root of a sink value's primary causes to the
        /// value, over the values the source triggered; nil when it triggered none (it only
        /// contributed data, like the readings a timer samples).
        public var latency: LatencySummary?
        /// The time from the newest event of the source among all of a sink value's causes to
        /// the value, over the values the source contributed to; nil when every such value had
        /// a cause outside the window.
        public var dataAge: LatencySummary?
    }

    /// What a retrying operator (`retry`) did: how often it was started and how many attempts
    /// of its upstream those starts made (a subscription of the upstream each, started by the
    /// retry's subscription); the starts that failed anyway gave up.
    public struct RetryStats: Sendable {
        public var node: NodeRecord
        public var starts = 0
        public var attempts = 0
        /// The most attempts one start made.
        public var mostAttempts = 0
        public var gaveUp = 0
    }

    public var name: String
    public var header: TraceHeader
    /// Events streams sent (values and ends), pulls not counted.
    public var events = 0
    /// Pulls: the demand of tapped `AsyncSequence`s' consumers (0 in a `Signals` trace).
    public var pulls = 0
    public var duration: Int64 = 0
    public var nodes: [NodeStats] = []
    /// Whether the trace ends without its summary record (a recording cut off): then a
    /// node's `dropped` leaves out what it received after the last value it passed on.
    public var cutOff = false
    public var hops: [HopStats] = []
    /// The retrying operators, in node order.
    public var retries: [RetryStats] = []
    public var paths: [PathStats] = []
    /// The node with the highest p95 stage latency (then max, then lowest id); nil when every
    /// stage took no time.
    public var slowestStage: NodeRecord?
    /// Causes older than the window, or missing from the trace.
    public var unresolvedCauses = 0
    public var warnings: [TraceWarning] = []
    /// What crossed each edge (`TraceEdges`), when asked for (`marbles stats --edges`): the
    /// counts the pipeline figure labels its edges with. Nil leaves the section out; it needs
    /// the trace in memory, which the rest of the statistics do not.
    public var edges: [TraceEdges.Edge]?

    /// Computes the statistics of the trace `reader` is reading, in one pass.
    public static func compute(_ reader: TraceReader, window: Int = 1 << 18) throws -> TraceStats {
        var builder = Builder(window: window)
        var validator = TraceValidator()
        while let record = try reader.next() {
            try validator.check(record, readBy: reader)
            builder.add(record)
        }
        var stats = builder.finish(name: reader.name, header: reader.header)
        stats.warnings = reader.warnings
        return stats
    }

    /// A recent event, with the source event at the root of its primary causes and the
    /// newest root event (an event without causes) of each node among all its causes, its
    /// inputs.
    private struct Slot {
        var time: Int64 = 0
        var node: UInt64 = 0
        var rootTime: Int64 = 0
        var rootNode: UInt64 = 0
        /// The inputs when they are not just the root: empty along a chain of single causes
        /// (most events), so those cost no allocation.
        var otherInputs: [Input] = []
        /// False when a cause along the primary chain was outside the window when it was read.
        var rooted = false
        /// False when a cause along any chain was outside the window when it was read.
        var complete = false

        /// Calls `body` with each input (only meaningful when `complete`).
        func forEachInput(_ body: (Input) -> Void) {
            if otherInputs.isEmpty {
                body(Input(node: rootNode, time: rootTime))
            } else {
                otherInputs.forEach(body)
            }
        }
    }

    /// The newest root event of one node among an event's causes.
    private struct Input: Equatable {
        var node: UInt64
        var time: Int64
    }

    private struct NodeState {
        var record: NodeRecord
        var stats: NodeStats
        var latency = LatencyDistribution()
        var subscribed = false
        var subscriptions = 0
        var inputs = 0
        var passed = 0
        /// Inputs since the node last passed one on: in a trace cut off, these may still have
        /// been in flight (an `observe(on:)` hop not yet run) rather than dropped.
        var inputsSincePass = 0
        var otherCaused = false
        var dataUpstream: [UInt64] = []
        var dataDownstream: [UInt64] = []
        var feedsSinks: [UInt64] = []

        /// Counts an event of this node, or one delivered to this sink.
        mutating func receive(_ kind: EventKind) {
            switch kind {
            case .value: stats.values += 1
            case .failed: stats.failed += 1
            case .completed: stats.completed += 1
            case .interrupted: stats.interrupted += 1
            case .pull: stats.pulls += 1
            }
        }

        /// Counts an event of this node; `cause` is its primary cause when still in the window.
        mutating func count(_ event: EventRecord, cause: Slot?) {
            receive(event.kind)
            let isValue = event.kind == .value
            if let cause {
                latency.add(event.time.saturatingSubtracting(cause.time))
                if dataUpstream.contains(cause.node) {
                    if isValue {
                        passed += 1
                        inputsSincePass = 0
                    }
                } else if isValue {
                    otherCaused = true
                }
            } else if isValue {
                // No cause, or one outside the window: not an upstream value's doing.
                otherCaused = true
            }
        }
    }

    private struct Builder {
        var recent: EventWindow<Slot>
        var nodes: [UInt64: NodeState] = [:]
        var order: [UInt64] = []
        var hopWaits: [HopKey: (wait: LatencyDistribution, neverRan: Int)] = [:]
        var paths: [PathKey: LatencyDistribution] = [:]
        var dataAges: [PathKey: LatencyDistribution] = [:]
        /// The inputs being merged (kept to reuse its storage).
        var scratch: [Input] = []
        /// The sinks observing each subscription, by subscription. Kept after a dispose: a
        /// trace written by several threads may hold a subscription's last events after its
        /// dispose record (one entry per sink subscription).
        var observers: [UInt64: [UInt64]] = [:]
        /// Sinks whose subscriptions name none they observe (a parent of 0): they are fed by
        /// every subscription of their data upstream nodes.
        var unparentedSinks: Set<UInt64> = []
        var events = 0
        var pulls = 0
        var lastTime: Int64 = 0
        var duration: Int64?
        var unresolved = 0

        struct HopKey: Hashable, Comparable {
            var node: UInt64
            var scheduler: String
            var isTimer: Bool
            static func < (a: HopKey, b: HopKey) -> Bool {
                (a.node, a.scheduler, a.isTimer ? 1 : 0) < (b.node, b.scheduler, b.isTimer ? 1 : 0)
            }
        }

        struct PathKey: Hashable, Comparable {
            var source: UInt64
            var sink: UInt64
            static func < (a: PathKey, b: PathKey) -> Bool { (a.source, a.sink) < (b.source, b.sink) }
        }

        /// Each `retry` subscription's node and the attempts of its upstream it started.
        var retryAttempts: [UInt64: (node: UInt64, attempts: Int)] = [:]

        init(window: Int) {
            recent = EventWindow(capacity: window, empty: Slot())
        }

        mutating func add(_ record: TraceRecord) {
            switch record {
            case let .node(node):
                var state = NodeState(record: node, stats: NodeStats(node: node))
                state.dataUpstream = node.upstream.filter { $0.role == .data }.map(\.node)
                for upstream in state.dataUpstream {
                    nodes[upstream]?.dataDownstream.append(node.id)
                    if node.kind == .sink { nodes[upstream]?.feedsSinks.append(node.id) }
                }
                nodes[node.id] = state
                order.append(node.id)
            case let .label(label):
                nodes[label.node]?.record.label = label.label
            case let .subscribe(subscription):
                nodes[subscription.node]?.subscribed = true
                nodes[subscription.node]?.subscriptions += 1
                if nodes[subscription.node]?.record.name == "retry" {
                    retryAttempts[subscription.id] = (subscription.node, 0)
                } else if subscription.parent != 0, let retry = retryAttempts[subscription.parent],
                          nodes[retry.node]?.dataUpstream.contains(subscription.node) == true {
                    retryAttempts[subscription.parent]?.attempts += 1
                }
                lastTime = max(lastTime, subscription.time)
                if nodes[subscription.node]?.record.kind == .sink {
                    if subscription.parent == 0 {
                        unparentedSinks.insert(subscription.node)
                    } else if observers[subscription.parent]?.contains(subscription.node) != true {
                        observers[subscription.parent, default: []].append(subscription.node)
                    }
                }
            case let .event(event):
                addEvent(event)
            case let .hop(hop):
                let key = HopKey(node: hop.node, scheduler: hop.scheduler, isTimer: hop.due != nil)
                // Mutated in place: a copy of a distribution would copy its histogram each time.
                if let wait = hop.due != nil ? hop.lateness : hop.queueWait {
                    hopWaits[key, default: (LatencyDistribution(), 0)].wait.add(wait)
                } else {
                    hopWaits[key, default: (LatencyDistribution(), 0)].neverRan += 1
                }
                lastTime = max(lastTime, hop.started ?? hop.enqueued)
            case let .dispose(dispose):
                lastTime = max(lastTime, dispose.time)
            case let .mark(mark):
                lastTime = max(lastTime, mark.time)
            case let .summary(summary):
                duration = summary.duration
            case .header, .thread:
                break
            }
        }

        mutating func addEvent(_ event: EventRecord) {
            lastTime = max(lastTime, event.time)
            guard event.kind.isSent else {
                // A pull is demand, not an event sent: counted at its node, no cause of anything.
                pulls += 1
                nodes[event.node]?.receive(event.kind)
                return
            }
            events += 1
            let primary = event.causes.first ?? 0
            let cause = primary == 0 ? nil : recent.entry(primary)
            var slot = Slot(time: event.time, node: event.node)
            if primary == 0 {
                (slot.rooted, slot.complete, slot.rootTime, slot.rootNode) = (true, true, event.time, event.node)
            } else if let cause {
                (slot.rooted, slot.complete, slot.rootTime, slot.rootNode) = (cause.rooted, cause.complete, cause.rootTime, cause.rootNode)
                slot.otherInputs = cause.otherInputs
            } else {
                unresolved += 1
            }
            if event.causes.count > 1 {
                merge(event.causes.dropFirst(), into: &slot)
            }
            recent.insert(event.sequence, slot)
            // Updated in place through the dictionary: a copy of the state would copy its
            // latency histogram on every event.
            nodes[event.node]?.count(event, cause: cause)
            guard let state = nodes[event.node] else { return }
            var sinks = observers[event.subscription] ?? []
            sinks += state.feedsSinks.filter { unparentedSinks.contains($0) && !sinks.contains($0) }
            for sink in sinks { nodes[sink]?.receive(event.kind) }
            guard event.kind == .value else { return }
            for downstream in state.dataDownstream where nodes[downstream]?.subscribed == true {
                nodes[downstream]?.inputs += 1
                nodes[downstream]?.inputsSincePass += 1
            }
            if !sinks.isEmpty, slot.rooted, isSource(slot.rootNode) {
                for sink in sinks {
                    paths[PathKey(source: slot.rootNode, sink: sink), default: LatencyDistribution()]
                        .add(event.time.saturatingSubtracting(slot.rootTime))
                }
            }
            if !sinks.isEmpty, slot.complete {
                slot.forEachInput { input in
                    guard isSource(input.node) else { return }
                    for sink in sinks {
                        dataAges[PathKey(source: input.node, sink: sink), default: LatencyDistribution()]
                            .add(event.time.saturatingSubtracting(input.time))
                    }
                }
            }
        }

        /// Adds the inputs of the causes after the primary one to `slot`'s, keeping the newest
        /// per node; the slot is left incomplete when one of them is no longer in the window
        /// (each such cause is counted as unresolved).
        mutating func merge(_ causes: ArraySlice<UInt64>, into slot: inout Slot) {
            scratch.removeAll(keepingCapacity: true)
            if slot.complete { slot.forEachInput { scratch.append($0) } }
            for sequence in causes {
                guard let cause = recent.entry(sequence) else {
                    unresolved += 1
                    slot.complete = false
                    continue
                }
                if !cause.complete { slot.complete = false }
                guard slot.complete else { continue }
                cause.forEachInput { input in
                    if let index = scratch.firstIndex(where: { $0.node == input.node }) {
                        scratch[index].time = max(scratch[index].time, input.time)
                    } else {
                        scratch.append(input)
                    }
                }
            }
            guard slot.complete else {
                slot.otherInputs = []
                return
            }
            let root = Input(node: slot.rootNode, time: slot.rootTime)
            slot.otherInputs = scratch.count == 1 && scratch[0] == root ? [] : scratch
        }

        /// Whether an event of `node` without causes begins a path: a source, or a node with
        /// no upstream.
        func isSource(_ node: UInt64) -> Bool {
            guard let record = nodes[node]?.record else { return false }
            return record.upstream.isEmpty || record.kind == .source
        }

        func finish(name: String, header: TraceHeader) -> TraceStats {
            var stats = TraceStats(name: name, header: header)
            stats.events = events
            stats.pulls = pulls
            stats.duration = duration ?? lastTime
            stats.unresolvedCauses = unresolved
            stats.cutOff = duration == nil
            for id in order {
                guard let state = nodes[id] else { continue }
                var line = state.stats
                line.node = state.record
                line.stageLatency = state.latency.summary
                // Which upstream subscription feeds which of the node's subscriptions is not in
                // the trace, so drops are counted only where that is unambiguous: one
                // subscription of the node and of each of its data upstream nodes.
                let unambiguous = state.subscriptions == 1
                    && state.dataUpstream.allSatisfy { nodes[$0]?.subscriptions == 1 }
                if state.record.kind == .operator, !state.dataUpstream.isEmpty, !state.otherCaused, unambiguous {
                    // A trace without its summary was cut off: what a node received after the
                    // last value it passed on may have been in flight, not dropped.
                    let unknown = duration == nil ? state.inputsSincePass : 0
                    line.dropped = max(0, state.inputs - state.passed - unknown)
                }
                stats.nodes.append(line)
            }
            var retries: [UInt64: RetryStats] = [:]
            for (node, attempts) in retryAttempts.values {
                guard let record = nodes[node]?.record else { continue }
                var line = retries[node] ?? RetryStats(node: record)
                line.starts += 1
                line.attempts += attempts
                line.mostAttempts = max(line.mostAttempts, attempts)
                retries[node] = line
            }
            for id in order {
                guard var line = retries[id] else { continue }
                line.gaveUp = nodes[id]?.stats.failed ?? 0
                stats.retries.append(line)
            }
            for key in hopWaits.keys.sorted() {
                guard let entry = hopWaits[key] else { continue }
                stats.hops.append(HopStats(node: nodes[key.node]?.record, scheduler: key.scheduler,
                                           wait: entry.wait.summary, neverRan: entry.neverRan, isTimer: key.isTimer))
            }
            for key in Set(paths.keys).union(dataAges.keys).sorted() {
                guard let source = nodes[key.source]?.record, let sink = nodes[key.sink]?.record else { continue }
                stats.paths.append(PathStats(source: source, sink: sink, latency: paths[key]?.summary,
                                             dataAge: dataAges[key]?.summary))
            }
            // An operator that waits on purpose (a timeout's watch, a debounce) is not slow:
            // it took the time it was asked to.
            let candidates = stats.nodes.compactMap { line in
                IntendedWaits.contains(line.node.name) ? nil : line.stageLatency.map { (line.node, $0) }
            }
            if let slowest = candidates.max(by: { a, b in
                (a.1.p95, a.1.max, b.0.id) < (b.1.p95, b.1.max, a.0.id)
            }), slowest.1.max > 0 {
                stats.slowestStage = slowest.0
            }
            return stats
        }
    }

    // MARK: Output

    private static func nodeName(_ node: NodeRecord) -> String {
        let label = node.label.map { " \"\($0)\"" } ?? ""
        let parameters = node.parameters.isEmpty ? "" : node.name.hasSuffix(")") ? " \(node.parameters)" : "(\(node.parameters))"
        return "#\(node.id) \(node.name)\(parameters)\(label)".reportLine
    }

    /// The report as a text table.
    public var text: String {
        let demand = pulls > 0
        let pullCount = demand ? "\(pulls) pulls, " : ""
        var out = "\(name.reportLine): \(header.clock.rawValue) time, \(events) events, \(pullCount)\(formatDuration(duration))\n\n"
        // The demand columns only for a trace with pulls: a `Signals` trace's table stays as it was.
        var rows = [["node", "at"] + (demand ? ["pulls", "unanswered"] : [])
            + ["values", "failed", "done", "intr", "p50", "p95", "p99", "max", "dropped"]]
        for line in nodes {
            let latency = line.stageLatency
            let place: [String] = [Self.nodeName(line.node), "\(line.node.file):\(line.node.line)"]
            let pulled: [String] = demand ? ["\(line.pulls)", "\(line.unanswered)"] : []
            rows.append(place + pulled + [
                "\(line.values)", "\(line.failed)",
                "\(line.completed)", "\(line.interrupted)",
                latency.map { formatDuration($0.p50) } ?? "-", latency.map { formatDuration($0.p95) } ?? "-",
                latency.map { formatDuration($0.p99) } ?? "-", latency.map { formatDuration($0.max) } ?? "-",
                line.dropped.map(String.init) ?? "-",
            ])
        }
        out += Self.table(rows, rightAligned: 2...)
        if demand {
            out += "(pulls: next() called on a tapped sequence, the demand; unanswered: pulls nothing answered\n"
                + " before the trace ended)\n"
        }
        if cutOff {
            out += "(cut off: what a node received after the last value it passed on is not counted as dropped;\n"
                + " it may still have been in flight)\n"
        }
        for timers in [false, true] where hops.contains(where: { $0.isTimer == timers }) {
            out += timers ? "\nlateness per operator timer: how long after it was due it ran (a timer that never ran was "
                + "cancelled, or armed when the recording stopped)\n" : "\nqueue wait per hop\n"
            var hopRows = [["node", "scheduler", timers ? "timers" : "hops", "p50", "p95", "p99", "max", "never ran"]]
            for hop in hops where hop.isTimer == timers {
                hopRows.append([
                    hop.node.map(Self.nodeName) ?? "-", hop.scheduler, "\(hop.wait?.count ?? 0)",
                    hop.wait.map { formatDuration($0.p50) } ?? "-", hop.wait.map { formatDuration($0.p95) } ?? "-",
                    hop.wait.map { formatDuration($0.p99) } ?? "-", hop.wait.map { formatDuration($0.max) } ?? "-",
                    "\(hop.neverRan)",
                ])
            }
            out += Self.table(hopRows, rightAligned: 2...)
        }
        if !retries.isEmpty {
            out += "\nretries: attempts of the upstream per start\n"
            var retryRows = [["node", "at", "starts", "attempts", "per start", "most", "gave up"]]
            for retry in retries {
                let perStart = retry.starts == 0 ? "-" : String(format: "%.2f", Double(retry.attempts) / Double(retry.starts))
                retryRows.append([Self.nodeName(retry.node), "\(retry.node.file):\(retry.node.line)", "\(retry.starts)",
                                  "\(retry.attempts)", perStart, "\(retry.mostAttempts)", "\(retry.gaveUp)"])
            }
            out += Self.table(retryRows, rightAligned: 2...)
        }
        if !paths.isEmpty {
            out += "\nend-to-end, source to sink: latency of the values the source triggered (primary causes);\n"
                + "data age, time since the source's newest input among all causes of the values it fed\n"
            var pathRows = [["source", "sink", "triggered", "p50", "p95", "p99", "max",
                             "fed", "age p50", "age p95", "age p99", "age max"]]
            for path in paths {
                pathRows.append([Self.nodeName(path.source), Self.nodeName(path.sink)]
                    + Self.summaryCells(path.latency) + Self.summaryCells(path.dataAge))
            }
            out += Self.table(pathRows, rightAligned: 2...)
            // A source of the program's own (not an environment's input or timer) starts
            // chains of its own: if another source's work feeds it through code Marbles cannot
            // see, that latency is cut there, and nothing in the trace can tell.
            var own: [NodeRecord] = []
            if Set(paths.map(\.source.id)).count > 1 {
                for path in paths where ["pipe", "Signal"].contains(path.source.name) && !own.contains(path.source) {
                    own.append(path.source)
                }
            }
            if !own.isEmpty {
                out += "note: \(own.map { Self.capped(Self.nodeName($0)) }.joined(separator: ", ")) "
                    + (own.count == 1 ? "starts chains of its own" : "start chains of their own")
                    + ". A value sent into a pipe from code Marbles\ncannot see (a callback, a DispatchQueue of your own) "
                    + "has no cause, so the latency from what asked for it\nis cut there; send it from a SignalProducer "
                    + "started in the pipeline, or on a Signals scheduler, and the chain connects.\n"
            }
        }
        if let edges {
            out += "\nwhat crossed each edge (counted: links, from the recorder's observation links; causes, inferred)\n"
            let byID = Dictionary(nodes.map { ($0.node.id, $0.node) }, uniquingKeysWith: { first, _ in first })
            func name(_ id: UInt64) -> String { byID[id].map(Self.nodeName) ?? "#\(id)" }
            var edgeRows = [["from", "into", "as", "values", "failed", "intr", "counted"]]
            for edge in edges {
                edgeRows.append([name(edge.from), name(edge.to), edge.role?.rawValue ?? "linked", "\(edge.counts.values)",
                                 "\(edge.counts.failed)", "\(edge.counts.interrupted)", edge.exact ? "links" : "causes"])
            }
            out += Self.table(edgeRows, rightAligned: 3...5)
        }
        out += "\n"
        if let slowest = slowestStage, let latency = nodes.first(where: { $0.node.id == slowest.id })?.stageLatency {
            out += "slowest stage: \(Self.capped(Self.nodeName(slowest))) at \(Self.capped(slowest.file.reportLine)):\(slowest.line), "
                + "p95 \(formatDuration(latency.p95)), max \(formatDuration(latency.max))\n"
        } else if let wait = nodes.filter({ IntendedWaits.contains($0.node.name) && ($0.stageLatency?.max ?? 0) > 0 })
                    .max(by: { ($0.stageLatency?.p95 ?? 0, $1.node.id) < ($1.stageLatency?.p95 ?? 0, $0.node.id) }),
                  let latency = wait.stageLatency {
            out += "slowest stage: none but operators that wait on purpose (the longest wait: "
                + "\(Self.capped(Self.nodeName(wait.node))) at \(Self.capped(wait.node.file.reportLine)):\(wait.node.line), "
                + "p95 \(formatDuration(latency.p95)))\n"
        } else {
            out += "slowest stage: none (every stage took no time)\n"
        }
        if unresolvedCauses > 0 {
            out += "note: \(unresolvedCauses) causes were outside the analysis window and are left out\n"
        }
        let names = nodes.flatMap { [Self.nodeName($0.node), "\($0.node.file.reportLine):\($0.node.line)"] }
            + hops.map(\.scheduler)
        if names.contains(where: { Self.capped($0.reportLine) != $0.reportLine }) {
            out += "note: names longer than \(Self.maxCellLength) characters are cut (…); stats --json has them whole\n"
        }
        return out
    }

    /// Count, p50, p95, p99 and max; `0` and dashes without samples.
    private static func summaryCells(_ summary: LatencySummary?) -> [String] {
        guard let summary else { return ["0", "-", "-", "-", "-"] }
        return ["\(summary.count)", formatDuration(summary.p50), formatDuration(summary.p95),
                formatDuration(summary.p99), formatDuration(summary.max)]
    }

    /// The most characters a cell of the text table shows: a longer one (a node's label of
    /// a megabyte) is cut, ending in `…`, so the table grows with the rows, not with the rows
    /// times the longest name. `--json` has every name whole.
    static let maxCellLength = 60

    /// `text` cut to `maxCellLength` characters, ending in `…` when cut.
    private static func capped(_ text: String) -> String {
        guard text.utf8.count > maxCellLength, text.count > maxCellLength else { return text }
        return String(text.prefix(maxCellLength - 1)) + "…"
    }

    /// Rows padded into columns, each cell on its line (`reportLine`) and capped (`capped`).
    private static func table<Columns: RangeExpression<Int>>(_ rows: [[String]], rightAligned: Columns) -> String {
        let rows = rows.map { $0.map { capped($0.reportLine) } }
        guard let first = rows.first else { return "" }
        var widths = [Int](repeating: 0, count: first.count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        var out = ""
        for row in rows {
            var cells: [String] = []
            for (index, cell) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                cells.append(rightAligned.contains(index) ? pad + cell : cell + pad)
            }
            var line = cells.joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            out += line + "\n"
        }
        return out
    }

    private static func latencyObject(_ line: inout JSONLine, _ latency: LatencySummary) {
        line.field("count", latency.count)
        line.field("p50", latency.p50)
        line.field("p95", latency.p95)
        line.field("p99", latency.p99)
        line.field("max", latency.max)
    }

    private static func nodeFields(_ line: inout JSONLine, _ node: NodeRecord) {
        line.field("id", node.id)
        line.field("name", node.name)
        line.field("parameters", node.parameters)
        line.field("label", ifPresent: node.label)
        line.field("file", node.file)
        line.field("line", node.line)
    }

    /// The report as one JSON document (times in integer nanoseconds), keys in fixed order.
    public var json: String {
        var line = JSONLine()
        line.begin()
        line.field("trace", name)
        line.field("clock", header.clock.rawValue)
        line.field("events", events)
        if pulls > 0 { line.field("pulls", pulls) }
        line.field("duration", duration)
        if cutOff { line.field("cutOff", true) }
        line.field("nodes", objects: nodes) { object, node in
            Self.nodeFields(&object, node.node)
            object.field("kind", node.node.kind.rawValue)
            object.field("values", node.values)
            object.field("failed", node.failed)
            object.field("completed", node.completed)
            object.field("interrupted", node.interrupted)
            if pulls > 0 {
                object.field("pulls", node.pulls)
                object.field("unanswered", node.unanswered)
            }
            if let latency = node.stageLatency { object.field("stageLatency") { Self.latencyObject(&$0, latency) } }
            if let dropped = node.dropped { object.field("dropped", dropped) }
        }
        line.field("hops", objects: hops) { object, hop in
            object.field("node", hop.node?.id ?? 0)
            object.field("scheduler", hop.scheduler)
            if let wait = hop.wait { object.field(hop.isTimer ? "lateness" : "queueWait") { Self.latencyObject(&$0, wait) } }
            object.field("neverRan", hop.neverRan)
            if hop.isTimer { object.field("timer", true) }
        }
        line.field("retries", objects: retries) { object, retry in
            object.field("node", retry.node.id)
            object.field("starts", retry.starts)
            object.field("attempts", retry.attempts)
            object.field("mostAttempts", retry.mostAttempts)
            object.field("gaveUp", retry.gaveUp)
        }
        line.field("paths", objects: paths) { object, path in
            object.field("source", path.source.id)
            object.field("sink", path.sink.id)
            if let latency = path.latency { object.field("latency") { Self.latencyObject(&$0, latency) } }
            if let age = path.dataAge { object.field("dataAge") { Self.latencyObject(&$0, age) } }
        }
        if let edges {
            line.field("edges", objects: edges) { object, edge in
                object.field("from", edge.from)
                object.field("to", edge.to)
                object.field("role", ifPresent: edge.role?.rawValue)
                object.field("values", edge.counts.values)
                object.field("failed", edge.counts.failed)
                object.field("interrupted", edge.counts.interrupted)
                object.field("exact", edge.exact)
            }
        }
        if let slowest = slowestStage { line.field("slowestStage", slowest.id) }
        line.field("unresolvedCauses", unresolvedCauses)
        line.end()
        return String(decoding: line.bytes, as: UTF8.self)
    }
}
