import Foundation
@testable import Replay
import TraceLog
import XCTest

/// The replay's shortcuts give what the long way gives: payloads read without `JSONDecoder`,
/// and label folding skipped when the trace has no label line.
final class ReplayShortcutTests: XCTestCase {
    private func decoded<T: Decodable>(_ type: T.Type, _ json: String) -> T? {
        try? JSONDecoder().decode(T.self, from: Data(json.utf8))
    }

    func testPlainIntegersReadAsJSONDecoderReadsThem() {
        let taken = ["0", "7", "-7", "42", "-0", "123456789012345678", "-123456789012345678"]
        for json in taken {
            XCTAssertNotNil(ReplayEnvironment.plainValue(Int.self, json), json)
            XCTAssertEqual(ReplayEnvironment.plainValue(Int.self, json), decoded(Int.self, json), json)
        }
        // Left to JSONDecoder: what it may read otherwise, or refuse.
        for json in ["", "-", "01", "1.0", "1e3", " 1", "1 ", "\"1\"", "1234567890123456789", "9223372036854775808", "+1", "true"] {
            XCTAssertNil(ReplayEnvironment.plainValue(Int.self, json), json)
        }
    }

    func testPlainStringsAndBoolsReadAsJSONDecoderReadsThem() {
        for json in [#""""#, #""hello""#, #""a b~{}[]:,""#] {
            XCTAssertNotNil(ReplayEnvironment.plainValue(String.self, json), json)
            XCTAssertEqual(ReplayEnvironment.plainValue(String.self, json), decoded(String.self, json), json)
        }
        for json in [#""a\"b""#, #""a\\b""#, #""\u0041""#, "\"caf\u{e9}\"", "\"tab\t\"", "\"", "x", "1", #""a"b""#] {
            XCTAssertNil(ReplayEnvironment.plainValue(String.self, json), json)
        }
        XCTAssertEqual(ReplayEnvironment.plainValue(Bool.self, "true"), true)
        XCTAssertEqual(ReplayEnvironment.plainValue(Bool.self, "false"), false)
        for json in ["True", "1", " true", "null"] {
            XCTAssertNil(ReplayEnvironment.plainValue(Bool.self, json), json)
        }
        XCTAssertNil(ReplayEnvironment.plainValue(Double.self, "1"), "other types are left to JSONDecoder")
    }

    func testLabelLinesAreFoundAndFolded() throws {
        let header = TraceRecord.header(TraceHeader(clock: .virtual)).jsonLine
        let node = TraceRecord.node(NodeRecord(id: 1, kind: .source, name: "pipe", file: "A.swift", line: 1)).jsonLine
        let label = TraceRecord.label(LabelRecord(node: 1, label: "x")).jsonLine
        // A mark whose label looks like a label record's start stays inside its line.
        let mark = TraceRecord.mark(MarkRecord(time: 0, thread: 1, label: "\n{\"type\":\"label\",")).jsonLine
        let thread = TraceRecord.thread(ThreadRecord(id: 1, name: "main")).jsonLine
        let without = header + thread + node + mark
        XCTAssertFalse(Replayer.hasLabelLine(without))
        XCTAssertEqual(try Replayer.foldingLabels(without), without)
        let with = without + label
        XCTAssertTrue(Replayer.hasLabelLine(with))
        let folded = try Replayer.foldingLabels(with)
        XCTAssertFalse(Replayer.hasLabelLine(folded))
        XCTAssertEqual(try Trace(bytes: folded).nodes.map(\.label), ["x"])
    }
}
