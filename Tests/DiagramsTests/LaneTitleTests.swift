@testable import Diagrams
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest

/// A lane's title sits in a column of its own: however long or strange, it never runs into its
/// lane's line, a mark, a marble, an operator box or the time axis.
final class LaneTitleTests: XCTestCase {
    private struct Title {
        var text: String
        var box: Scene.Box
        var hover: String?
    }

    /// Each lane's title as drawn, its box measured as cairo draws it, and its lane's hover text.
    private func titles(_ scene: Scene) -> [Title] {
        scene.items.compactMap { item in
            guard case let .group("lane", hover, _, items) = item, case let .text(text, at, font, anchor, _)? = items.first else { return nil }
            XCTAssertEqual(anchor, .start)
            let width = TextMeasure.width(text, font: font)
            return Title(text: text, box: .init(minX: at.x, minY: at.y - font.size, maxX: at.x + width, maxY: at.y + font.size / 3),
                         hover: hover)
        }
    }

    /// Everything a lane, an operator box or the axis draws, titles left out.
    private func plot(_ scene: Scene) -> [Scene.Box] {
        scene.items.flatMap { item -> [Scene.Box] in
            guard case let .group(kind, _, _, items) = item else { return [] }
            switch kind {
            case "lane": return items.dropFirst().compactMap(\.box)
            case "operator", "axis": return item.box.map { [$0] } ?? []
            default: return []
            }
        }
    }

    /// Every title is left of the plot's left edge, and within the title column's cap.
    private func assertTitlesClear(_ figure: MarbleFigure, maxWidth: Double = 1600, file: StaticString = #filePath, line: UInt = #line) {
        let scene = MarbleLayout.scene(for: figure, maxWidth: maxWidth)
        let drawn = titles(scene)
        let boxes = plot(scene)
        XCTAssertEqual(drawn.count, figure.lanes.count, file: file, line: line)
        let plotLeft = boxes.map(\.minX).min() ?? .infinity
        for title in drawn {
            XCTAssertLessThanOrEqual(title.box.maxX - MarbleLayout.margin, MarbleLayout.maxTitle + 0.5, "\(title.text) is wider than the column",
                                     file: file, line: line)
            XCTAssertLessThan(title.box.maxX, plotLeft, "\(title.text) reaches the plot", file: file, line: line)
            for box in boxes where box.intersects(title.box) {
                XCTFail("\(title.text) overlaps \(box)", file: file, line: line)
            }
        }
    }

    /// The field package's dashboard: a timer-sampled sensor whose lane `SignalProducer(signal)`
    /// starts with a value wider than a marble.
    private func sensor(title: String = "SignalProducer(signal)", isInner: Bool = false) -> MarbleFigure {
        MarbleFigure(rows: [
            .lane(.init(title: "celsius", marbles: [.init(id: 1, time: 0, display: "20.4")], end: .completed(at: 2_200_000_000))),
            .operator(.init(name: "map")),
            .lane(.init(title: title, isInner: isInner, marbles: (0..<8).map {
                .init(id: 10 + UInt64($0), time: Int64($0) * 110_000_000, display: "20.\($0)°C (avg 20.7, n=14)")
            }, end: .completed(at: 2_200_000_000))),
        ], threads: ["main"])
    }

    func testALongTitleDoesNotRunIntoAWideFirstMarble() {
        assertTitlesClear(sensor())
        assertTitlesClear(sensor(title: "peaks(of: celsius) → flatMapError", isInner: true))
    }

    func testATitleWiderThanTheColumnIsCutWithAnEllipsisAndKeptWholeOnHover() throws {
        let long = "SignalProducer(signal).sample(on: ticks).skipRepeats().observe(on: main)"
        let figure = sensor(title: long)
        assertTitlesClear(figure)
        let title = try XCTUnwrap(titles(MarbleLayout.scene(for: figure, maxWidth: 1600)).last)
        XCTAssertTrue(title.text.hasSuffix("\u{2026}"), title.text)
        XCTAssertTrue(long.hasPrefix(String(title.text.dropLast())), title.text)
        XCTAssertEqual(title.hover, long)
        // The longest cut that fits: one character more would not.
        let longer = TextSafety.truncated(long, to: title.text.count + 1)
        XCTAssertGreaterThan(MarbleLayout.margin + TextMeasure.width(longer, font: MarbleLayout.labelFont), MarbleLayout.margin + MarbleLayout.maxTitle)
        let svg = String(decoding: try MarbleRenderer.render(figure, format: .svg), as: UTF8.self)
        XCTAssertTrue(svg.contains("<title>\(TextSafety.xml(long))</title>"), "the whole title is the lane's hover text")
    }

    func testAShortTitleIsDrawnWholeWithNoHoverOfItsOwn() throws {
        let title = try XCTUnwrap(titles(MarbleLayout.scene(for: sensor(title: "map"), maxWidth: 1600)).last)
        XCTAssertEqual(title.text, "map")
        XCTAssertNil(title.hover)
    }

    func testHostileTitlesStayInTheirColumn() throws {
        let hostile = HostileText.samples
        for title in hostile {
            for inner in [false, true] {
                let figure = sensor(title: title, isInner: inner)
                assertTitlesClear(figure)
                let svg = try MarbleRenderer.render(figure, format: .svg)
                XCTAssertNoThrow(try XMLDocument(data: svg, options: []), title)
            }
        }
    }

    func testManyLanesWithTitlesOfEveryLengthStayClear() {
        let rows: [MarbleFigure.Row] = (0..<60).map { index in
            .lane(.init(title: String(repeating: "lane\(index)·", count: index % 9 + 1), isInner: index % 3 == 2, marbles: [
                .init(id: UInt64(index) * 2, time: Int64(index % 5) * 1_000_000, display: String(repeating: "v", count: index % 13 + 1)),
                .init(id: UInt64(index) * 2 + 1, time: 90_000_000, display: "x"),
            ]))
        }
        assertTitlesClear(MarbleFigure(rows: rows, threads: ["main"]))
        assertTitlesClear(MarbleFigure(rows: rows, threads: ["main"]), maxWidth: 400)
    }

    func testAnInnerLaneSubscribedLateLeavesItsTitleClearOfTheAxisAndBoxes() {
        let figure = MarbleFigure(rows: [
            .lane(.init(title: "query", marbles: [.init(id: 1, time: 0, display: "swift")])),
            .operator(.init(name: "flatMap", parameters: ".latest")),
            .lane(.init(title: String(repeating: "search → retry → flatMapError ", count: 3), isInner: true, subscribed: 0,
                        marbles: [.init(id: 2, time: 0, display: "[\"swift\", \"swiftui\", \"swift-nio\"]")],
                        end: .failed(at: 1_000, message: "timeout"))),
        ])
        assertTitlesClear(figure)
    }

    func testAMarbleAtTheLastTimeIsInsideTheFigureWithItsNumber() throws {
        // A tick's value, cut (so numbered) in a marble centred on the end of the axis.
        let figure = MarbleFigure(rows: [
            .lane(.init(title: "tick", marbles: (0..<9).map {
                .init(id: UInt64($0), time: Int64($0) * 250_000_000, display: "2026-11-25 01:44:09.\($0)")
            }, end: .interrupted(at: 2_000_000_000))),
        ], threads: ["main"])
        let scene = MarbleLayout.scene(for: figure, maxWidth: 1600)
        let right = try XCTUnwrap(scene.items.compactMap(\.box).map(\.maxX).max())
        XCTAssertLessThanOrEqual(right, scene.width - MarbleLayout.inkClearance)
        let numbers = scene.items.flatMap { item -> [Scene.Item] in
            guard case let .group("lane", _, _, items) = item else { return [] }
            return items.filter { if case let .group(_, _, data, _) = $0 { data["note"] != nil } else { false } }
        }
        XCTAssertEqual(numbers.count, 9, "every cut value is numbered")
    }

    func testAnOperatorTextLongerThanItsBoxIsCutToTheBoxAndKeptWholeOnHover() throws {
        let text = "sample(on:) \u{2190} SignalProducer(signal).sample(on: ticks).skipRepeats(), map"
        let figure = MarbleFigure(rows: [
            .lane(.init(title: "a", marbles: [.init(id: 1, time: 0, display: "1"), .init(id: 2, time: 10, display: "2")])),
            .operator(.init(name: text, detail: "Pipelines.swift:54")),
            .lane(.init(title: "b", marbles: [.init(id: 3, time: 0, display: "1")])),
        ])
        let scene = MarbleLayout.scene(for: figure, maxWidth: 1600)
        let box = try XCTUnwrap(scene.items.lazy.compactMap { item -> (Scene.Box, String, String?)? in
            guard case let .group("operator", hover, _, items) = item, case let .rect(origin, width, height, _, _, _)? = items.first,
                  case let .text(shown, at, font, .middle, _)? = items.last else { return nil }
            let measured = TextMeasure.width(shown, font: font)
            XCTAssertGreaterThanOrEqual(at.x - measured / 2, origin.x, shown)
            XCTAssertLessThanOrEqual(at.x + measured / 2, origin.x + width, shown)
            return (.init(minX: origin.x, minY: origin.y, maxX: origin.x + width, maxY: origin.y + height), shown, hover)
        }.first)
        XCTAssertTrue(box.1.hasSuffix("\u{2026}"), box.1)
        XCTAssertEqual(box.2, "\(text) \u{2014} Pipelines.swift:54")
    }
}
