import Diagrams
import Foundation
import TraceLog
import Viewer
import XCTest

/// Every reader of a trace gives the same output whichever encoding the trace was read from:
/// each committed trace, read from its JSON Lines and from its binary encoding
/// (`TraceConversion`), has the same marble figure (text and SVG), pipeline graph, per-edge
/// counts, viewer page, statistics and Perfetto export.
final class EncodingAgreementTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testEveryReaderGivesTheSameOutputFromEitherEncoding() throws {
        let traces = Self.root.appendingPathComponent("traces")
        let files = try FileManager.default.contentsOfDirectory(at: traces, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "trace" }.sorted { $0.path < $1.path }
        XCTAssertGreaterThan(files.count, 10)
        var events = 0
        for url in files {
            let name = url.lastPathComponent
            let json = try [UInt8](Data(contentsOf: url))
            let binary = try TraceConversion.converted(json, name: name, to: .binary)
            XCTAssertNotEqual(binary.prefix(16), json.prefix(16), name)
            let fromJSON = try Trace(bytes: json, name: name), fromBinary = try Trace(bytes: binary, name: name)
            XCTAssertEqual(fromBinary.events.count, fromJSON.events.count, name)
            events += fromJSON.events.count

            for causes in [false, true] {
                let options = MarbleOptions(selection: .all, causes: causes, title: name)
                let a = try MarbleFigure(trace: fromJSON, options: options), b = try MarbleFigure(trace: fromBinary, options: options)
                XCTAssertEqual(a, b, name)
                XCTAssertEqual(MarbleRenderer.svg(a), MarbleRenderer.svg(b), name)
                XCTAssertEqual(try MarbleRenderer.render(a, format: .txt), try MarbleRenderer.render(b, format: .txt), name)
            }
            XCTAssertEqual(PipelineGraph(trace: fromJSON, title: name), PipelineGraph(trace: fromBinary, title: name), name)
            XCTAssertEqual(TraceEdges(fromJSON).edges, TraceEdges(fromBinary).edges, name)

            let statsA = try TraceStats.compute(TraceReader(bytes: json, name: name))
            let statsB = try TraceStats.compute(TraceReader(bytes: binary, name: name))
            XCTAssertEqual(statsA.text, statsB.text, name)
            let pageA = try TracePage.html([.init(name: name, trace: fromJSON, stats: statsA)], title: name)
            let pageB = try TracePage.html([.init(name: name, trace: fromBinary, stats: statsB)], title: name)
            XCTAssertEqual(pageA, pageB, name)

            var exportA: [UInt8] = [], exportB: [UInt8] = []
            try PerfettoExport.export(TraceReader(bytes: json, name: name)) { exportA += $0 }
            try PerfettoExport.export(TraceReader(bytes: binary, name: name)) { exportB += $0 }
            XCTAssertEqual(exportA, exportB, name)
        }
        XCTAssertGreaterThan(events, 1_000)
    }
}
