@testable import Diagrams
import Foundation
import TraceLog
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
        // One column per nanosecond here: the end is five columns after the value.
        XCTAssertEqual(lines[0], "i  x----‖")
        XCTAssertEqual(lines[1], "d  y----!")
        XCTAssertEqual(MarbleText.roundTripProblems(figure), [])
    }

    /// The symbols of a lane's line in order, dashes, cuts and group brackets left out:
    /// what the line says happened on the lane. Values' keys of more than one character
    /// (`[63]`) stay whole.
    private func symbols(of line: String, title: String) -> [String] {
        var symbols: [String] = []
        var rest = Substring(line.dropFirst(title.count))
        if let on = rest.range(of: "   on ") { rest = rest[..<on.lowerBound] }
        while let first = rest.first {
            if first == "[", let close = rest.firstIndex(of: "]") {
                symbols.append(String(rest[...close]))
                rest = rest[rest.index(after: close)...]
            } else {
                if !" -~()".contains(first) { symbols.append(String(first)) }
                rest = rest.dropFirst()
            }
        }
        return symbols
    }

    /// Issue 34: a lane drawn with a busy one showed a bare `|` where drawn alone it showed
    /// `(^d|)`: past 150 distinct times a column kept only its end symbol, or `*` for several
    /// values. A lane's line holds every one of its symbols whatever is drawn with it.
    func testALaneShowsTheSameSymbolsWhateverIsDrawnWithIt() {
        let ms: Int64 = 1_000_000
        let busy = MarbleFigure.Lane(title: "busy", marbles: (0..<400).map {
            MarbleFigure.Marble(id: UInt64($0), time: Int64($0) * ms, display: "\($0 % 10)")
        }, end: .completed(at: 400 * ms))
        let short = MarbleFigure.Lane(title: "short", subscribed: 250 * ms + 10_000, marbles: [
            .init(id: 1_000, time: 250 * ms + 20_000, display: "d"),
        ], end: .completed(at: 250 * ms + 30_000))
        let alone = MarbleText.render(MarbleFigure(rows: [.lane(short)])).split(separator: "\n").map(String.init)
        let together = MarbleText.render(MarbleFigure(rows: [.lane(busy), .lane(short)])).split(separator: "\n").map(String.init)
        let shortAlone = alone.first { $0.hasPrefix("short") }, shortTogether = together.first { $0.hasPrefix("short") }
        XCTAssertEqual(symbols(of: shortAlone ?? "", title: "short"), ["^", "d", "|"], shortAlone ?? "")
        XCTAssertEqual(symbols(of: shortTogether ?? "", title: "short"), ["^", "d", "|"], shortTogether ?? "")
        let busyLine = together.first { $0.hasPrefix("busy") } ?? ""
        XCTAssertEqual(symbols(of: busyLine, title: "busy"), (0..<400).map { "\($0 % 10)" } + ["|"])
        XCTAssertFalse(together.contains { $0.contains("*") }, together.joined(separator: "\n"))
    }

    /// Past 62 distinct values every further one was `?`, and the legend stopped at 40
    /// lines: a value always has a key of its own (`[63]` past the letters and digits) and
    /// every key the lines use is in the legend.
    func testEveryValueHasItsOwnKeyAndEveryKeyIsInTheLegend() {
        let marbles = (0..<200).map { MarbleFigure.Marble(id: UInt64($0), time: Int64($0) * 40_000_000, display: "value \($0)") }
        let text = MarbleText.render(MarbleFigure(rows: [.lane(.init(title: "s", marbles: marbles, end: .completed(at: 8_000_000_000)))]))
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertFalse(text.contains("?"), text)
        let keys = symbols(of: lines[0], title: "s").dropLast()
        XCTAssertEqual(keys.count, 200)
        XCTAssertEqual(Set(keys).count, 200, "each value its own key")
        XCTAssertEqual(Array(keys.prefix(3)), ["a", "b", "c"])
        XCTAssertEqual(keys[62], "[63]")
        XCTAssertEqual(keys.last, "[200]")
        for (index, key) in keys.enumerated() {
            XCTAssertTrue(lines.contains("  \(key) = value \(index)"), "\(key) is not in the legend")
        }
        XCTAssertFalse(text.contains("more"), text)
    }

    func testThousandsOfValuesAreAllOnTheLine() {
        let marbles = (0..<5_000).map { MarbleFigure.Marble(id: UInt64($0), time: Int64($0) * 1_000_000, display: "\($0 % 7)") }
        let text = MarbleText.render(MarbleFigure(rows: [.lane(.init(title: "s", marbles: marbles, end: .completed(at: 5_000_000_000)))]))
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(symbols(of: lines[0], title: "s"), (0..<5_000).map { "\($0 % 7)" } + ["|"])
        XCTAssertEqual(MarbleText.render(MarbleFigure(rows: [.lane(.init(title: "s", marbles: marbles,
                                                                       end: .completed(at: 5_000_000_000)))])), text)
    }

    func testTextIsDeterministicAndHostileTextStaysOnOneLine() {
        let hostile = "a\nb\u{01}"
        let figure = MarbleFigure(rows: [.lane(.init(title: hostile, marbles: [.init(id: 1, time: 0, display: hostile)]))],
                                  threads: [hostile])
        let first = MarbleText.render(figure)
        XCTAssertEqual(first, MarbleText.render(figure))
        XCTAssertEqual(first.split(separator: "\n").first.map(String.init), "a\u{23CE}b\u{2401}  a-   on a\u{23CE}b\u{2401}")
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

/// A lane with more values than a line has columns got one frame for everything, one group
/// of 150 symbols: the line grows instead, its frame still uniform.
final class MarbleTextBusyLaneTests: XCTestCase {
    func testABusyLaneIsDrawnWiderNotAsOneGroup() {
        let ms: Int64 = 1_000_000
        let busy = MarbleFigure.Lane(title: "busy", marbles: (0..<150).map {
            MarbleFigure.Marble(id: UInt64($0), time: Int64($0) * 10 * ms, display: "\($0 % 10)")
        }, end: .completed(at: 1_500 * ms))
        let figure = MarbleFigure(rows: [.lane(busy)])
        let drawing = MarbleText.drawing(figure)
        XCTAssertEqual(drawing.frame, 10 * ms, MarbleText.render(figure))
        XCTAssertFalse(drawing.lanes[0].text.contains("("), drawing.lanes[0].text)
        XCTAssertEqual(MarbleText.roundTripProblems(figure), [])
    }
}

/// A subscription disposed in the frame it began, with no event (live seed 75: a property's
/// map started and stopped at once) is drawn `(^!)`, which reads back as subscribed and
/// unsubscribed there and as nothing happening on its event line.
final class MarbleTextMarkerGroupTests: XCTestCase {
    func testASubscriptionDisposedInTheFrameItBeganReadsBack() {
        let ms: Int64 = 1_000_000
        let busy = MarbleFigure.Lane(title: "busy", marbles: (0..<4).map {
            MarbleFigure.Marble(id: UInt64($0), time: Int64($0) * 10 * ms, display: "\($0)")
        }, end: .completed(at: 40 * ms))
        let brief = MarbleFigure.Lane(title: "brief", subscribed: 20 * ms, marbles: [], end: .disposed(at: 20 * ms))
        let figure = MarbleFigure(rows: [.lane(busy), .lane(brief)])
        XCTAssertTrue(MarbleText.drawing(figure).lanes[1].text.contains("(^!)"), MarbleText.render(figure))
        XCTAssertEqual(MarbleText.roundTripProblems(figure), [])
    }
}

/// Issue 27 item 6: text marbles that read back. Every committed trace's text figure, with
/// and without cuts, all lanes and the default selection: each lane that is one stream of the
/// notation parses back to its symbols at the times they are drawn at.
final class MarbleTextRoundTripTests: XCTestCase {
    private let traces = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("traces")

    func testEveryCommittedTracesLinesReadBack() throws {
        let files = try FileManager.default.contentsOfDirectory(at: traces, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "trace" }.sorted { $0.path < $1.path }
        XCTAssertGreaterThan(files.count, 5)
        var lanes = 0
        for file in files {
            let trace = try Trace(contentsOf: file)
            for selection in [MarbleOptions.Selection.paths, .all] {
                for cuts in [true, false] {
                    var figure = try MarbleFigure(trace: trace, options: .init(selection: selection))
                    figure.cutsIdleTime = cuts
                    lanes += figure.lanes.count
                    XCTAssertEqual(MarbleText.roundTripProblems(figure), [], "\(file.lastPathComponent), cuts \(cuts)")
                }
            }
        }
        XCTAssertGreaterThan(lanes, 100)
    }
}

/// Live, a value can be delivered after its subscription's disposal was recorded: the delivery
/// on one thread raced the teardown on another. The lane ends at that value, not before it,
/// so its text line reads back (issue 27's live soak found `!   h`: the value after the end).
final class ValueAfterDisposalTests: XCTestCase {
    func testTheDisposalIsDrawnNoEarlierThanTheLastValueDelivered() throws {
        let lines = [
            #"{"type":"header","format":"marbles-trace","version":"1.1","unit":"ns","clock":"real"}"#,
            #"{"type":"thread","id":1,"name":"main"}"#,
            #"{"type":"thread","id":2,"name":"worker"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"pipe","parameters":"","file":"f","line":1,"upstream":[]}"#,
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"event","seq":1,"time":1000000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"a"}"#,
            #"{"type":"dispose","sub":1,"time":5000000,"thread":1}"#,
            #"{"type":"event","seq":2,"time":7000000,"node":1,"sub":1,"kind":"value","thread":2,"causes":[],"text":"b"}"#,
        ]
        let trace = try Trace(bytes: Array((lines.joined(separator: "\n") + "\n").utf8), name: "race.trace")
        var figure = try MarbleFigure(trace: trace, options: .init(selection: .all))
        guard case let .lane(lane)? = figure.rows.first(where: { if case .lane = $0 { return true } else { return false } }) else {
            return XCTFail("no lane")
        }
        XCTAssertEqual(lane.end, .disposed(at: 7_000_000))
        for cuts in [true, false] {
            figure.cutsIdleTime = cuts
            XCTAssertEqual(MarbleText.roundTripProblems(figure), [], MarbleText.render(figure))
        }
    }
}
