import Foundation

/// A parsed JSON value. Objects keep their keys in file order.
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.integer(a), .integer(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The value of `key` in an object.
    public subscript(key: String) -> JSONValue? {
        guard case let .object(fields) = self else { return nil }
        return fields.first { $0.key == key }?.value
    }
}

/// A JSON syntax error at a byte offset of the text parsed.
struct JSONSyntaxError: Error {
    let offset: Int
    let expected: String
}

/// A top-level value of a record line, parsed only as far as reading a record needs: scalars
/// in place, strings without escapes left as bytes, arrays and objects checked but not built.
/// Trivial (no references), so the fields of a line are copied and dropped without reference
/// counting.
enum LineValue {
    case null
    case bool(Bool)
    case integer(Int64)
    /// A string that is exactly its bytes between the quotes (ASCII, no escapes): no `String`
    /// is made unless a reader asks for it.
    case plainString(Range<Int>)
    /// A string with escapes or non-ASCII characters: the index of its decoded text in
    /// `RecordLine.strings`.
    case string(Int)
    /// An array, an object or a number that is not an `Int64`: its syntax is checked; it is
    /// parsed again from the field's range when asked for.
    case other
}

/// One top-level field of a record line: its key's bytes, its value, and the value's bytes.
struct LineField {
    /// The key's bytes between the quotes; meaningful only when `decodedKey` is nil.
    var key: Range<Int>
    /// The index in `RecordLine.strings` of the key decoded, when it has escapes or non-ASCII
    /// characters (the writer never makes such keys).
    var decodedKey: Int?
    var value: LineValue
    /// The value's bytes as written; its lower bound is where errors about the value point.
    var range: Range<Int>
}

/// The top-level fields of one record line, in file order, and the strings that had to be decoded.
struct RecordLine {
    var fields: [LineField] = []
    var strings: [String] = []
}

/// An event line as the writer writes it, scanned (`JSONParser.scanWrittenEvent`): its
/// fields, with its text and JSON as ranges of the line's bytes where they are those bytes.
struct WrittenEvent {
    enum Text {
        case none
        /// A text without escapes, all ASCII: exactly the bytes in this range.
        case plain(Range<Int>)
        /// A text with escapes or other characters: the string as written, quotes included
        /// (`JSONParser.text(of:in:)` decodes it).
        case escaped(Range<Int>)
    }

    var sequence: UInt64 = 0
    var time: Int64 = 0
    var node: UInt64 = 0
    var subscription: UInt64 = 0
    var kind = EventKind.value
    var thread: UInt64 = 0
    /// The primary cause, 0 for none.
    var firstCause: UInt64 = 0
    /// The causes after the first as written (`,7,9`), empty when there are none
    /// (`JSONParser.causes(of:in:)` reads them all).
    var moreCauses: Range<Int> = 0..<0
    var text: Text = .none
    var truncated = false
    /// The JSON payload's bytes as written.
    var json: Range<Int>?
    /// The JSON payload's value when it is an integer as `String(Int64)` writes it: what
    /// `PayloadTable` would read from `json` (by the same recogniser), kept from the scan
    /// rather than read twice.
    var jsonInteger: Int64?
    var omittedJSONBytes: Int64 = 0
    /// What the value's `encode(to:)` threw, when the line says: its JSON string as written,
    /// quotes included (`JSONParser.jsonError(of:in:)` decodes it). A range, not a `String`, so
    /// that the scanned event holds no reference: made and dropped at every event, it is
    /// then neither retained nor released.
    var jsonError: Range<Int>?
    /// Whether the scan found the text to be an integer's digits and the JSON the same
    /// digits (what `textIsJSON` would find by comparing them).
    var textIsJSONInteger = false

    /// Whether the text is plain and written as the very bytes of the JSON payload (a
    /// number's text is its JSON): then the two are the same payload.
    func textIsJSON(in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if textIsJSONInteger { return true }
        guard case let .plain(plainText) = text, let json, plainText.count == json.count,
              let base = bytes.baseAddress else { return false }
        return memcmp(base + plainText.lowerBound, base + json.lowerBound, json.count) == 0
    }
}

/// A strict JSON parser over UTF-8 bytes (RFC 8259), made for one record per line: it
/// reports the byte offset of the first error and what it expected there.
struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0
    private static let maxDepth = 512

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses one object spanning the whole text into `fields` (emptied first), in file order.
    /// Only what a record needs is built: no `String` for a key or a plain string value.
    static func parseRecordLine(_ bytes: UnsafeBufferPointer<UInt8>, into line: inout RecordLine) throws {
        line.fields.removeAll(keepingCapacity: true)
        line.strings.removeAll(keepingCapacity: true)
        func store(_ string: String?) -> Int? {
            guard let string else { return nil }
            line.strings.append(string)
            return line.strings.count - 1
        }
        var parser = JSONParser(bytes)
        parser.skipSpace()
        guard parser.peek == UInt8(ascii: "{") else { throw parser.failure("'{' to open a record") }
        parser.index += 1
        parser.depth = 1
        parser.skipSpace()
        if parser.peek == UInt8(ascii: "}") {
            parser.index += 1
        } else {
            while true {
                parser.skipSpace()
                guard parser.peek == UInt8(ascii: "\"") else { throw parser.failure("a quoted key") }
                let keyStart = parser.index + 1
                let decodedKey = store(try parser.scanString())
                let key = keyStart..<(decodedKey == nil ? parser.index - 1 : keyStart)
                parser.skipSpace()
                try parser.expect(":", "':' after a key")
                parser.skipSpace()
                let start = parser.index
                let value: LineValue
                switch parser.peek ?? 0 {
                case UInt8(ascii: "\""):
                    let decoded = store(try parser.scanString())
                    value = decoded.map(LineValue.string) ?? .plainString(start + 1..<parser.index - 1)
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    if case let .integer(integer) = try parser.parseNumber() {
                        value = .integer(integer)
                    } else {
                        value = .other
                    }
                case UInt8(ascii: "t"): try parser.literal("true"); value = .bool(true)
                case UInt8(ascii: "f"): try parser.literal("false"); value = .bool(false)
                case UInt8(ascii: "n"): try parser.literal("null"); value = .null
                default:
                    _ = try parser.parseValue(build: false)
                    value = .other
                }
                line.fields.append(LineField(key: key, decodedKey: decodedKey, value: value, range: start..<parser.index))
                parser.skipSpace()
                if parser.peek == UInt8(ascii: ",") { parser.index += 1; continue }
                if parser.peek == UInt8(ascii: "}") { parser.index += 1; break }
                throw parser.failure("',' or '}' after a value")
            }
        }
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.failure("the end of the line after the record") }
    }

    /// The event of a line written as `TraceRecord.write` and the recorder write one — the
    /// keys in the writer's order, nothing between the tokens, integers without fractions,
    /// exponents or leading zeros — or nil for any other line, which `parseRecordLine` and
    /// the reader's field lookups then read (and say what is wrong with).
    ///
    /// One pass: each value goes straight into its field of the record as it is met, with no
    /// field list and no key lookups. It accepts only lines on which the general path yields
    /// the same record (every id positive, a known kind, `text` and `json` checked by the same
    /// string and value scanners), so which path read a line never shows.
    static func writtenEvent(_ bytes: UnsafeBufferPointer<UInt8>) -> EventRecord? {
        var event = WrittenEvent()
        guard scanWrittenEvent(bytes, into: &event) else { return nil }
        let causes = self.causes(of: event, in: bytes)
        let text = self.text(of: event, in: bytes)
        var json: String?
        if let written = event.json {
            if event.textIsJSON(in: bytes) {
                // A number's text is its JSON: the same string, made once.
                json = text
            } else {
                json = String(decoding: UnsafeBufferPointer(rebasing: bytes[written]), as: UTF8.self)
            }
        }
        return EventRecord(sequence: event.sequence, time: event.time, node: event.node, subscription: event.subscription,
                           kind: event.kind, thread: event.thread, causes: causes, text: text,
                           truncated: event.truncated, json: json, omittedJSONBytes: event.omittedJSONBytes,
                           jsonError: jsonError(of: event, in: bytes))
    }

    /// What the value's `encode(to:)` threw, of an event scanned from `bytes`; nil for none.
    static func jsonError(of event: WrittenEvent, in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard let range = event.jsonError else { return nil }
        // The scan has decoded it once: it cannot fail now.
        var parser = JSONParser(UnsafeBufferPointer(rebasing: bytes[range]))
        return (try? parser.parseString()) ?? nil
    }

    /// Every cause of an event scanned from `bytes`, the primary first.
    static func causes(of event: WrittenEvent, in bytes: UnsafeBufferPointer<UInt8>) -> [UInt64] {
        guard event.firstCause != 0 else { return [] }
        // Nearly every event has one cause: an array made with it, not grown to hold it.
        var causes = [event.firstCause]
        var parser = JSONParser(UnsafeBufferPointer(rebasing: bytes[event.moreCauses]))
        // The scan has checked each of them.
        while parser.skip(","), let cause = parser.positive() { causes.append(cause) }
        return causes
    }

    /// The text of an event scanned from `bytes`.
    static func text(of event: WrittenEvent, in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        switch event.text {
        case .none:
            return nil
        case let .plain(range):
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        case let .escaped(range):
            // The scan has decoded it once: it cannot fail now.
            var parser = JSONParser(UnsafeBufferPointer(rebasing: bytes[range]))
            return (try? parser.scanString()) ?? nil
        }
    }

    /// Scans the fields of an event line as `writtenEvent` reads it into `event` (every field
    /// set, in place: the event is not copied out), its causes, text and JSON left as ranges
    /// of the line's bytes: nothing is allocated, but for checking a text with escapes. What
    /// is not an event line as the writer writes it gives false, as `writtenEvent` gives nil.
    static func scanWrittenEvent(_ bytes: UnsafeBufferPointer<UInt8>, into event: inout WrittenEvent) -> Bool {
        // The line must end with its closing brace: knowing that, integers are read up to it
        // without checking for the end of the line after each digit.
        guard bytes.last == UInt8(ascii: "}") else { return false }
        var parser = JSONParser(bytes)
        guard parser.skip("{\"type\":\"event\",\"seq\":"), let sequence = parser.positive(closed: true),
              parser.skip(",\"time\":"), let time = parser.writtenInteger(closed: true),
              parser.skip(",\"node\":"), let node = parser.positive(closed: true),
              parser.skip(",\"sub\":"), let subscription = parser.positive(closed: true),
              parser.skip(",\"kind\":\"") else { return false }
        event.sequence = sequence
        event.time = time
        event.node = node
        event.subscription = subscription
        if parser.skip("value\"") {
            event.kind = .value
        } else if parser.skip("completed\"") {
            event.kind = .completed
        } else if parser.skip("failed\"") {
            event.kind = .failed
        } else if parser.skip("interrupted\"") {
            event.kind = .interrupted
        } else if parser.skip("pull\"") {
            event.kind = .pull
        } else {
            return false
        }
        guard parser.skip(",\"thread\":"), let thread = parser.positive(closed: true), parser.skip(",\"causes\":[") else { return false }
        event.thread = thread
        event.firstCause = 0
        event.moreCauses = 0..<0
        if !parser.skip("]") {
            guard let first = parser.positive(closed: true) else { return false }
            event.firstCause = first
            let more = parser.index
            while parser.skip(",") {
                guard parser.positive(closed: true) != nil else { return false }
            }
            event.moreCauses = more..<parser.index
            // A pull has no causes: the full reader says so, at its place.
            guard parser.skip("]"), event.kind != .pull else { return false }
        }
        event.text = .none
        event.textIsJSONInteger = false
        // The commonest text, an integer's digits (an `Int` value's), is read as that integer:
        // the JSON after it is then compared with its digits instead of being read again.
        var integerText: (value: Int64, range: Range<Int>)?
        if parser.skip(",\"text\":") {
            guard parser.peek == UInt8(ascii: "\"") else { return false }
            let start = parser.index + 1
            parser.index = start
            if let integer = parser.writtenInteger(closed: true), parser.skip("\"") {
                event.text = .plain(start..<parser.index - 1)
                integerText = (integer, start..<parser.index - 1)
            } else {
                parser.index = start - 1
                let decoded: String?
                do { decoded = try parser.scanString() } catch { return false }
                event.text = decoded == nil ? .plain(start..<parser.index - 1) : .escaped(start - 1..<parser.index)
            }
        }
        event.truncated = false
        if parser.skip(",\"truncated\":") {
            if parser.skip("true") {
                event.truncated = true
            } else if !parser.skip("false") {
                return false
            }
        }
        event.json = nil
        event.jsonInteger = nil
        if parser.skip(",\"json\":") {
            let start = parser.index
            if let integerText, parser.continues(with: integerText.range) {
                // The text's digits again, then the end of the value: the same integer.
                event.jsonInteger = integerText.value
                event.textIsJSONInteger = true
            } else if let integer = parser.writtenInteger(closed: true),
               parser.peek == UInt8(ascii: ",") || parser.peek == UInt8(ascii: "}") {
                event.jsonInteger = integer
            } else {
                parser.index = start
                parser.depth = 1
                guard (try? parser.parseValue(build: false)) != nil else { return false }
            }
            event.json = start..<parser.index
        }
        event.omittedJSONBytes = 0
        if parser.skip(",\"jsonOmitted\":") {
            guard let value = parser.writtenInteger(closed: true) else { return false }
            event.omittedJSONBytes = value
        }
        event.jsonError = nil
        if parser.skip(",\"jsonError\":") {
            let start = parser.index
            guard parser.peek == UInt8(ascii: "\""), (try? parser.parseString()) != nil else { return false }
            event.jsonError = start..<parser.index
        }
        return parser.skip("}") && parser.index == bytes.count
    }

    /// The subscribe, dispose or hop record of a line written as `TraceRecord.write` writes
    /// one — keys in the writer's order, nothing between the tokens, integers as
    /// `scanWrittenEvent` takes them — or nil for any other line, which the general path then
    /// reads (and says what is wrong with). As for events, it takes only lines on which the
    /// general path yields the same record, so which path read a line never shows.
    static func writtenStructure(_ bytes: UnsafeBufferPointer<UInt8>) -> TraceRecord? {
        // Ending with its closing brace, as for events: integers are read up to it unchecked.
        guard bytes.last == UInt8(ascii: "}") else { return nil }
        var parser = JSONParser(bytes)
        guard parser.skip("{\"type\":\"") else { return nil }
        let record: TraceRecord
        if parser.skip("subscribe\",\"id\":") {
            guard let id = parser.positive(closed: true), parser.skip(",\"node\":"), let node = parser.positive(closed: true),
                  parser.skip(",\"parent\":"), let parent = parser.nonNegative(closed: true), parser.skip(",\"time\":"),
                  let time = parser.writtenInteger(closed: true), parser.skip(",\"thread\":"), let thread = parser.positive(closed: true) else { return nil }
            var late = false
            if parser.skip(",\"late\":") {
                if parser.skip("true") {
                    late = true
                } else if !parser.skip("false") {
                    return nil
                }
            }
            var request: String?
            if parser.skip(",\"request\":") {
                let start = parser.index
                parser.depth = 1
                guard (try? parser.parseValue(build: false)) != nil else { return nil }
                if !parser.text(start..<parser.index, is: "null") {
                    request = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<parser.index]), as: UTF8.self)
                }
            }
            // A request left out: both keys, in this order, or this fast path gives up.
            var omitted: RequestDigest?
            if parser.skip(",\"requestOmitted\":") {
                guard request == nil, let size = parser.positive(closed: true),
                      parser.skip(",\"requestHash\":\""), parser.index + 25 <= bytes.count,
                      bytes[parser.index + 24] == UInt8(ascii: "\"") else { return nil }
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[parser.index..<parser.index + 24]), as: UTF8.self)
                guard let hash = RequestDigest.hash(fromText: text), size <= UInt64(Int.max) else { return nil }
                parser.index += 25
                omitted = RequestDigest(bytes: Int(size), hash: hash)
            }
            // What it observes and what observes it: arrays of ids as the writer writes them.
            var observes: [UInt64]?, observedBy: [UInt64]?
            if parser.skip(",\"observes\":") {
                guard let ids = parser.writtenIDs() else { return nil }
                observes = ids
            }
            if parser.skip(",\"observedBy\":") {
                guard let ids = parser.writtenIDs() else { return nil }
                observedBy = ids
            }
            record = .subscribe(SubscriptionRecord(id: id, node: node, parent: parent, time: time, thread: thread,
                                                   late: late, request: request, requestOmitted: omitted,
                                                   observes: observes, observedBy: observedBy))
        } else if parser.skip("dispose\",\"sub\":") {
            guard let subscription = parser.positive(closed: true), parser.skip(",\"time\":"), let time = parser.writtenInteger(closed: true),
                  parser.skip(",\"thread\":"), let thread = parser.positive(closed: true) else { return nil }
            record = .dispose(DisposeRecord(subscription: subscription, time: time, thread: thread))
        } else if parser.skip("hop\",\"id\":") {
            guard let id = parser.positive(closed: true), parser.skip(",\"node\":"), let node = parser.nonNegative(closed: true),
                  parser.skip(",\"sub\":"), let subscription = parser.nonNegative(closed: true),
                  parser.skip(",\"scheduler\":"), parser.peek == UInt8(ascii: "\"") else { return nil }
            let start = parser.index + 1
            let decoded: String?
            do { decoded = try parser.scanString() } catch { return nil }
            let scheduler = decoded
                ?? String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<parser.index - 1]), as: UTF8.self)
            guard parser.skip(",\"enqueued\":"), let enqueued = parser.writtenInteger(closed: true), parser.skip(",\"from\":"),
                  let from = parser.positive(closed: true) else { return nil }
            var due: Int64?
            if parser.skip(",\"due\":") {
                guard let value = parser.writtenInteger(closed: true) else { return nil }
                due = value
            }
            var started: Int64?
            if parser.skip(",\"started\":") {
                guard let value = parser.writtenInteger(closed: true) else { return nil }
                started = value
            }
            var to: UInt64?
            if parser.skip(",\"to\":") {
                guard let value = parser.writtenInteger(closed: true) else { return nil }
                to = UInt64(max(0, value))
            }
            record = .hop(HopRecord(id: id, node: node, subscription: subscription, scheduler: scheduler,
                                    enqueued: enqueued, from: from, started: started, to: to, due: due))
        } else {
            return nil
        }
        guard parser.skip("}"), parser.index == bytes.count else { return nil }
        return record
    }

    /// Whether the bytes in `range` are exactly `literal`.
    private func text(_ range: Range<Int>, is literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard range.count == count, let base = bytes.baseAddress else { return false }
        return memcmp(base + range.lowerBound, literal.utf8Start, count) == 0
    }

    /// Moves past `literal` when the text continues with it. Always inlined, so that the
    /// comparison, of a length known where it is called, is a few loads, not a call to memcmp.
    @inline(__always)
    private mutating func skip(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard count <= bytes.count - index, let base = bytes.baseAddress,
              memcmp(base + index, literal.utf8Start, count) == 0 else { return false }
        index += count
        return true
    }

    /// Moves past a copy of the bytes at `range` (earlier in the text) when the text
    /// continues with one followed by ',' or '}' (the end of a record's value).
    @inline(__always)
    private mutating func continues(with range: Range<Int>) -> Bool {
        let count = range.count
        guard count < bytes.count - index, let base = bytes.baseAddress,
              base[index + count] == UInt8(ascii: ",") || base[index + count] == UInt8(ascii: "}"),
              memcmp(base + index, base + range.lowerBound, count) == 0 else { return false }
        index += count
        return true
    }

    /// An integer written as `String(Int64)` writes it — an optional minus sign, then 1 to 19
    /// digits without a leading zero (but "0" itself), not "-0", within `Int64` — read and moved
    /// past; else nil with the index unmoved. The one recogniser of integers: every number of
    /// a line the one-pass scans read, and a payload's digits (`PayloadTable`). On any line it
    /// takes, the general path reads the same value.
    ///
    /// `closed`: the caller knows that the text ends with a byte that is neither a digit nor
    /// a minus sign at or after the index (a record line's closing brace), so the digits stop
    /// before the end of the text by themselves and are read without a bounds check each.
    /// `unsigned`: a minus sign gives nil at once (for readers that take no negative number).
    @inline(__always)
    mutating func writtenInteger(closed: Bool = false, unsigned: Bool = false) -> Int64? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        var position = index
        let negative = (closed || position < count) && base[position] == UInt8(ascii: "-")
        if negative {
            if unsigned { return nil }
            position &+= 1
        }
        let first = position
        var magnitude: UInt64 = 0
        while closed || position < count {
            let digit = base[position] &- UInt8(ascii: "0")
            guard digit <= 9 else { break }
            magnitude = magnitude &* 10 &+ UInt64(digit)
            position &+= 1
        }
        // At most 19 digits, so the magnitude has not overflowed.
        let digits = position &- first
        guard digits >= 1, digits <= 19, digits == 1 || base[first] != UInt8(ascii: "0") else { return nil }
        let value: Int64
        if negative {
            guard magnitude != 0, magnitude <= UInt64(Int64.max) + 1 else { return nil }
            value = Int64(truncatingIfNeeded: 0 &- magnitude)
        } else {
            guard magnitude <= UInt64(Int64.max) else { return nil }
            value = Int64(magnitude)
        }
        index = position
        return value
    }

    /// Whether the whole text has been read.
    var isAtEnd: Bool { index == bytes.count }

    /// A positive integer written plainly (see `writtenInteger`, and its `closed`).
    @inline(__always)
    private mutating func positive(closed: Bool = false) -> UInt64? {
        let start = index
        guard let value = writtenInteger(closed: closed, unsigned: true), value > 0 else {
            index = start
            return nil
        }
        return UInt64(value)
    }

    /// A non-negative integer written plainly (see `writtenInteger`, and its `closed`).
    @inline(__always)
    private mutating func nonNegative(closed: Bool = false) -> UInt64? {
        let start = index
        guard let value = writtenInteger(closed: closed, unsigned: true), value >= 0 else {
            index = start
            return nil
        }
        return UInt64(value)
    }

    /// An array of positive integers written as the writer writes one (`[3,5]`, no spaces),
    /// or nil, the index then anywhere, for anything else.
    private mutating func writtenIDs() -> [UInt64]? {
        guard skip("[") else { return nil }
        var ids: [UInt64] = []
        if skip("]") { return ids }
        while true {
            guard let id = positive(closed: true) else { return nil }
            ids.append(id)
            if skip("]") { return ids }
            guard skip(",") else { return nil }
        }
    }

    /// The elements of an array of positive integers, or nil when the text is anything else.
    static func positiveIntegers(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt64]? {
        var parser = JSONParser(bytes)
        parser.skipSpace()
        guard parser.peek == UInt8(ascii: "[") else { return nil }
        parser.index += 1
        parser.skipSpace()
        var elements: [UInt64] = []
        if parser.peek == UInt8(ascii: "]") { return elements }
        while true {
            parser.skipSpace()
            guard let first = parser.peek, first == UInt8(ascii: "-") || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")),
                  case let .integer(element)? = try? parser.parseNumber(), element > 0 else { return nil }
            elements.append(UInt64(element))
            parser.skipSpace()
            if parser.peek == UInt8(ascii: ",") { parser.index += 1; continue }
            return parser.peek == UInt8(ascii: "]") ? elements : nil
        }
    }

    /// Parses a whole text as one value.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws -> JSONValue {
        var parser = JSONParser(bytes)
        parser.skipSpace()
        let value = try parser.parseValue()
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.failure("the end of the text") }
        return value
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func failure(_ expected: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: index, expected: expected)
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D, 0x0A: index += 1
            default: return
            }
        }
    }

    private mutating func expect(_ character: Unicode.Scalar, _ what: String) throws {
        guard peek == UInt8(ascii: character) else { throw failure(what) }
        index += 1
    }

    /// Parses one value; with `build` false it only checks the syntax (reporting the same
    /// errors) and returns `.null`, so nothing is allocated (`JSONValue` is indirect: every
    /// case with a payload is a heap box).
    private mutating func parseValue(build: Bool = true) throws -> JSONValue {
        guard let byte = peek else { throw failure("a value") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(build: build)
        case UInt8(ascii: "["): return try parseArray(build: build)
        case UInt8(ascii: "\""):
            guard build else { _ = try scanString(); return .null }
            return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return build ? .bool(true) : .null
        case UInt8(ascii: "f"): try literal("false"); return build ? .bool(false) : .null
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let number = try parseNumber()
            guard build else { return .null }
            switch number {
            case let .integer(integer): return .integer(integer)
            case let .double(double): return .double(double)
            }
        default: throw failure("a value (object, array, string, number, true, false or null)")
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("'\(word)'") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw failure("'\(word)'")
        }
        index += count
    }

    private mutating func nest() throws {
        depth += 1
        guard depth <= Self.maxDepth else { throw failure("at most \(Self.maxDepth) levels of nesting") }
    }

    private mutating func parseObject(build: Bool) throws -> JSONValue {
        try nest()
        defer { depth -= 1 }
        index += 1
        var fields: [(key: String, value: JSONValue)] = []
        skipSpace()
        if peek == UInt8(ascii: "}") { index += 1; return build ? .object(fields) : .null }
        while true {
            skipSpace()
            guard peek == UInt8(ascii: "\"") else { throw failure("a quoted key") }
            if build {
                let key = try parseString()
                skipSpace()
                try expect(":", "':' after a key")
                skipSpace()
                fields.append((key, try parseValue()))
            } else {
                _ = try scanString()
                skipSpace()
                try expect(":", "':' after a key")
                skipSpace()
                _ = try parseValue(build: false)
            }
            skipSpace()
            if peek == UInt8(ascii: ",") { index += 1; continue }
            if peek == UInt8(ascii: "}") { index += 1; return build ? .object(fields) : .null }
            throw failure("',' or '}' in an object")
        }
    }

    private mutating func parseArray(build: Bool) throws -> JSONValue {
        try nest()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipSpace()
        if peek == UInt8(ascii: "]") { index += 1; return build ? .array(elements) : .null }
        while true {
            skipSpace()
            let element = try parseValue(build: build)
            if build { elements.append(element) }
            skipSpace()
            if peek == UInt8(ascii: ",") { index += 1; continue }
            if peek == UInt8(ascii: "]") { index += 1; return build ? .array(elements) : .null }
            throw failure("',' or ']' in an array")
        }
    }

    private enum Number {
        case integer(Int64)
        case double(Double)
    }

    /// Parses a number, computing an integer's value while scanning its digits.
    private mutating func parseNumber() throws -> Number {
        let start = index
        let negative = peek == UInt8(ascii: "-")
        if negative { index += 1 }
        guard let first = peek, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { throw failure("a digit") }
        // Up to 18 digits fit an Int64 whatever they are, so only longer numbers need checking.
        var magnitude: UInt64 = 0
        let digitsStart = index
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit <= 9 else { break }
                magnitude = magnitude &* 10 &+ UInt64(digit)
                index += 1
            }
        }
        var overflow = false
        var value: Int64 = 0
        if index - digitsStart <= 18 {
            value = negative ? -Int64(magnitude) : Int64(magnitude)
        } else {
            // Accumulating negatives reaches Int64.min, whose magnitude has no positive Int64.
            for position in digitsStart..<index {
                let digit = Int64(bytes[position] &- UInt8(ascii: "0"))
                let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (next, overflow2) = negative ? shifted.subtractingReportingOverflow(digit)
                                                 : shifted.addingReportingOverflow(digit)
                overflow = overflow || overflow1 || overflow2
                value = next
            }
        }
        var isInteger = true
        if peek == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard let digit = peek, digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else {
                throw failure("a digit after '.'")
            }
            while let digit = peek, digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") { index += 1 }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard let digit = peek, digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else {
                throw failure("a digit in the exponent")
            }
            while let digit = peek, digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") { index += 1 }
        }
        if isInteger && !overflow { return .integer(value) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let double = Double(text) else {
            index = start
            throw failure("a number in range")
        }
        return .double(double)
    }

    /// Reads a string without making a `String` when its text is exactly its bytes (ASCII, no
    /// escapes): returns nil then, else the decoded string (errors as `parseString`'s).
    private mutating func scanString() throws -> String? {
        let open = index
        index += 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { index += 1; return nil }
            if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
            index += 1
        }
        index = open
        return try parseString()
    }

    private mutating func parseString() throws -> String {
        index += 1
        let start = index
        // The fast path: no escapes, so the bytes are the string; all ASCII needs no validation.
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 0x80 { ascii = false }
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                if ascii {
                    index += 1
                    return String(decoding: slice, as: UTF8.self)
                }
                guard let string = String(validating: slice, as: UTF8.self) else {
                    index = start
                    throw failure("valid UTF-8 in a string")
                }
                index += 1
                return string
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            index += 1
        }
        var scalars: [UInt8] = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while true {
            guard let byte = peek else { throw failure("'\"' to close a string") }
            if byte == UInt8(ascii: "\"") { index += 1; break }
            if byte < 0x20 { throw failure("an escaped control character in a string") }
            if byte != UInt8(ascii: "\\") {
                scalars.append(byte)
                index += 1
                continue
            }
            index += 1
            guard let escape = peek else { throw failure("an escape character") }
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
            case UInt8(ascii: "b"): scalars.append(0x08)
            case UInt8(ascii: "f"): scalars.append(0x0C)
            case UInt8(ascii: "n"): scalars.append(0x0A)
            case UInt8(ascii: "r"): scalars.append(0x0D)
            case UInt8(ascii: "t"): scalars.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code) {
                    guard peek == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                        throw failure("a low surrogate '\\uDC00'...'\\uDFFF' after a high surrogate")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw failure("a low surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(code) {
                    throw failure("a high surrogate before a low one")
                }
                guard let scalar = Unicode.Scalar(code) else { throw failure("a Unicode scalar") }
                scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                index -= 1
                throw failure("an escape: \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX")
            }
        }
        guard let string = String(validating: scalars, as: UTF8.self) else {
            throw failure("valid UTF-8 in a string")
        }
        return string
    }

    private mutating func hex4() throws -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek else { throw failure("four hex digits") }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("four hex digits")
            }
            code = code << 4 | digit
            index += 1
        }
        return code
    }
}

extension JSONValue {
    /// Parses `text` as one whole JSON value, as strictly as the trace reader parses records.
    package init(parsing text: String) throws {
        var text = text
        self = try text.withUTF8 { try JSONParser.parse($0) }
    }
}

extension JSONValue: Encodable {
    /// Encodes the value as it was parsed: an object's keys in their order (an encoder that
    /// keeps order writes them so), integers as integers.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case let .object(fields):
            var keyed = encoder.container(keyedBy: FieldKey.self)
            for field in fields { try keyed.encode(field.value, forKey: FieldKey(stringValue: field.key)) }
        case let .array(elements):
            var list = encoder.unkeyedContainer()
            for element in elements { try list.encode(element) }
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case let .bool(bool):
            var single = encoder.singleValueContainer()
            try single.encode(bool)
        case let .integer(integer):
            var single = encoder.singleValueContainer()
            try single.encode(integer)
        case let .double(double):
            var single = encoder.singleValueContainer()
            try single.encode(double)
        case let .string(string):
            var single = encoder.singleValueContainer()
            try single.encode(string)
        }
    }

    private struct FieldKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
