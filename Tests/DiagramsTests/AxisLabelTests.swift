@testable import Diagrams
import Foundation
import TraceLog
import XCTest

/// The time axis's texts (tick labels, a break's idle time, the unit) never touch each other
/// or a break's mark, and every break says how much time it cuts.
final class AxisLabelTests: XCTestCase {
    private struct Axis {
        var texts: [(text: String, box: Scene.Box)]
        var marks: [(box: Scene.Box, hover: String?)]
    }

    /// The axis's texts, boxed as the painter draws them (measured, from a font size above the
    /// baseline to a third below), and its break marks.
    private func axis(_ scene: Scene) throws -> Axis {
        let items = try XCTUnwrap(scene.items.lazy.compactMap { item -> [Scene.Item]? in
            guard case let .group("axis", _, _, items) = item else { return nil }
            return items
        }.first)
        var axis = Axis(texts: [], marks: [])
        for item in items {
            switch item {
            case let .text(text, at, font, anchor, _):
                let width = TextMeasure.width(text, font: font)
                let left = anchor == .start ? at.x : anchor == .middle ? at.x - width / 2 : at.x - width
                axis.texts.append((text, .init(minX: left, minY: at.y - font.size, maxX: left + width, maxY: at.y + font.size / 3)))
            case let .group("gap", hover, _, _):
                axis.marks.append((try XCTUnwrap(item.box), hover))
            default:
                break
            }
        }
        return axis
    }

    private func widened(_ box: Scene.Box, by gap: Double) -> Scene.Box {
        .init(minX: box.minX - gap, minY: box.minY, maxX: box.maxX + gap, maxY: box.maxY)
    }

    private func assertAxisClear(_ figure: MarbleFigure, maxWidth: Double = 1600, breaks: Int, _ name: String,
                                 file: StaticString = #filePath, line: UInt = #line) throws {
        let axis = try axis(MarbleLayout.scene(for: figure, maxWidth: maxWidth))
        XCTAssertEqual(axis.marks.count, breaks, name, file: file, line: line)
        for (index, first) in axis.texts.enumerated() {
            for second in axis.texts[(index + 1)...] where widened(first.box, by: 4).intersects(second.box) {
                XCTFail("\(name): \(first.text) and \(second.text) touch", file: file, line: line)
            }
            for mark in axis.marks where mark.box.intersects(first.box) {
                XCTFail("\(name): \(first.text) runs into a break", file: file, line: line)
            }
        }
        for mark in axis.marks {
            XCTAssertTrue(mark.hover?.hasPrefix("idle time cut: ") == true, "\(name): \(mark.hover ?? "no hover")", file: file, line: line)
        }
        let idle = axis.texts.filter { $0.text.hasPrefix("\u{2026}") }
        XCTAssertGreaterThanOrEqual(idle.count, min(breaks, 1), "\(name): a break's idle time is written", file: file, line: line)
    }

    func testTwitterInstantWithCausesHasItsIdleTimeClearOfTheTicks() throws {
        let url = MarbleValueTests.root.appendingPathComponent("traces/twitter-instant.trace")
        let trace = try Trace(bytes: Array(try Data(contentsOf: url)), name: "twitter-instant")
        let figure = try MarbleFigure(trace: trace, options: .init(causes: true))
        try assertAxisClear(figure, breaks: 1, "twitter-instant --causes")
        try assertAxisClear(figure, maxWidth: 500, breaks: 1, "twitter-instant --causes, narrow")
    }

    func testTheSwiftSearchReplaysBreakIsClearOfTheTicks() throws {
        let url = MarbleValueTests.root.appendingPathComponent("traces/swift-search.replay.trace")
        let figure = try MarbleFigure(trace: try Trace(bytes: Array(try Data(contentsOf: url)), name: "swift-search"))
        try assertAxisClear(figure, breaks: 1, "swift-search")
    }

    /// Bursts of keys with idle minutes between them, some bursts a single key, so that two
    /// breaks sit one break's width apart.
    func testBreaksCloseTogetherAndNearTicksStayClear() throws {
        let ms: Int64 = 1_000_000
        var times: [Int64] = []
        for burst in 0..<4 {
            let start = Int64(burst) * 60_000 * ms
            times += burst == 2 ? [start] : (0..<6).map { start + Int64($0) * 40 * ms }
        }
        let marbles = times.enumerated().map { MarbleFigure.Marble(id: UInt64($0.offset), time: $0.element, display: "k\($0.offset)") }
        let figure = MarbleFigure(rows: [.lane(.init(title: "keys", marbles: marbles, end: .completed(at: times.last! + 10 * ms)))])
        for width in [1600.0, 700, 400] {
            try assertAxisClear(figure, maxWidth: width, breaks: 3, "bursts at \(width)")
        }
    }
}
