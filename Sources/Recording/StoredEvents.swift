import Foundation
import TraceLog

/// An in-memory recorder's binary events, in the order recorded, each in an aligned slot of
/// one growing block: appending one is a capacity check and a store, where appending it to
/// the byte buffer took a marker, an unaligned copy and the array's uniqueness and growth
/// checks. The byte buffer keeps the JSON lines and, in front of each, a run entry
/// (`runMarker` and a count) saying how many stored events come before it since the last
/// entry, so the events and lines keep their order. Guarded by the recorder's lock.
struct StoredEvents {
    /// The byte in front of a run entry in the buffer (a JSON line begins with `{`, a binary
    /// event with `BinaryEvent.marker`).
    static let runMarker: UInt8 = 0x02
    /// The bytes a run entry takes: its marker and the run's length.
    static let runEntrySize = 1 + MemoryLayout<Int>.size

    private(set) var base: UnsafeMutablePointer<BinaryEvent>?
    private(set) var count = 0
    private var capacity = 0
    /// The events a run entry in the buffer already stands for.
    private var noted = 0
    /// Events whose line writes a cause, and integer values unlike the one before: what the
    /// result `Trace` reserves room for (at least as many as the distinct integers).
    private(set) var causes = 0
    private(set) var integerChanges = 0
    private var lastInteger: Int64?

    @inline(__always) mutating func append(_ event: BinaryEvent) {
        if count == capacity { grow() }
        (base.unsafelyUnwrapped + count).initialize(to: event)
        count &+= 1
        if event.writtenCause != 0 { causes &+= 1 }
        if event.hasInteger, event.integer != lastInteger {
            integerChanges &+= 1
            lastInteger = event.integer
        }
    }

    @inline(never) private mutating func grow() {
        let grown = max(1024, capacity * 2)
        guard let block = realloc(base, grown * MemoryLayout<BinaryEvent>.stride) else {
            fatalError("out of memory for \(grown) recorded events")
        }
        base = block.bindMemory(to: BinaryEvent.self, capacity: grown)
        capacity = grown
    }

    /// Appends a run entry for the events recorded since the last one to `buffer`, if any:
    /// called before a line goes into the buffer.
    @inline(__always) mutating func noteRun(in buffer: inout [UInt8]) {
        guard count > noted else { return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.runEntrySize) { entry in
            let raw = UnsafeMutableRawPointer(entry.baseAddress!)
            raw.storeBytes(of: Self.runMarker, as: UInt8.self)
            raw.storeBytes(of: count - noted, toByteOffset: 1, as: Int.self)
            buffer.append(contentsOf: UnsafeBufferPointer(entry))
        }
        noted = count
    }

    /// Lets go of the events.
    mutating func release() {
        free(base)
        self = StoredEvents()
    }

    /// Walks `buffer`, a chunk of an in-memory recording, in order: each run entry's length
    /// to `events`, each JSON line (its newline included) to `line`.
    static func forEachRun(of buffer: [UInt8], events: (Int) throws -> Void,
                           line: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        try buffer.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                if raw[offset] == runMarker {
                    try events(raw.loadUnaligned(fromByteOffset: offset + 1, as: Int.self))
                    offset += runEntrySize
                } else {
                    let newline = memchr(base + offset, Int32(UInt8(ascii: "\n")), raw.count - offset)
                    let end = newline.map { base.distance(to: UnsafeRawPointer($0)) + 1 } ?? raw.count
                    try line(UnsafeRawBufferPointer(start: base + offset, count: end - offset))
                    offset = end
                }
            }
        }
    }
}
