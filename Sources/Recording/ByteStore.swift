/// Bytes written one piece after another into room made ahead: what the writer thread's
/// formatting (a description's text, a value's JSON) appends into.
///
/// `Array.append(contentsOf:)` takes about 75 instructions an append whatever the length (its
/// generic steps, a uniqueness and a capacity check), and formatting one struct makes dozens of
/// short appends. Here the array is kept zero-filled to its capacity and the bytes written are
/// counted apart, so an append is a bounds check and a copy into memory already there.
struct ByteStore {
    /// The first `count` bytes are the ones written; the rest is room.
    private var storage: [UInt8]
    /// The bytes written so far.
    private(set) var count = 0

    /// An empty store with room for `capacity` bytes.
    init(capacity: Int) {
        storage = [UInt8](repeating: 0, count: max(capacity, 16))
    }

    /// The bytes the store has room for before it grows.
    var capacity: Int { storage.count }

    /// Makes room for `size` more bytes and hands `body` where they go; `body` writes at most
    /// `size` bytes there and returns how many it wrote.
    @inline(__always)
    mutating func write(upTo size: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        if count + size > storage.count { grow(toHold: count + size) }
        let start = count
        let written = storage.withUnsafeMutableBufferPointer { body($0.baseAddress! + start) }
        precondition(written <= size, "wrote past the room it asked for")
        count += written
    }

    /// Appends `byte`.
    @inline(__always)
    mutating func append(_ byte: UInt8) {
        write(upTo: 1) { out in
            out.pointee = byte
            return 1
        }
    }

    /// Appends `bytes`.
    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        write(upTo: bytes.count) { out in
            out.update(from: source, count: bytes.count)
            return bytes.count
        }
    }

    /// Appends `bytes` from `start` on.
    @inline(__always)
    mutating func append(_ bytes: [UInt8], from start: Int = 0) {
        bytes.withUnsafeBufferPointer { append(UnsafeBufferPointer(rebasing: $0[start...])) }
    }

    /// Appends the UTF-8 of `literal`.
    @inline(__always)
    mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { append($0) }
    }

    /// Appends the UTF-8 of `string`.
    @inline(__always)
    mutating func append(_ string: String) {
        var string = string
        string.withUTF8 { append($0) }
    }

    /// Forgets every byte written, keeping the room.
    mutating func removeAll() {
        count = 0
    }

    /// Calls `body` with the bytes written.
    func withUnsafeBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        let count = count
        return try storage.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[..<count])) }
    }

    /// Calls `body` with the bytes written, to change them in place.
    mutating func withUnsafeMutableBytes<Result>(_ body: (UnsafeMutableBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        let count = count
        return try storage.withUnsafeMutableBufferPointer { try body(UnsafeMutableBufferPointer(rebasing: $0[..<count])) }
    }

    /// The bytes written, as text (they are UTF-8).
    var string: String { withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }

    /// Makes room for at least `size` bytes, doubling.
    private mutating func grow(toHold size: Int) {
        storage.append(contentsOf: repeatElement(0, count: max(size, 2 * storage.count) - storage.count))
    }
}
