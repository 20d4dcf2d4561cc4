import Foundation
@testable import TraceLog
import XCTest

final class JSONLineTests: XCTestCase {
    /// Integers are written two digits at a time after counting their length: every power of
    /// ten and the number below it, and both ends of both integer types.
    func testIntegersAreWrittenInDecimalAtEveryLengthBoundary() {
        var unsigned: [UInt64] = [0, 1, UInt64.max]
        var power: UInt64 = 1
        for _ in 1...19 {
            power *= 10
            unsigned += [power - 1, power, power + 1]
        }
        for value in unsigned {
            var bytes: [UInt8] = []
            JSONLine.appendInteger(value, to: &bytes)
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), String(value))
        }
        for value: Int64 in [Int64.min, -1_000_000_007, -10, -9, -1, Int64.max] {
            var bytes: [UInt8] = []
            JSONLine.appendInteger(value, to: &bytes)
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), String(value))
        }
    }

    /// A recorded payload passes through as it was (a replayed failure encodes the recorded
    /// error's JSON): every key and value, an integer as an integer (keys sorted here, as
    /// Foundation's encoder does not keep their order).
    func testAParsedJSONValueEncodesToTheSameText() throws {
        let text = #"{"a":[1.5,null,true,"x\"y"],"b":1,"c":{"d":-7}}"#
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        XCTAssertEqual(String(decoding: try encoder.encode(try JSONValue(parsing: text)), as: UTF8.self), text)
        XCTAssertThrowsError(try JSONValue(parsing: #"{"a":1"#))
    }
}
