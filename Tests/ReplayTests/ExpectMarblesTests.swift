import MarbleNotation
@testable import MarblesTesting
import Replay
import Signals
import XCTest

final class ExpectMarblesTests: XCTestCase {
    func testColdInputThroughAnOperator() throws {
        try expectMarbles(inputs: ["e1": "--a--b--|"], { $0["e1"].map { $0.uppercased() } }, "--A--B--|")
    }

    func testHotInputAndSpacesInTheExpectedLine() throws {
        try expectMarbles(inputs: ["e1": "-x-^-a-(bc)-|"], { $0["e1"].filter { $0 != "b" } }, "--a -c---- |")
    }

    func testLongValuesAreNamedByTheLegend() throws {
        try expectMarbles(inputs: ["e1": "-a|"], { $0["e1"].map { $0 + "long" } }, "-a|")
    }

    func testMalformedLinesThrow() {
        XCTAssertThrowsError(try expectMarbles(inputs: ["e1": "-(a"], { $0["e1"] }, "-a")) { error in
            XCTAssertEqual((error as? MarbleSyntaxError)?.column, 2)
        }
    }
}

final class ExpectMarblesMessageTests: XCTestCase {
    func testMismatchShowsBothLinesAlignedWithALegend() throws {
        let received: [(time: Int64, event: Event<String, MarbleError>)] = [
            (2_000_000, .value("x")), (3_000_000, .value("long")), (3_000_000, .completed),
        ]
        XCTAssertEqual(try marbleMismatch(expected: "--x-|", frame: 1_000_000, received: received), """
        marbles differ
        expected: --x-|
          actual: --x(a|)
          values: a = long
        """)
        let matching: [(time: Int64, event: Event<String, MarbleError>)] = [
            (2_000_000, .value("x")), (3_000_000, .value("a")), (3_000_000, .completed),
        ]
        XCTAssertNil(try marbleMismatch(expected: "--x (a|)", frame: 1_000_000, received: matching))
    }
}
