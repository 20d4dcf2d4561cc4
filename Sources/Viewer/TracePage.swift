import Diagrams
import Foundation
import TraceLog

/// One self-contained HTML page that shows one trace, or two traces to compare, as
/// zoomable lanes of marbles (`marbles view`).
///
/// The page needs no network and no server: its script and style are inline, and the
/// trace is embedded as columnar arrays (one array per field, texts in a deduplicated
/// string table) rather than one object per event. The same input always gives the same
/// bytes.
public enum TracePage {
    /// A difference between the two traces, listed on the page and selectable.
    public struct Difference: Equatable, Sendable {
        /// The line that describes it (as `marbles diff` prints it).
        public var text: String
        /// The sequence number of the event of trace A it concerns, if any.
        public var eventA: UInt64?
        /// The sequence number of the event of trace B it concerns, if any.
        public var eventB: UInt64?

        public init(text: String, eventA: UInt64? = nil, eventB: UInt64? = nil) {
            self.text = text
            self.eventA = eventA
            self.eventB = eventB
        }
    }

    /// A trace and the name the page shows for it (its path).
    public struct Input: Sendable {
        public var name: String
        public var trace: Trace
        /// The trace's timing statistics (`marbles stats`), shown per node when the pointer
        /// rests on its lane or its box in the pipeline; nil shows none.
        public var stats: TraceStats?

        public init(name: String, trace: Trace, stats: TraceStats? = nil) {
            self.name = name
            self.trace = trace
            self.stats = stats
        }
    }

    /// The event kinds as the page numbers them; `subscribed` marks a subscription's start.
    public enum Mark: Int, CaseIterable, Sendable {
        case value = 0, failed, completed, interrupted, subscribed

        init(_ kind: EventKind) {
            switch kind {
            case .value: self = .value
            case .failed: self = .failed
            case .completed: self = .completed
            case .interrupted: self = .interrupted
            // Never asked: the page leaves pulls out of its lanes (see `PageData`).
            case .pull: self = .value
            }
        }
    }

    /// The page for one trace, or for two (`inputs[0]` is A, `inputs[1]` is B) with the
    /// differences between them. `partners` maps a node of A to the node of B whose lane
    /// follows its lane (a diff's node alignment); without it, nodes pair by equal id.
    ///
    /// The page shows the pipeline of the first trace beside the lanes, laid out as
    /// `marbles draw --pipeline` lays it out (Graphviz `dot`); throws `DiagramError` when
    /// Graphviz cannot lay it out.
    public static func html(_ inputs: [Input], differences: [Difference] = [], partners: [UInt64: UInt64]? = nil,
                            title: String) throws -> String {
        var pipeline: (svg: String, nodes: [UInt64])?
        if let first = inputs.first {
            let graph = PipelineGraph(trace: first.trace)
            let svg = try PipelineRenderer.render(graph, format: .svg)
            pipeline = (String(decoding: svg, as: UTF8.self), graph.nodes.map { UInt64($0.id) ?? 0 })
        }
        let data = PageData(inputs, differences: differences, partners: partners, pipeline: pipeline)
        var page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        page += "<title>" + escapeHTML(title) + "</title>\n"
        page += "<style>\n" + PageStyle.css + "</style>\n</head>\n"
        page += PageStyle.body(title: escapeHTML(title))
        page += "<script id=\"marbles-data\" type=\"application/json\">"
        page += data.json
        page += "</script>\n<script>\n" + PageScript.source + "</script>\n</body>\n</html>\n"
        return page
    }

    /// `text` safe between HTML tags and inside attribute values.
    static func escapeHTML(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}
