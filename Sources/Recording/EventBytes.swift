import Foundation
import Signals
import TraceLog

extension Recorder {
    /// Appends an event record with at most one cause and an integer value or none, the
    /// commonest shape, assembled on the stack and appended in one piece: the same bytes as
    /// `writeEventFields`, without an `Array.append` per key.
    func appendEvent(node: UInt64, subscription: UInt64, kind: EventKind, time: Int64, thread: UInt64,
                             cause: UInt64, integer: Int64?) {
        // Seven numbers of at most 20 digits and a minus sign each, and under 130 bytes of keys.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 320) { scratch in
            var out = EventBytes(scratch.baseAddress!)
            out.literal("{\"type\":\"event\",\"seq\":")
            out.number(sequence)
            out.literal(",\"time\":")
            out.signed(time)
            out.literal(",\"node\":")
            out.number(node)
            out.literal(",\"sub\":")
            out.number(subscription)
            switch kind {
            case .value: out.literal(",\"kind\":\"value\",\"thread\":")
            case .failed: out.literal(",\"kind\":\"failed\",\"thread\":")
            case .completed: out.literal(",\"kind\":\"completed\",\"thread\":")
            case .interrupted: out.literal(",\"kind\":\"interrupted\",\"thread\":")
            }
            out.number(thread)
            out.literal(",\"causes\":[")
            // As `causesField`: a cause not below this event's number is left over from an earlier recording.
            if cause != 0 && cause < sequence { out.number(cause) }
            out.literal("]")
            if let integer {
                out.literal(",\"text\":\"")
                out.signed(integer)
                out.literal("\",\"json\":")
                out.signed(integer)
            }
            out.literal("}\n")
            buffer.append(contentsOf: UnsafeBufferPointer(start: scratch.baseAddress, count: out.count(from: scratch.baseAddress!)))
        }
        appended()
    }
}

/// Writes ASCII into memory the caller sized: the recorder's event fast path.
struct EventBytes {
    private var cursor: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) { cursor = start }

    /// Bytes written since `start`.
    func count(from start: UnsafeMutablePointer<UInt8>) -> Int { cursor - start }

    /// A literal of two or more characters (always stored as a pointer to its UTF-8).
    @inline(__always) mutating func literal(_ text: StaticString) {
        let length = text.utf8CodeUnitCount
        cursor.update(from: text.utf8Start, count: length)
        cursor += length
    }

    @inline(__always) mutating func number(_ value: UInt64) {
        cursor += JSONLine.digits(value, to: cursor)
    }

    @inline(__always) mutating func signed(_ value: Int64) {
        if value < 0 {
            cursor.pointee = UInt8(ascii: "-")
            cursor += 1
        }
        number(value.magnitude)
    }
}
