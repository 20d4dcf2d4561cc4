import AsyncAlgorithms
@testable import AsyncMarbles
import Diagrams
import Recording
import Replay
import Signals
import TraceLog
import XCTest

/// Pulls (issue 30): each `next()` a tapped sequence's consumer calls is an event of kind
/// `pull`, and every verb reads it: the reader and writer (both encodings), `stats`, the
/// marble figure (which does not draw them), `diff`, `export`.
final class PullTests: XCTestCase {
    /// Runs `body` with a recorder attached and returns what it recorded.
    private func record(_ body: () async throws -> Void) async throws -> [UInt8] {
        try await recordedAsync(body)
    }

    /// A tapped stream of three numbers, doubled by a tapped `map`, iterated to its end.
    private func recordNumbers() async throws -> [UInt8] {
        try await record {
            let numbers = AsyncStream<Int> { continuation in
                for number in 1...3 { continuation.yield(number) }
                continuation.finish()
            }.marbles("numbers")
            for await _ in numbers.map({ $0 * 2 }).marbles("doubled") {}
        }
    }

    func testEachPullIsAnEventWithoutCausesBeforeWhatAnswersIt() async throws {
        let trace = try Trace(bytes: try await recordNumbers(), name: "pulls")
        for label in ["numbers", "doubled"] {
            let node = try XCTUnwrap(trace.nodes.first { $0.label == label })
            XCTAssertEqual(trace.events(of: node.id).map(\.kind),
                           [.pull, .value, .pull, .value, .pull, .value, .pull, .completed], label)
        }
        let pulls = Set(trace.events.filter { $0.kind == .pull }.map(\.sequence))
        XCTAssertEqual(pulls.count, 8)
        for event in trace.events {
            if event.kind == .pull {
                XCTAssertEqual(event.causes, [], "a pull is caused by nothing")
                XCTAssertNil(event.text)
            }
            XCTAssertTrue(pulls.isDisjoint(with: event.causes), "no event is caused by a pull: \(event)")
        }
        // The doubled 4 is still caused by the number 2 alone.
        let doubled = try XCTUnwrap(trace.nodes.first { $0.label == "doubled" })
        let four = try XCTUnwrap(trace.events(of: doubled.id).first { $0.text == "4" })
        XCTAssertEqual(four.causes.compactMap { cause in trace.events.first { $0.sequence == cause }?.text }, ["2"])
    }

    func testAPullReadsAndConvertsInBothEncodings() async throws {
        let bytes = try await recordNumbers()
        let binary = try TraceConversion.converted(bytes, to: .binary)
        XCTAssertEqual(try TraceConversion.converted(binary, to: .jsonLines), bytes)
        let fromBinary = try Trace(bytes: binary, name: "pulls.mtrace")
        XCTAssertEqual(fromBinary.events.filter { $0.kind == .pull }.count, 8)
    }

    // MARK: Traces written by hand

    private static let head = """
        {"type":"header","format":"marbles-trace","version":"1.1","unit":"ns","clock":"virtual"}
        {"type":"thread","id":1,"name":"main"}
        {"type":"node","id":1,"kind":"source","name":"stream","parameters":"","file":"App/Feed.swift","line":3,"label":"feed","upstream":[]}
        {"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}

        """

    /// A trace of the node `feed` whose events are `kinds` (`p` pull, a letter a value, `|` completed), 10 ns apart.
    private static func trace(_ kinds: String) -> String {
        var text = head, sequence = 0
        for (index, kind) in kinds.enumerated() {
            sequence += 1
            let time = (index + 1) * 10
            switch kind {
            case "p":
                text += "{\"type\":\"event\",\"seq\":\(sequence),\"time\":\(time),\"node\":1,\"sub\":1,\"kind\":\"pull\",\"thread\":1,\"causes\":[]}\n"
            case "|":
                text += "{\"type\":\"event\",\"seq\":\(sequence),\"time\":\(time),\"node\":1,\"sub\":1,\"kind\":\"completed\",\"thread\":1,\"causes\":[]}\n"
            default:
                text += "{\"type\":\"event\",\"seq\":\(sequence),\"time\":\(time),\"node\":1,\"sub\":1,\"kind\":\"value\",\"thread\":1,\"causes\":[],\"text\":\"\(kind)\",\"json\":\"\(kind)\"}\n"
            }
        }
        let duration = (kinds.count + 1) * 10
        return text + "{\"type\":\"summary\",\"events\":\(sequence),\"nodes\":1,\"subscriptions\":1,\"threads\":1,\"hops\":0,\"marks\":0,\"dropped\":0,\"duration\":\(duration)}\n"
    }

    private static func read(_ text: String, name: String = "hand.trace") throws -> Trace {
        try Trace(bytes: Array(text.utf8), name: name)
    }

    func testAMalformedKindIsALocatedError() throws {
        let text = Self.trace("pa").replacingOccurrences(of: "\"kind\":\"pull\"", with: "\"kind\":\"pul\"")
        XCTAssertThrowsError(try Self.read(text)) { error in
            let located = error as? TraceError
            XCTAssertEqual(located?.line, 5, "\(error)")
            XCTAssertGreaterThan(located?.column ?? 0, 0, "\(error)")
            XCTAssertTrue("\(error)".contains("found \"pul\""), "\(error)")
        }
    }

    func testAPullWithCausesIsALocatedErrorInBothEncodings() throws {
        // A pull citing the value before it: demand caused by data, which a recorder never writes.
        let text = Self.trace("pap").replacingOccurrences(
            of: "\"seq\":3,\"time\":30,\"node\":1,\"sub\":1,\"kind\":\"pull\",\"thread\":1,\"causes\":[]",
            with: "\"seq\":3,\"time\":30,\"node\":1,\"sub\":1,\"kind\":\"pull\",\"thread\":1,\"causes\":[2]")
        XCTAssertThrowsError(try Self.read(text)) { error in
            XCTAssertEqual((error as? TraceError)?.line, 7, "\(error)")
            XCTAssertTrue("\(error)".contains("no causes for a pull"), "\(error)")
        }
    }

    func testStatsCountsPullsBesideWhatAnsweredThem() throws {
        // Two pulls answered by values, the third still waiting when the trace ended.
        let stats = try TraceStats.compute(TraceReader(bytes: Array(Self.trace("papbp").utf8), name: "hand.trace"))
        XCTAssertEqual(stats.events, 2)
        XCTAssertEqual(stats.pulls, 3)
        let feed = try XCTUnwrap(stats.nodes.first)
        XCTAssertEqual(feed.values, 2)
        XCTAssertEqual(feed.pulls, 3)
        XCTAssertEqual(feed.unanswered, 1)
        XCTAssertTrue(stats.text.contains("2 events, 3 pulls"), stats.text)
        XCTAssertTrue(stats.text.contains("pulls  unanswered"), stats.text)
        XCTAssertTrue(stats.json.contains("\"pulls\":3,\"unanswered\":1"), stats.json)
        // A trace without pulls has no pull columns.
        let plain = try TraceStats.compute(TraceReader(bytes: Array(Self.trace("ab|").utf8), name: "hand.trace"))
        XCTAssertFalse(plain.text.contains("pulls"), plain.text)
        XCTAssertFalse(plain.json.contains("pulls"), plain.json)
    }

    func testAPullOnlyOneSideMadeIsADifference() throws {
        // B's consumer asked once more after "b"; the elements agree.
        let diff = TraceDiff(try Self.read(Self.trace("papb")), try Self.read(Self.trace("papbp")), nameA: "a", nameB: "b")
        XCTAssertEqual(diff.differences.map(\.kind), [.extraInB], diff.text)
        XCTAssertEqual(diff.differences.first?.b?.kind, "pull")
        XCTAssertTrue(TraceDiff(try Self.read(Self.trace("papbp|")), try Self.read(Self.trace("papbp|")),
                                nameA: "a", nameB: "b").isSame)
    }

    /// `diff`'s header counts a side's pulls apart from its other events, as `stats` does;
    /// a side without pulls reads as before (and its JSON has no `pulls`).
    func testTheDiffHeaderCountsPullsApart() throws {
        // "papbp|": three pulls, two elements and the end.
        let diff = TraceDiff(try Self.read(Self.trace("papbp|")), try Self.read(Self.trace("papbp|")), nameA: "a", nameB: "b")
        XCTAssertEqual(diff.a.events, 6)
        XCTAssertEqual(diff.a.pulls, 3)
        XCTAssertTrue(diff.text.hasPrefix("--- a (virtual, "), diff.text)
        XCTAssertTrue(diff.text.split(separator: "\n")[0].hasSuffix(" nodes, 3 events, 3 pulls)"), diff.text)
        let signals = Recorder.record(virtual: TestScheduler()) {
            let (numbers, input) = Signal<Int, Never>.pipe(named: "numbers")
            numbers.observeValues { _ in }
            input.send(value: 1)
        }
        let plain = TraceDiff(try Trace(bytes: signals), try Trace(bytes: signals), nameA: "a", nameB: "b")
        XCTAssertNil(plain.a.pulls)
        XCTAssertTrue(plain.text.split(separator: "\n")[0].hasSuffix(" nodes, 1 events)"), plain.text)
        let json = String(decoding: try JSONEncoder().encode(plain.a), as: UTF8.self)
        XCTAssertFalse(json.contains("pulls"), json)
    }

    func testAPullMissingWithTheElementItAskedForIsNotASecondDifference() throws {
        // "b" is missing in B, and with it the pull it answered: one difference, the element
        // (and B's completion, 20 ns earlier, shifted).
        let diff = TraceDiff(try Self.read(Self.trace("papbp|")), try Self.read(Self.trace("pap|")), nameA: "a", nameB: "b")
        XCTAssertEqual(diff.differences.map(\.kind), [.missingInB, .timeShifted], diff.text)
        XCTAssertEqual(diff.differences.first?.a?.value, "\"b\"")
        XCTAssertEqual(diff.differences.last?.a?.kind, "completed")
    }

    func testTheMarbleFigureDrawsNoPulls() throws {
        let withPulls = try Self.read(Self.trace("papbp|"))
        // The same events without the pulls (their sequence numbers kept).
        let text = Self.trace("papbp|").split(separator: "\n").filter { !$0.contains("\"kind\":\"pull\"") }
            .joined(separator: "\n") + "\n"
        let without = try Self.read(text)
        XCTAssertEqual(MarbleRenderer.svg(try MarbleFigure(trace: withPulls)), MarbleRenderer.svg(try MarbleFigure(trace: without)))
        XCTAssertEqual(PipelineGraph(trace: withPulls).edges.count, 0)
    }

    func testExportWritesAPullAsASlice() throws {
        var out: [UInt8] = []
        _ = try PerfettoExport.export(TraceReader(bytes: Array(Self.trace("pa|").utf8), name: "hand.trace")) { out += $0 }
        let json = String(decoding: out, as: UTF8.self)
        XCTAssertTrue(json.contains("\"kind\":\"pull\""), json)
    }
}
