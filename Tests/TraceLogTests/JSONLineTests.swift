import Foundation
import TestSupport
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

    /// What `appendString` must write, scalar by scalar as the doc says: `"` and `\\` after a
    /// backslash, `\n`, `\r`, `\t`, other C0 controls, DEL, U+2028 and U+2029 as `\uXXXX`
    /// (lower-case hex), every other scalar as its UTF-8.
    private func expectedJSONString(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// A string is escaped in one pass into a scratch buffer appended once when it holds
    /// anything to escape, and appended whole otherwise: either way the bytes are the ones the
    /// escaping rules give, for every ASCII byte, the three-byte sequences that begin with 0xE2
    /// (U+2028 and U+2029 escaped, their neighbours not), long strings (past what the stack
    /// holds) and seeded random mixes.
    func testStringsAreEscapedAsTheRulesSay() {
        var strings = ["", "plain", "\"", "\\", "a\"b\\c", "\u{2028}", "\u{2029}", "\u{2027}\u{202A}\u{2020}\u{20AC}",
                       "end\u{2029}", "é 漢字 😀", String(repeating: "\"\u{1}", count: 5_000),
                       String(repeating: "x", count: 100_000) + "\n"]
        strings += (0..<0x80).map { "a" + String(UnicodeScalar(UInt8($0))) + "b" }
        let pieces = ["a", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{8}", "\u{C}", "\u{1F}", "\u{7F}", "\u{80}", "é",
                      "\u{2028}", "\u{2029}", "\u{2026}", "—", "😀", "/", " "]
        var generator = SplitMix(seed: 26)
        for _ in 0..<2_000 {
            strings.append((0..<Int(generator.next() % 40)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined())
        }
        for string in strings {
            var bytes: [UInt8] = [UInt8(ascii: "x")]
            JSONLine.appendString(string, to: &bytes)
            XCTAssertEqual(String(decoding: bytes.dropFirst(), as: UTF8.self), expectedJSONString(string), string.debugDescription)
        }
    }
}
