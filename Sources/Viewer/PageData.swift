import Diagrams
import TraceLog

/// The traces as the page's script reads them: one JSON document of columnar arrays.
///
/// - `strings`: every text once (names, labels, values, JSON, requests, threads);
///   other fields refer to it by index, `-1` for none.
/// - `traces`: per trace its name and duration.
/// - `threads`: thread display names (string indices); events refer to them by index, so
///   a thread named alike in A and B has one colour. `threadColours`: each one's colour
///   (string index), the colour the figures give it (`ThreadColours`).
/// - `lanes`: one column per field, a lane per node in id order, each inner stream right
///   under the higher-order node that started it (`depth` 1); with two traces, the lane of
///   B's node follows the lane of its partner in A (by default the node with the same id). A lane's events are the
///   contiguous range `first ..< first + count` of the event columns, in time order.
///   `stats`: the node's statistics as one line of text (string index, `-1` for none).
/// - `events`: `t` the time minus the previous event's time in the same lane (the first:
///   minus 0), `k` the mark (`TracePage.Mark`), `h` the thread, `x` the text, `j` the JSON,
///   `r` the request of the subscription it belongs to, `s` the sequence number (0 for a
///   subscription, and for an event delivered to a sink: a sink's lane shows the events of
///   the stream it observes, each caused by the event it is), `cn` the number of causes, `c`
///   all causes as event indices, in order.
/// - `diffs`: text, and the event index in A and in B (`-1` for none).
/// - `pipeline`: the first trace's pipeline figure as SVG text (string index, `-1` for
///   none) and `nodes`, the trace's node id of each Graphviz node `n0`, `n1`, … in order.
struct PageData {
    let json: String

    init(_ inputs: [TracePage.Input], differences: [TracePage.Difference], partners: [UInt64: UInt64]?,
         pipeline: (svg: String, nodes: [UInt64])? = nil) {
        var strings = StringTable()
        var threads: [Int] = []
        var threadColours: [Int] = []
        var threadIndex: [String: Int] = [:]
        // The colours the figures give the traces' threads (one decision, `ThreadColours`);
        // an event whose thread the trace does not name is "?", after all of them.
        let colourOf = ThreadColours.assign(ThreadColours.names(of: inputs.map(\.trace)) + ["?"])
        var lanes = Columns(["trace", "node", "name", "label", "kind", "params", "file", "line", "depth", "first", "count", "stats"])
        let statsText = inputs.map { input in
            Dictionary((input.stats?.nodes ?? []).map { ($0.node.id, Self.describe($0)) }, uniquingKeysWith: { first, _ in first })
        }
        var events = Columns(["t", "k", "h", "x", "j", "r", "s", "cn"])
        var traceColumns = Columns(["name", "duration"])
        var eventIndexBySequence: [[UInt64: Int]] = []

        let orders = inputs.map { Self.laneOrder($0.trace) }
        var plan: [(trace: Int, node: UInt64, depth: Int)] = []
        if orders.count == 2 {
            let inB = Dictionary(orders[1].map { ($0.node, $0.depth) }, uniquingKeysWith: { first, _ in first })
            var placed: Set<UInt64> = []
            for lane in orders[0] {
                plan.append((0, lane.node, lane.depth))
                let partner = partners.map { $0[lane.node] } ?? lane.node
                if let partner, let depth = inB[partner], !placed.contains(partner) {
                    plan.append((1, partner, depth))
                    placed.insert(partner)
                }
            }
            for lane in orders[1] where !placed.contains(lane.node) { plan.append((1, lane.node, lane.depth)) }
        } else {
            for (trace, order) in orders.enumerated() { plan += order.map { (trace, $0.node, $0.depth) } }
        }

        // Each trace's pending cause links, resolved once every event has its index.
        var pendingCauses: [(trace: Int, sequences: [UInt64])] = []
        for _ in inputs { eventIndexBySequence.append([:]) }
        for input in inputs {
            let trace = input.trace
            var duration = trace.summary?.duration ?? 0
            for event in trace.events { duration = max(duration, event.time) }
            traceColumns.append([strings.index(input.name), Int(duration)])
        }
        // Each trace's subscriptions by node, found once: filtering them all for each lane
        // cost lanes × subscriptions (issue 33 item 3: 10,000 source → sink pairs took 54 s).
        let subscriptionsByNode = inputs.map { input in
            Dictionary(grouping: input.trace.subscriptions, by: \.node)
        }
        for entry in plan {
            let trace = inputs[entry.trace].trace
            guard let node = trace.node(entry.node) else { continue }
            var items: [(time: Int64, order: Int, sequence: UInt64, item: Item)] = []
            let own = subscriptionsByNode[entry.trace][node.id] ?? []
            for subscription in own {
                items.append((subscription.time, 0, subscription.id, .subscribed(subscription)))
            }
            // Pulls (an async consumer's demand) are counted in the lane's statistics, not drawn:
            // as in the marble figure, a tick beside nearly every marble would tell nothing.
            for event in trace.events(of: node.id) where event.kind.isSent {
                items.append((event.time, 1, event.sequence, .event(event)))
            }
            if node.kind == .sink {
                for event in Self.delivered(to: node, in: trace, subscriptions: own) {
                    items.append((event.time, 1, event.sequence, .delivered(event)))
                }
            }
            items.sort { ($0.time, $0.order, $0.sequence) < ($1.time, $1.order, $1.sequence) }
            lanes.append([
                entry.trace, Int(node.id), strings.index(node.name), node.label.map { strings.index($0) } ?? -1,
                strings.index(node.kind.rawValue), strings.index(node.parameters), strings.index(node.file),
                Int(node.line), entry.depth, events.count, items.count,
                statsText[entry.trace][node.id].map { strings.index($0) } ?? -1,
            ])
            var previous: Int64 = 0
            for (time, _, _, item) in items {
                let thread: ThreadRecord?
                var row = [Int(time - previous), 0, 0, -1, -1, -1, 0, 0]
                previous = time
                switch item {
                case let .subscribed(subscription):
                    thread = trace.thread(subscription.thread)
                    row[1] = TracePage.Mark.subscribed.rawValue
                    row[5] = subscription.requestKey.map { strings.index($0) } ?? -1
                    pendingCauses.append((entry.trace, []))
                case let .event(event), let .delivered(event):
                    thread = trace.thread(event.thread)
                    row[1] = TracePage.Mark(event.kind).rawValue
                    row[3] = event.text.map { strings.index($0 + (event.truncated ? "…" : "")) } ?? -1
                    row[4] = event.json.map { strings.index($0) } ?? -1
                    row[5] = trace.subscription(event.subscription)?.requestKey.map { strings.index($0) } ?? -1
                    if case .delivered = item {
                        // Not an event of its own: no sequence number, and caused by the event it is.
                        pendingCauses.append((entry.trace, [event.sequence]))
                    } else {
                        row[6] = Int(event.sequence)
                        eventIndexBySequence[entry.trace][event.sequence] = events.count
                        pendingCauses.append((entry.trace, event.causes))
                    }
                }
                let threadName = thread?.displayName ?? "?"
                if let known = threadIndex[threadName] {
                    row[2] = known
                } else {
                    threadIndex[threadName] = threads.count
                    row[2] = threads.count
                    threads.append(strings.index(threadName))
                    let colour = colourOf[thread.map(ThreadColours.name(of:)) ?? "?"] ?? ThreadColours.several
                    threadColours.append(strings.index(colour.fill))
                }
                events.append(row)
            }
        }
        // A cause the trace does not hold (recorded before it) is left out: `cn` counts what
        // `c` holds.
        var causeCounts: [Int] = []
        var kept: [Int] = []
        for (trace, sequences) in pendingCauses {
            let found = sequences.compactMap { eventIndexBySequence[trace][$0] }
            causeCounts.append(found.count)
            kept += found
        }
        events.replace("cn", with: causeCounts)

        var diffs = Columns(["text", "a", "b"])
        for difference in differences {
            let a = difference.eventA.flatMap { eventIndexBySequence.first?[$0] } ?? -1
            let b = difference.eventB.flatMap { eventIndexBySequence.count > 1 ? eventIndexBySequence[1][$0] : nil } ?? -1
            diffs.append([strings.index(difference.text), a, b])
        }

        let pipelineSVG = pipeline.map { strings.index($0.svg) } ?? -1
        var out = "{\"strings\":" + strings.json
        out += ",\"threads\":" + Columns.array(threads)
        out += ",\"threadColours\":" + Columns.array(threadColours)
        out += ",\"traces\":" + traceColumns.json
        out += ",\"lanes\":" + lanes.json
        out += ",\"events\":" + events.json.dropLast() + ",\"c\":" + Columns.array(kept) + "}"
        out += ",\"diffs\":" + diffs.json
        out += ",\"pipeline\":{\"svg\":" + String(pipelineSVG)
        out += ",\"nodes\":" + Columns.array((pipeline?.nodes ?? []).map { Int($0) }) + "}"
        out += "}"
        json = out
    }

    /// One node's statistics as the page shows them on hover: counts, drops, stage latency.
    static func describe(_ stats: TraceStats.NodeStats) -> String {
        var parts = [stats.values == 1 ? "1 value" : "\(stats.values) values"]
        if stats.failed > 0 { parts.append("\(stats.failed) failed") }
        if stats.interrupted > 0 { parts.append("\(stats.interrupted) interrupted") }
        if stats.completed > 0 { parts.append("\(stats.completed) completed") }
        if let dropped = stats.dropped, dropped > 0 { parts.append("\(dropped) dropped") }
        if stats.pulls > 0 {
            parts.append(stats.pulls == 1 ? "1 pull" : "\(stats.pulls) pulls")
            if stats.unanswered > 0 { parts.append("\(stats.unanswered) unanswered") }
        }
        if let latency = stats.stageLatency {
            parts.append("stage latency p50 \(formatDuration(latency.p50)), p95 \(formatDuration(latency.p95)), max \(formatDuration(latency.max))")
        }
        return parts.joined(separator: " · ")
    }

    private enum Item {
        case subscribed(SubscriptionRecord)
        case event(EventRecord)
        /// An event of the stream a sink observes, shown on the sink's lane.
        case delivered(EventRecord)
    }

    /// The events delivered to the sink `node`, as `TraceStats` counts them on its line: a
    /// sink sends nothing of its own, so its lane shows what it received. They are the events
    /// of each subscription its subscriptions observe (their parents), and, for a subscription
    /// naming none (a parent of 0), every event of its data upstream nodes.
    static func delivered(to node: NodeRecord, in trace: Trace, subscriptions: [SubscriptionRecord]? = nil) -> [EventRecord] {
        let own = subscriptions ?? trace.subscriptions.filter { $0.node == node.id }
        let observed = Set(own.map(\.parent).filter { $0 != 0 })
        let dataUpstream = Set(node.upstream.filter { $0.role == .data }.map(\.node))
        let unparented = own.contains { $0.parent == 0 }
        var sources = Set(observed.compactMap { trace.subscription($0)?.node })
        if unparented { sources.formUnion(dataUpstream) }
        var events: [EventRecord] = []
        for source in sources.sorted() where source != node.id {
            for event in trace.events(of: source)
            where event.kind.isSent && (observed.contains(event.subscription) || (unparented && dataUpstream.contains(source))) {
                events.append(event)
            }
        }
        return events
    }

    /// The nodes in id order, each inner stream moved right under the first higher-order
    /// node that started it, with depth 1; work followed from a node's elements
    /// (`FollowedWork`: a call a `for await` loop made for an element) right after that node,
    /// at its depth, and the nodes that work fed after it, as the marble figure draws them.
    static func laneOrder(_ trace: Trace) -> [(node: UInt64, depth: Int)] {
        let followed = FollowedWork(trace: trace, innerStreams: InnerStreams(trace: trace))
        var outerOf: [UInt64: UInt64] = [:]
        for edge in trace.innerEdges where outerOf[edge.inner] == nil && !followed.isFollowed(edge.inner, by: edge.outer) {
            outerOf[edge.inner] = edge.outer
        }
        var innerOf: [UInt64: [UInt64]] = [:]
        for (inner, outer) in outerOf.sorted(by: { $0.key < $1.key }) { innerOf[outer, default: []].append(inner) }
        var order: [(node: UInt64, depth: Int)] = []
        var placed: Set<UInt64> = []
        func place(_ id: UInt64, depth: Int) {
            guard placed.insert(id).inserted else { return }
            order.append((id, depth))
            for inner in innerOf[id] ?? [] { place(inner, depth: depth + 1) }
            for work in followed.started[id] ?? [] { place(work, depth: depth) }
        }
        for node in followed.order(trace.nodes)
        where outerOf[node.id] == nil || !trace.nodes.contains(where: { $0.id == outerOf[node.id] }) {
            place(node.id, depth: 0)
        }
        // An inner node whose chain of outer nodes loops back on itself.
        for node in trace.nodes { place(node.id, depth: 0) }
        return order
    }
}

/// Texts stored once, referred to by index.
struct StringTable {
    private(set) var strings: [String] = []
    private var indices: [String: Int] = [:]

    mutating func index(_ text: String) -> Int {
        if let index = indices[text] { return index }
        indices[text] = strings.count
        strings.append(text)
        return strings.count - 1
    }

    var json: String { "[" + strings.map(ScriptJSON.string).joined(separator: ",") + "]" }
}

/// Named integer columns that grow a row at a time.
struct Columns {
    private let names: [String]
    private var values: [[Int]]

    init(_ names: [String]) {
        self.names = names
        values = names.map { _ in [] }
    }

    var count: Int { values.first?.count ?? 0 }

    mutating func append(_ row: [Int]) {
        for (column, value) in row.enumerated() { values[column].append(value) }
    }

    mutating func replace(_ name: String, with column: [Int]) {
        if let index = names.firstIndex(of: name) { values[index] = column }
    }

    var json: String {
        "{" + zip(names, values).map { ScriptJSON.string($0) + ":" + Self.array($1) }.joined(separator: ",") + "}"
    }

    static func array(_ numbers: [Int]) -> String {
        var out = "["
        out.reserveCapacity(numbers.count * 4 + 2)
        for (position, number) in numbers.enumerated() {
            if position > 0 { out += "," }
            out += String(number)
        }
        return out + "]"
    }
}

/// JSON text that is also safe inside an HTML `<script>` element: `<`, `>` and `&` are
/// written as `\u` escapes, so no data can close the element or open a comment.
enum ScriptJSON {
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "&": out += "\\u0026"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
