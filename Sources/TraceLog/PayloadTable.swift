import Foundation

/// The distinct texts and JSON payloads of a trace's events, numbered 1, 2, 3, … in order of
/// first appearance, found by their UTF-8 bytes: a payload read from a line is looked up
/// without making a `String`, and one is made only for a payload not seen before.
///
/// The digits of an integer exactly as `String(Int64)` writes them (the commonest payload)
/// are kept as the integer and made into a string only when read. An integer from 0 to
/// 2³¹ − 1 is its own number, with `inlineFlag` set (`isInline`): it is never looked up or
/// stored, so a trace of many distinct counters, ids or sums costs no table for them (a
/// lookup in a table of a million integers missed the cache at nearly every event). Either
/// way one payload has one number, so two events carry the same payload exactly when their
/// numbers are equal.
///
/// Two open-addressing tables (linear probing, at most three quarters full) hold numbers:
/// a text's slot is compared with the payload its number names; an integer is kept in its
/// slot beside its number, so a lookup reads no other list. The hashes are seeded per table,
/// so a trace cannot be crafted to make every payload collide; numbering does not depend on
/// them, so what a trace holds is the same run to run.
struct PayloadTable: Sendable {
    /// By number minus one: for an integer, its slot in `integerSlots` with `integerFlag`
    /// set; else the text's position in `strings`.
    private var entries: [UInt32] = []
    private var strings: [String] = []
    /// Numbers by hash, 0 for an empty slot; the counts are powers of two (or zero).
    private var stringSlots: [UInt32] = []
    private var integerSlots: [UInt32] = []
    /// The integer numbered in each slot of `integerSlots` (anything in an empty one).
    private var integerKeys: [Int64] = []
    private var integerCount = 0
    /// 64 minus the binary logarithm of the count of `integerSlots`: an integer's slot is the
    /// top bits of its hash.
    private var integerShift = 64
    /// The integer numbered last and its number (0: none yet), for a value passed on
    /// unchanged from one event to the next.
    private var lastInteger: Int64 = 0
    private var lastIntegerNumber: UInt32 = 0
    private let seed = UInt64.random(in: .min ... .max)

    private static let integerFlag: UInt32 = 1 << 31
    /// Set in the number of an integer that is its own number (`isInline`); the table's
    /// numbers stay below it.
    private static let inlineFlag: UInt32 = 1 << 31

    /// Whether `integer` is its own payload number (with `inlineFlag`), with no table entry.
    @inline(__always)
    static func isInline(_ integer: Int64) -> Bool {
        UInt64(bitPattern: integer) < UInt64(inlineFlag)
    }

    /// How many payloads the table holds (integers that are their own numbers are not held).
    var count: Int { entries.count }

    /// The payload numbered `number` (0: none).
    func string(_ number: UInt32) -> String? {
        guard number != 0 else { return nil }
        if number & Self.inlineFlag != 0 { return String(number & ~Self.inlineFlag) }
        let entry = entries[Int(number) - 1]
        if entry & Self.integerFlag != 0 { return String(integerKeys[Int(entry & ~Self.integerFlag)]) }
        return strings[Int(entry)]
    }

    /// The integer whose digits the payload numbered `number` is; nil for any other payload
    /// or none (0).
    func integer(_ number: UInt32) -> Int64? {
        guard number != 0 else { return nil }
        if number & Self.inlineFlag != 0 { return Int64(number & ~Self.inlineFlag) }
        let entry = entries[Int(number) - 1]
        return entry & Self.integerFlag != 0 ? integerKeys[Int(entry & ~Self.integerFlag)] : nil
    }

    /// The number of the payload whose UTF-8 bytes are `bytes`, numbering it if it is new.
    mutating func number(of bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        if let integer = Self.integer(writtenAs: bytes) { return number(of: integer) }
        if stringSlots.count * 3 <= strings.count * 4 { growStrings() }
        let hash = Self.hash(bytes, seed: seed)
        let mask = stringSlots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let found = stringSlots[slot]
            if found == 0 { break }
            if Self.equal(strings[Int(entries[Int(found) - 1])], bytes) { return found }
            slot = (slot + 1) & mask
        }
        strings.append(String(decoding: bytes, as: UTF8.self))
        precondition(entries.count < Int(Self.inlineFlag) - 1, "more distinct payloads than a trace can number")
        entries.append(UInt32(strings.count - 1))
        let number = UInt32(entries.count)
        stringSlots[slot] = number
        return number
    }

    /// The number of the payload written as the digits of `integer`, numbering it if it is new.
    @inline(__always)
    mutating func number(of integer: Int64) -> UInt32 {
        if Self.isInline(integer) { return UInt32(truncatingIfNeeded: integer) | Self.inlineFlag }
        return tableNumber(of: integer)
    }

    /// `number(of:)` for an integer that is not its own number: found in the table, or
    /// numbered and added.
    private mutating func tableNumber(of integer: Int64) -> UInt32 {
        if integer == lastInteger, lastIntegerNumber != 0 { return lastIntegerNumber }
        if integerSlots.count * 3 <= integerCount * 4 { growIntegers(to: max(64, integerSlots.count * 2)) }
        let (found, slot) = Self.find(integer, slots: integerSlots, keys: integerKeys,
                                      first: Self.integerSlot(integer, seed: seed, shift: integerShift))
        var number = found
        if number == 0 {
            precondition(entries.count < Int(Self.inlineFlag) - 1, "more distinct payloads than a trace can number")
            entries.append(UInt32(slot) | Self.integerFlag)
            number = UInt32(entries.count)
            integerSlots[slot] = number
            integerKeys[slot] = integer
            integerCount += 1
        }
        lastInteger = integer
        lastIntegerNumber = number
        return number
    }

    /// The first slot to look for `integer` in, of a table of `1 << (64 - shift)` slots: the
    /// top bits of a seeded multiplicative hash (integers that differ in any bit spread over
    /// the table; consecutive ones land apart).
    @inline(__always)
    private static func integerSlot(_ integer: Int64, seed: UInt64, shift: Int) -> Int {
        Int(truncatingIfNeeded: ((UInt64(bitPattern: integer) ^ seed) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }

    /// The number in the slot holding `integer`, probing from `first`, or 0 and the empty slot
    /// where it goes.
    @inline(__always)
    private static func find(_ integer: Int64, slots: [UInt32], keys: [Int64], first: Int) -> (UInt32, Int) {
        slots.withUnsafeBufferPointer { slots in
            keys.withUnsafeBufferPointer { keys in
                let mask = slots.count - 1
                var slot = first
                while true {
                    let found = slots[slot]
                    if found == 0 || keys[slot] == integer { return (found, slot) }
                    slot = (slot + 1) & mask
                }
            }
        }
    }

    /// Makes the integer table `count` slots (a power of two), putting each integer back with
    /// its number and noting its new slot in `entries`.
    private mutating func growIntegers(to count: Int) {
        let shift = 64 - count.trailingZeroBitCount
        let mask = count - 1
        var slots = [UInt32](repeating: 0, count: count)
        // An empty slot's key is never read (its number, 0, says it is empty): not zeroed.
        var keys = [Int64](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
        var entries: [UInt32] = []
        swap(&entries, &self.entries)
        entries.withUnsafeMutableBufferPointer { entries in
            slots.withUnsafeMutableBufferPointer { slots in
                keys.withUnsafeMutableBufferPointer { keys in
                    for (number, integer) in zip(integerSlots, integerKeys) where number != 0 {
                        var slot = Self.integerSlot(integer, seed: seed, shift: shift)
                        while slots[slot] != 0 { slot = (slot + 1) & mask }
                        slots[slot] = number
                        keys[slot] = integer
                        entries[Int(number) - 1] = UInt32(slot) | Self.integerFlag
                    }
                }
            }
        }
        swap(&entries, &self.entries)
        integerSlots = slots
        integerKeys = keys
        integerShift = shift
    }

    /// Doubles the text table (64 slots at first) and puts every text's number back.
    private mutating func growStrings() {
        let count = max(64, stringSlots.count * 2)
        let mask = count - 1
        var grown = [UInt32](repeating: 0, count: count)
        for (index, entry) in entries.enumerated() where entry & Self.integerFlag == 0 {
            var string = strings[Int(entry)]
            let hash = string.withUTF8 { Self.hash($0, seed: seed) }
            var slot = Int(truncatingIfNeeded: hash) & mask
            while grown[slot] != 0 { slot = (slot + 1) & mask }
            grown[slot] = UInt32(index + 1)
        }
        stringSlots = grown
    }

    private static func equal(_ string: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var string = string
        return string.withUTF8 { stored in
            stored.count == bytes.count
                && (bytes.isEmpty || memcmp(stored.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
        }
    }

    /// SplitMix64's finaliser: every bit of the result depends on every bit of `value`.
    private static func mix(_ value: UInt64) -> UInt64 {
        var value = value
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// A seeded hash of bytes, eight at a time.
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>, seed: UInt64) -> UInt64 {
        var hash = seed ^ (UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15)
        guard let base = bytes.baseAddress else { return mix(hash) }
        let raw = UnsafeRawPointer(base)
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = mix(hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        if offset < bytes.count {
            var tail: UInt64 = 0
            for shift in 0..<(bytes.count - offset) {
                tail |= UInt64(base[offset + shift]) << (8 * UInt64(shift))
            }
            hash = mix(hash ^ tail)
        }
        return hash
    }

    /// The integer whose digits `bytes` are exactly (`String(integer)` writes them), else nil:
    /// no sign but a leading minus, no leading zero, no "-0", within `Int64`
    /// (`JSONParser.writtenInteger`, the one recogniser).
    @inline(__always)
    static func integer(writtenAs bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var parser = JSONParser(bytes)
        guard let integer = parser.writtenInteger(), parser.isAtEnd else { return nil }
        return integer
    }
}
