
/// Builds one JSON object as bytes, keys in the order they are added: the trace log's
/// hand-written formatter. Foundation's `JSONEncoder` orders keys differently from run to run
/// and is about forty times slower per record, so every record is written through this.
public struct JSONLine {
    /// The bytes written so far.
    public package(set) var bytes: [UInt8] = []
    private var needsComma = false

    /// An empty line with `capacity` bytes reserved.
    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Opens the object.
    public mutating func begin() {
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Closes the object and ends the line.
    public mutating func end() {
        bytes.append(UInt8(ascii: "}"))
        bytes.append(UInt8(ascii: "\n"))
    }

    private mutating func key(_ name: StaticString) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
        bytes.append(UInt8(ascii: "\""))
        if name.hasPointerRepresentation {
            bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        } else {
            name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// Appends `,"name":` and a short tail (an integer, an opening quote) in one append.
    /// Every `Array.append` checks uniqueness and capacity, and a record has a dozen fields,
    /// so the common fields are assembled on the stack first.
    @inline(__always)
    private mutating func keyed(_ name: StaticString, _ tail: (UnsafeMutablePointer<UInt8>) -> Int) {
        guard name.hasPointerRepresentation, name.utf8CodeUnitCount <= 32 else {
            key(name)
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { scratch in
                let count = tail(scratch.baseAddress!)
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[0..<count]))
            }
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 72) { scratch in
            let base = scratch.baseAddress!
            var count = 0
            if needsComma {
                base[0] = UInt8(ascii: ",")
                count = 1
            }
            base[count] = UInt8(ascii: "\"")
            count += 1
            let length = name.utf8CodeUnitCount
            (base + count).update(from: name.utf8Start, count: length)
            count += length
            base[count] = UInt8(ascii: "\"")
            base[count + 1] = UInt8(ascii: ":")
            count += 2
            count += tail(base + count)
            bytes.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
        }
        needsComma = true
    }

    /// Writes the decimal digits of `value` at `out`; returns how many (at most 20).
    /// The length comes from comparisons and the digits two at a time from a table: this
    /// runs for every number of every record.
    @inline(__always)
    package static func digits(_ value: UInt64, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var length = 1
        var bound: UInt64 = 10
        while length < 20 && value >= bound {
            length += 1
            bound &*= 10
        }
        let pairs = digitPairs.utf8Start
        var rest = value
        var index = length
        while rest >= 100 {
            let pair = Int(truncatingIfNeeded: rest % 100) &* 2
            rest /= 100
            index -= 2
            out[index] = pairs[pair]
            out[index + 1] = pairs[pair + 1]
        }
        if rest >= 10 {
            let pair = Int(truncatingIfNeeded: rest) &* 2
            out[0] = pairs[pair]
            out[1] = pairs[pair + 1]
        } else {
            out[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest)
        }
        return length
    }

    private static let digitPairs: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// Adds `"name":"value"`, escaped.
    public mutating func field(_ name: StaticString, _ value: String) {
        keyed(name) { out in
            out[0] = UInt8(ascii: "\"")
            return 1
        }
        var value = value
        value.withUTF8 { Self.appendEscaped($0, to: &bytes) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Adds `"name":"value"` when `value` is not nil.
    public mutating func field(_ name: StaticString, ifPresent value: String?) {
        if let value { field(name, value) }
    }

    /// Adds `"name":value`.
    public mutating func field(_ name: StaticString, _ value: Int64) {
        keyed(name) { out in
            if value < 0 {
                out[0] = UInt8(ascii: "-")
                return 1 + Self.digits(value.magnitude, to: out + 1)
            }
            return Self.digits(UInt64(value), to: out)
        }
    }

    /// Adds `"name":value`.
    public mutating func field(_ name: StaticString, _ value: UInt64) {
        keyed(name) { out in Self.digits(value, to: out) }
    }

    /// Adds `"name":value`.
    public mutating func field(_ name: StaticString, _ value: Int) {
        field(name, Int64(value))
    }

    /// Adds `"name":"123"`: an integer as a string.
    public mutating func field(_ name: StaticString, decimal value: Int64) {
        keyed(name) { out in
            out[0] = UInt8(ascii: "\"")
            var count = 1
            if value < 0 {
                out[1] = UInt8(ascii: "-")
                count = 2
            }
            count += Self.digits(value.magnitude, to: out + count)
            out[count] = UInt8(ascii: "\"")
            return count + 1
        }
    }

    /// Adds `"name":true|false`.
    public mutating func field(_ name: StaticString, _ value: Bool) {
        key(name)
        Self.appendLiteral(value ? "true" : "false", to: &bytes)
    }

    /// Adds `"name":[a,b,...]`.
    public mutating func field(_ name: StaticString, _ values: [UInt64]) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            Self.appendInteger(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Adds `"causes":[primary,others...]`: zeros, repeats of the primary and numbers not
    /// below `sequence` (left in a thread's context by an earlier recording) left out.
    /// Written without building an array: this runs for every recorded event.
    package mutating func causesField(primary: UInt64, others: [UInt64], below sequence: UInt64) {
        let hasPrimary = primary != 0 && primary < sequence
        if others.isEmpty {
            keyed("causes") { out in
                out[0] = UInt8(ascii: "[")
                let count = hasPrimary ? 1 + Self.digits(primary, to: out + 1) : 1
                out[count] = UInt8(ascii: "]")
                return count + 1
            }
            return
        }
        field("causes", Self.writtenCauses(primary: primary, others: others, below: sequence))
    }

    /// The causes an event's record carries, in order (see `causesField`): the primary unless
    /// it is 0 or not below `sequence`, then the others that are neither, nor the primary.
    package static func writtenCauses(primary: UInt64, others: [UInt64], below sequence: UInt64) -> [UInt64] {
        var causes: [UInt64] = []
        causes.reserveCapacity(others.count + 1)
        if primary != 0 && primary < sequence { causes.append(primary) }
        for other in others where other != 0 && other != primary && other < sequence { causes.append(other) }
        return causes
    }

    /// Adds `"name":` followed by JSON text that is already valid (a payload).
    public mutating func field(_ name: StaticString, rawJSON: String) {
        key(name)
        var text = rawJSON
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Adds `"name":[{...},{...}]` where each element is built by `element`.
    public mutating func field<S: Sequence>(_ name: StaticString, objects: S, _ element: (inout JSONLine, S.Element) -> Void) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        var first = true
        for item in objects {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            var inner = JSONLine(capacity: 0)
            swap(&inner.bytes, &bytes)
            inner.bytes.append(UInt8(ascii: "{"))
            inner.needsComma = false
            element(&inner, item)
            inner.bytes.append(UInt8(ascii: "}"))
            swap(&inner.bytes, &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Adds `"name":{...}` built by `body`.
    public mutating func field(_ name: StaticString, object body: (inout JSONLine) -> Void) {
        key(name)
        var inner = JSONLine(capacity: 0)
        swap(&inner.bytes, &bytes)
        inner.bytes.append(UInt8(ascii: "{"))
        inner.needsComma = false
        body(&inner)
        inner.bytes.append(UInt8(ascii: "}"))
        swap(&inner.bytes, &bytes)
    }

    /// Adds `"name":` followed by a decimal with three fraction digits, `units / 1000`
    /// (nanoseconds as microseconds): exact, never a binary floating-point rendering.
    public mutating func field(_ name: StaticString, thousandths units: Int64) {
        key(name)
        Self.appendThousandths(units, to: &bytes)
    }

    /// Appends `units / 1000` as a decimal with three fraction digits: `1234.567`.
    public static func appendThousandths(_ units: Int64, to bytes: inout [UInt8]) {
        if units < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = units.magnitude
        appendInteger(magnitude / 1000, to: &bytes)
        let fraction = magnitude % 1000
        bytes.append(UInt8(ascii: "."))
        bytes.append(UInt8(ascii: "0") &+ UInt8(fraction / 100))
        bytes.append(UInt8(ascii: "0") &+ UInt8(fraction / 10 % 10))
        bytes.append(UInt8(ascii: "0") &+ UInt8(fraction % 10))
    }

    /// Ends the object without a newline (for objects nested in a larger document).
    public mutating func close() {
        bytes.append(UInt8(ascii: "}"))
    }

    // MARK: Primitives

    package static func appendLiteral(_ literal: StaticString, to bytes: inout [UInt8]) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `string` as a JSON string: quotes, backslashes and control characters escaped,
    /// everything else as UTF-8 (a Swift string is always valid Unicode). U+2028 and U+2029
    /// are escaped too, so a line stays one line for tools that treat them as breaks.
    /// Runs of bytes that need no escape are copied in bulk.
    public static func appendString(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in appendEscaped(utf8, to: &bytes) }
        bytes.append(UInt8(ascii: "\""))
    }

    static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        let count = utf8.count
        escapeClasses.withUnsafeBufferPointer { classes in
            // Most strings need no escape: found by one scan, and appended whole.
            var first = 0
            while first < count, classes[Int(utf8[first])] == 0 || !needsEscape(utf8, at: first) { first += 1 }
            guard first < count else { return bytes.append(contentsOf: utf8) }
            // Otherwise the escaped bytes are written on the stack (or in memory of their own
            // for a long string: at most six bytes for each one left) and appended once: every
            // `Array.append` checks uniqueness and capacity, and a described value has a quote
            // every few bytes.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: first + 6 * (count - first)) { scratch in
                let out = scratch.baseAddress!
                out.update(from: utf8.baseAddress!, count: first)
                var written = first
                var index = first
                while index < count {
                    let byte = utf8[index]
                    index += 1
                    guard classes[Int(byte)] != 0, needsEscape(utf8, at: index - 1) else {
                        out[written] = byte
                        written += 1
                        continue
                    }
                    out[written] = UInt8(ascii: "\\")
                    switch byte {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"): out[written + 1] = byte
                    case 0x0A: out[written + 1] = UInt8(ascii: "n")
                    case 0x0D: out[written + 1] = UInt8(ascii: "r")
                    case 0x09: out[written + 1] = UInt8(ascii: "t")
                    case 0xE2:
                        // U+2028 or U+2029: \u2028, \u2029.
                        (out + written + 1).update(from: "u202", count: 4)
                        out[written + 5] = utf8[index + 1] == 0xA8 ? UInt8(ascii: "8") : UInt8(ascii: "9")
                        index += 2
                        written += 4
                    default:
                        (out + written + 1).update(from: "u00", count: 3)
                        out[written + 4] = hex[Int(byte >> 4)]
                        out[written + 5] = hex[Int(byte & 0xF)]
                        written += 4
                    }
                    written += 2
                }
                bytes.append(contentsOf: UnsafeBufferPointer(start: out, count: written))
            }
        }
    }

    /// For each byte, 1 when it may need an escape (`needsEscape` decides), else 0: one load a
    /// byte in the scan of a string.
    private static let escapeClasses: [UInt8] = (0..<256).map { byte in
        byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F || byte == 0xE2 ? 1 : 0
    }

    /// Whether the byte at `index` begins what `appendEscaped` escapes: a quote, a backslash, a
    /// control character (DEL too), or the first byte of U+2028 or U+2029.
    @inline(__always)
    private static func needsEscape(_ utf8: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        let byte = utf8[index]
        if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") && byte != 0x7F && byte != 0xE2 {
            return false
        }
        guard byte == 0xE2 else { return true }
        return index + 2 < utf8.count && utf8[index + 1] == 0x80 && (utf8[index + 2] == 0xA8 || utf8[index + 2] == 0xA9)
    }

    /// Appends a decimal integer.
    public static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            appendInteger(value.magnitude, to: &bytes)
        } else {
            appendInteger(UInt64(value), to: &bytes)
        }
    }

    /// Appends a decimal integer.
    public static func appendInteger(_ value: UInt64, to bytes: inout [UInt8]) {
        if value < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(value))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { scratch in
            let count = digits(value, to: scratch.baseAddress!)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[0..<count]))
        }
    }
}
