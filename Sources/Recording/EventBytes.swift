import Foundation
import Signals
import TraceLog

/// In a recorder's buffer a `BinaryEvent` follows one `marker` byte, which no JSON line
/// begins with.
extension BinaryEvent {
    /// The byte in front of a binary event in the buffer (a JSON line begins with `{`).
    static let marker: UInt8 = 0x01
    /// The bytes a binary event takes in the buffer, its marker included.
    static let entrySize = 1 + MemoryLayout<BinaryEvent>.size

    /// Appends the event's line, the exact bytes `writeEventFields` writes for it; not
    /// `closed`, without its closing brace and newline, for the caller to add value fields.
    func format(into out: inout [UInt8], closed: Bool = true) {
        // Seven numbers of at most 20 digits and a minus sign each, and under 130 bytes of keys.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 320) { scratch in
            var line = EventBytes(scratch.baseAddress!)
            line.literal("{\"type\":\"event\",\"seq\":")
            line.number(sequence)
            line.literal(",\"time\":")
            line.signed(time)
            line.literal(",\"node\":")
            line.number(node)
            line.literal(",\"sub\":")
            line.number(subscription)
            switch kind {
            case 0: line.literal(",\"kind\":\"value\",\"thread\":")
            case 1: line.literal(",\"kind\":\"failed\",\"thread\":")
            case 2: line.literal(",\"kind\":\"completed\",\"thread\":")
            case 3: line.literal(",\"kind\":\"interrupted\",\"thread\":")
            default: line.literal(",\"kind\":\"pull\",\"thread\":")
            }
            line.number(thread)
            line.literal(",\"causes\":[")
            // As `causesField`: a cause not below this event's number is left over from an earlier recording.
            if writtenCause != 0 { line.number(writtenCause) }
            line.literal("]")
            if hasInteger {
                line.literal(",\"text\":\"")
                line.signed(integer)
                line.literal("\",\"json\":")
                line.signed(integer)
            }
            if closed { line.literal("}\n") }
            out.append(contentsOf: UnsafeBufferPointer(start: scratch.baseAddress, count: line.count(from: scratch.baseAddress!)))
        }
    }

    /// Appends the event's line with `value`, the value a recording kept for it (a thread's
    /// ring, a `DeferredEvent`), and `others`, its causes after this event's own: an `Int` (or
    /// none) with at most one cause as `format(into:)` writes it, anything else formatted here,
    /// on the writer thread, exactly as an event formatted where it was sent reads.
    func format(_ value: CapturedValue.Taken, others: [UInt64] = [], into out: inout [UInt8]) {
        // A binary event's line: no value or an integer, and at most one cause.
        if others.isEmpty, !value.isValue {
            var event = self
            event.integer = value.integer ?? 0
            event.hasInteger = value.integer != nil
            event.format(into: &out)
            return
        }
        // A short string, or any other value with JSON and a short text (not cut), with at most
        // one cause: the binary event's line and the two fields as `FormattedValue` writes
        // them, without a `JSONLine`.
        if others.isEmpty, case let .value(.string(string)) = value, string.utf8.count <= Recorder.maxTextLength {
            formatShort(text: string, into: &out) { JSONLine.appendString(string, to: &$0) }
            return
        }
        if others.isEmpty, case let .value(.other(text, json?, _)) = value, text.utf8.count <= Recorder.maxTextLength {
            formatShort(text: text, into: &out) { out in
                var json = json
                json.withUTF8 { out.append(contentsOf: $0) }
            }
            return
        }
        let formatted: RecorderCore.FormattedValue?
        switch value {
        case .none: formatted = nil
        case let .integer(integer): formatted = .integer(integer)
        case let .value(value): formatted = value
        }
        var line = JSONLine(capacity: 0)
        swap(&line.bytes, &out)
        line.begin()
        line.writeEventFields(sequence: sequence, time: time, node: node, subscription: subscription, kind: eventKind,
                              thread: thread,
                              causes: { $0.causesField(primary: cause, others: others, below: sequence) },
                              value: { line in formatted?.write(to: &line) })
        line.end()
        swap(&line.bytes, &out)
    }
}

extension BinaryEvent {
    /// Appends the event's line with no integer, its `text` field `text` and its `json` field
    /// what `json` appends: a short value's line, with at most one cause.
    private func formatShort(text: String, into out: inout [UInt8], json: (inout [UInt8]) -> Void) {
        var event = self
        event.hasInteger = false
        event.format(into: &out, closed: false)
        JSONLine.appendLiteral(",\"text\":", to: &out)
        JSONLine.appendString(text, to: &out)
        JSONLine.appendLiteral(",\"json\":", to: &out)
        json(&out)
        JSONLine.appendLiteral("}\n", to: &out)
    }
}

extension RecorderCore {
    /// Appends an event record with at most one cause and an integer value or none, the
    /// commonest shape, as a `BinaryEvent`: its line is formatted off the producing thread.
    func appendEvent(sequence: UInt64, node: UInt64, subscription: UInt64, kind: EventKind, time: Int64, thread: UInt64,
                     cause: UInt64, integer: Int64?) {
        let event = BinaryEvent(sequence: sequence, time: time, node: node, subscription: subscription, kind: kind,
                                thread: thread, cause: cause, integer: integer)
        // Marker and event assembled on the stack and appended in one copy.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: BinaryEvent.entrySize) { entry in
            let raw = UnsafeMutableRawPointer(entry.baseAddress!)
            raw.storeBytes(of: BinaryEvent.marker, as: UInt8.self)
            raw.storeBytes(of: event, toByteOffset: 1, as: BinaryEvent.self)
            buffer.append(contentsOf: UnsafeBufferPointer(entry))
        }
        appended(event: sequence)
    }
}

/// Writes ASCII into memory the caller sized: formatting a binary event.
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
