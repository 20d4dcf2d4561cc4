import Foundation
import Synchronization
import TraceLog

/// Encodes an `Encodable` value straight into JSON bytes, giving the bytes `JSONEncoder` gives
/// with `[.sortedKeys, .withoutEscapingSlashes]` and its default strategies, for a fraction of
/// its cost: no intermediate tree of boxed values, one byte buffer, keys sorted by moving the
/// bytes of an object's members once it is complete.
///
/// The output is written in the order the value's `encode(to:)` makes its calls, so it handles
/// the nesting discipline synthesized conformances follow: a container is written to only while
/// nothing opened after it is still being written. Anything outside that, or anything whose
/// bytes it does not reproduce itself, makes `encode` return `nil` and the caller uses
/// `JSONEncoder` for that value:
/// - a container written to after one opened after it was written (interleaving), or two
///   kinds of container asked of one encoder;
/// - a value that asks for no container at all;
/// - a key given twice in one object, or two keys that are equal as Swift strings
///   (canonically equivalent text);
/// - `Decimal`, `Int128` and `UInt128`.
/// `Data` is written as base-64 text and `URL` as its absolute string, as `JSONEncoder` does;
/// `Date` through its own conformance (the seconds since the reference date), which is what
/// the default date strategy writes. A non-finite `Float` or `Double` throws
/// `EncodingError.invalidValue` at the same call `JSONEncoder` throws it.
///
/// Each call has a writer of its own: one is kept between calls (and handed from one to the
/// next through an atomic exchange, so never to two at once), nothing else is shared.
enum DirectJSONEncoder {
    /// The JSON bytes of `value`, or nil when `JSONEncoder` must be asked instead. Errors
    /// thrown by the value's own `encode(to:)`, and non-finite numbers, are rethrown.
    static func encode<T: Encodable>(_ value: T) throws -> [UInt8]? {
        guard case let .json(json)? = try encode(value, limit: .max) else { return nil }
        return Array(json.utf8)
    }

    /// What `encode(_:limit:)` made.
    enum Encoded {
        /// The JSON text (made from the writer's bytes once, with no array between).
        case json(String)
        /// The JSON would take this many bytes, more than the limit: a string that would have
        /// passed the limit was measured, not written, so a huge value costs a scan of its
        /// text, not a copy of it.
        case omitted(size: Int)
    }

    /// The JSON of `value` when it takes at most `limit` bytes, else its size; nil when
    /// `JSONEncoder` must be asked instead.
    static func encode<T: Encodable>(_ value: T, limit: Int) throws -> Encoded? {
        let writer = DirectJSONWriter.take()
        defer { DirectJSONWriter.putBack(writer) }
        writer.limit = limit
        do {
            try writer.encodeValue(value, at: nil)
        } catch {
            if writer.fallBack { return nil }
            throw error
        }
        if writer.fallBack { return nil }
        return writer.elided > 0 ? .omitted(size: writer.bytes.count + writer.elided) : .json(writer.bytes.string)
    }
}

extension DirectJSONWriter {
    /// A writer no encoding is using, kept for the next one (its address, retained; 0 when one
    /// is in use, or none was made yet): an encoding on the recorder's writer thread then
    /// allocates no writer and no arrays, only the `String` it hands back.
    private static let spare = Atomic<UInt>(0)

    /// The spare writer, emptied, or a new one when another encoding holds it.
    static func take() -> DirectJSONWriter {
        let kept = spare.exchange(0, ordering: .acquiringAndReleasing)
        guard let address = UnsafeMutableRawPointer(bitPattern: kept) else { return DirectJSONWriter() }
        let writer = Unmanaged<DirectJSONWriter>.fromOpaque(address).takeRetainedValue()
        writer.reset()
        return writer
    }

    /// Keeps `writer` as the spare (letting go of the one there, if another encoding put one back).
    static func putBack(_ writer: DirectJSONWriter) {
        let kept = UInt(bitPattern: Unmanaged.passRetained(writer).toOpaque())
        if let other = UnsafeMutableRawPointer(bitPattern: spare.exchange(kept, ordering: .acquiringAndReleasing)) {
            Unmanaged<DirectJSONWriter>.fromOpaque(other).release()
        }
    }
}

/// The keys of an unkeyed container's elements in a coding path, as `JSONEncoder` names them.
private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

/// The state of one encoding: the bytes and the stack of open containers.
final class DirectJSONWriter {
    /// Thrown to abandon the encoding; `DirectJSONEncoder.encode` then answers `nil`.
    struct FallBack: Error {}

    enum Kind {
        /// A value's slot before it asked for a container.
        case slot
        case keyed
        case unkeyed
        /// A single-value container that has not written its value yet.
        case single
        /// A single-value container that has written its value.
        case written
    }

    /// A member of an open object. Its key is `keys[index]` where `index` is the member's
    /// place among the open objects' members in the order they were written (the members are
    /// sorted when their object closes; the keys are not): no string is copied with a member.
    struct Member {
        var keyIndex: Int
        /// Where `"key":value` starts and ends in `bytes` (not the comma before it).
        var start: Int
        var end: Int
        /// Where the key's closing quote is in `bytes`.
        var keyEnd: Int
        /// Whether the key's bytes between its quotes are its UTF-8 as it is (nothing escaped
        /// or left out): keys are then ordered by comparing those bytes in place.
        var plainKey: Bool
        /// Whether the key is ASCII (so no other key can equal it without the same bytes).
        var asciiKey: Bool
    }

    struct Frame {
        var id: Int
        var kind: Kind
        /// The coding key of the slot this frame fills (nil at the top level).
        var key: (any CodingKey)?
        /// Where the frame's bytes start (the `{` or `[` of a container).
        var start: Int
        /// An unkeyed container's elements so far.
        var count = 0
        /// An object's first member in `members`: its members are the ones from there on
        /// (members of objects inside it are removed when those close).
        var firstMember = 0
    }

    // One writer serves one encoding on one thread, and no access to these properties spans
    // a call into a value's code: the runtime's exclusivity checks are left out.
    @exclusivity(unchecked) var bytes = ByteStore(capacity: 512)
    @exclusivity(unchecked) private var frames: [Frame] = []
    @exclusivity(unchecked) private var members: [Member] = []
    /// The keys of `members`, in the order the members were written.
    @exclusivity(unchecked) private var keys: [String] = []
    @exclusivity(unchecked) private var nextID = 0
    @exclusivity(unchecked) private var scratch: [UInt8] = []
    /// Set when the value cannot be written here; the whole encoding then falls back.
    @exclusivity(unchecked) private(set) var fallBack = false
    /// The most bytes the JSON may take to be written whole (see `elided`).
    @exclusivity(unchecked) var limit = Int.max
    /// The bytes of strings measured rather than written, each of which would have taken the
    /// JSON past `limit`: it is written as `""` and its other bytes counted here, so the
    /// JSON's size is `bytes.count + elided`, and the structure around it stays well formed.
    @exclusivity(unchecked) private(set) var elided = 0

    init() {
        frames.reserveCapacity(8)
        members.reserveCapacity(16)
        keys.reserveCapacity(16)
    }

    /// Empties the writer for another encoding, keeping its arrays' memory (not the bytes' when
    /// they grew past a large value's).
    func reset() {
        if bytes.capacity > 1 << 17 {
            bytes = ByteStore(capacity: 512)
        } else {
            bytes.removeAll()
        }
        frames.removeAll(keepingCapacity: true)
        members.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
        nextID = 0
        fallBack = false
        limit = .max
        elided = 0
    }

    // MARK: Frames

    private func push(_ kind: Kind, key: (any CodingKey)?) -> Int {
        let id = nextID
        nextID += 1
        frames.append(Frame(id: id, kind: kind, key: key, start: bytes.count))
        return id
    }

    /// The index of the frame `id` after closing every frame above it, or nil (and the
    /// encoding marked to fall back) when that frame is already closed.
    func activate(_ id: Int) -> Int? {
        guard !fallBack else { return nil }
        var index = frames.count - 1
        while index >= 0, frames[index].id != id { index -= 1 }
        guard index >= 0 else {
            fallBack = true
            return nil
        }
        closeFrames(above: index)
        return fallBack ? nil : index
    }

    /// Closes every frame above `index`, innermost first.
    func closeFrames(above index: Int) {
        while frames.count - 1 > index {
            let frame = frames.removeLast()
            switch frame.kind {
            case .slot, .single:
                // Nothing was encoded for this value.
                fallBack = true
            case .written:
                break
            case .unkeyed:
                bytes.append(UInt8(ascii: "]"))
            case .keyed:
                closeObject(frame)
            }
            if fallBack { return }
            // The closed frame was the value of its parent's last member, if the parent is an object.
            if let parent = frames.indices.last, frames[parent].kind == .keyed {
                members[members.count - 1].end = bytes.count
            }
        }
    }

    /// Ends a finished object. Its members were written in the order they were encoded, with
    /// commas between them; when that is not key order they are rewritten in key order, in
    /// place (the body keeps its length: the same members and commas).
    private func closeObject(_ frame: Frame) {
        let range = frame.firstMember..<members.count
        defer {
            members.removeLast(range.count)
            keys.removeLast(range.count)
        }
        var inOrder = true
        bytes.withUnsafeBytes { written in
            let base = written.baseAddress!
            for index in range.dropFirst() where !precedes(members[index - 1], members[index], in: base) {
                inOrder = false
                break
            }
            guard !inOrder else { return }
            // Insertion sort in place: objects have few members, and no slice is copied.
            for index in range.dropFirst() {
                let member = members[index]
                var position = index
                while position > range.lowerBound, precedes(member, members[position - 1], in: base) {
                    members[position] = members[position - 1]
                    position -= 1
                }
                members[position] = member
            }
            for index in range.dropFirst() where !precedes(members[index - 1], members[index], in: base) {
                fallBack = true
                return
            }
        }
        if fallBack { return }
        // Keys that differ in bytes but are equal as Swift strings (canonically equivalent
        // text) can only occur outside ASCII.
        if members[range].contains(where: { !$0.asciiKey }) {
            for first in range {
                for second in range where second > first && keys[first] == keys[second] {
                    fallBack = true
                    return
                }
            }
        }
        if !inOrder { rewriteInOrder(body: frame.start + 1, members: range) }
        bytes.append(UInt8(ascii: "}"))
    }

    /// Rewrites the object body from `body` to the end of `bytes` with the members in `range`
    /// in the order `members` now lists them, commas between them.
    private func rewriteInOrder(body: Int, members range: Range<Int>) {
        let length = bytes.count - body
        var expected = range.count - 1
        for index in range { expected += members[index].end - members[index].start }
        guard expected == length else {
            // Bytes between the members that are not commas: not an object this writer made.
            fallBack = true
            return
        }
        scratch.removeAll(keepingCapacity: true)
        bytes.withUnsafeBytes { scratch.append(contentsOf: UnsafeBufferPointer(rebasing: $0[body...])) }
        scratch.withUnsafeBufferPointer { source in
            bytes.withUnsafeMutableBytes { target in
                var cursor = target.baseAddress! + body
                for index in range {
                    if index > range.lowerBound {
                        cursor.pointee = UInt8(ascii: ",")
                        cursor += 1
                    }
                    let member = members[index]
                    cursor.update(from: source.baseAddress! + (member.start - body), count: member.end - member.start)
                    cursor += member.end - member.start
                }
            }
        }
    }

    /// Whether `first`'s key comes before `second`'s under `.sortedKeys`: by the bytes written
    /// between their quotes when both are plain, else by their strings.
    private func precedes(_ first: Member, _ second: Member, in bytes: UnsafePointer<UInt8>) -> Bool {
        guard first.plainKey && second.plainKey else { return Self.precedes(keys[first.keyIndex], keys[second.keyIndex]) }
        let firstLength = first.keyEnd - first.start - 1
        let secondLength = second.keyEnd - second.start - 1
        let order = memcmp(bytes + first.start + 1, bytes + second.start + 1, min(firstLength, secondLength))
        return order < 0 || (order == 0 && firstLength < secondLength)
    }

    /// The order of keys under `.sortedKeys` on this platform: by their UTF-8 bytes, as written
    /// (not normalized, not case-folded, digits not read as numbers).
    private static func precedes(_ first: String, _ second: String) -> Bool {
        first.utf8.lexicographicallyPrecedes(second.utf8)
    }

    /// Marks the encoding to fall back and returns the error that abandons it.
    func abandon() -> FallBack {
        fallBack = true
        return FallBack()
    }

    /// The error `JSONEncoder` throws for a non-finite number by default.
    func invalid<F: BinaryFloatingPoint>(_ value: F, in id: Int, at key: (any CodingKey)?) -> EncodingError {
        var path = codingPath(upTo: id)
        if let key { path.append(key) }
        return EncodingError.invalidValue(value, EncodingError.Context(
            codingPath: path, debugDescription: "Unable to encode \(F.self).\(value) directly in JSON."))
    }

    func codingPath(upTo id: Int) -> [any CodingKey] {
        var path: [any CodingKey] = []
        for frame in frames {
            if let key = frame.key { path.append(key) }
            if frame.id == id { break }
        }
        return path
    }

    // MARK: Containers asked of an encoder

    /// Turns the slot `id` into a container of `kind`, or returns the one it already is.
    func container(_ kind: Kind, in id: Int) -> Int {
        guard let index = activate(id) else { return id }
        switch (frames[index].kind, kind) {
        case (.slot, .keyed):
            frames[index].kind = .keyed
            frames[index].start = bytes.count
            frames[index].firstMember = members.count
            bytes.append(UInt8(ascii: "{"))
        case (.slot, .unkeyed):
            frames[index].kind = .unkeyed
            frames[index].start = bytes.count
            bytes.append(UInt8(ascii: "["))
        case (.slot, .single):
            frames[index].kind = .single
        case (.keyed, .keyed), (.unkeyed, .unkeyed):
            break
        default:
            fallBack = true
        }
        return id
    }

    // MARK: Writing into containers

    /// Starts a member of keyed frame `id`: writes `"key":` and records it. Returns false when
    /// the encoding falls back.
    func beginMember(of id: Int, key: String) -> Bool {
        guard let index = activate(id), frames[index].kind == .keyed else {
            fallBack = true
            return false
        }
        if members.count > frames[index].firstMember { bytes.append(UInt8(ascii: ",")) }
        let start = bytes.count
        let elidedBefore = elided
        var key = key
        let (plain, ascii) = key.withUTF8 { utf8 in
            var plain = true, ascii = true
            for byte in utf8 {
                if byte >= 0x80 { ascii = false }
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { plain = false }
            }
            return (plain, ascii)
        }
        writeString(key)
        keys.append(key)
        members.append(Member(keyIndex: keys.count - 1, start: start, end: start, keyEnd: bytes.count - 1,
                              plainKey: plain && elided == elidedBefore, asciiKey: ascii))
        bytes.append(UInt8(ascii: ":"))
        return true
    }

    /// Ends the member begun last in keyed frame `id`, once everything above it is closed.
    func endMember(of id: Int) {
        guard activate(id) != nil else { return }
        members[members.count - 1].end = bytes.count
    }

    /// Starts an element of unkeyed frame `id` (its comma). Returns the element's index, or nil
    /// when the encoding falls back.
    func beginElement(of id: Int) -> Int? {
        guard let index = activate(id), frames[index].kind == .unkeyed else {
            fallBack = true
            return nil
        }
        if frames[index].count > 0 { bytes.append(UInt8(ascii: ",")) }
        frames[index].count += 1
        return frames[index].count - 1
    }

    func count(of id: Int) -> Int {
        frames.last(where: { $0.id == id })?.count ?? 0
    }

    /// Claims single-value frame `id` for its one value. Returns false when the encoding falls
    /// back (a second value, or the frame closed).
    func beginSingle(_ id: Int) -> Bool {
        guard let index = activate(id), frames[index].kind == .single else {
            fallBack = true
            return false
        }
        frames[index].kind = .written
        return true
    }

    /// Opens a nested container as the value now being written.
    func openNested(_ kind: Kind, key: (any CodingKey)?) -> Int {
        let id = push(.slot, key: key)
        return container(kind, in: id)
    }

    /// Opens a slot for a value an `Encoder` will be handed for (a super encoder).
    func openSlot(key: (any CodingKey)?) -> Int {
        push(.slot, key: key)
    }

    // MARK: Values

    /// Writes `value` at the current position; `key` names it in coding paths.
    func encodeValue<T: Encodable>(_ value: T, at key: (any CodingKey)?) throws {
        if T.self == String.self {
            writeString(unsafeBitCast(value, to: String.self))
        } else if T.self == Int.self {
            writeInteger(unsafeBitCast(value, to: Int.self))
        } else if T.self == Double.self {
            let double = unsafeBitCast(value, to: Double.self)
            guard double.isFinite else { throw invalid(double, in: frames.last?.id ?? -1, at: key) }
            writeFloat(double)
        } else if T.self == Bool.self {
            writeBool(unsafeBitCast(value, to: Bool.self))
        } else if T.self == Data.self {
            writeString((value as! Data).base64EncodedString())
        } else if T.self == URL.self {
            writeString((value as! URL).absoluteString)
        } else if T.self == Decimal.self {
            throw abandon()
        } else {
            let depth = frames.count
            let id = push(.slot, key: key)
            try value.encode(to: DirectEncoder(writer: self, frame: id))
            guard !fallBack else { throw FallBack() }
            closeFrames(above: depth - 1)
            guard !fallBack else { throw FallBack() }
        }
    }

    func writeNull() {
        bytes.append("null")
    }

    func writeBool(_ value: Bool) {
        if value {
            bytes.append("true")
        } else {
            bytes.append("false")
        }
    }

    func writeInteger<I: BinaryInteger>(_ value: I) {
        // Every width but the 128-bit ones (which fall back) fits 64 bits.
        bytes.write(upTo: 21) { out in
            if value < 0 {
                out[0] = UInt8(ascii: "-")
                return 1 + JSONLine.digits(Int64(value).magnitude, to: out + 1)
            }
            return JSONLine.digits(UInt64(value), to: out)
        }
    }

    /// A finite number as its shortest round-trip text without a trailing `.0`, as
    /// `JSONEncoder` writes it.
    func writeFloat<F: BinaryFloatingPoint & LosslessStringConvertible>(_ value: F) {
        var text = value.description
        text.withUTF8 { utf8 in
            var count = utf8.count
            if count >= 2, utf8[count - 2] == UInt8(ascii: "."), utf8[count - 1] == UInt8(ascii: "0") {
                count -= 2
            }
            bytes.append(UnsafeBufferPointer(rebasing: utf8[..<count]))
        }
    }

    /// `string` as a JSON string: quotes, backslashes and C0 controls escaped, nothing else.
    func writeString(_ string: String) {
        var string = string
        // Its UTF-8 is at most what it takes escaped: a string that may pass the limit is measured.
        if bytes.count + string.utf8.count + 2 > limit {
            let size = Self.escapedSize(&string)
            if bytes.count + size > limit {
                bytes.append("\"\"")
                elided += size - 2
                return
            }
        }
        string.withUTF8 { utf8 in
            // One scan for the first byte to escape; none (the common case): one copy.
            var first = 0
            while first < utf8.count, !Self.escaped(utf8[first]) { first += 1 }
            bytes.write(upTo: first == utf8.count ? utf8.count + 2 : Self.escapedSize(utf8)) { out in
                out[0] = UInt8(ascii: "\"")
                if let source = utf8.baseAddress { (out + 1).update(from: source, count: first) }
                var written = 1 + first
                for index in first..<utf8.count {
                    let byte = utf8[index]
                    guard Self.escaped(byte) else {
                        out[written] = byte
                        written += 1
                        continue
                    }
                    out[written] = UInt8(ascii: "\\")
                    switch byte {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"): out[written + 1] = byte
                    case 0x08: out[written + 1] = UInt8(ascii: "b")
                    case 0x09: out[written + 1] = UInt8(ascii: "t")
                    case 0x0A: out[written + 1] = UInt8(ascii: "n")
                    case 0x0C: out[written + 1] = UInt8(ascii: "f")
                    case 0x0D: out[written + 1] = UInt8(ascii: "r")
                    default:
                        // \u00XX with lower-case hex digits; the high digit is 0 or 1.
                        let low = byte & 0xF
                        out[written + 1] = UInt8(ascii: "u")
                        out[written + 2] = UInt8(ascii: "0")
                        out[written + 3] = UInt8(ascii: "0")
                        out[written + 4] = UInt8(ascii: "0") + (byte >> 4)
                        out[written + 5] = low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10
                        written += 4
                    }
                    written += 2
                }
                out[written] = UInt8(ascii: "\"")
                return written + 1
            }
        }
    }

    /// Whether `writeString` escapes `byte`: a quote, a backslash or a C0 control.
    @inline(__always)
    private static func escaped(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// The bytes `writeString` writes for `string`, quotes included.
    static func escapedSize(_ string: inout String) -> Int {
        string.withUTF8 { escapedSize($0) }
    }

    /// The bytes `writeString` writes for a string of this UTF-8, quotes included.
    static func escapedSize(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        var size = utf8.count + 2
        for byte in utf8 where escaped(byte) {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x08, 0x09, 0x0A, 0x0C, 0x0D: size += 1
            default: size += 5
            }
        }
        return size
    }
}

/// The `Encoder` handed to a value: the writer and the frame of the value's slot.
private struct DirectEncoder: Encoder {
    let writer: DirectJSONWriter
    let frame: Int

    var codingPath: [any CodingKey] { writer.codingPath(upTo: frame) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(DirectKeyedContainer<Key>(writer: writer, frame: writer.container(.keyed, in: frame)))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        DirectUnkeyedContainer(writer: writer, frame: writer.container(.unkeyed, in: frame))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        DirectSingleContainer(writer: writer, frame: writer.container(.single, in: frame))
    }
}

private struct DirectKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: DirectJSONWriter
    let frame: Int

    var codingPath: [any CodingKey] { writer.codingPath(upTo: frame) }

    /// Writes one member through `body`, which writes the value.
    @inline(__always)
    private func member(_ key: Key, _ body: () throws -> Void) throws {
        guard writer.beginMember(of: frame, key: key.stringValue) else { throw writer.abandon() }
        try body()
        writer.endMember(of: frame)
        if writer.fallBack { throw writer.abandon() }
    }

    mutating func encodeNil(forKey key: Key) throws { try member(key) { writer.writeNull() } }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try member(key) { writer.writeBool(value) } }
    mutating func encode(_ value: String, forKey key: Key) throws { try member(key) { writer.writeString(value) } }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        guard value.isFinite else { throw writer.invalid(value, in: frame, at: key) }
        try member(key) { writer.writeFloat(value) }
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        guard value.isFinite else { throw writer.invalid(value, in: frame, at: key) }
        try member(key) { writer.writeFloat(value) }
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { try member(key) { writer.writeInteger(value) } }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try member(key) { writer.writeInteger(value) } }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try member(key) { writer.writeInteger(value) } }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try member(key) { writer.writeInteger(value) } }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try member(key) { writer.writeInteger(value) } }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try member(key) { writer.writeInteger(value) } }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try member(key) { writer.writeInteger(value) } }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try member(key) { writer.writeInteger(value) } }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try member(key) { writer.writeInteger(value) } }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try member(key) { writer.writeInteger(value) } }
    @available(macOS 15.0, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws { throw writer.abandon() }
    @available(macOS 15.0, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws { throw writer.abandon() }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try member(key) { try writer.encodeValue(value, at: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = writer.beginMember(of: frame, key: key.stringValue) ? writer.openNested(.keyed, key: key) : frame
        return KeyedEncodingContainer(DirectKeyedContainer<NestedKey>(writer: writer, frame: nested))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = writer.beginMember(of: frame, key: key.stringValue) ? writer.openNested(.unkeyed, key: key) : frame
        return DirectUnkeyedContainer(writer: writer, frame: nested)
    }

    mutating func superEncoder() -> any Encoder {
        let key = IndexKeyOrString.superKey
        let slot = writer.beginMember(of: frame, key: key.stringValue) ? writer.openSlot(key: key) : frame
        return DirectEncoder(writer: writer, frame: slot)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let slot = writer.beginMember(of: frame, key: key.stringValue) ? writer.openSlot(key: key) : frame
        return DirectEncoder(writer: writer, frame: slot)
    }
}

/// The key `JSONEncoder` gives a keyed container's default super encoder.
private struct IndexKeyOrString: CodingKey {
    static let superKey = IndexKeyOrString(stringValue: "super")
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

private struct DirectUnkeyedContainer: UnkeyedEncodingContainer {
    let writer: DirectJSONWriter
    let frame: Int

    var codingPath: [any CodingKey] { writer.codingPath(upTo: frame) }
    var count: Int { writer.count(of: frame) }

    /// Writes one element through `body`, which writes the value and gets the element's index.
    @inline(__always)
    private func element(_ body: (Int) throws -> Void) throws {
        guard let index = writer.beginElement(of: frame) else { throw writer.abandon() }
        try body(index)
        if writer.fallBack { throw writer.abandon() }
    }

    mutating func encodeNil() throws { try element { _ in writer.writeNull() } }
    mutating func encode(_ value: Bool) throws { try element { _ in writer.writeBool(value) } }
    mutating func encode(_ value: String) throws { try element { _ in writer.writeString(value) } }
    mutating func encode(_ value: Double) throws { try checkFinite(value); try element { _ in writer.writeFloat(value) } }
    mutating func encode(_ value: Float) throws { try checkFinite(value); try element { _ in writer.writeFloat(value) } }
    mutating func encode(_ value: Int) throws { try element { _ in writer.writeInteger(value) } }
    mutating func encode(_ value: Int8) throws { try element { _ in writer.writeInteger(value) } }
    mutating func encode(_ value: Int16) throws { try element { _ in writer.writeInteger(value) } }
    mutating func encode(_ value: Int32) throws { try element { _ in writer.writeInteger(value) } }
    mutating func encode(_ value: Int64) throws { try element { _ in writer.writeInteger(value) } }
    mutating func encode(_ value: UInt) throws { try element { _ in writer.writeInteger(value) } }
    mutating func encode(_ value: UInt8) throws { try element { _ in writer.writeInteger(value) } }
    mutating func encode(_ value: UInt16) throws { try element { _ in writer.writeInteger(value) } }
    mutating func encode(_ value: UInt32) throws { try element { _ in writer.writeInteger(value) } }
    mutating func encode(_ value: UInt64) throws { try element { _ in writer.writeInteger(value) } }
    @available(macOS 15.0, *)
    mutating func encode(_ value: Int128) throws { throw writer.abandon() }
    @available(macOS 15.0, *)
    mutating func encode(_ value: UInt128) throws { throw writer.abandon() }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try element { try writer.encodeValue(value, at: IndexKey(index: $0)) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = writer.beginElement(of: frame).map { writer.openNested(.keyed, key: IndexKey(index: $0)) } ?? frame
        return KeyedEncodingContainer(DirectKeyedContainer<NestedKey>(writer: writer, frame: nested))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = writer.beginElement(of: frame).map { writer.openNested(.unkeyed, key: IndexKey(index: $0)) } ?? frame
        return DirectUnkeyedContainer(writer: writer, frame: nested)
    }

    mutating func superEncoder() -> any Encoder {
        let slot = writer.beginElement(of: frame).map { writer.openSlot(key: IndexKey(index: $0)) } ?? frame
        return DirectEncoder(writer: writer, frame: slot)
    }

    private func checkFinite<F: BinaryFloatingPoint>(_ value: F) throws {
        guard !value.isFinite else { return }
        throw writer.invalid(value, in: frame, at: IndexKey(index: count))
    }
}

private struct DirectSingleContainer: SingleValueEncodingContainer {
    let writer: DirectJSONWriter
    let frame: Int

    var codingPath: [any CodingKey] { writer.codingPath(upTo: frame) }

    @inline(__always)
    private func value(_ body: () throws -> Void) throws {
        guard writer.beginSingle(frame) else { throw writer.abandon() }
        try body()
        if writer.fallBack { throw writer.abandon() }
    }

    mutating func encodeNil() throws { try value { writer.writeNull() } }
    mutating func encode(_ value: Bool) throws { try self.value { writer.writeBool(value) } }
    mutating func encode(_ value: String) throws { try self.value { writer.writeString(value) } }
    mutating func encode(_ value: Double) throws { try checkFinite(value); try self.value { writer.writeFloat(value) } }
    mutating func encode(_ value: Float) throws { try checkFinite(value); try self.value { writer.writeFloat(value) } }
    mutating func encode(_ value: Int) throws { try self.value { writer.writeInteger(value) } }
    mutating func encode(_ value: Int8) throws { try self.value { writer.writeInteger(value) } }
    mutating func encode(_ value: Int16) throws { try self.value { writer.writeInteger(value) } }
    mutating func encode(_ value: Int32) throws { try self.value { writer.writeInteger(value) } }
    mutating func encode(_ value: Int64) throws { try self.value { writer.writeInteger(value) } }
    mutating func encode(_ value: UInt) throws { try self.value { writer.writeInteger(value) } }
    mutating func encode(_ value: UInt8) throws { try self.value { writer.writeInteger(value) } }
    mutating func encode(_ value: UInt16) throws { try self.value { writer.writeInteger(value) } }
    mutating func encode(_ value: UInt32) throws { try self.value { writer.writeInteger(value) } }
    mutating func encode(_ value: UInt64) throws { try self.value { writer.writeInteger(value) } }
    @available(macOS 15.0, *)
    mutating func encode(_ value: Int128) throws { throw writer.abandon() }
    @available(macOS 15.0, *)
    mutating func encode(_ value: UInt128) throws { throw writer.abandon() }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try self.value { try writer.encodeValue(value, at: nil) }
    }

    private func checkFinite<F: BinaryFloatingPoint>(_ value: F) throws {
        guard !value.isFinite else { return }
        throw writer.invalid(value, in: frame, at: nil)
    }
}
