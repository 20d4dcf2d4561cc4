import Foundation
@testable import Replay
import TraceLog
import XCTest

/// The replay's shortcuts give what the long way gives: payloads read without `JSONDecoder`.
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
}
