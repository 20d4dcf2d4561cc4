@testable import Diagrams
import Foundation
import Signals
import TraceLog
import Recording
import XCTest

/// The committed autocomplete fixture (failures, retries and `.latest` interruptions inside a
/// `flatMap`): every failure and interruption the trace holds is drawn, on the lane of the
/// subscription it happened on or the inner lane of its chain.
final class FailureMarksTests: XCTestCase {
    /// The fixture is what the pipeline records; `MARBLES_RECORD_FIXTURES=1` rewrites it.
    func testTheFixtureIsWhatThePipelineRecords() throws {
        let bytes = Pipelines.autocompleteBytes()
        if ProcessInfo.processInfo.environment["MARBLES_RECORD_FIXTURES"] == "1" {
            try Data(bytes).write(to: Pipelines.autocompleteFixture)
        }
        XCTAssertEqual(Array(try Data(contentsOf: Pipelines.autocompleteFixture)), bytes,
                       "the fixture differs from a new recording; rerun with MARBLES_RECORD_FIXTURES=1")
    }

    /// Terminal events of `kind` per node in the trace, and marks of that class per node in an SVG.
    private func traceCounts(_ trace: Trace, _ kind: EventKind) -> [UInt64: Int] {
        var counts: [UInt64: Int] = [:]
        for event in trace.events where event.kind == kind { counts[event.node, default: 0] += 1 }
        return counts
    }

    private func svgCounts(_ svg: String, _ kind: String) throws -> [UInt64: Int] {
        let regex = try NSRegularExpression(pattern: #"<g class="([^"]*)"([^>]*)>"#)
        var counts: [UInt64: Int] = [:]
        for match in regex.matches(in: svg, range: NSRange(svg.startIndex..., in: svg)) {
            let classes = String(svg[Range(match.range(at: 1), in: svg)!]).split(separator: " ")
            guard classes.contains(Substring(kind)) else { continue }
            let attributes = String(svg[Range(match.range(at: 2), in: svg)!])
            guard let node = attributes.firstMatch(of: /data-node="(\d+)"/).flatMap({ UInt64($0.1) }) else {
                XCTFail("a \(kind) mark without data-node: \(attributes)")
                continue
            }
            counts[node, default: 0] += 1
        }
        return counts
    }

    private func assertEveryTerminalDrawn(_ options: MarbleOptions, file: StaticString = #filePath, line: UInt = #line) throws {
        let trace = try Pipelines.autocomplete()
        let figure = try MarbleFigure(trace: trace, options: options)
        let svg = MarbleRenderer.svg(figure)
        let drawnNodes = Set(figure.lanes.compactMap(\.node)).union(figure.lanes.flatMap { $0.marks.compactMap(\.node) })
        for (kind, name) in [(EventKind.failed, "failed"), (.interrupted, "interrupted")] {
            let expected = traceCounts(trace, kind).filter { drawnNodes.contains($0.key) }
            XCTAssertFalse(expected.isEmpty, "the fixture has \(name) events on drawn nodes", file: file, line: line)
            XCTAssertEqual(try svgCounts(svg, name), expected, "\(name) marks per node", file: file, line: line)
        }
    }

    /// The fixture as a real-time recording would have it: a chain's subscriptions a few
    /// nanoseconds apart (each subscription's time moved on by its id) rather than at one instant.
    func testEveryFailureIsDrawnWhenTheChainSubscribesOverTime() throws {
        let text = String(decoding: try Data(contentsOf: Pipelines.autocompleteFixture), as: UTF8.self)
        let spread = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.contains("\"type\":\"subscribe\""),
                  let id = line.firstMatch(of: /"id":(\d+)/).flatMap({ Int64($0.1) }),
                  let time = line.firstMatch(of: /"time":(\d+)/) else { return String(line) }
            return line.replacingCharacters(in: time.range, with: "\"time\":\(Int64(time.1)! + id)")
        }.joined(separator: "\n")
        let trace = try Trace(bytes: Array(spread.utf8), name: "spread")
        XCTAssertNotEqual(Set(trace.subscriptions.map(\.time)).count, Set(try Pipelines.autocomplete().subscriptions.map(\.time)).count)
        let svg = MarbleRenderer.svg(try MarbleFigure(trace: trace))
        // Every failure of the service and of the call, on whichever lane shows their chain.
        XCTAssertEqual(try svgCounts(svg, "failed"), traceCounts(trace, .failed))
        XCTAssertEqual(try svgCounts(svg, "failed"), try svgCounts(MarbleRenderer.svg(try MarbleFigure(trace: try Pipelines.autocomplete())), "failed"))
    }

    func testEveryFailureAndInterruptionInTheFixtureIsDrawnPerNode() throws {
        try assertEveryTerminalDrawn(MarbleOptions())
    }

    func testEveryFailureAndInterruptionIsDrawnOnMergedLanes() throws {
        let figure = try MarbleFigure(trace: try Pipelines.autocomplete(), options: .init(selection: .nodes(["search", "retry"])))
        XCTAssertTrue(figure.lanes.contains { $0.title.contains("\u{00D7}") }, figure.lanes.map(\.title).description)
        try assertEveryTerminalDrawn(.init(selection: .nodes(["search", "retry"])))
    }

    func testInnerLanesShowTheRetriesResubscriptionsAndNameTheirNode() throws {
        let trace = try Pipelines.autocomplete()
        let figure = try MarbleFigure(trace: trace)
        let inner = figure.lanes.filter(\.isInner)
        XCTAssertFalse(inner.isEmpty)
        let search = try XCTUnwrap(trace.nodes.first { $0.label == "search" })
        let resubscriptions = inner.flatMap(\.marks).filter {
            if case .subscribed = $0.kind { return $0.node == search.id }
            return false
        }
        // Nine calls in four searches: five of them started by a retry.
        XCTAssertEqual(resubscriptions.count, 5)
        XCTAssertTrue(inner.allSatisfy { $0.node != nil })
    }

    func testTheTextShowsTheSameMarks() throws {
        let trace = try Pipelines.autocomplete()
        let figure = try MarbleFigure(trace: trace)
        let text = MarbleText.render(figure)
        let marks = figure.lanes.flatMap(\.marks)
        let failed = marks.filter { if case .ended(.failed) = $0.kind { return true }; return false }.count
            + figure.lanes.filter { if case .failed = $0.end { return true }; return false }.count
        XCTAssertGreaterThan(failed, 0)
        let lines = text.split(separator: "\n").filter { $0.contains("-") }
        XCTAssertEqual(lines.map { $0.filter { $0 == "#" }.count }.reduce(0, +), failed, text)
        XCTAssertTrue(text.contains("\u{2016}"), text)
    }

    func testATopLevelRetryShowsItsSourcesFailuresAndResubscriptions() throws {
        let scheduler = TestScheduler()
        let bytes = Recorder.record(virtual: scheduler) {
            SignalProducer<Int, ServiceUnavailable> { observer, _ in observer.send(error: ServiceUnavailable()) }
                .retry(upTo: 2)
                .startWithResult { _ in }
            _ = scheduler.run()
        }
        let trace = try Trace(bytes: bytes, name: "retry")
        let figure = try MarbleFigure(trace: trace)
        let retry = try XCTUnwrap(figure.lanes.first { $0.title == "retry" })
        let source = try XCTUnwrap(trace.nodes.first { $0.name == "SignalProducer" }).id
        let failures = retry.marks.filter { $0.node == source && { if case .ended(.failed) = $0 { true } else { false } }($0.kind) }
        let starts = retry.marks.filter { $0.node == source && { if case .subscribed = $0 { true } else { false } }($0.kind) }
        XCTAssertEqual(failures.count, 3, "\(retry.marks)")
        XCTAssertEqual(starts.count, 2, "the two resubscriptions: \(retry.marks)")
        XCTAssertEqual(try svgCounts(MarbleRenderer.svg(figure), "failed")[source], 3)
    }
}

/// A PNG has no hover: a marble whose value was cut or that merges several values (`×N`)
/// carries a number, and the values legend under the figure says what it holds.
final class ValuesLegendTests: XCTestCase {
    func testCutAndMergedMarblesAreNumberedAndSpelledOutUnderTheFigure() throws {
        let figure = try MarbleFigure(trace: Pipelines.autocomplete(), options: MarbleOptions(selection: .all))
        let svg = MarbleRenderer.svg(figure)
        XCTAssertEqual(MarbleRenderer.svg(figure), svg)
        let marbles = svg.matches(of: /<g class="marble value[^"]*"([^>]*)>\s*<title>[^<]*<\/title>\s*<(?:circle|rect)[^>]*\/>\s*<text[^>]*>([^<]*)<\/text>/)
        XCTAssertFalse(marbles.isEmpty)
        var numbered = 0
        for marble in marbles {
            let shown = String(marble.2)
            let cut = shown.hasSuffix("\u{2026}") || shown.hasPrefix("\u{00D7}")
            XCTAssertEqual(marble.1.contains("data-note="), cut, "\(shown): \(marble.1)")
            if cut { numbered += 1 }
        }
        XCTAssertEqual(numbered, 5, "text and filter merge swi, swif; three marbles cut [\"swift1\", \"swift2\"]")
        let legend = try XCTUnwrap(svg.firstMatch(of: /<g class="values">[\s\S]*?<\/g>/)).0
        let lines = legend.matches(of: /<text[^>]*>([^<]*)<\/text>/).map { String($0.1) }
        XCTAssertEqual(lines, ["values", "1", "\u{00D7}2 at 1 s\u{2013}1.1 s: swi, swif",
                               "2", "[&quot;swift1&quot;, &quot;swift2&quot;]"])
    }
}
