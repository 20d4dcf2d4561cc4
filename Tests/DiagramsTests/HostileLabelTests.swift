@testable import Diagrams
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest

/// Labels hold whatever a trace or a user wrote; every SVG stays well-formed XML.
final class HostileLabelTests: XCTestCase {
    /// Text Graphviz would decode into characters XML cannot hold, and markup.
    private let hostile = ["a&#x1b;b", "&#0;", "&#8;", "&#xD800;", "&amp;#27;", "&lt;g&gt;", "<br/>", "\"'", "& \\N \\G", "\u{1b}]0;title\u{7}"]

    private func graph(_ text: String) -> PipelineGraph {
        PipelineGraph(
            title: text,
            nodes: [
                .init(id: "1", kind: .source, name: text, label: text, callSite: text, group: text, latency: 5),
                .init(id: "2", kind: .operator, name: "map", parameters: text, group: "other", latency: 10),
                .init(id: "3", kind: .sink, name: "observeValues", note: text),
            ],
            edges: [.init(from: "1", to: "2", label: text), .init(from: "2", to: "3", style: .error, label: text)],
            heat: false
        )
    }

    func testPipelineSVGIsWellFormedWhateverTheLabelsHold() throws {
        for text in hostile {
            for (heat, coloured) in [(false, false), (true, false), (false, true)] {
                var graph = graph(text)
                graph.heat = heat
                // A thread's box with its colour has an HTML label (a coloured dot before the name).
                if coloured { graph.groupColours = [text: "#CC79A7", "other": "#F0E442"] }
                let data = try PipelineRenderer.render(graph, format: .svg)
                XCTAssertNoThrow(try XMLDocument(data: data, options: []), "\(text) heat \(heat) coloured \(coloured)")
                if coloured { XCTAssertTrue(String(decoding: data, as: UTF8.self).contains("stroke=\"#cc79a7\""), text) }
                XCTAssertFalse(data.contains(0x1B), "a raw ESC from \(text)")
                XCTAssertFalse(data.contains(0x08), "a raw backspace from \(text)")
            }
        }
    }

    func testAnEntityInALabelIsDrawnAsItsText() throws {
        let data = try PipelineRenderer.render(graph("a&#x1b;b"), format: .svg)
        let svg = String(decoding: data, as: UTF8.self)
        // The label reads `a&#x1b;b`: the ampersand escaped once for XML, nothing decoded.
        XCTAssertTrue(svg.contains("a&amp;#x1b;b"), svg)
    }

    func testABidiOverrideIsShownAsAnEscapeNotObeyed() throws {
        let override = "\u{202E}peaks\u{202C} \u{2067}x\u{2069}\u{200F}"
        let marbles = MarbleFigure(rows: [.lane(.init(title: override, detail: override, marbles: [
            .init(id: 1, time: 0, display: override, full: override),
        ]))], threads: [override])
        let pipeline = graph(override)
        for svg in [try MarbleRenderer.render(marbles, format: .svg), try PipelineRenderer.render(pipeline, format: .svg)] {
            let text = String(decoding: svg, as: UTF8.self)
            XCTAssertFalse(text.unicodeScalars.contains { [0x202E, 0x202C, 0x2067, 0x2069, 0x200F].contains($0.value) }, text)
            XCTAssertTrue(text.contains("\\u{202E}peaks\\u{202C}"), text)
        }
        XCTAssertEqual(TextSafety.singleLine("\u{202E}ab"), "\\u{202E}ab", "the PNG and PDF draw the same escape")
        XCTAssertEqual(TextSafety.printable("\u{05E9}\u{05DC}\u{05D5}\u{05DD}"), "\u{05E9}\u{05DC}\u{05D5}\u{05DD}", "right-to-left letters stay")
    }

    func testGraphvizEscapingKeepsAmpersandsLiteral() {
        XCTAssertEqual(TextSafety.graphviz("a&#x1b;b & c"), "a&amp;#x1b;b &amp; c")
        XCTAssertEqual(TextSafety.graphviz("x\\Ny\nz"), "x\\\\Ny\\nz")
    }
}

/// A value of tens of thousands of characters is cut to its marble in a few measures.
final class LongMarbleValueTests: XCTestCase {
    func testAValueOf50000CharactersIsCutToTheLongestTextThatFitsItsMarble() throws {
        let long = String(repeating: "x", count: 50_000)
        let figure = MarbleFigure(rows: [.lane(.init(title: "values", marbles: [
            .init(id: 1, time: 0, display: long), .init(id: 2, time: 1_000_000, display: "ab"),
        ]))])
        let svg = String(decoding: try MarbleRenderer.render(figure, format: .svg), as: UTF8.self)
        XCTAssertNoThrow(try XMLDocument(data: Data(svg.utf8), options: []))
        // The cut is the longest prefix (with its `…`) whose width fits, as one character less
        // at a time would find it.
        let ellipsis = try XCTUnwrap(svg.range(of: "\u{2026}<"))
        let shown = svg[..<ellipsis.lowerBound].reversed().prefix { $0 == "x" }.count
        XCTAssertGreaterThanOrEqual(shown, 1)
        XCTAssertLessThan(shown, 30)
        XCTAssertTrue(svg.contains(">ab<"), "a short value is drawn whole")
    }
}
