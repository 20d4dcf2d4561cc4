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
        var events = Columns(["t", "k", "h", "x", "j", "r", "s", "cn", "c"])
        var traceColumns = Columns(["name", "duration"])

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

        for input in inputs {
            let duration = max(input.trace.summary?.duration ?? 0, input.trace.events.latestTime ?? 0)
            traceColumns.append([strings.index(input.name), Int(duration)])
        }
        // The page reads each trace's own columns: an item is a position in its subscriptions
        // or events, and each event's row on the page is kept by its position in the trace
        // (-1: not on the page), not in a dictionary by sequence number.
        var rowOfEvent = inputs.map { [Int32](repeating: -1, count: $0.trace.events.count) }
        // Each row's item, its causes resolved once every event has its row.
        var pendingCauses: [(trace: Int, item: Item)] = []
        // The string index of each distinct text of each trace, by its number (twice, plus one
        // when cut short), so that a value sent a million times is made into a string once.
        var textIndex = inputs.map { _ in [Int: Int]() }
        for entry in plan {
            let trace = inputs[entry.trace].trace, columns = trace.events
            guard let node = trace.node(entry.node) else { continue }
            var items: [(time: Int64, order: Int, sequence: UInt64, item: Item)] = []
            let own = trace.subscriptions.tree.positions(ofNode: node.id) ?? []
            for position in own {
                let subscription = trace.subscriptions[Int(position)]
                items.append((subscription.time, 0, subscription.id, .subscribed(Int(position))))
            }
            // Pulls (an async consumer's demand) are counted in the lane's statistics, not drawn:
            // as in the marble figure, a tick beside nearly every marble would tell nothing.
            for position in trace.eventPositions(of: node.id) where columns.kind(at: position).isSent {
                items.append((columns.time(at: position), 1, columns.sequence(at: position), .event(position)))
            }
            if node.kind == .sink {
                for position in Self.delivered(to: node, in: trace, subscriptions: own) {
                    items.append((columns.time(at: position), 1, columns.sequence(at: position), .delivered(position)))
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
            for (time, _, sequence, item) in items {
                let thread: ThreadRecord?
                var row = [Int(time - previous), 0, 0, -1, -1, -1, 0, 0]
                previous = time
                switch item {
                case let .subscribed(position):
                    let subscription = trace.subscriptions[position]
                    thread = trace.thread(subscription.thread)
                    row[1] = TracePage.Mark.subscribed.rawValue
                    row[5] = subscription.requestKey.map { strings.index($0) } ?? -1
                case let .event(position), let .delivered(position):
                    thread = trace.threads[columns.threadIndex(at: position)]
                    row[1] = TracePage.Mark(columns.kind(at: position)).rawValue
                    let truncated = columns.isTruncated(at: position)
                    let number = columns.textNumber(at: position), key = 2 * number + (truncated ? 1 : 0)
                    if number != 0 {
                        row[3] = textIndex[entry.trace][key] ?? strings.index(columns.text(at: position)! + (truncated ? "…" : ""))
                        textIndex[entry.trace][key] = row[3]
                    }
                    row[4] = columns.json(at: position).map { strings.index($0) } ?? -1
                    row[5] = trace.subscriptions[columns.subscriptionIndex(at: position)].requestKey.map { strings.index($0) } ?? -1
                    // A delivered event is not one of its own: no sequence number, and caused by the
                    // event it is.
                    if case .event = item {
                        row[6] = Int(sequence)
                        rowOfEvent[entry.trace][position] = Int32(events.count)
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
                pendingCauses.append((entry.trace, item))
            }
        }
        /// The row of the event numbered `sequence` of the trace `trace`, if it has one.
        func row(ofEvent sequence: UInt64, in trace: Int) -> Int? {
            guard let position = inputs[trace].trace.eventPosition(sequence: sequence) else { return nil }
            let row = rowOfEvent[trace][position]
            return row >= 0 ? Int(row) : nil
        }
        // A cause the trace does not hold (recorded before it) is left out: `cn` counts what
        // `c` holds.
        var causeCounts: [Int] = []
        var kept: [Int] = []
        for (trace, item) in pendingCauses {
            let before = kept.count
            switch item {
            case .subscribed:
                break
            case let .event(position):
                kept += inputs[trace].trace.events.causes(at: position).compactMap { row(ofEvent: $0, in: trace) }
            case let .delivered(position):
                if rowOfEvent[trace][position] >= 0 { kept.append(Int(rowOfEvent[trace][position])) }
            }
            causeCounts.append(kept.count - before)
        }
        events.replace("cn", with: causeCounts)
        events.replace("c", with: kept)

        var diffs = Columns(["text", "a", "b"])
        for difference in differences {
            let a = difference.eventA.flatMap { row(ofEvent: $0, in: 0) } ?? -1
            let b = difference.eventB.flatMap { inputs.count > 1 ? row(ofEvent: $0, in: 1) : nil } ?? -1
            diffs.append([strings.index(difference.text), a, b])
        }

        let pipelineSVG = pipeline.map { strings.index($0.svg) } ?? -1
        var out = "{\"strings\":" + strings.json
        out += ",\"threads\":" + Columns.array(threads)
        out += ",\"threadColours\":" + Columns.array(threadColours)
        out += ",\"traces\":"
        traceColumns.appendJSON(to: &out)
        out += ",\"lanes\":"
        lanes.appendJSON(to: &out)
        out += ",\"events\":"
        events.appendJSON(to: &out)
        out += ",\"diffs\":"
        diffs.appendJSON(to: &out)
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

    /// What a row of a lane shows, by its position in its trace's lists.
    private enum Item {
        case subscribed(Int)
        case event(Int)
        /// An event of the stream a sink observes, shown on the sink's lane.
        case delivered(Int)
    }

    /// The positions of the events delivered to the sink `node`, as `TraceStats` counts them
    /// on its line: a sink sends nothing of its own, so its lane shows what it received. They
    /// are the events of each subscription its subscriptions (`subscriptions`, positions in
    /// the trace's, all of the node's when nil) observe (their parents), and, for a
    /// subscription naming none (a parent of 0), every event of its data upstream nodes.
    static func delivered(to node: NodeRecord, in trace: Trace, subscriptions: [Int32]? = nil) -> [Int] {
        let own = subscriptions.map { $0.map { trace.subscriptions[Int($0)] } } ?? trace.subscriptions.filter { $0.node == node.id }
        let observed = Set(own.map(\.parent).filter { $0 != 0 })
        let dataUpstream = Set(node.upstream.filter { $0.role == .data }.map(\.node))
        let unparented = own.contains { $0.parent == 0 }
        var sources = Set(observed.compactMap { trace.subscription($0)?.node })
        if unparented { sources.formUnion(dataUpstream) }
        var events: [Int] = []
        let columns = trace.events
        for source in sources.sorted() where source != node.id {
            let everything = unparented && dataUpstream.contains(source)
            for position in trace.eventPositions(of: source) where columns.kind(at: position).isSent {
                if everything || observed.contains(trace.subscriptions[columns.subscriptionIndex(at: position)].id) {
                    events.append(position)
                }
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

    /// Appends the columns to `out` as one JSON object, letting go of each once written: a
    /// page of millions of events then holds the text beside the columns not yet written,
    /// not beside all of them.
    mutating func appendJSON(to out: inout String) {
        out += "{"
        for index in names.indices {
            out += (index > 0 ? "," : "") + ScriptJSON.string(names[index]) + ":"
            Self.append(values[index], to: &out)
            values[index] = []
        }
        out += "}"
    }

    static func array(_ numbers: [Int]) -> String {
        var out = ""
        append(numbers, to: &out)
        return out
    }

    /// Appends `numbers` to `out` as a JSON array.
    static func append(_ numbers: [Int], to out: inout String) {
        out += "["
        for (position, number) in numbers.enumerated() {
            if position > 0 { out += "," }
            out += String(number)
        }
        out += "]"
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
