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

    /// Times the scale puts in one column are one frame, as in a hand-drawn marble line: a
    /// value an operator passes on microseconds after its source sent it is drawn in the
    /// source's column, and two values of one lane in one frame are one group. (Each distinct
    /// time had a column of its own, so a recorded trace's lanes drifted right one after
    /// another and never showed a group.)
    func testTimesInOneColumnAreOneFrame() {
        let ms: Int64 = 1_000_000
        // A source sending every 25 ms for a second, an operator passing each value on 3 µs
        // later and, once, a second value 9 µs after the first.
        let source = (0..<40).map { MarbleFigure.Marble(id: UInt64($0), time: Int64($0) * 25 * ms, display: "\($0 % 10)") }
        var passed = source.map { MarbleFigure.Marble(id: $0.id + 100, time: $0.time + 3_000, display: $0.display) }
        passed.append(.init(id: 999, time: 20 * 25 * ms + 9_000, display: "z"))
        let figure = MarbleFigure(rows: [
            .lane(.init(title: "a", marbles: source, end: .completed(at: 1_000 * ms))),
            .lane(.init(title: "b", marbles: passed, end: .completed(at: 1_000 * ms + 3_000))),
        ])
        let lines = MarbleText.render(figure).split(separator: "\n").map { String($0) }
        // Each value in b is drawn where a sent it; the two at once are one group there.
        let a = Array(lines[0]), b = Array(lines[1])
        XCTAssertTrue(lines[1].contains("(0z)"), lines[1])
        let digits = a.indices.filter { a[$0].isNumber }
        XCTAssertEqual(digits.count, 40)
        for column in digits {
            XCTAssertTrue(column < b.count && (b[column] == a[column] || (b[column] == "(" && b[column + 1] == a[column])),
                          "column \(column)\n" + lines[0] + "\n" + lines[1])
        }
        XCTAssertEqual(a.firstIndex(of: "|"), b.firstIndex(of: "|"))
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
