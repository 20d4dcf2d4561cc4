import MarblesTesting
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
            XCTAssertEqual((error as? Replay.MarbleSyntaxError)?.column, 2)
        }
    }
}
