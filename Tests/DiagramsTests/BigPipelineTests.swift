@testable import Diagrams
import Foundation
import TraceLog
import XCTest

/// No input size crashes Graphviz or takes the marble layout quadratic time (issue 33 items 2
/// and 3: a 20,000-operator chain crashed libgvc after minutes; `draw` of a chain took 81 s at
/// 20k nodes, `view` of 10k source → sink pairs 54 s). Outcomes only: the times are
/// `make bench`'s.
final class BigPipelineTests: XCTestCase {
    /// A trace of a chain of `count` nodes (a source, then operators), one value through it.
    static func chain(_ count: Int) throws -> Trace {
        var lines = [#"{"type":"header","format":"marbles-trace","version":"1.1","unit":"ns","clock":"virtual"}"#,
                     #"{"type":"thread","id":1,"name":"main"}"#]
        for id in 1...count {
            let upstream = id == 1 ? "" : #"{"node":\#(id - 1),"role":"data"}"#
            lines.append(#"{"type":"node","id":\#(id),"kind":"\#(id == 1 ? "source" : "operator")","name":"map","parameters":"","file":"A.swift","line":\#(id),"upstream":[\#(upstream)]}"#)
        }
        for id in 1...count { lines.append(#"{"type":"subscribe","id":\#(id),"node":\#(id),"parent":0,"time":0,"thread":1}"#) }
        for id in 1...count {
            lines.append(#"{"type":"event","seq":\#(id),"time":1000,"node":\#(id),"sub":\#(id),"kind":"value","thread":1,"causes":[\#(id == 1 ? "" : String(id - 1))],"text":"1","json":1}"#)
        }
        return try Trace(bytes: Array((lines.joined(separator: "\n") + "\n").utf8), name: "chain")
    }

    func testAGraphWithinTheLimitIsDrawnAsItIs() throws {
        XCTAssertNil(PipelineGraph(trace: try Self.chain(50)).bounded())
    }

    func testALongChainIsDrawnShortAndSaysSo() throws {
        let graph = PipelineGraph(trace: try Self.chain(20_000))
        let bounded = try XCTUnwrap(graph.bounded())
        XCTAssertEqual(bounded.graph.nodes.count, 5, "the source, the run's first and last, the elided node, the end")
        XCTAssertTrue(bounded.graph.nodes.contains { $0.name == "… 19996 operators …" }, "\(bounded.graph.nodes.map(\.name))")
        XCTAssertTrue(bounded.note.hasPrefix("the pipeline has 20000 nodes, more than the 4000 Graphviz lays out in seconds; "
            + "1 chain of operators drawn short (19996 operators counted, not drawn)"), bounded.note)
        // Graphviz is handed the bounded graph: it renders, no crash.
        let svg = String(decoding: try PipelineRenderer.render(graph, format: .svg), as: UTF8.self)
        XCTAssertTrue(svg.contains("19996 operators"), String(svg.prefix(2000)))
    }

    func testAWideGraphIsCutToTheLimitAndSaysSo() {
        var nodes: [PipelineGraph.Node] = [], edges: [PipelineGraph.Edge] = []
        for pair in 0..<3_000 {
            nodes.append(.init(id: "s\(pair)", kind: .source, name: "pipe"))
            nodes.append(.init(id: "k\(pair)", kind: .sink, name: "observe"))
            edges.append(.init(from: "s\(pair)", to: "k\(pair)"))
        }
        let bounded = PipelineGraph(nodes: nodes, edges: edges).bounded()
        XCTAssertEqual(bounded?.graph.nodes.count, 4_000)
        XCTAssertEqual(bounded?.graph.nodes.last?.name, "… 2001 more nodes not drawn …")
        XCTAssertTrue(bounded?.graph.edges.allSatisfy { edge in bounded?.graph.nodes.contains { $0.id == edge.to } ?? false } ?? false)
        XCTAssertTrue(bounded?.note.contains("the first 3999 nodes in pipeline order drawn, 2001 more not") ?? false)
    }

    func testALongChainsMarbleFigureIsMade() throws {
        let figure = try MarbleFigure(trace: try Self.chain(10_000), options: MarbleOptions(selection: .paths))
        XCTAssertFalse(figure.lanes.isEmpty)
    }
}
