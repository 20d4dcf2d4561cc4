@testable import Diagrams
import XCTest

final class MarbleTextTests: XCTestCase {
    func testLinesShowValuesTerminalsAndOperators() {
        let text = MarbleText.render(MarbleRendererTests.sample())
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines[0], "filter")
        let source = lines.first { $0.hasPrefix("text ") } ?? ""
        let output = lines.first { $0.hasPrefix("filter ") } ?? ""
        XCTAssertTrue(source.contains("m-"), source)
        XCTAssertTrue(source.contains("|"), source)
        XCTAssertTrue(output.contains("#"), output)
        XCTAssertTrue(output.hasSuffix("on background"), output)
        XCTAssertTrue(lines.contains { $0.contains("[ filter(count > 2) ]") })
        XCTAssertTrue(lines.contains("  a = ma"), text)
        XCTAssertTrue(lines.contains("  b = mag"), text)
    }

    func testValuesAtTheSameTimeAreGrouped() {
        let figure = MarbleFigure(rows: [.lane(.init(title: "s", marbles: [
            .init(id: 1, time: 0, display: "x"), .init(id: 2, time: 0, display: "y"), .init(id: 3, time: 5, display: "z"),
        ], end: .completed(at: 5)))])
        let line = MarbleText.render(figure).split(separator: "\n").first.map(String.init) ?? ""
        XCTAssertEqual(line, "s  (xy)-(z|)")
    }

    /// The text lines speak MarbleNotation: '‖' is an interruption, '!' a disposal
    /// (unsubscription), never the other way round.
    func testInterruptionIsTheDoubleBarAndDisposalTheBang() {
        let figure = MarbleFigure(rows: [
            .lane(.init(title: "i", marbles: [.init(id: 1, time: 0, display: "x")], end: .interrupted(at: 5))),
            .lane(.init(title: "d", marbles: [.init(id: 2, time: 0, display: "y")], end: .disposed(at: 5))),
        ])
        let lines = MarbleText.render(figure).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines[0], "i  x---‖")
        XCTAssertEqual(lines[1], "d  y---!")
    }

    func testThousandsOfValuesShareColumnsAndTheLegendStaysShort() {
        let marbles = (0..<5_000).map { MarbleFigure.Marble(id: UInt64($0), time: Int64($0) * 1_000_000, display: "v\($0)") }
        let text = MarbleText.render(MarbleFigure(rows: [.lane(.init(title: "s", marbles: marbles, end: .completed(at: 5_000_000_000)))]))
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertLessThan(lines[0].count, 120, lines[0])
        XCTAssertTrue(lines[0].hasPrefix("s  ****"), lines[0])
        XCTAssertTrue(lines[0].hasSuffix("|"), lines[0])
        XCTAssertTrue(lines.contains { $0.contains("* marks several values in one column") })
        XCTAssertLessThan(lines.count, 10, "no legend for values drawn as *")
    }

    func testTextIsDeterministicAndHostileTextStaysOnOneLine() {
        let hostile = "a\nb\u{01}"
        let figure = MarbleFigure(rows: [.lane(.init(title: hostile, marbles: [.init(id: 1, time: 0, display: hostile)]))],
                                  threads: [hostile])
        let first = MarbleText.render(figure)
        XCTAssertEqual(first, MarbleText.render(figure))
        XCTAssertEqual(first.split(separator: "\n").first.map(String.init), "a\u{23CE}b\u{2401}  -a--   on a\u{23CE}b\u{2401}")
    }
}

final class OperatorTextTests: XCTestCase {
    func testParametersGoInsideLabelledNames() {
        XCTAssertEqual(OperatorText.format(name: "observe(on:)", parameters: "main"), "observe(on: main)")
        XCTAssertEqual(OperatorText.format(name: "observe(on:)", parameters: "on: main"), "observe(on: main)")
        XCTAssertEqual(OperatorText.format(name: "throttle", parameters: "0.5s"), "throttle(0.5s)")
        XCTAssertEqual(OperatorText.format(name: "take(until:)", parameters: ""), "take(until:)")
    }
}
