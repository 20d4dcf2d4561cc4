import Locks
@testable import Diagrams
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest

final class PipelineRendererTests: XCTestCase {
    /// The TwitterInstant pipeline, by hand.
    static func twitter(heat: Bool = false) -> PipelineGraph {
        PipelineGraph(
            title: "TwitterInstant",
            nodes: [
                .init(id: "1", kind: .source, name: "rac_textSignal", callSite: "Search.swift:3", group: "main", latency: 0),
                .init(id: "2", kind: .operator, name: "filter", parameters: "length > 2", group: "main", latency: 1_000),
                .init(id: "3", kind: .operator, name: "throttle", parameters: "0.5s", group: "main", latency: 500_000_000),
                .init(id: "4", kind: .operator, name: "flatMap", parameters: "latest", group: "background", latency: 300_000_000),
                .init(id: "5", kind: .source, name: "search", group: "background", latency: 0),
                .init(id: "6", kind: .operator, name: "observe(on:)", parameters: "main", group: "main", latency: 2_000_000),
                .init(id: "7", kind: .sink, name: "subscribeNext", group: "main"),
            ],
            edges: [
                .init(from: "1", to: "2", label: "6 values"),
                .init(from: "2", to: "3", label: "4 values"),
                .init(from: "3", to: "4", label: "1 value"),
                .init(from: "5", to: "4", style: .inner, label: "1 value"),
                .init(from: "4", to: "6", label: "1 value"),
                .init(from: "6", to: "7", label: "1 value"),
                .init(from: "5", to: "7", style: .error, label: "InvalidResponse"),
            ],
            heat: heat
        )
    }

    func svgDocument(_ graph: PipelineGraph) throws -> XMLDocument {
        let data = try PipelineRenderer.render(graph, format: .svg)
        return try XMLDocument(data: data, options: [])
    }

    func testSVGHasANodePerOperatorWithItsNameAndParameters() throws {
        let xml = try svgDocument(Self.twitter())
        let texts = try xml.nodes(forXPath: "//*[local-name()='g'][@class='node']//*[local-name()='text']").map { $0.stringValue ?? "" }
        for expected in ["rac_textSignal", "filter(length > 2)", "throttle(0.5s)", "flatMap(latest)", "observe(on: main)", "subscribeNext"] {
            XCTAssertTrue(texts.contains(expected), "\(expected) missing from \(texts)")
        }
        XCTAssertEqual(try xml.nodes(forXPath: "//*[local-name()='g'][@class='node']").count, 7)
        XCTAssertEqual(try xml.nodes(forXPath: "//*[local-name()='g'][@class='edge']").count, 7)
    }

    func testALabelOfHundredsOfCharactersIsCutAndKeptWholeInTheTooltip() throws {
        let label = "celsius " + String(repeating: "very long label ", count: 18)
        let graph = PipelineGraph(
            title: nil,
            nodes: [
                .init(id: "1", kind: .source, name: "input", label: label, callSite: "Pipelines.swift:44", group: "main"),
                .init(id: "2", kind: .sink, name: "observeValues", group: String(repeating: "worker ", count: 20)),
            ],
            edges: [.init(from: "1", to: "2", label: "16 values")],
            heat: false
        )
        let data = try PipelineRenderer.render(graph, format: .svg)
        let svg = String(decoding: data, as: UTF8.self)
        let xml = try XMLDocument(data: data, options: [])
        let texts = try xml.nodes(forXPath: "//*[local-name()='text']").map { $0.stringValue ?? "" }
        XCTAssertTrue(texts.allSatisfy { $0.count <= PipelineRenderer.maxLabelLine }, "\(texts)")
        XCTAssertTrue(texts.contains { $0.hasPrefix("\u{201C}celsius very long") && $0.hasSuffix("\u{2026}") }, "\(texts)")
        XCTAssertTrue(svg.contains("\u{201C}\(label)\u{201D}"), "the whole label is the node's tooltip")
        let opening = try XCTUnwrap(svg.range(of: "<svg width=\""))
        let width = try XCTUnwrap(Double(svg[opening.upperBound...].prefix { $0.isNumber || $0 == "." }))
        XCTAssertLessThan(width, 1_200, "the figure is sized to the cut labels (the whole label is 2,000 pt wide)")
    }

    func testErrorEdgesAreDashedRedAndInnerEdgesDashed() throws {
        let xml = try svgDocument(Self.twitter())
        let paths = try xml.nodes(forXPath: "//*[local-name()='g'][@class='edge']/*[local-name()='path']").compactMap { $0 as? XMLElement }
        let red = paths.filter { attribute($0, "stroke") == "#d62728" }
        XCTAssertEqual(red.count, 1)
        XCTAssertNotNil(attribute(red.first, "stroke-dasharray"))
        let dashed = paths.filter { attribute($0, "stroke-dasharray") != nil }
        XCTAssertEqual(dashed.count, 2, "the error edge and the inner edge")
    }

    func testNodesAreClusteredByThreadOnePerConnectedRun() throws {
        let xml = try svgDocument(Self.twitter())
        let clusters = try xml.nodes(forXPath: "//*[local-name()='g'][@class='cluster']/*[local-name()='text']").map { $0.stringValue ?? "" }
        XCTAssertEqual(clusters, ["on main", "on background", "on main"], "main, the hop to background, and back")
    }

    func testCallSiteIsTheTooltip() throws {
        let svg = String(decoding: try PipelineRenderer.render(Self.twitter(), format: .svg), as: UTF8.self)
        XCTAssertTrue(svg.contains("xlink:title=\"Search.swift:3&#10;latency 0 ns\""), svg)
    }

    func testHeatColouringAddsALegend() throws {
        let xml = try svgDocument(Self.twitter(heat: true))
        let texts = try xml.nodes(forXPath: "//*[local-name()='text']").map { $0.stringValue ?? "" }
        XCTAssertTrue(texts.contains("time working (p95 from cause to event)"), "\(texts)")
        XCTAssertTrue(texts.contains("400 ms\u{2013}500 ms"), "\(texts)")
        let fills = try xml.nodes(forXPath: "//*[local-name()='g'][@class='node']//*[local-name()='polygon' or local-name()='path' or local-name()='ellipse']/@fill")
            .map { $0.stringValue ?? "" }
        XCTAssertTrue(fills.contains("#fd8d3c") || fills.contains("#800026"), "the slowest stage is hot: \(fills)")
    }

    func testRenderingIsByteIdentical() throws {
        XCTAssertEqual(try PipelineRenderer.render(Self.twitter(), format: .svg),
                       try PipelineRenderer.render(Self.twitter(), format: .svg))
    }

    func testHostileLabelsGiveValidDOTAndValidSVG() throws {
        let hostile = "a\"b <c> & d \\N \\ e\nf\u{02} é 日本 🙂 ]]>"
        let graph = PipelineGraph(
            title: hostile,
            nodes: [
                .init(id: "x", kind: .source, name: hostile, parameters: hostile, label: "L" + hostile, callSite: hostile, group: hostile),
                .init(id: "y", kind: .sink, name: "sink", group: "other \\ group"),
            ],
            edges: [.init(from: "x", to: "y", label: hostile), .init(from: "x", to: "y", style: .error, label: hostile)]
        )
        let xml = try svgDocument(graph)
        let texts = try xml.nodes(forXPath: "//*[local-name()='g'][@class='node']//*[local-name()='text']").map { $0.stringValue ?? "" }
        // Each newline starts a line; `\N` stays literal instead of becoming the node's name.
        XCTAssertEqual(texts, [
            "a\"b <c> & d \\N \\ e", "f\u{2402} é 日本 🙂 ]]>(a\"b <c> & d \\N \\ e", "f\u{2402} é 日本 🙂 ]]>)",
            "\u{201C}La\"b <c> & d \\N \\ e", "f\u{2402} é 日本 🙂 ]]>\u{201D}", "sink",
        ])

        let dot = String(decoding: try PipelineRenderer.render(graph, format: .dot), as: UTF8.self)
        let labels = try XCTUnwrap(try Graphviz.parse(dot: dot), "the DOT output must parse")
        XCTAssertEqual(labels.count, 2)
        // Graphviz decodes entities in labels, so the ampersand is written as `&amp;`.
        XCTAssertTrue(labels["n0"]?.contains("a\"b <c> &amp; d \\\\N") == true, labels["n0"] ?? "")
    }

    func testInvalidDOTIsRejectedNotCrashed() throws {
        XCTAssertNil(try Graphviz.parse(dot: "digraph { a -> ; \"unterminated"))
    }

    func testPNGAndPDFAreValidFiles() throws {
        let png = try PipelineRenderer.render(Self.twitter(), format: .png)
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        XCTAssertGreaterThan(png.count, 5_000)
        XCTAssertLessThan(png.count, 5_000_000)
        let pdf = try PipelineRenderer.render(Self.twitter(), format: .pdf)
        XCTAssertEqual(String(decoding: pdf.prefix(5), as: UTF8.self), "%PDF-")
        XCTAssertGreaterThan(pdf.count, 1_000)
    }

    func testConcurrentRendersAreSerialisedAndAllSucceed() throws {
        let results = ResultBox()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let data = try? PipelineRenderer.render(Self.twitter(), format: .svg)
            results.append(data)
        }
        let all = results.values
        XCTAssertEqual(all.count, 8)
        XCTAssertEqual(Set(all.compactMap { $0 }).count, 1, "every render succeeded with the same bytes")
        XCTAssertFalse(all.contains(nil))
    }
}

final class ResultBox: @unchecked Sendable {
    private let lock = Lock()
    private var stored: [Data?] = []
    func append(_ value: Data?) { lock.lock(); stored.append(value); lock.unlock() }
    var values: [Data?] { lock.lock(); defer { lock.unlock() }; return stored }
}
