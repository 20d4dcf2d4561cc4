import CChecksum

/// The constants of the binary encoding (FORMAT.md, "The binary encoding"), shared by its
/// writer (`BinaryTraceEncoder`) and its reader (`BinaryTraceDecoder`).
package enum BinaryTraceFormat {
    /// The first eight bytes of every binary trace. The first cannot begin a JSON Lines trace.
    package static let magic: [UInt8] = [0x89, 0x4D, 0x52, 0x42, 0x0D, 0x0A, 0x1A, 0x0A]
    /// The encoding's own version (not the trace model's, which the header carries). 2: chunks
    /// are checksummed with CRC-32C (`Checksum.crc32c`), not CRC-32, a change a reader of 1.x
    /// could only take for corruption: so a new major, which such a reader refuses as newer.
    package static let major: UInt16 = 2
    /// Since 1.1 an event's value may be inline (`EventFlag.inlineValue`).
    package static let minor: UInt16 = 0
    /// Magic and version.
    package static let preambleLength = 12
    /// Kind, length; then payload; then the checksum.
    package static let chunkHeaderLength = 8
    package static let checksumLength = 4
    /// No chunk is longer: a reader must not need unbounded memory for one.
    package static let maxChunkLength = 128 << 20
    /// The fixed part of an event record, its tag not counted.
    package static let eventLength = 66

    /// The conventional file extension of a binary trace.
    package static let fileExtension = "mtrace"

    /// A chunk's kind: four ASCII letters, read as one little-endian `u32`.
    package enum Kind: UInt32 {
        case header = 0x4441_4548 // "HEAD"
        case strings = 0x5352_5453 // "STRS"
        case records = 0x5343_4552 // "RECS"
        case summary = 0x4D4D_5553 // "SUMM"
    }

    /// The kind's four letters, for messages; other bytes as `\xNN`.
    package static func name(ofKind kind: UInt32) -> String {
        (0..<4).map { shift -> String in
            let byte = UInt8(truncatingIfNeeded: kind >> (8 * UInt32(shift)))
            if (0x20...0x7E).contains(byte) { return String(UnicodeScalar(byte)) }
            let hex = String(byte, radix: 16, uppercase: true)
            return "\\x" + (hex.count == 1 ? "0" : "") + hex
        }.joined()
    }

    /// The tags of the records in a `RECS` chunk.
    package enum Tag: UInt8 {
        case node = 1, subscribe, dispose, thread, event, hop, mark, label
    }

    /// The flags of an event record.
    package enum EventFlag {
        package static let truncated: UInt8 = 1 << 0
        package static let integer: UInt8 = 1 << 1
        package static let moreCauses: UInt8 = 1 << 2
        package static let omitted: UInt8 = 1 << 3
        package static let jsonError: UInt8 = 1 << 4
        /// The value's text and JSON follow the record's other extensions, their byte counts
        /// (plus one, 0 for none) in the `text` and `json` fields: not in the string table,
        /// which so holds only what the code names (nodes, files, labels, schedulers).
        package static let inlineValue: UInt8 = 1 << 5
        package static let all: UInt8 = 0x3F
    }
}

/// A chunk's checksum, which the encoding's major version decides: CRC-32 in 1.x, CRC-32C
/// since 2.0, which x86-64 computes with one instruction per eight bytes (SSE 4.2), where
/// CRC-32's tables made the checksum about half of what reading a binary trace cost.
package enum Checksum: Sendable {
    case crc32
    case crc32c

    /// The checksum of an encoding of major version `major`.
    package init(major: UInt16) { self = major >= 2 ? .crc32c : .crc32 }

    /// The name FORMAT.md gives it, for messages.
    package var name: String {
        switch self {
        case .crc32: "CRC-32"
        case .crc32c: "CRC-32C"
        }
    }

    /// The checksum of `bytes`, continuing from `crc` (the checksum of the bytes before them, 0
    /// to start).
    package func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        switch self {
        case .crc32: CRC32.checksum(bytes, continuing: crc)
        case .crc32c: CRC32C.checksum(bytes, continuing: crc)
        }
    }
}

/// CRC-32C (Castagnoli, as iSCSI and ext4 compute it): the chunk checksum since encoding 2.0,
/// computed in C (`CChecksum`) with the processor's instruction where it has one.
package enum CRC32C {
    /// The checksum of `bytes`, continuing from `crc` (the checksum of the bytes before them, 0
    /// to start).
    package static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        marbles_crc32c(crc, bytes.baseAddress, bytes.count)
    }

    /// The same, computed with tables whatever the processor has: what the instruction is
    /// tested against.
    package static func checksumByTables(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        marbles_crc32c_tables(crc, bytes.baseAddress, bytes.count)
    }

    /// The checksum of `bytes`.
    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}

/// CRC-32 as Ethernet, zlib and PNG compute it (IEEE 802.3, reflected): the chunk checksum of
/// encodings 1.x, which a reader still reads. Eight bytes a step through eight tables
/// of 256 entries ("slicing by 8").
package enum CRC32 {
    /// Table `k` (entries `256 k ..< 256 (k + 1)`) gives the checksum of a byte followed by
    /// `k` zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 != 0 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
            tables[index] = value
        }
        for table in 1..<8 {
            for index in 0..<256 {
                let previous = tables[256 * (table - 1) + index]
                tables[256 * table + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The checksum of `bytes`, continuing from `crc` (the checksum of the bytes before them, 0
    /// to start).
    package static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        var value = ~crc
        tables.withUnsafeBufferPointer { table in
            var position = 0
            let count = bytes.count
            while position + 8 <= count {
                let low = value ^ UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self))
                let high = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: position + 4, as: UInt32.self))
                value = table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                position += 8
            }
            while position < count {
                value = table[Int((value ^ UInt32(bytes[position])) & 0xFF)] ^ (value >> 8)
                position += 1
            }
        }
        return ~value
    }

    /// The checksum of `bytes`.
    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}
