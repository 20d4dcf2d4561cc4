import Locks
import CGraphviz
import Foundation

/// Output formats of a pipeline diagram.
public enum PipelineFormat: String, Sendable, CaseIterable {
    case svg, png, pdf
    /// The laid-out graph in Graphviz's own language, with positions.
    case dot
}

/// Lays out a `PipelineGraph` with libgraphviz's `dot` engine, in process, and renders it.
public enum PipelineRenderer {
    /// Renders `graph` in `format`. PNG is drawn at 144 dpi so it stays sharp in documents.
    /// A graph over `PipelineGraph.nodeLimit` nodes is bounded first (`bounded(toNodes:)`),
    /// which the figure shows; Graphviz is never handed more.
    public static func render(_ graph: PipelineGraph, format: PipelineFormat) throws -> Data {
        let graph = graph.bounded()?.graph ?? graph
        return try Graphviz.locked { gvc in
            guard let g = cgv_open_digraph("pipeline") else {
                throw DiagramError.graphviz("could not create a graph")
            }
            defer { agclose(g) }
            build(graph, into: g, dpi: format == .png ? 144 : nil)
            guard cgv_layout(gvc, g, "dot") == 0 else {
                throw DiagramError.graphviz("the dot layout failed")
            }
            // A PNG over cairo's bitmap limit is scaled down by Graphviz's cairo plugin, which
            // says so on standard error in its own words; laid out again at a lower dpi
            // instead, it fits (the caller warns about an image too long to read).
            if format == .png, let points = boundingBox(of: g), max(points.width, points.height) * 2 > Double(Self.largestPNGSide) {
                gvFreeLayout(gvc, g)
                let dpi = Double(Self.largestPNGSide) * 72 / max(points.width, points.height)
                cgv_set(g, "dpi", String(format: "%.3f", dpi))
                guard cgv_layout(gvc, g, "dot") == 0 else {
                    throw DiagramError.graphviz("the dot layout failed")
                }
            }
            defer { gvFreeLayout(gvc, g) }
            var buffer: UnsafeMutablePointer<CChar>?
            var length: UInt32 = 0
            guard cgv_render(gvc, g, format.rawValue, &buffer, &length) == 0, let buffer else {
                throw DiagramError.graphviz("rendering \(format.rawValue) failed")
            }
            defer { gvFreeRenderData(buffer) }
            return Data(bytes: buffer, count: Int(length))
        }
    }

    /// The longest side a PNG is laid out for, in pixels: under cairo's 32767, with room for
    /// the margin Graphviz adds.
    static let largestPNGSide = 32_000

    /// The laid-out graph's size in points, or nil when it has none.
    private static func boundingBox(of g: UnsafeMutablePointer<Agraph_t>) -> (width: Double, height: Double)? {
        var width = 0.0, height = 0.0
        cgv_size(g, &width, &height)
        return width > 0 && height > 0 ? (width, height) : nil
    }

    private static let heatColours = ["#ffffcc", "#fed976", "#fd8d3c", "#e31a1c", "#800026"]
    /// A node that waits on purpose, off the heat scale: a cool colour no heat bucket uses.
    private static let waitColour = "#d6e4f0"

    private static func build(_ graph: PipelineGraph, into g: UnsafeMutablePointer<Agraph_t>, dpi: Int?) {
        cgv_set(g, "rankdir", "LR")
        cgv_set(g, "fontname", "Helvetica")
        cgv_set(g, "fontsize", "13")
        cgv_set(g, "nodesep", "0.35")
        cgv_set(g, "ranksep", "0.45")
        cgv_set(g, "pad", "0.25")
        cgv_set(g, "bgcolor", "white")
        if let dpi { cgv_set(g, "dpi", String(dpi)) }
        let heat = graph.heat ? HeatScale(graph.nodes.filter { !$0.waitsOnPurpose }.compactMap(\.latency)) : nil
        let key = edgeKey(graph)
        if heat != nil || !key.isEmpty {
            // The legend is part of the graph's label, so it sits with the title instead of
            // being laid out as if it were part of the pipeline.
            cgv_set_html(g, "label", legendTable(heat, waits: graph.nodes.contains { $0.waitsOnPurpose && $0.latency != nil },
                                                 key: key, title: graph.title))
            cgv_set(g, "labelloc", "t")
        } else if let title = graph.title {
            cgv_set(g, "label", TextSafety.graphviz(title))
            cgv_set(g, "labelloc", "t")
        }

        let clusterOf = clusters(graph)
        var subgraphs: [Int: UnsafeMutablePointer<Agraph_t>] = [:]
        for (index, group) in clusterOf.names.enumerated() {
            guard let sub = cgv_subgraph(g, "cluster_\(index)") else { continue }
            // The box and a dot before its label in the thread's colour, as its marbles are.
            let name = html(TextSafety.singleLine(TextSafety.truncated("on \(group)", to: maxLabelLine)))
            if let colour = graph.groupColours[group] {
                cgv_set_html(sub, "label", "<FONT COLOR=\"\(colour)\">\u{25CF}</FONT> \(name)")
                cgv_set(sub, "color", colour)
                cgv_set(sub, "penwidth", "1.6")
            } else {
                cgv_set_html(sub, "label", name)
                cgv_set(sub, "color", "#8a8a8a")
            }
            cgv_set(sub, "style", "rounded,dashed")
            cgv_set(sub, "fontcolor", "#555555")
            cgv_set(sub, "fontsize", "11")
            subgraphs[index] = sub
        }

        var handles: [String: UnsafeMutablePointer<Agnode_t>] = [:]
        for (index, node) in graph.nodes.enumerated() {
            guard handles[node.id] == nil, let handle = cgv_node(g, "n\(index)") else { continue }
            handles[node.id] = handle
            if let cluster = clusterOf.byNode[index], let sub = subgraphs[cluster] {
                _ = cgv_subgraph_node(sub, handle)
            }
            style(node, handle, heat: heat)
        }

        for (index, edge) in graph.edges.enumerated() {
            guard let tail = handles[edge.from], let head = handles[edge.to],
                  let handle = cgv_edge(g, tail, head, "e\(index)") else { continue }
            cgv_set(handle, "color", "#555555")
            cgv_set(handle, "fontname", "Helvetica")
            cgv_set(handle, "fontsize", "10")
            cgv_set(handle, "arrowsize", "0.7")
            if let label = edge.label {
                cgv_set(handle, "label", TextSafety.graphviz(label))
            }
            switch edge.style {
            case .data:
                break
            case .inner:
                cgv_set(handle, "style", "dashed")
            case .control:
                cgv_set(handle, "style", "dotted")
            case .error:
                cgv_set(handle, "style", "dashed")
                cgv_set(handle, "color", "#d62728")
                cgv_set(handle, "fontcolor", "#d62728")
                // Errors skip steps; letting them constrain ranks would bend the main line.
                cgv_set(handle, "constraint", "false")
            }
            if edge.failed, edge.style != .error {
                cgv_set(handle, "color", failedColour)
                cgv_set(handle, "fontcolor", failedColour)
                cgv_set(handle, "penwidth", "2.2")
            }
        }
    }

    /// Edges failures crossed, in their style (solid data, dashed inner stream).
    private static let failedColour = "#b2182b"

    /// The legend's entries for the kinds of edge the graph draws that a reader could not
    /// tell apart without one: empty unless a failure crossed an edge or reached a sink.
    private static func edgeKey(_ graph: PipelineGraph) -> [(sample: String, colour: String, text: String)] {
        guard graph.edges.contains(where: { $0.failed || $0.style == .error }) else { return [] }
        var key: [(sample: String, colour: String, text: String)] = [("\u{2501}\u{2501}", "#555555", "values")]
        if graph.edges.contains(where: { $0.style == .inner }) {
            key.append(("\u{254D}\u{254D}", "#555555", "inner stream"))
        }
        if graph.edges.contains(where: { $0.style == .control }) {
            key.append(("\u{2509}\u{2509}", "#555555", "control"))
        }
        if graph.edges.contains(where: { $0.failed }) {
            key.append(("\u{2501}\u{2501}", failedColour, "failures crossed it"))
        }
        if graph.edges.contains(where: { $0.style == .error }) {
            key.append(("\u{254C}\u{254C}", "#d62728", "where a failure began, to the sink it reached"))
        }
        return key
    }

    /// The most characters of a line of a node's label, or of a thread's cluster label.
    static let maxLabelLine = 48

    private static func style(_ node: PipelineGraph.Node, _ handle: UnsafeMutablePointer<Agnode_t>, heat: HeatScale?) {
        var lines = [OperatorText.format(name: node.name, parameters: node.parameters)]
        if let label = node.label, label != node.parameters, label != node.name {
            lines.append("\u{201C}\(label)\u{201D}")
        }
        if heat != nil, node.waitsOnPurpose, let latency = node.latency {
            // A sample's latency is from its trigger (22 µs on the field package's dashboard,
            // whose ticks hold values up to 250 ms): not a wait to print.
            lines.append(PipelineGraph.waitsForTrigger(node.name) ? "waits for its trigger" : "waits \(TimeFormat.duration(latency)) on purpose")
        }
        if let note = node.note { lines.append(note) }
        // A label line longer than a node should be (a user's 300-character label) is cut:
        // Graphviz would size the node to it, a few thousand pixels wide. The whole line is
        // the node's tooltip.
        let shown = lines.map { line in
            line.split(separator: "\n", omittingEmptySubsequences: false)
                .map { TextSafety.truncated(String($0), to: maxLabelLine) }.joined(separator: "\n")
        }
        cgv_set(handle, "label", shown.map(TextSafety.graphviz).joined(separator: "\\n"))
        cgv_set(handle, "fontname", "Helvetica")
        cgv_set(handle, "fontsize", "12")
        var tooltip: [String] = zip(lines, shown).filter { $0 != $1 }.map(\.0)
        if let callSite = node.callSite { tooltip.append(callSite) }
        if node.threads.count > 1 { tooltip.append("on \(node.threads.count) threads: " + node.threads.joined(separator: ", ")) }
        if let latency = node.latency {
            tooltip.append(node.waitsOnPurpose ? "latency \(TimeFormat.duration(latency)), a wait asked for"
                                               : "latency \(TimeFormat.duration(latency))")
        }
        if !tooltip.isEmpty {
            cgv_set(handle, "tooltip", tooltip.map(TextSafety.graphviz).joined(separator: "\\n"))
        }
        var fill: String
        switch node.kind {
        case .source:
            cgv_set(handle, "shape", "ellipse")
            cgv_set(handle, "style", "filled")
            cgv_set(handle, "color", "#3f8f3f")
            fill = "#e3f4e1"
        case .operator:
            cgv_set(handle, "shape", "box")
            cgv_set(handle, "style", "rounded,filled")
            cgv_set(handle, "color", "#4a6fa5")
            fill = "#eaf1fb"
        case .sink:
            cgv_set(handle, "shape", "box")
            cgv_set(handle, "style", "filled")
            cgv_set(handle, "peripheries", "2")
            cgv_set(handle, "color", "#b7791f")
            fill = "#fdf0dc"
        }
        if heat != nil, node.waitsOnPurpose, node.latency != nil {
            fill = waitColour
            cgv_set(handle, "style", node.kind == .operator ? "rounded,filled,dashed" : "filled,dashed")
        } else if let heat, let latency = node.latency {
            let bucket = heat.bucket(latency)
            fill = heatColours[bucket]
            if bucket >= 3 { cgv_set(handle, "fontcolor", "white") }
        }
        cgv_set(handle, "fillcolor", fill)
    }

    /// The title, the heat scale's legend (a swatch per bucket with its latency range, and
    /// one for nodes that wait on purpose when there are any) and the key of edges as an
    /// HTML-like table, each row a table of its own.
    private static func legendTable(_ heat: HeatScale?, waits: Bool, key: [(sample: String, colour: String, text: String)],
                                    title: String?) -> String {
        var rows = ""
        if let title {
            rows += "<TR><TD><FONT POINT-SIZE=\"14\">\(html(title))</FONT></TD></TR>"
        }
        if let heat {
            var cells = "<TD>time working (p95 from cause to event)</TD>"
            for bucket in 0..<heatColours.count {
                let (low, high) = heat.range(bucket)
                let ink = bucket >= 3 ? " COLOR=\"white\"" : ""
                cells += "<TD BGCOLOR=\"\(heatColours[bucket])\" BORDER=\"1\" COLOR=\"#999999\">"
                cells += "<FONT POINT-SIZE=\"10\"\(ink)>\(html("\(TimeFormat.duration(low))\u{2013}\(TimeFormat.duration(high))"))</FONT></TD>"
            }
            if waits {
                cells += "<TD BGCOLOR=\"\(waitColour)\" BORDER=\"1\" COLOR=\"#999999\" STYLE=\"dashed\">"
                cells += "<FONT POINT-SIZE=\"10\">waits on purpose (debounce, throttle, delay, timeout, sample): off the scale</FONT></TD>"
            }
            rows += "<TR><TD>\(row(cells))</TD></TR>"
        }
        if !key.isEmpty {
            // One cell: a row of cells would be spread over the width of the heat row.
            let entries = key.map { entry in
                "<FONT COLOR=\"\(entry.colour)\">\(entry.sample)</FONT> <FONT POINT-SIZE=\"10\">\(html(entry.text))</FONT>"
            }
            rows += "<TR><TD>edges   \(entries.joined(separator: "     "))</TD></TR>"
        }
        return "<TABLE BORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"0\">\(rows)</TABLE>"
    }

    private static func row(_ cells: String) -> String {
        "<TABLE BORDER=\"0\" CELLSPACING=\"4\" CELLPADDING=\"3\"><TR>\(cells)</TR></TABLE>"
    }

    /// Text escaped for an HTML-like label: entities for markup, `<BR/>` for newlines.
    private static func html(_ text: String) -> String {
        TextSafety.xml(text).replacingOccurrences(of: "\n", with: "<BR/>")
    }

    /// Nodes grouped by where they deliver: one cluster per connected run of nodes with the
    /// same group, so a pipeline that hops to a background thread and back shows two boxes
    /// on the main thread rather than one box the layout must bend around the hop.
    private static func clusters(_ graph: PipelineGraph) -> (names: [String], byNode: [Int: Int]) {
        var index: [String: Int] = [:]
        for (position, node) in graph.nodes.enumerated() where index[node.id] == nil { index[node.id] = position }
        var parent = Array(graph.nodes.indices)
        func root(_ node: Int) -> Int {
            var node = node
            while parent[node] != node {
                parent[node] = parent[parent[node]]
                node = parent[node]
            }
            return node
        }
        for edge in graph.edges where edge.style != .error {
            guard let from = index[edge.from], let to = index[edge.to],
                  let group = graph.nodes[from].group, graph.nodes[to].group == group else { continue }
            let (a, b) = (root(from), root(to))
            parent[max(a, b)] = min(a, b)
        }
        let distinct = Set(graph.nodes.compactMap(\.group))
        guard distinct.count > 1 else { return ([], [:]) }
        var names: [String] = []
        var clusterOfRoot: [Int: Int] = [:]
        var byNode: [Int: Int] = [:]
        for (position, node) in graph.nodes.enumerated() {
            guard let group = node.group, index[node.id] == position else { continue }
            let top = root(position)
            if clusterOfRoot[top] == nil {
                clusterOfRoot[top] = names.count
                names.append(group)
            }
            byNode[position] = clusterOfRoot[top]
        }
        return (names, byNode)
    }
}

/// Maps latencies onto five equal buckets between the smallest and the largest.
struct HeatScale {
    let low: Int64
    let high: Int64

    init(_ latencies: [Int64]) {
        let bounded = latencies.map { min(max($0, 0), TimeFormat.limit) }
        low = bounded.min() ?? 0
        high = max(bounded.max() ?? 0, low + 1)
    }

    func bucket(_ latency: Int64) -> Int {
        let span = Double(high - low)
        let position = Double(min(max(latency, low), high) - low) / span
        return min(4, Int(position * 5))
    }

    func range(_ bucket: Int) -> (Int64, Int64) {
        let span = high - low
        return (low + span * Int64(bucket) / 5, low + span * Int64(bucket + 1) / 5)
    }
}

/// Every call into libgraphviz goes through here: the library keeps global state and is not
/// thread-safe, so one lock serialises all use of it, and one context is made once.
enum Graphviz {
    private static let lock = Lock()
    nonisolated(unsafe) private static var context: OpaquePointer?

    static func locked<R>(_ body: (OpaquePointer) throws -> R) throws -> R {
        lock.lock()
        defer { lock.unlock() }
        if context == nil {
            // Warnings about fonts or odd labels would go to stderr; errors still surface
            // through the return codes checked by the callers.
            agseterr(AGERR)
            context = gvContext()
        }
        guard let context else { throw DiagramError.graphviz("could not create a Graphviz context") }
        return try body(context)
    }

    /// Parses DOT text, returning the names of its nodes and each node's `label`, or nil when
    /// the text is not valid DOT. Used to check what `render(_:format: .dot)` produces.
    static func parse(dot: String) throws -> [String: String]? {
        try locked { _ in
            guard let g = cgv_read(dot) else { return nil }
            defer { agclose(g) }
            var labels: [String: String] = [:]
            var node = agfstnode(g)
            while let current = node {
                let name = String(cString: agnameof(current))
                labels[name] = cgv_get(current, "label").map { String(cString: $0) } ?? ""
                node = agnxtnode(g, current)
            }
            return labels
        }
    }
}
