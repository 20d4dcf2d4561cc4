@testable import Diagrams
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest

/// An attribute of an element by its name (FoundationXML's `attribute(forName:)` misses
/// attributes of elements in the SVG namespace).
func attribute(_ node: XMLNode?, _ name: String) -> String? {
    (node as? XMLElement)?.attributes?.first { $0.name == name }?.stringValue
}

final class MarbleRendererTests: XCTestCase {
    static let ms: Int64 = 1_000_000

    /// source → filter → output, with a completion, an error lane and two threads.
    static func sample() -> MarbleFigure {
        MarbleFigure(
            title: "filter",
            rows: [
                .lane(.init(title: "text", detail: "App.swift:10", marbles: [
                    .init(id: 1, time: 10 * ms, display: "m"),
                    .init(id: 2, time: 30 * ms, display: "ma"),
                    .init(id: 3, time: 50 * ms, display: "mag", full: "\"mag\""),
                ], end: .completed(at: 80 * ms))),
                .operator(.init(name: "filter", parameters: "count > 2", detail: "App.swift:11")),
                .lane(.init(title: "filter", marbles: [
                    .init(id: 4, time: 50 * ms, display: "mag", thread: 1),
                ], end: .failed(at: 70 * ms, message: "boom"))),
            ],
            threads: ["main", "background"],
            causes: [.init(from: 3, to: 4)]
        )
    }

    func document(_ svg: String, file: StaticString = #filePath, line: UInt = #line) throws -> XMLDocument {
        do {
            return try XMLDocument(data: Data(svg.utf8), options: [])
        } catch {
            XCTFail("not well-formed XML: \(error)", file: file, line: line)
            throw error
        }
    }

    func testSVGHasALanePerStreamAndAMarblePerValue() throws {
        let xml = try document(MarbleRenderer.svg(Self.sample()))
        let lanes = try xml.nodes(forXPath: "//*[local-name()='g'][@class='lane']")
        XCTAssertEqual(lanes.count, 2)
        let marbles = try xml.nodes(forXPath: "//*[local-name()='g'][starts-with(@class, 'marble')]")
        XCTAssertEqual(marbles.count, 4)
        let texts = try xml.nodes(forXPath: "//*[local-name()='g'][starts-with(@class, 'marble')]/*[local-name()='text'][1]").map { $0.stringValue ?? "" }
        XCTAssertEqual(texts, ["m", "ma", "mag", "mag"])
        let operators = try xml.nodes(forXPath: "//*[local-name()='g'][@class='operator']/*[local-name()='text']")
        XCTAssertEqual(operators.map { $0.stringValue ?? "" }, ["filter(count > 2)"])
    }

    func testMarbleHoverShowsFullValueTimeAndThread() throws {
        let xml = try document(MarbleRenderer.svg(Self.sample()))
        let titles = try xml.nodes(forXPath: "//*[local-name()='g'][starts-with(@class, 'marble')]/*[local-name()='title']").map { $0.stringValue ?? "" }
        XCTAssertEqual(titles[2], "\"mag\" (at 50 ms on main)")
        XCTAssertEqual(titles[3], "mag (at 50 ms on background)")
    }

    func testMarblesCarryTheirThreadAndLegendListsThreads() throws {
        let xml = try document(MarbleRenderer.svg(Self.sample()))
        let threads = try xml.nodes(forXPath: "//*[local-name()='g'][starts-with(@class, 'marble')]/@data-thread").map { $0.stringValue ?? "" }
        XCTAssertEqual(threads, ["main", "main", "main", "background"])
        let legend = try xml.nodes(forXPath: "//*[local-name()='g'][@class='thread']/@data-name").map { $0.stringValue ?? "" }
        XCTAssertEqual(legend, ["main", "background"])
        let shapes = "//*[local-name()='g'][starts-with(@class, 'marble')]/*[local-name()='circle' or local-name()='rect']/@fill"
        let fills = try xml.nodes(forXPath: shapes).map { $0.stringValue ?? "" }
        XCTAssertEqual(fills, ["#0072B2", "#0072B2", "#0072B2", "#E69F00"])
    }

    func testTerminalMarksAndCausalArrows() throws {
        let xml = try document(MarbleRenderer.svg(Self.sample()))
        XCTAssertEqual(try xml.nodes(forXPath: "//*[local-name()='g'][@class='completed']").count, 1)
        let failed = try xml.nodes(forXPath: "//*[local-name()='g'][@class='failed']/*[local-name()='title']")
        XCTAssertEqual(failed.map { $0.stringValue ?? "" }, ["failed at 70 ms: boom"])
        let causes = try xml.nodes(forXPath: "//*[local-name()='g'][@class='cause']")
        XCTAssertEqual(causes.count, 1)
        XCTAssertEqual(attribute(causes.first, "data-from"), "3")
    }

    func testAxisUsesMillisecondsForMillisecondTraces() throws {
        let xml = try document(MarbleRenderer.svg(Self.sample()))
        let axis = try xml.nodes(forXPath: "//*[local-name()='g'][@class='axis']").first
        XCTAssertEqual(attribute(axis, "data-unit"), "ms")
        let labels = try xml.nodes(forXPath: "//*[local-name()='g'][@class='axis']/*[local-name()='text']").map { $0.stringValue ?? "" }
        XCTAssertEqual(labels.last, "time (ms)")
        XCTAssertEqual(labels.dropLast(), ["20", "40", "60", "80"])
    }

    func testSVGIsByteIdenticalAcrossRenders() {
        let first = MarbleRenderer.svg(Self.sample())
        let second = MarbleRenderer.svg(Self.sample())
        XCTAssertEqual(first, second)
        XCTAssertNil(first.range(of: "[0-9][eE][-+]?[0-9]", options: .regularExpression), "no exponent notation")
    }

    func testHostileLabelsAndValuesGiveWellFormedSVG() throws {
        let hostile = "<b>\"q\" & 'a' \\ back\nline\u{01}\u{7F} é 日本 🙂 ]]> --"
        let figure = MarbleFigure(
            title: hostile,
            rows: [
                .lane(.init(title: hostile, detail: hostile, marbles: [
                    .init(id: 1, time: 0, display: hostile, full: hostile),
                    .init(id: 2, time: 5, display: "<", full: "&"),
                ], end: .failed(at: 9, message: hostile))),
                .operator(.init(name: hostile, parameters: hostile, detail: hostile)),
                .lane(.init(title: "out", marbles: [.init(id: 3, time: 9, display: "\"")])),
            ],
            threads: [hostile]
        )
        let xml = try document(MarbleRenderer.svg(figure))
        let titles = try xml.nodes(forXPath: "//*[local-name()='g'][starts-with(@class, 'marble')]/*[local-name()='title']").map { $0.stringValue ?? "" }
        XCTAssertTrue(titles[0].hasPrefix("<b>\"q\" & 'a' \\ back\nline\u{2401}\u{2421} é 日本 🙂 ]]> --"), titles[0])
        let legend = try xml.nodes(forXPath: "//*[local-name()='g'][@class='thread']/@data-name").map { $0.stringValue ?? "" }
        XCTAssertEqual(legend.count, 1)
        XCTAssertTrue(legend[0].hasPrefix("<b>\"q\""))
    }

    func testHostileTextPaintsIntoPNGAndPDF() throws {
        let hostile = "<b>\"q\" & \\ \nline\u{01} é 日本 🙂"
        let figure = MarbleFigure(title: hostile, rows: [
            .lane(.init(title: hostile, marbles: [.init(id: 1, time: 0, display: hostile)], end: .failed(at: 5, message: hostile))),
        ], threads: [hostile])
        XCTAssertEqual(Array(try MarbleRenderer.render(figure, format: .png).prefix(4)), [0x89, 0x50, 0x4E, 0x47])
        XCTAssertEqual(String(decoding: try MarbleRenderer.render(figure, format: .pdf).prefix(5), as: UTF8.self), "%PDF-")
    }

    func testAFigureTooTallForPNGIsAClearError() throws {
        let lanes = (0..<400).map { MarbleFigure.Row.lane(.init(title: "lane \($0)", marbles: [.init(id: UInt64($0), time: 0, display: "x")])) }
        XCTAssertThrowsError(try MarbleRenderer.render(MarbleFigure(rows: lanes), format: .png)) { error in
            XCTAssertTrue("\(error)".contains("too large for PNG"), "\(error)")
        }
        XCTAssertNoThrow(try MarbleRenderer.render(MarbleFigure(rows: lanes), format: .svg))
    }

    func testLongIdleGapIsCompressedWithABreak() throws {
        var marbles: [MarbleFigure.Marble] = []
        for index in 0..<5 { marbles.append(.init(id: UInt64(index), time: Int64(index) * 10 * Self.ms, display: "a")) }
        for index in 5..<10 { marbles.append(.init(id: UInt64(index), time: 60_000 * Self.ms + Int64(index) * 10 * Self.ms, display: "b")) }
        let figure = MarbleFigure(rows: [.lane(.init(title: "keys", marbles: marbles))])
        let xml = try document(MarbleRenderer.svg(figure))
        XCTAssertEqual(try xml.nodes(forXPath: "//*[local-name()='g'][@class='lane']/*[local-name()='g'][@class='gap']").count, 1)
        let xs = try xml.nodes(forXPath: "//*[local-name()='g'][starts-with(@class, 'marble')]/*[local-name()='circle']/@cx").compactMap { Double($0.stringValue ?? "") }
        XCTAssertEqual(xs.count, 10, "each marble drawn on its own, none lost in the gap")
        XCTAssertLessThan(xs[5] - xs[4], 100, "the minute of idle time takes a break's width, not the figure")
    }

    func testDenseStretchesAreAggregatedWithCounts() throws {
        let marbles = (0..<10_000).map { MarbleFigure.Marble(id: UInt64($0), time: Int64($0) * 1_000, display: "\($0)") }
        let figure = MarbleFigure(rows: [.lane(.init(title: "ticks", marbles: marbles, end: .completed(at: 10_000_000)))])
        let svg = MarbleRenderer.svg(figure)
        let xml = try document(svg)
        let counts = try xml.nodes(forXPath: "//*[local-name()='g'][starts-with(@class, 'marble')]/@data-count").compactMap { Int($0.stringValue ?? "") }
        XCTAssertEqual(counts.reduce(0, +), 10_000, "every value is in some marble")
        XCTAssertLessThan(counts.count, 60, "one marble per marble-width of the axis")
        let texts = try xml.nodes(forXPath: "//*[local-name()='g'][starts-with(@class, 'marble')]/*[local-name()='text'][1]").map { $0.stringValue ?? "" }
        XCTAssertEqual(texts.first, "\u{00D7}\(counts[0])", "a group shows its count")
        XCTAssertTrue(texts.dropLast(2).allSatisfy { $0.range(of: "^\u{00D7}[0-9]+$", options: .regularExpression) != nil }, "\(texts)")
        XCTAssertLessThan(svg.utf8.count, 200_000)
    }

    func testCrowdedMarblesAreCutToFitAndNeverOverlap() throws {
        let marbles = (0..<12).map { MarbleFigure.Marble(id: UInt64($0), time: Int64($0) * 100 * Self.ms, display: "yellow-\($0)") }
        let figure = MarbleFigure(rows: [.lane(.init(title: "colours", marbles: marbles))])
        let xml = try document(MarbleRenderer.svg(figure, maxWidth: 600))
        var spans: [(Double, Double)] = []
        for shape in try xml.nodes(forXPath: "//*[local-name()='g'][starts-with(@class, 'marble')]/*[local-name()='circle' or local-name()='rect']") {
            if shape.name == "circle", let cx = Double(attribute(shape, "cx") ?? ""), let r = Double(attribute(shape, "r") ?? "") {
                spans.append((cx - r, cx + r))
            } else if let x = Double(attribute(shape, "x") ?? ""), let width = Double(attribute(shape, "width") ?? "") {
                spans.append((x, x + width))
            }
        }
        XCTAssertEqual(spans.count, 12)
        for (left, right) in zip(spans, spans.dropFirst()) {
            XCTAssertLessThanOrEqual(left.1, right.0, "marbles overlap: \(left) and \(right)")
        }
        let texts = try xml.nodes(forXPath: "//*[local-name()='g'][starts-with(@class, 'marble')]/*[local-name()='text'][1]").map { $0.stringValue ?? "" }
        XCTAssertTrue(texts.allSatisfy { $0.hasSuffix("\u{2026}") }, "\(texts)")
        let titles = try xml.nodes(forXPath: "//*[local-name()='g'][starts-with(@class, 'marble')]/*[local-name()='title']").map { $0.stringValue ?? "" }
        XCTAssertEqual(titles.first, "yellow-0 (at 0 ns)", "the whole value stays on hover")
    }

    func testInnerLanesAreMarked() throws {
        let figure = MarbleFigure(rows: [
            .lane(.init(title: "outer", marbles: [.init(id: 1, time: 0, display: "a")])),
            .operator(.init(name: "flatMap", parameters: "latest")),
            .lane(.init(title: "search", isInner: true, subscribed: 0, marbles: [.init(id: 2, time: 30, display: "r")], end: .completed(at: 30))),
            .lane(.init(title: "flatMap", marbles: [.init(id: 3, time: 30, display: "r")])),
        ])
        let xml = try document(MarbleRenderer.svg(figure))
        let inner = try xml.nodes(forXPath: "//*[local-name()='g'][@class='lane'][@data-inner='true']")
        XCTAssertEqual(inner.count, 1)
        XCTAssertEqual(try xml.nodes(forXPath: "//*[local-name()='g'][@class='subscribed']").count, 1)
    }

    func testPNGAndPDFAreValidFilesOfTheirType() throws {
        let png = try MarbleRenderer.render(Self.sample(), format: .png)
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        XCTAssertGreaterThan(png.count, 2_000)
        XCTAssertLessThan(png.count, 2_000_000)
        let pdf = try MarbleRenderer.render(Self.sample(), format: .pdf)
        XCTAssertEqual(String(decoding: pdf.prefix(5), as: UTF8.self), "%PDF-")
        XCTAssertTrue(String(decoding: pdf.suffix(8), as: UTF8.self).contains("%%EOF"))
        XCTAssertGreaterThan(pdf.count, 1_000)
        XCTAssertLessThan(pdf.count, 2_000_000)
    }

    func testPNGHasTheSceneSizeAtTwiceThePixels() throws {
        let png = try MarbleRenderer.render(Self.sample(), format: .png)
        let bytes = Array(png)
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        let xml = try document(MarbleRenderer.svg(Self.sample()))
        let root = xml.rootElement()
        XCTAssertEqual(Double(width), 2 * (Double(attribute(root, "width") ?? "") ?? 0))
        XCTAssertEqual(Double(height), 2 * (Double(attribute(root, "height") ?? "") ?? 0))
    }
}
