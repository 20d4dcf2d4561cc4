import Foundation
import TraceLog

/// An in-memory recorder's binary events, in the order recorded, each in an aligned slot of
/// blocks of `blockSize`: appending one is a room check and a store, where appending it to the
/// byte buffer took a marker, an unaligned copy and the array's uniqueness and growth checks,
/// and a full block is never copied (growing one block by `realloc` copied every event
/// recorded so far at each doubling). The byte buffer keeps the JSON lines and, in front of
/// each, a run entry (`runMarker` and a count) saying how many stored events come before it
/// since the last entry, so the events and lines keep their order. Guarded by the
/// recorder's lock.
struct StoredEvents {
    /// The byte in front of a run entry in the buffer (a JSON line begins with `{`, a binary
    /// event with `BinaryEvent.marker`).
    static let runMarker: UInt8 = 0x02
    /// The bytes a run entry takes: its marker and the run's length.
    static let runEntrySize = 1 + MemoryLayout<Int>.size
    /// Events a block holds (256 KiB of them).
    static let blockSize = 4096

    private var blocks: [UnsafeMutablePointer<BinaryEvent>] = []
    /// Where the next event goes, and the room left in its block.
    private var slot: UnsafeMutablePointer<BinaryEvent>?
    private var room = 0
    private(set) var count = 0
    /// The events a run entry in the buffer already stands for.
    private var noted = 0
    /// Events whose line writes a cause, and integer values unlike the one before that the
    /// result `Trace` keeps in its table (`Trace.integerNeedsTable`): what it reserves room
    /// for (at least as many as the distinct integers it will hold).
    private(set) var causes = 0
    private(set) var integerChanges = 0
    private var lastInteger: Int64?

    @inline(__always) mutating func append(_ event: BinaryEvent) {
        if room == 0 { addBlock() }
        let slot = self.slot.unsafelyUnwrapped
        slot.initialize(to: event)
        self.slot = slot + 1
        room &-= 1
        count &+= 1
        if event.writtenCause != 0 { causes &+= 1 }
        if event.hasInteger, event.integer != lastInteger, Trace.integerNeedsTable(event.integer) {
            integerChanges &+= 1
            lastInteger = event.integer
        }
    }

    @inline(never) private mutating func addBlock() {
        let block = UnsafeMutablePointer<BinaryEvent>.allocate(capacity: Self.blockSize)
        blocks.append(block)
        slot = block
        room = Self.blockSize
    }

    /// The event at `index` (below `count`).
    subscript(index: Int) -> BinaryEvent {
        blocks[index / Self.blockSize][index % Self.blockSize]
    }

    /// Hands the `count` events from `start` on to `body` as the pieces of them each block
    /// holds, in order: where each piece begins and how many events it has.
    func forEachPiece(from start: Int, count: Int, _ body: (UnsafePointer<BinaryEvent>, Int) throws -> Void) rethrows {
        var index = start
        let end = start + count
        while index < end {
            let offset = index % Self.blockSize
            let length = min(Self.blockSize - offset, end - index)
            try body(UnsafePointer(blocks[index / Self.blockSize] + offset), length)
            index += length
        }
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
        for block in blocks { block.deallocate() }
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
