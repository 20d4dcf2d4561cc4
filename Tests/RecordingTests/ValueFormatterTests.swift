import Foundation
@testable import Recording
import Signals
import TraceLog
import XCTest

/// The writer formats a captured value with its type's formatter (`RecorderCore.formatter(of:)`),
/// decided once per type, where it used to ask the runtime what each value was
/// (`RecorderCore.format`). For every kind of type both must write the same fields, byte for
/// byte: the structs, enums and tuples the formatter handles itself, and the types it leaves to
/// `format` (optionals, `AnyHashable`, objects, existentials).
final class ValueFormatterTests: XCTestCase {
    struct Reading: Codable { var name: String; var value: Double; var tags: [String] }
    enum Message: Codable { case text(String), reading(Double, unit: String), ping }
    enum Plain { case on, off }
    struct Throwing: Encodable {
        struct Refused: Error {}
        var id = 1
        func encode(to encoder: any Encoder) throws { throw Refused() }
    }
    struct Described: Codable, CustomStringConvertible { var id: Int; var description: String { "#\(id)" } }
    final class Object: Codable { var count = 2 }
    struct Huge: Codable { var text = String(repeating: "x", count: 70_000) }

    private func fields(_ value: RecorderCore.FormattedValue) -> String {
        var line = JSONLine()
        line.begin()
        value.write(to: &line)
        line.end()
        return String(decoding: line.bytes, as: UTF8.self)
    }

    private func check<T>(_ value: T, file: StaticString = #filePath, line: UInt = #line) {
        let typed = fields(RecorderCore.formatter(of: T.self)(value))
        let general = fields(RecorderCore.format(value as Any))
        XCTAssertEqual(typed, general, "\(T.self)", file: file, line: line)
    }

    func testEveryKindOfTypeIsFormattedAsTheRuntimeCastsWould() {
        check(42)
        check(-7.25)
        check(Double.nan)
        check(true)
        check("a \"quoted\" line\n")
        check(Reading(name: "r", value: 1.5, tags: ["a", "b"]))
        check(Message.reading(2, unit: "m"))
        check(Message.ping)
        check(Plain.off)
        check((1, "pair"))
        check((x: 1.0, y: Reading(name: "t", value: 0, tags: [])))
        check(Throwing())
        check(Described(id: 3))
        check(Huge())
        check([1, 2, 3])
        check(["k": "v"])
        check(Int?.some(5))
        check(Int?.none)
        check(String?.some("s"))
        check(String?.none)
        check(Double?.some(2.5))
        check(Double?.some(.infinity))
        check(Bool?.some(false))
        check(Bool?.none)
        check(Reading?.some(Reading(name: "o", value: 1, tags: [])))
        check(Reading?.none)
        check(Message?.some(.ping))
        check(Reading??.some(nil))
        check(AnyHashable(5))
        check(AnyHashable("text"))
        check(Object())
        check(5 as Any)
        check(Reading(name: "in an existential", value: 1, tags: []) as any Encodable)
        check(Int.self)
        check(Decimal(string: "1.5")!)
        check(Date(timeIntervalSince1970: 0))
        check(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
    }

    struct Bytes3 { var a: UInt8 = 1, b: UInt8 = 2, c: UInt8 = 250 }
    struct Words5 { var a = 1, b = -2, c = 3, d = Int.max, e = Int.min }
    struct Packed8 { var a: UInt8 = 7, b: UInt16 = 0xBEEF, c: UInt32 = 0xDEAD_BEEF }
    struct Unaligned8 { var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (1, 2, 3, 4, 5, 6, 7, 8) }
    struct Wide { var words = (1, 2, 3, 4, 5, 6, 7) }
    /// Sizes whose last bytes are copied as four, two and one (7), or after whole words (13, 47).
    struct Bytes7 { var a: UInt32 = 0xA1B2_C3D4, b: UInt16 = 0xE5F6, c: UInt8 = 0x77 }
    struct Bytes13 { var a = -9, b: UInt32 = 0x0102_0304, c: UInt8 = 0xFE }
    /// The most a slot keeps in place: six words.
    struct Words6 { var words = (Int.min, 2, -3, 4, Int.max, 6) }
    struct Bytes47 {
        var words = (Int.min, -1, 2, Int.max, 4), a: UInt32 = 0xFFFF_FFFE, b: UInt16 = 0x8001, c: UInt8 = 0x80
    }

    /// A value captured into a ring's slot and taken out by the writer is formatted as the value
    /// itself is: trivial values (copied as bytes: one word, or a copy of their size) of every
    /// size and alignment the slot keeps, values with references (copied as values), and values
    /// too big for the slot (boxed), each taken from a slot that held another type before.
    func testACapturedValueIsTakenAsItWasSent() {
        XCTAssertTrue(CapturedValue.storageIsFirst)
        XCTAssertTrue(RingEvent.valueIsFirst)
        var slot = CapturedValue()
        func check<T>(_ value: T, line: UInt = #line) {
            withUnsafePointer(to: value) { value in
                withUnsafeMutablePointer(to: &slot) { CapturedValue.capture(value, into: $0) }
            }
            let taken = withUnsafeMutablePointer(to: &slot) { CapturedValue.take(from: $0) }
            let formatted: RecorderCore.FormattedValue
            switch taken {
            case .none: return XCTFail("nothing taken", line: line)
            case let .integer(integer): formatted = .integer(integer)
            case let .value(value): formatted = value
            }
            XCTAssertEqual(fields(formatted), fields(RecorderCore.format(value as Any)), "\(T.self)", line: line)
        }
        check(42)
        check(-1.5)
        check(true)
        check(UInt8(200))
        check(Int16(-300))
        check(Bytes3())
        check(Packed8())
        check(Unaligned8())
        check(Words5())
        check(Bytes7())
        check(Bytes13())
        check(Bytes47())
        check(Words6())
        check(Int?.some(3))
        check(Int?.none)
        check(Plain.on)
        check("a string")
        check(Reading(name: "r", value: 2, tags: ["x"]))
        check(Message.reading(1, unit: "u"))
        check(Wide())
        check((1, 2.5))
        check(Object())
    }

    /// A captured value with references holds its own (its type's copy retained them): taken
    /// after every other reference to them is gone, it reads as it was sent; and a capture
    /// discarded unread lets go of them (the object is freed).
    func testACapturedValueHoldsItsOwnReferences() {
        var slot = CapturedValue()
        weak var freed: Object?
        do {
            let object = Object()
            object.count = 41
            freed = object
            let value = (Reading(name: "n", value: 1, tags: ["t"]), String(repeating: "heap ", count: 5), [object])
            withUnsafePointer(to: value) { value in
                withUnsafeMutablePointer(to: &slot) { CapturedValue.capture(value, into: $0) }
            }
        }
        XCTAssertNotNil(freed, "the capture keeps the object alive")
        guard case let .value(taken) = withUnsafeMutablePointer(to: &slot, { CapturedValue.take(from: $0) }) else {
            return XCTFail("nothing taken")
        }
        XCTAssertTrue(fields(taken).contains("heap heap heap heap heap"), fields(taken))
        XCTAssertTrue(fields(taken).contains("Reading(name: \\\"n\\\""), fields(taken))
        XCTAssertNil(freed, "the taken value was let go of once formatted")
        do {
            let object = Object()
            freed = object
            withUnsafePointer(to: object) { value in
                withUnsafeMutablePointer(to: &slot) { CapturedValue.capture(value, into: $0) }
            }
        }
        XCTAssertNotNil(freed)
        withUnsafeMutablePointer(to: &slot) { CapturedValue.discard($0) }
        XCTAssertNil(freed, "a discarded capture lets go of its object")
    }

    /// Through a live recording to a file, values of every kind read back as the values
    /// describe and encode themselves.
    func testALiveRecordingWritesWhatTheTypedFormatterMakes() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("value-formatter-\(UUID().uuidString).trace")
        defer { try? FileManager.default.removeItem(at: url) }
        let recorder = try Recorder(to: url)
        recorder.start()
        let (readings, readingInput) = Signal<Reading, Never>.pipe(named: "readings")
        let (messages, messageInput) = Signal<Message, Never>.pipe(named: "messages")
        let (optionals, optionalInput) = Signal<Int?, Never>.pipe(named: "optionals")
        readings.observeValues { _ in }
        messages.observeValues { _ in }
        optionals.observeValues { _ in }
        for index in 0..<3 {
            readingInput.send(value: Reading(name: "r\(index)", value: Double(index), tags: ["t"]))
            messageInput.send(value: index == 1 ? .ping : .text("m\(index)"))
            optionalInput.send(value: index == 2 ? nil : index)
        }
        _ = try recorder.stop()
        let trace = try Trace(contentsOf: url)
        let texts = trace.events.filter { $0.kind == .value }.map(\.text)
        XCTAssertEqual(texts, [
            "Reading(name: \"r0\", value: 0.0, tags: [\"t\"])", "text(\"m0\")", "0",
            "Reading(name: \"r1\", value: 1.0, tags: [\"t\"])", "ping", "1",
            "Reading(name: \"r2\", value: 2.0, tags: [\"t\"])", "text(\"m2\")", "nil",
        ])
    }
}

/// A string value with at most one cause is written without a `JSONLine`
/// (`BinaryEvent.format(_:others:into:)`): its line must be the one the general path writes,
/// byte for byte, whatever the string holds.
final class StringLineTests: XCTestCase {
    private func general(_ event: BinaryEvent, _ string: String) -> [UInt8] {
        general(event, value: .string(string))
    }

    private func general(_ event: BinaryEvent, value: RecorderCore.FormattedValue) -> [UInt8] {
        var line = JSONLine(capacity: 0)
        line.begin()
        line.writeEventFields(sequence: event.sequence, time: event.time, node: event.node, subscription: event.subscription,
                              kind: event.eventKind, thread: event.thread,
                              causes: { $0.causesField(primary: event.cause, others: [], below: event.sequence) },
                              value: { value.write(to: &$0) })
        line.end()
        return line.bytes
    }

    /// Any other value with JSON, a text of at most `maxTextLength` bytes and at most one cause
    /// is written without a `JSONLine` too: the same bytes as the general path for texts at and
    /// past the length (in bytes and in characters), texts to escape, JSON of every shape, no
    /// JSON, a JSON error, omitted JSON, and every kind of event.
    func testAnyValuesLineIsTheGeneralPathsLine() {
        let long = String(repeating: "y", count: Recorder.maxTextLength)
        let texts = ["", "Reading(name: \"r\", value: 1.5, tags: [\"a\", \"b\"])", "tab\tnew\nline\u{1}\u{7F}\u{2028}",
                     long, long + "z", String(repeating: "é", count: Recorder.maxTextLength / 2),
                     String(repeating: "é", count: Recorder.maxTextLength / 2 + 1), String(repeating: "😀", count: 40)]
        let jsons: [String?] = [#"{"name":"r","tags":["a","b"],"value":1.5}"#, "null", "[]", #""x\"y""#, "-0.25", nil]
        var values: [RecorderCore.FormattedValue] = []
        for text in texts {
            for json in jsons { values.append(.other(text: text, json: json)) }
            values.append(.other(text: text, json: nil, jsonError: "Refused()"))
            values.append(.other(text: text, json: "1", jsonError: "ignored when there is JSON"))
            values.append(.omitted(text: text, size: 70_000))
        }
        for (index, value) in values.enumerated() {
            for cause: UInt64 in [0, 3, 99] {
                for kind: EventKind in [.value, .failed, .completed] {
                    let event = BinaryEvent(sequence: UInt64(10 + index), time: -5 + Int64(index) * 1_000_003, node: 7,
                                            subscription: 9, kind: kind, thread: 2, cause: cause, integer: nil)
                    var fast: [UInt8] = [UInt8(ascii: "x")]
                    event.format(.value(value), into: &fast)
                    XCTAssertEqual(String(decoding: fast.dropFirst(), as: UTF8.self),
                                   String(decoding: general(event, value: value), as: UTF8.self), "value \(index)")
                }
            }
        }
    }

    func testAStringsLineIsTheGeneralPathsLine() {
        let strings = ["", "plain", "a \"quoted\" \\ back", "tab\tnew\nline\u{1}\u{7F}", "é à 漢字 😀",
                       "line\u{2028}separator\u{2029}", String(repeating: "x", count: Recorder.maxTextLength),
                       String(repeating: "é", count: Recorder.maxTextLength / 2)]
        for (index, string) in strings.enumerated() {
            for cause: UInt64 in [0, 3] {
                let event = BinaryEvent(sequence: UInt64(10 + index), time: -5 + Int64(index) * 1_000_003, node: 7,
                                        subscription: 9, kind: .value, thread: 2, cause: cause, integer: nil)
                var fast: [UInt8] = []
                event.format(.value(.string(string)), into: &fast)
                XCTAssertEqual(String(decoding: fast, as: UTF8.self), String(decoding: general(event, string), as: UTF8.self))
            }
        }
    }
}
