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

/// One top-level field of a line: its value, where the value starts, and its raw text.
struct JSONField {
    let value: JSONValue
    let offset: Int
    let range: Range<Int>
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

    /// Parses one object spanning the whole text: its fields by key, in order.
    static func parseObjectLine(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [(key: String, field: JSONField)] {
        var parser = JSONParser(bytes)
        parser.skipSpace()
        guard parser.peek == UInt8(ascii: "{") else { throw parser.failure("'{' to open a record") }
        parser.index += 1
        parser.depth = 1
        var fields: [(key: String, field: JSONField)] = []
        parser.skipSpace()
        if parser.peek == UInt8(ascii: "}") {
            parser.index += 1
        } else {
            while true {
                parser.skipSpace()
                guard parser.peek == UInt8(ascii: "\"") else { throw parser.failure("a quoted key") }
                let key = try parser.parseString()
                parser.skipSpace()
                try parser.expect(":", "':' after a key")
                parser.skipSpace()
                let start = parser.index
                let value = try parser.parseValue()
                fields.append((key, JSONField(value: value, offset: start, range: start..<parser.index)))
                parser.skipSpace()
                if parser.peek == UInt8(ascii: ",") { parser.index += 1; continue }
                if parser.peek == UInt8(ascii: "}") { parser.index += 1; break }
                throw parser.failure("',' or '}' after a value")
            }
        }
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.failure("the end of the line after the record") }
        return fields
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

    private mutating func parseValue() throws -> JSONValue {
        guard let byte = peek else { throw failure("a value") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
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

    private mutating func parseObject() throws -> JSONValue {
        try nest()
        defer { depth -= 1 }
        index += 1
        var fields: [(key: String, value: JSONValue)] = []
        skipSpace()
        if peek == UInt8(ascii: "}") { index += 1; return .object(fields) }
        while true {
            skipSpace()
            guard peek == UInt8(ascii: "\"") else { throw failure("a quoted key") }
            let key = try parseString()
            skipSpace()
            try expect(":", "':' after a key")
            skipSpace()
            fields.append((key, try parseValue()))
            skipSpace()
            if peek == UInt8(ascii: ",") { index += 1; continue }
            if peek == UInt8(ascii: "}") { index += 1; return .object(fields) }
            throw failure("',' or '}' in an object")
        }
    }

    private mutating func parseArray() throws -> JSONValue {
        try nest()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipSpace()
        if peek == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            skipSpace()
            elements.append(try parseValue())
            skipSpace()
            if peek == UInt8(ascii: ",") { index += 1; continue }
            if peek == UInt8(ascii: "]") { index += 1; return .array(elements) }
            throw failure("',' or ']' in an array")
        }
    }

    private mutating func parseNumber() throws -> JSONValue {
        let start = index
        var isInteger = true
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let first = peek, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { throw failure("a digit") }
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            while let digit = peek, digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") { index += 1 }
        }
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
        if isInteger, let integer = Self.integer(UnsafeBufferPointer(rebasing: bytes[start..<index])) {
            return .integer(integer)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let double = Double(text) else {
            index = start
            throw failure("a number in range")
        }
        return .double(double)
    }

    /// The value of an optional '-' and decimal digits, or nil when it overflows `Int64`.
    private static func integer(_ digits: UnsafeBufferPointer<UInt8>) -> Int64? {
        let negative = digits.first == UInt8(ascii: "-")
        var value: Int64 = 0
        for digit in digits.dropFirst(negative ? 1 : 0) {
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? shifted.subtractingReportingOverflow(Int64(digit &- 48))
                                             : shifted.addingReportingOverflow(Int64(digit &- 48))
            if overflow1 || overflow2 { return nil }
            value = next
        }
        return value
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
