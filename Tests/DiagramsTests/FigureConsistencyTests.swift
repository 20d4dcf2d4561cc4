@testable import Diagrams
import Foundation
import TraceLog
import XCTest

/// What every figure shares: nodes chosen by id or label alike, an axis in the unit of the
/// span it shows, a thread's colour fixed by its name.
final class FigureConsistencyTests: XCTestCase {
    func testNodesTakeIdsAndLabelsInAnyMix() throws {
        let trace = try Pipelines.autocomplete()
        let figure = try MarbleFigure(trace: trace, options: .init(selection: .nodes(["retry", "10"])))
        XCTAssertEqual(figure.lanes.compactMap(\.node), [8, 10], figure.lanes.map(\.title).description)
        let byLabel = try MarbleFigure(trace: trace, options: .init(selection: .nodes(["#10", "search"])))
        XCTAssertEqual(Set(byLabel.lanes.compactMap(\.node)), [7, 10])
    }

    func testANodeNeverSubscribedIsNamedNotDropped() throws {
        // The pixels tutorial's `catchTo(empty())` fallback: its import never failed.
        let trace = try Trace(bytes: Array(try Data(contentsOf: Self.root.appendingPathComponent("traces/pixels.replay.trace"))),
                              name: "pixels")
        XCTAssertThrowsError(try MarbleFigure(trace: trace, options: .init(selection: .nodes(["photosArray", "11"])))) { error in
            guard case let DiagramError.invalidRequest(message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.hasPrefix("node \"11\" (#11 empty) was never subscribed"), message)
        }
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testTheAxisOfALateWindowIsInTheUnitOfItsSpan() throws {
        let step = TimeFormat.Unit.axis(step: 50_000, largest: 3_621_700_000)
        XCTAssertEqual(step.unit, .ms)
        XCTAssertEqual(step.decimals, 2)
        XCTAssertEqual(TimeFormat.fixed(952_350_000, unit: step.unit, decimals: step.decimals), "952.35")
        XCTAssertEqual(TimeFormat.Unit.axis(step: 200_000_000, largest: 2_000_000_000).unit, .ms, "short labels keep the step's unit")
        // Marbles 50 µs apart late in a trace, and one far later: every label has at most four digits.
        var marbles = (0..<20).map { MarbleFigure.Marble(id: UInt64($0), time: 952_350_000 + Int64($0) * 50_000, display: "\($0)") }
        marbles.append(.init(id: 99, time: 3_621_700_000, display: "z"))
        let svg = MarbleRenderer.svg(MarbleFigure(rows: [.lane(.init(title: "late", marbles: marbles))]))
        let axis = try XCTUnwrap(svg.range(of: #"<g class="axis"[^>]*>"#, options: .regularExpression))
        let labels = svg[axis.upperBound...].matches(of: /<text[^>]*>([0-9.\-]+)<\/text>/).map { String($0.1) }
        XCTAssertFalse(labels.isEmpty)
        for label in labels {
            XCTAssertLessThanOrEqual(label.split(separator: ".")[0].count, 4, "\(labels)")
        }
    }

    /// Every committed tutorial and guide figure: a thread name has one colour everywhere.
    func testAThreadHasOneColourInEveryCommittedFigure() throws {
        let root = Self.root
        let folders = ["diagrams", "diagrams/operators", "diagrams/marks", "Sources/Signals/Signals.docc/Resources"]
        var colours: [String: Set<String>] = [:]
        var files = 0
        for folder in folders {
            let directory = root.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() where name.hasSuffix(".svg") {
                let svg = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
                guard svg.contains("data-thread=") || svg.contains(#"class="thread""#) else { continue }
                files += 1
                for match in svg.matches(of: /<g class="marble[^"]*"[^>]*data-thread="([^"]*)"[^>]*>\s*(?:<title>[^<]*<\/title>\s*)?<(?:circle|rect)[^>]*fill="(#[0-9A-Fa-f]{6})"/) {
                    colours[String(match.1), default: []].insert(String(match.2))
                }
                for match in svg.matches(of: /<g class="thread" data-name="([^"]*)">\s*<circle[^>]*fill="(#[0-9A-Fa-f]{6})"/) {
                    colours[String(match.1), default: []].insert(String(match.2))
                }
            }
        }
        XCTAssertGreaterThan(files, 5)
        XCTAssertEqual(colours["main"], ["#0072B2"], "\(colours)")
        for (thread, fills) in colours {
            XCTAssertEqual(fills.count, 1, "thread \(thread) drawn in \(fills.sorted())")
        }
        XCTAssertGreaterThan(colours.count, 2, "\(colours)")
    }

    /// The README's "Reading a marble diagram" table: each figure of diagrams/marks is drawn
    /// from its spec, is shown in the README, and holds the marks its row explains.
    func testEachMarkFigureShowsItsMarksAndIsInTheReadme() throws {
        let root = Self.root
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let expected: [String: [String]] = [
            "value-completed": ["marble value", "completed"],
            "failed": ["failed"],
            "interrupted": ["interrupted", "disposed", "subscribed"],
            "retry": ["failed", "subscribed"],
            "hop": ["marble value hop"],
        ]
        let directory = root.appendingPathComponent("diagrams/marks")
        let specs = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".marbles") }.map { String($0.dropLast(".marbles".count)) }.sorted()
        XCTAssertEqual(specs, expected.keys.sorted())
        for name in specs {
            let svg = try String(contentsOf: directory.appendingPathComponent(name + ".svg"), encoding: .utf8)
            XCTAssertTrue(readme.contains("(diagrams/marks/\(name).svg)"), "the README does not show \(name).svg")
            for kind in expected[name] ?? [] {
                XCTAssertTrue(svg.contains("<g class=\"\(kind)\""), "\(name).svg has no \(kind) mark")
            }
        }
    }
}
