@testable import Diagrams
import Foundation
import TraceLog
import XCTest

/// A marble holds its value's text, measured as the PNG draws it, and starts no further left
/// than the time axis: for the tutorial traces, crowded lanes and hostile values.
final class MarbleValueTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private struct Drawn {
        var text: String
        var shape: Scene.Box
        var textLeft, textRight: Double
    }

    /// Each marble's shape and where its text reaches, measured and centred as the painter does.
    private func marbles(_ scene: Scene) -> [Drawn] {
        func walk(_ items: [Scene.Item]) -> [Drawn] {
            items.flatMap { item -> [Drawn] in
                guard case let .group(kind, _, _, children) = item else { return [] }
                guard kind.hasPrefix("marble"), let shape = children.first?.box,
                      case let .text(text, at, font, .middle, _)? = children.dropFirst().first else { return walk(children) }
                let width = TextMeasure.width(text, font: font)
                return [Drawn(text: text, shape: shape, textLeft: at.x - width / 2, textRight: at.x + width / 2)]
            }
        }
        return walk(scene.items)
    }

    /// Where the time axis starts.
    private func axisStart(_ scene: Scene) throws -> Double {
        try XCTUnwrap(scene.items.lazy.compactMap { item -> Double? in
            guard case let .group("axis", _, _, items) = item, case let .line(from, _, _)? = items.first else { return nil }
            return from.x
        }.first)
    }

    private func assertMarblesHoldTheirText(_ figure: MarbleFigure, maxWidth: Double = 1600, _ name: String,
                                            file: StaticString = #filePath, line: UInt = #line) throws {
        let scene = MarbleLayout.scene(for: figure, maxWidth: maxWidth)
        let drawn = marbles(scene)
        XCTAssertFalse(drawn.isEmpty, name, file: file, line: line)
        let start = try axisStart(scene)
        for marble in drawn {
            // The outline's stroke is half a pixel outside the shape; 2 pixels inside it is clear of it.
            XCTAssertGreaterThanOrEqual(marble.textLeft, marble.shape.minX + 2.5, "\(name): \(marble.text) runs out of its marble's left",
                                        file: file, line: line)
            XCTAssertLessThanOrEqual(marble.textRight, marble.shape.maxX - 2.5, "\(name): \(marble.text) runs out of its marble's right",
                                     file: file, line: line)
            XCTAssertGreaterThanOrEqual(marble.shape.minX + 0.5, start, "\(name): \(marble.text) starts left of the axis",
                                        file: file, line: line)
        }
    }

    func testTheTutorialFiguresMarblesHoldTheirValuesRightOfTheAxisStart() throws {
        for scenario in ["signin", "twitter-instant", "registration", "pixels", "swift-search"] {
            for suffix in [".trace", ".replay.trace"] {
                let url = Self.root.appendingPathComponent("traces/\(scenario)\(suffix)")
                let trace = try Trace(bytes: Array(try Data(contentsOf: url)), name: scenario)
                for causes in [false, true] {
                    try assertMarblesHoldTheirText(try MarbleFigure(trace: trace, options: .init(causes: causes)), "\(scenario)\(suffix)")
                }
            }
        }
    }

    /// `[#1 Harbour, #2 Dunes, …]` at the figure's first time, as in the pixels tutorial, and
    /// values around it close enough to be cut.
    private func lane(_ values: [String], spacing: Int64 = 40_000_000) -> MarbleFigure {
        MarbleFigure(rows: [
            .lane(.init(title: "photoModels", marbles: values.enumerated().map { index, value in
                .init(id: UInt64(index), time: Int64(index) * spacing, display: value)
            }, end: .completed(at: Int64(values.count) * spacing + 1_000_000_000))),
            .operator(.init(name: "map")),
            .lane(.init(title: "b", marbles: [.init(id: 100, time: 500_000_000, display: "x")])),
        ], threads: ["main"])
    }

    func testAWideFirstValueIsHeldWholeRightOfTheAxisStart() throws {
        let photos = "[" + (1...9).map { "#\($0) Harbour" }.joined(separator: ", ") + "]"
        try assertMarblesHoldTheirText(lane([photos]), "one wide value")
        try assertMarblesHoldTheirText(lane([photos, "WWWW", "0,1", "mmmm", photos], spacing: 9_000_000), "crowded")
        try assertMarblesHoldTheirText(lane([photos, "WWWW", "0,1", "mmmm", photos], spacing: 9_000_000), maxWidth: 400, "narrow")
    }

    /// Every failure or interruption drawn beside a marble's time (its box does not hold the
    /// marble's centre) leaves the marble's text uncovered.
    private func assertMarksLeaveTextUncovered(_ figure: MarbleFigure, _ name: String, file: StaticString = #filePath, line: UInt = #line) {
        let scene = MarbleLayout.scene(for: figure, maxWidth: 1600)
        var checked = 0
        for case let .group("lane", _, _, items) in scene.items {
            let marks = items.compactMap { item -> Scene.Box? in
                guard case let .group(kind, _, _, _) = item, kind == "failed" || kind == "interrupted" else { return nil }
                return item.box
            }
            let drawn = marbles(Scene(width: scene.width, height: scene.height, items: items))
            for marble in drawn {
                let centre = (marble.shape.minX + marble.shape.maxX) / 2
                let text = Scene.Box(minX: marble.textLeft, minY: marble.shape.minY, maxX: marble.textRight, maxY: marble.shape.maxY)
                for mark in marks where !(mark.minX...mark.maxX).contains(centre) {
                    checked += 1
                    XCTAssertFalse(mark.intersects(text), "\(name): a mark at \(mark.minX) covers \(marble.text)", file: file, line: line)
                }
            }
        }
        XCTAssertGreaterThan(checked, 0, name, file: file, line: line)
    }

    private static let ms: Int64 = 1_000_000

    /// The inner lane of a retried search (the field package's): subscribed at 0, each of
    /// `failures` a failure (followed by a resubscription unless it is the last thing before
    /// the value), then `value` at 200 ms and the end.
    private func retriedSearch(_ value: String, failures: [Int64], resubscribedAfterLast: Bool = true) -> MarbleFigure.Lane {
        let ms = Self.ms
        var marks: [MarbleFigure.Mark] = []
        for (index, failure) in failures.enumerated() {
            marks.append(.init(.ended(.failed(at: failure * ms, message: "flaky"))))
            if resubscribedAfterLast || index < failures.count - 1 { marks.append(.init(.subscribed(at: failure * ms))) }
        }
        return MarbleFigure.Lane(title: "search \u{2192} flatMapError", isInner: true, subscribed: 0,
                                 marbles: [.init(id: 1, time: 200 * ms, display: value)], end: .completed(at: 200 * ms), marks: marks)
    }

    func testAFailureJustBeforeAValueDoesNotCoverItsText() throws {
        // A retried service: subscribed, failed, resubscribed, failed, resubscribed, then the
        // value 70 ms after the last failure (the field package's search).
        let ms = Self.ms
        let inner = retriedSearch("[\"swift1\", \"swift2\"]", failures: [60, 130])
        let figure = MarbleFigure(rows: [
            .lane(.init(title: "query", marbles: (0..<12).map { .init(id: 10 + UInt64($0), time: Int64($0) * 300 * ms, display: "q\($0)") })),
            .operator(.init(name: "flatMap", parameters: ".latest")),
            .lane(inner),
        ], threads: ["main"])
        assertMarksLeaveTextUncovered(figure, "retried search")
        try assertMarblesHoldTheirText(figure, "retried search")
        let trace = try Trace(bytes: Array(try Data(contentsOf: Self.root.appendingPathComponent("Tests/DiagramsTests/Support/autocomplete.trace"))),
                              name: "autocomplete")
        assertMarksLeaveTextUncovered(try MarbleFigure(trace: trace), "autocomplete fixture")
    }

    /// A failure at a value's very time — a retried call's last failure and the fallback value
    /// sent at that instant, or a lane failing right after its last value — is drawn at the
    /// marble's edge, not over its text: before it for a mark of the lane's chain (which the
    /// value answers), after it for the lane's own end (which follows every value).
    func testAFailureAtAValuesTimeIsDrawnBesideIt() throws {
        let ms = Self.ms
        // The last failure at the value's time: the fallback sent at that instant.
        let recovered = retriedSearch("[\"(offline)\"]", failures: [60, 200], resubscribedAfterLast: false)
        let failing = MarbleFigure.Lane(title: "validated", marbles: [.init(id: 2, time: 700 * ms, display: "last value")],
                                        end: .failed(at: 700 * ms, message: "invalid"))
        let figure = MarbleFigure(rows: [
            .lane(.init(title: "query", marbles: (0..<4).map { .init(id: 10 + UInt64($0), time: Int64($0) * 300 * ms, display: "q\($0)") })),
            .operator(.init(name: "flatMap", parameters: ".latest")),
            .lane(recovered),
            .operator(.init(name: "validate")),
            .lane(failing),
        ], threads: ["main"])
        let scene = MarbleLayout.scene(for: figure, maxWidth: 1200)
        var sides: [String] = []
        for case let .group("lane", _, _, items) in scene.items {
            let crosses = items.compactMap { item -> Scene.Box? in
                guard case .group("failed", _, _, _) = item else { return nil }
                return item.box
            }
            for marble in marbles(Scene(width: scene.width, height: scene.height, items: items))
            where marble.text == "[\"(offline)\"]" || marble.text == "last value" {
                for cross in crosses {
                    XCTAssertFalse(cross.intersects(marble.shape), "a cross at \(cross.minX) covers \(marble.text)")
                    if cross.maxX <= marble.shape.minX, marble.shape.minX - cross.maxX < 3 { sides.append("before \(marble.text)") }
                    if cross.minX >= marble.shape.maxX, cross.minX - marble.shape.maxX < 3 { sides.append("after \(marble.text)") }
                }
            }
        }
        XCTAssertEqual(sides, ["before [\"(offline)\"]", "after last value"])
        try assertMarblesHoldTheirText(figure, "failures at values' times")
    }

    func testHostileValuesStayInTheirMarbles() throws {
        // The short ones fit a marble or nearly: whole, or cut to an ellipsis.
        let hostile = HostileText.samples + ["WW", "\u{1F680}\u{1F680}", "\u{6F22}\u{5B57}"]
        for value in hostile {
            for spacing: Int64 in [1_000_000_000, 30_000_000, 9_000_000] {
                try assertMarblesHoldTheirText(lane([value, value, "1", value], spacing: spacing), "\(value.debugDescription) \(spacing)")
            }
        }
    }
}
