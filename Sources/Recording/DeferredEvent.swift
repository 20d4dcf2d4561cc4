import Foundation
import Signals
import TraceLog

/// An event of a live recording to a file that does not take its thread's ring (the first a
/// thread sends for a subscription, one with several causes) as the shared buffer keeps it:
/// its fields, its causes, and its value copied into memory of its own with its type, for the
/// writer thread to format, as it formats a ring event's. So the sending thread formats no
/// value, whichever way its event goes.
///
/// In the buffer: `marker`, the `BinaryEvent` (its cause the primary one), the value as a
/// `CapturedValue` that holds it in memory of its own (so the bytes can move with the buffer),
/// the number of further causes, then those causes. The writer takes the value once, when it
/// writes the event (`take(at:)`, `WriterOutput`), and a buffer dropped unwritten lets go of its
/// values (`discardValues(in:)`).
enum DeferredEvent {
    /// The byte in front of a deferred event in the shared buffer (a JSON line begins with `{`,
    /// a binary event with `BinaryEvent.marker`).
    static let marker: UInt8 = 0x04

    private static let eventOffset = 1
    private static let valueOffset = eventOffset + MemoryLayout<BinaryEvent>.size
    private static let countOffset = valueOffset + MemoryLayout<CapturedValue>.size
    private static let causesOffset = countOffset + 8

    /// Appends the event and a copy of `value` (if any) to `buffer`.
    static func append<Value>(_ event: BinaryEvent, value: UnsafePointer<Value>?, others: [UInt64],
                              to buffer: inout [UInt8]) {
        let captured = value.map(CapturedValue.boxing) ?? CapturedValue()
        let size = causesOffset + others.count * 8
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: size) { entry in
            let raw = UnsafeMutableRawPointer(entry.baseAddress!)
            raw.storeBytes(of: marker, as: UInt8.self)
            raw.storeBytes(of: event, toByteOffset: eventOffset, as: BinaryEvent.self)
            raw.storeBytes(of: captured, toByteOffset: valueOffset, as: CapturedValue.self)
            raw.storeBytes(of: UInt64(others.count), toByteOffset: countOffset, as: UInt64.self)
            for (index, cause) in others.enumerated() {
                raw.storeBytes(of: cause, toByteOffset: causesOffset + index * 8, as: UInt64.self)
            }
            buffer.append(contentsOf: UnsafeBufferPointer(start: entry.baseAddress, count: size))
        }
    }

    /// The deferred event whose marker is at `entry`: its fields, its value (taken) and its
    /// causes after its own.
    static func take(at entry: UnsafeRawPointer) -> (BinaryEvent, CapturedValue.Taken, [UInt64]) {
        let event = entry.loadUnaligned(fromByteOffset: eventOffset, as: BinaryEvent.self)
        let count = Int(entry.loadUnaligned(fromByteOffset: countOffset, as: UInt64.self))
        let others = (0..<count).map { entry.loadUnaligned(fromByteOffset: causesOffset + $0 * 8, as: UInt64.self) }
        return (event, takeValue(at: entry), others)
    }

    /// The bytes the deferred event whose marker is at `entry` takes.
    static func size(at entry: UnsafeRawPointer) -> Int {
        causesOffset + 8 * Int(entry.loadUnaligned(fromByteOffset: countOffset, as: UInt64.self))
    }

    /// Lets go of the values of the deferred events, and of the boxed records, among the
    /// records in `raw` (a buffer dropped without being written).
    static func discardValues(in raw: UnsafeRawBufferPointer) {
        BufferEntry.forEach(in: raw) { entry in
            switch entry {
            case let .deferred(at):
                var captured = at.loadUnaligned(fromByteOffset: valueOffset, as: CapturedValue.self)
                CapturedValue.discard(&captured)
            case let .boxed(at):
                _ = BoxedRecord.take(at)
            case .binary, .plain, .line:
                break
            }
        }
    }

    /// Moves the value out of the deferred event at `entry` (its marker) and frees its copy.
    private static func takeValue(at entry: UnsafeRawPointer) -> CapturedValue.Taken {
        var captured = entry.loadUnaligned(fromByteOffset: valueOffset, as: CapturedValue.self)
        return CapturedValue.take(from: &captured)
    }
}

/// A record of a recorder's shared buffer, as `forEach(in:)` hands them over in order: a
/// binary event (`BinaryEvent.marker`), a deferred event (`DeferredEvent.marker`), a boxed
/// record (`BoxedRecord.marker`) or a plain one (`PlainRecord.marker`), each by the address of
/// its marker, or a JSON line, its newline
/// included. The one walk of the buffer's record kinds, for the writer and for a buffer dropped
/// unwritten.
enum BufferEntry {
    case binary(BinaryEvent)
    case deferred(UnsafeRawPointer)
    case boxed(UnsafeRawPointer)
    case plain(UnsafeRawPointer)
    case line(UnsafeRawBufferPointer)

    /// Calls `body` with each record of `raw`, in order.
    static func forEach(in raw: UnsafeRawBufferPointer, _ body: (BufferEntry) -> Void) {
        guard let base = raw.baseAddress else { return }
        var offset = 0
        while offset < raw.count {
            let entry = base + offset
            switch raw[offset] {
            case BinaryEvent.marker:
                body(.binary(entry.loadUnaligned(fromByteOffset: 1, as: BinaryEvent.self)))
                offset += BinaryEvent.entrySize
            case DeferredEvent.marker:
                // Its size is read before `body` takes its value.
                let size = DeferredEvent.size(at: entry)
                body(.deferred(entry))
                offset += size
            case BoxedRecord.marker:
                body(.boxed(entry))
                offset += BoxedRecord.entrySize
            case PlainRecord.marker:
                body(.plain(entry))
                offset += PlainRecord.entrySize
            default:
                let newline = memchr(entry, Int32(UInt8(ascii: "\n")), raw.count - offset)
                let end = newline.map { base.distance(to: UnsafeRawPointer($0)) + 1 } ?? raw.count
                body(.line(UnsafeRawBufferPointer(rebasing: raw[offset..<end])))
                offset = end
            }
        }
    }
}
