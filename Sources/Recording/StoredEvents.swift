import Foundation
import TraceLog

/// An in-memory recorder's events, placed as they are recorded in the columns a `Trace` holds
/// them in (`TraceEvents`): the trace the recording reads as takes the columns as they are
/// (`RecorderCore.trace(name:)`), where a store of binary records had to be read back, its
/// events checked and copied into the columns one by one (a third of a replay's re-run, and
/// 64 bytes an event of memory first touched, page faults included, on top of the columns').
///
/// The commonest event (an integer value or none, at most one cause) goes straight into the
/// columns; its line is formatted from them when the bytes are asked for. Any other event is
/// written as a line into the byte buffer and scanned from it into the columns, as a reader
/// scans it. The byte buffer keeps the lines; in front of a run of events that have no line it
/// holds a run entry (`runMarker` and a count), and in front of an event's line an
/// `eventLineMarker`, so the events and the other lines keep their order. Guarded by the
/// recorder's lock.
struct StoredEvents {
    /// The byte in front of a run entry in the buffer (a JSON line begins with `{`).
    static let runMarker: UInt8 = 0x02
    /// The byte in front of the line of an event that the columns hold too.
    static let eventLineMarker: UInt8 = 0x03
    /// The bytes a run entry takes: its marker and the run's length.
    static let runEntrySize = 1 + MemoryLayout<Int>.size

    /// The events, nodes, subscriptions and threads at their ids' positions (`id - 1`).
    private(set) var columns = RecordedColumns()
    var count: Int { columns.count }
    /// The events a run entry or an event line in the buffer already stands for.
    private var noted = 0
    /// Cleared when an event's line could not be scanned into the columns (never, for the
    /// lines the recorder writes): the trace is then read from the formatted bytes instead.
    private(set) var columnsAreWhole = true

    /// Makes room for about `count` events.
    mutating func reserve(_ count: Int) { columns.reserve(count) }

    /// Appends the commonest event (see `RecordedColumns.append(sequence:…)`); `event`'s
    /// ids are the recorder's, numbered from 1.
    @inline(__always) mutating func append(_ event: BinaryEvent) {
        columns.append(sequence: event.sequence, time: event.time, node: Int(event.node &- 1),
                       subscription: Int(event.subscription &- 1), thread: Int(event.thread &- 1),
                       kind: event.eventKind, cause: event.writtenCause, integer: event.hasInteger ? event.integer : nil)
    }

    /// Writes an event's line into `buffer` with `write` (which appends the line, its newline
    /// last), behind the run entry of the events before it and an `eventLineMarker`, and
    /// appends the event to the columns as the line reads.
    mutating func appendLine(in buffer: inout [UInt8], _ write: (inout [UInt8]) -> Void) {
        noteRun(in: &buffer)
        buffer.append(Self.eventLineMarker)
        let start = buffer.count
        write(&buffer)
        let scanned = buffer.withUnsafeBufferPointer { bytes in
            // The line without its newline.
            columns.append(line: UnsafeBufferPointer(rebasing: bytes[start..<max(start, bytes.count - 1)]))
        }
        if scanned {
            noted = count
        } else {
            // Nothing of this event is in the columns: they can no longer stand for the
            // recording's events, and the line is kept as any other line.
            columnsAreWhole = false
            buffer.remove(at: start - 1)
        }
    }

    /// The events placed, every one of them (`count`).
    mutating func placed() -> TraceEvents {
        columns.flush()
        return columns.events
    }

    /// Appends a run entry for the events recorded since the last entry or event line to
    /// `buffer`, if any: called before a line goes into the buffer.
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
        columns.release()
        self = StoredEvents()
    }

    /// Walks `buffer`, a chunk of an in-memory recording, in order: each run entry's length
    /// to `events`, each line (its newline included) to `line`, with whether it is the line
    /// of an event the columns hold.
    static func forEachRun(of buffer: [UInt8], events: (Int) throws -> Void,
                           line: (UnsafeRawBufferPointer, _ isEvent: Bool) throws -> Void) rethrows {
        try buffer.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                if raw[offset] == runMarker {
                    try events(raw.loadUnaligned(fromByteOffset: offset + 1, as: Int.self))
                    offset += runEntrySize
                    continue
                }
                let isEvent = raw[offset] == eventLineMarker
                if isEvent { offset += 1 }
                let newline = memchr(base + offset, Int32(UInt8(ascii: "\n")), raw.count - offset)
                let end = newline.map { base.distance(to: UnsafeRawPointer($0)) + 1 } ?? raw.count
                try line(UnsafeRawBufferPointer(start: base + offset, count: end - offset), isEvent)
                offset = end
            }
        }
    }
}
