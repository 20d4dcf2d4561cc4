import Foundation
@testable import TraceLog
import XCTest
import TestSupport

/// The one-pass reading of event lines as the writer writes them (`JSONParser.writtenEvent`)
/// against the general path (field list and key lookups): every line reads the same through
/// either, and lines the one pass does not take are left to the general path whole.
final class WrittenEventTests: XCTestCase {
    private let header = #"{"type":"header","format":"marbles-trace","version":"1.0","unit":"ns","clock":"virtual"}"#
    private let thread = #"{"type":"thread","id":1,"name":"main"}"#
    private let node = #"{"type":"node","id":1,"kind":"source","name":"pipe","parameters":"","file":"A.swift","line":3,"upstream":[]}"#
    private let subscribe = #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#

    /// What reading `line` as the fifth line of a trace gives: its record and the warnings, or
    /// the error's text.
    private func read(_ line: String) -> String {
        let bytes = Array(([header, thread, node, subscribe, line].joined(separator: "\n") + "\n").utf8)
        do {
            let reader = try TraceReader(bytes: bytes, name: "t.trace")
            var records: [TraceRecord] = []
            while let record = try reader.next() { records.append(record) }
            return "\(records.last.map { "\($0)" } ?? "none") \(reader.warnings)"
        } catch {
            return "\(error)"
        }
    }

    private func onePass(_ line: String) -> EventRecord? {
        Array(line.utf8).withUnsafeBufferPointer { JSONParser.writtenEvent($0) }
    }

    /// `line` read by the reader equals the same line read by the general path (a leading
    /// space, which the one pass never takes), and the one pass takes it exactly when `taken`.
    private func check(_ line: String, taken: Bool, file: StaticString = #filePath, fileLine: UInt = #line) {
        let general = read(" " + line)
        XCTAssertEqual(onePass(" " + line), nil, file: file, line: fileLine)
        let direct = read(line)
        if taken {
            XCTAssertNotNil(onePass(line), line, file: file, line: fileLine)
            XCTAssertEqual(direct, general, line, file: file, line: fileLine)
        } else {
            XCTAssertNil(onePass(line), line, file: file, line: fileLine)
            // An error's column counts the leading space; everything else is the same.
            XCTAssertEqual(direct.replacingOccurrences(of: #":5:\d+:"#, with: ":5:", options: .regularExpression),
                           general.replacingOccurrences(of: #":5:\d+:"#, with: ":5:", options: .regularExpression),
                           line, file: file, line: fileLine)
        }
    }

    func testWhatTheWriterWritesTakesTheOnePassAndReadsTheSame() {
        let events = [
            EventRecord(sequence: 1, time: 0, node: 1, subscription: 1, kind: .value, thread: 1),
            EventRecord(sequence: 2, time: -5, node: 1, subscription: 1, kind: .value, thread: 1, causes: [1],
                        text: "12", json: "12"),
            EventRecord(sequence: 3, time: 999_999_999_999_999_999, node: 1, subscription: 1, kind: .failed,
                        thread: 1, causes: [2, 1], text: "caf\u{e9} \"x\"\n", truncated: true,
                        json: #"{"a":[1,2.5,"\u0041"],"b":null}"#, omittedJSONBytes: 0),
            EventRecord(sequence: 4, time: 7, node: 1, subscription: 1, kind: .completed, thread: 1, causes: [3],
                        omittedJSONBytes: 123_456),
            EventRecord(sequence: 5, time: 8, node: 1, subscription: 1, kind: .interrupted, thread: 1, text: ""),
            EventRecord(sequence: 6, time: 9, node: 1, subscription: 1, kind: .value, thread: 1, text: "t", json: "true"),
            // A text and a payload of the same length but different bytes stay apart.
            EventRecord(sequence: 7, time: 9, node: 1, subscription: 1, kind: .value, thread: 1, text: "abc", json: #""a""#),
            EventRecord(sequence: 8, time: 9, node: 1, subscription: 1, kind: .value, thread: 1, text: "12", json: "13"),
            // What the value's encoding threw, escapes and all (kept as a range of the line until read).
            EventRecord(sequence: 9, time: 9, node: 1, subscription: 1, kind: .value, thread: 1, text: "Cup(handle: nil)",
                        jsonError: "EncodingError: \"handle\" \u{e9}\n\\ at [0]"),
        ]
        for event in events {
            let line = String(decoding: TraceRecord.event(event).jsonLine.dropLast(), as: UTF8.self)
            check(line, taken: true)
            XCTAssertEqual(onePass(line), event, line)
        }
        // Loaded into a trace, where the scanned event goes into the columns without a record.
        let header = String(decoding: TraceRecord.header(TraceHeader(clock: .virtual)).jsonLine, as: UTF8.self)
        let defined = [TraceRecord.thread(ThreadRecord(id: 1, name: "main")),
                       .node(NodeRecord(id: 1, kind: .source, name: "pipe", file: "A.swift", line: 1)),
                       .subscribe(SubscriptionRecord(id: 1, node: 1, parent: 0, time: 0, thread: 1))]
        let lines = defined.map { String(decoding: $0.jsonLine, as: UTF8.self) }.joined()
            + events.map { String(decoding: TraceRecord.event($0).jsonLine, as: UTF8.self) }.joined()
        XCTAssertEqual(try Array(Trace(bytes: Array((header + lines).utf8)).events), events)
    }

    /// Numbers of every length up to 19 digits, with and without a sign, at the edges of
    /// `Int64`: each one written as `String(Int64)` writes it is read in one pass as the general
    /// path reads it; the others are left to the general path.
    func testNumbersOfEveryLengthReadTheSameBothWays() {
        let digits = "9876543210987654321"
        var numbers = ["0", "-0", "01", "-", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
                       "-9223372036854775809", "20000000000000000000"]
        for length in 1...digits.count {
            numbers += [String(digits.prefix(length)), String(digits.suffix(length)), "-" + digits.prefix(length),
                        String(repeating: "9", count: length), "1" + String(repeating: "0", count: length - 1)]
        }
        for number in numbers {
            do {
                let line = #"{"type":"event","seq":1,"time":\#(number),"node":1,"sub":1,"kind":"value","thread":1,"#
                    + #""causes":[],"jsonOmitted":\#(number)}"#
                // Within `Int64`, as `String(Int64)` writes it.
                let taken = Int64(number).map { String($0) == number } ?? false
                check(line, taken: taken)
                if taken {
                    XCTAssertEqual(onePass(line)?.time, Int64(number), line)
                    XCTAssertEqual(onePass(line)?.omittedJSONBytes, Int64(number), line)
                }
            }
        }
    }

    func testLinesWrittenOtherwiseAreLeftToTheGeneralPath() {
        let prefix = #"{"type":"event","seq":1,"time":1,"node":1,"sub":1,"kind":"value","thread":1,"causes":["#
        let lines = [
            prefix + "]} ",                                                    // space after the record
            prefix + "]}\r",                                                   // a CRLF line
            prefix + "] }",
            prefix + "1 ]}",
            prefix + "0]}",                                                    // not positive: an error
            prefix + "01]}",                                                   // a leading zero: an error
            prefix + "1.0]}",
            prefix + "1e2]}",
            prefix + "9223372036854775808]}",                                  // beyond Int64
            prefix + "12345678901234567890]}",                                 // 20 digits
            prefix + "],\"text\":null}",
            prefix + "],\"text\":\"a\\q\"}",                                   // a bad escape: an error
            prefix + "],\"truncated\":1}",
            prefix + "],\"json\":}",
            prefix + "],\"json\":[1,}",
            prefix + "],\"jsonOmitted\":null}",
            prefix + "],\"json\":1,\"text\":\"1\"}",                           // keys in another order
            prefix + "],\"other\":1}",                                         // a key the writer never writes
            prefix + "]",                                                      // not closed
            #"{"type":"event","seq":0,"time":1,"node":1,"sub":1,"kind":"value","thread":1,"causes":[]}"#,
            #"{"type":"event","seq":1,"time":1.5,"node":1,"sub":1,"kind":"value","thread":1,"causes":[]}"#,
            #"{"type":"event","seq":1,"time":01,"node":1,"sub":1,"kind":"value","thread":1,"causes":[]}"#,
            // "-0" reads as 0 both ways, but `String(Int64)` never writes it.
            #"{"type":"event","seq":1,"time":-0,"node":1,"sub":1,"kind":"value","thread":1,"causes":[]}"#,
            #"{"type":"event","seq":1,"time":1,"node":1,"sub":1,"kind":"valu","thread":1,"causes":[]}"#,
            #"{"type":"event","seq":1,"time":1,"node":1,"sub":1,"kind":"value","thread":0,"causes":[]}"#,
            #"{"type":"event","seq":1,"seq":2,"time":1,"node":1,"sub":1,"kind":"value","thread":1,"causes":[]}"#,
            #"{"type":"event","time":1,"seq":1,"node":1,"sub":1,"kind":"value","thread":1,"causes":[]}"#,
            #"{"type":"event","seq":1,"time":1,"node":1,"sub":1,"kind":"value","thread":1}"#,
        ]
        for line in lines { check(line, taken: false) }
        // Written by no writer, yet read the same by both: an escape and a character outside
        // ASCII in a string (decoded by the same scanner), a JSON null; and 19 digits within
        // `Int64` (the general path checks them for overflow).
        for line in [
            prefix + "1234567890123456789]}",
            #"{"type":"event","seq":1,"time":-9223372036854775808,"node":1,"sub":1,"kind":"value","thread":1,"causes":[]}"#,
            prefix + "],\"text\":\"a\\u0062\"}",
            prefix + "],\"text\":\"\u{e9}\"}",
            prefix + "],\"json\":null}",
        ] {
            check(line, taken: true)
        }
    }

    /// A text that is an integer's digits is read as that integer and the JSON after it
    /// compared with its digits: every pairing of such a text with a JSON payload the same,
    /// longer, shorter, of another kind or absent reads as the general path reads it, and the
    /// two are one payload exactly when their bytes are the same.
    func testATextOfDigitsAndItsJSONReadTheSameAsTheGeneralPath() {
        let prefix = #"{"type":"event","seq":1,"time":1,"node":1,"sub":1,"kind":"value","thread":1,"causes":[]"#
        let pairs: [(text: String, json: String?)] = [
            ("12", "12"), ("12", "123"), ("123", "12"), ("12", "-12"), ("-12", "-12"), ("0", "0"), ("12", "12.0"),
            ("12", "1e1"), ("12", #""12""#), ("12", "[12]"), ("12", nil), ("007", "7"), ("007", "007"), ("-0", "0"),
            ("9223372036854775807", "9223372036854775807"), ("9223372036854775808", "9223372036854775808"),
            ("12a", "12"), ("12\\u0033", "123"), ("1 2", "12"), ("", "0"), ("-", "0"),
        ]
        for (text, json) in pairs {
            for truncated in [false, true] {
                let line = prefix + ",\"text\":\"\(text)\"" + (truncated ? ",\"truncated\":true" : "")
                    + (json.map { ",\"json\":\($0)" } ?? "") + "}"
                // Any JSON value is taken; "007" is not JSON (an error both ways).
                let taken = json != "007"
                check(line, taken: taken)
                guard let event = onePass(line) else { continue }
                XCTAssertEqual(event.text, text.replacingOccurrences(of: "\\u0033", with: "3"), line)
                XCTAssertEqual(event.json, json, line)
                // One payload exactly when the same bytes (what a trace numbers them by).
                let trace = try? Trace(bytes: Array(([header, thread, node, subscribe, line].joined(separator: "\n") + "\n").utf8))
                if let trace, trace.events.count == 1 {
                    XCTAssertEqual(trace.events.json(at: 0), json, line)
                    XCTAssertEqual(trace.events[0].text, event.text, line)
                    XCTAssertEqual(trace.events.jsonInteger(at: 0), json.flatMap { Int64($0) }.flatMap { String($0) == json ? $0 : nil }, line)
                } else {
                    XCTFail("\(line) did not load as one event")
                }
            }
        }
    }

    /// The one recogniser of integers (`PayloadTable.integer(writtenAs:)`, which reads a whole
    /// text with `JSONParser.writtenInteger`) takes exactly the texts `String(Int64)` writes,
    /// whatever their length and wherever they are in memory.
    func testTheIntegerRecogniserTakesExactlyWhatStringOfInt64Writes() {
        var random = SplitMix(seed: 0x696E_7465_6765_72)
        let alphabet = Array("0123456789".utf8) + Array("0123456789-".utf8) + [0x2F, 0x3A, 0x2C, 0x7D, 0x20, 0x00, 0x80, 0xB9, 0xFF]
        var texts: [[UInt8]] = []
        for length in 0...26 {
            for _ in 0..<300 {
                var text = (0..<length).map { _ in UInt8(0x30 + random.below(10)) }
                if length > 0, random.chance(30) { text[0] = UInt8(ascii: "-") }
                if length > 1, random.chance(20) { text[text[0] == UInt8(ascii: "-") ? 1 : 0] = UInt8(ascii: "0") }
                if length > 0, random.chance(30) { text[random.below(length)] = alphabet[random.below(alphabet.count)] }
                texts.append(text)
            }
        }
        texts += ["9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
                  "18446744073709551615", "99999999999999999999", "0", "-0", "00", "-", "12345678", "123456789",
                  "1234567890123456", "12345678901234567"].map { Array($0.utf8) }
        for text in texts {
            let string = String(decoding: text, as: UTF8.self)
            let expected = Int64(string).flatMap { String($0) == string && Array(string.utf8) == text ? $0 : nil }
            for offset in 0..<9 {
                let padded = Array(repeating: UInt8(ascii: "7"), count: offset) + text
                let found = padded.withUnsafeBufferPointer {
                    PayloadTable.integer(writtenAs: UnsafeBufferPointer(rebasing: $0[offset...]))
                }
                XCTAssertEqual(found, expected, "\(string) at offset \(offset)")
            }
        }
    }
}
