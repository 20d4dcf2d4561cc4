import Foundation
import Spec
import Signals
import TraceLog
import Recording
import XCTest

final class SpecTraceTests: XCTestCase {
    func testARunRecordsNamedStreamsAndJSONValuesInVirtualTime() throws {
        let document = try SpecDocument.parse("""
        hot e1 = -a-|
        values e1 = {"a": {"n": 1}}
        out = e1.map(x => [x, 'k'])
        """, file: "t.marbles")
        let scheduler = TestScheduler()
        var result: SpecResult?
        let bytes = try Recorder.record(virtual: scheduler) { result = try document.run(on: scheduler) }
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertTrue(text.contains(#""clock":"virtual""#))
        XCTAssertTrue(text.contains(#""label":"out""#), text)
        XCTAssertTrue(text.contains(#""label":"e1""#))
        XCTAssertTrue(text.contains(#"[{"n":1},"k"]"#), "values are recorded as JSON")
        XCTAssertEqual(events(try XCTUnwrap(result), "out"), [#"1:[{"n":1},"k"]"#, "3:|"])
    }

    func testTwoRunsRecordByteIdenticalTraces() throws {
        let spec = "hot e1 = -a-b-|\ncold e2 = x|\nout = e1.switchMap(v => e2.map(x => v + x)).throttleTime(2)"
        func record() throws -> [UInt8] {
            let document = try SpecDocument.parse(spec, file: "t.marbles")
            let scheduler = TestScheduler()
            return try Recorder.record(virtual: scheduler) { _ = try document.run(on: scheduler) }
        }
        XCTAssertEqual(try record(), try record())
    }

    func testValuesEncodeAsTheirJSON() throws {
        let value = SpecValue.object([("b", .number(1.5)), ("a", .array([.number(2), .null, .bool(true), .string("s")]))])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        XCTAssertEqual(String(decoding: try encoder.encode(value), as: UTF8.self), #"{"a":[2,null,true,"s"],"b":1.5}"#)
        XCTAssertEqual(value.json, #"{"b":1.5,"a":[2,null,true,"s"]}"#)
        XCTAssertEqual(String(decoding: try encoder.encode(SpecFailure(.string("boom"))), as: UTF8.self), #""boom""#)
    }

    func testUnsubscribedStreamsSayWhen() throws {
        let result = try play("hot e1 = -a-b-|\nout = e1.map(x => x)\nunsubscribe out = --!")
        XCTAssertEqual(result.stream("out")?.unsubscribed, 2_000_000)
        XCTAssertEqual(result.stream("out")?.expression, "e1.map(x => x)")
    }
}
