import Foundation
import Signals
import TraceLog

/// What a file recorder's writer thread makes of the records it takes from the shared buffer
/// and the threads' rings: JSON Lines text, or the binary encoding's chunks
/// (`BinaryTraceEncoder`), the same records in the same order either way. The records other
/// than events come as the recorder made them (`BoxedRecord`): written here as lines, or
/// encoded as they are, never written as a line and read back. In the binary encoding nothing
/// is formatted as text but the values themselves: an event's fixed fields are copied into
/// its record as they are.
struct WriterOutput {
    private let writesBinary: Bool
    /// The binary encoder, once the header record has made it; nil when writing JSON Lines.
    private var encoder: BinaryTraceEncoder?
    /// The JSON lines made since the last `take()`.
    private var lines: [UInt8] = []

    /// A new trace in `encoding`: in the binary encoding, the first record taken, the header,
    /// makes the encoder (`records(_:)`).
    init(encoding: TraceEncoding) {
        writesBinary = encoding == .binary
    }

    /// Appends an event taken from a thread's ring or the shared buffer, with its value and
    /// its causes after its own.
    /// Inlined into the ring merge's loop, which calls it for nearly every event.
    @inline(__always)
    mutating func event(_ event: BinaryEvent, value: CapturedValue.Taken, others: [UInt64] = []) {
        guard writesBinary else {
            event.format(value, others: others, into: &lines)
            return
        }
        let encoded: BinaryTraceEncoder.EventValue
        switch value {
        case .none: encoded = .none
        case let .integer(integer): encoded = .integer(integer)
        case let .value(formatted): encoded = formatted.encodedValue
        }
        // The causes as the event's line would carry them (`JSONLine.causesField`).
        let causes = others.isEmpty ? [] : JSONLine.writtenCauses(primary: event.cause, others: others, below: event.sequence)
        encoder?.appendEvent(sequence: event.sequence, time: event.time, node: event.node, subscription: event.subscription,
                             thread: event.thread, kind: event.eventKind,
                             firstCause: others.isEmpty ? event.writtenCause : causes.first ?? 0,
                             otherCauses: causes.dropFirst(), value: encoded)
    }

    /// Appends the records of the shared buffer in `raw`, in order: JSON lines as they are,
    /// binary events (an integer value or none), deferred events (taking their values) and
    /// boxed records (letting go of them).
    mutating func records(_ raw: UnsafeRawBufferPointer) {
        BufferEntry.forEach(in: raw) { entry in
            switch entry {
            case let .binary(binary):
                event(binary, value: binary.hasInteger ? .integer(binary.integer) : .none)
            case let .deferred(at):
                let (binary, value, others) = DeferredEvent.take(at: at)
                event(binary, value: value, others: others)
            case let .boxed(at):
                let record = BoxedRecord.take(at)
                guard writesBinary else {
                    var line = JSONLine(capacity: 0)
                    swap(&line.bytes, &lines)
                    record.write(to: &line)
                    swap(&line.bytes, &lines)
                    return
                }
                if case let .header(header) = record {
                    encoder = BinaryTraceEncoder(header: header)
                } else {
                    encoder?.append(record)
                }
            case let .line(line):
                lines.append(contentsOf: line)
            }
        }
    }

    /// The bytes made since the last call, for the file: whole lines, or whole chunks (the
    /// chunk being filled is ended, so that what was taken is readable after a kill).
    mutating func take() -> [UInt8] {
        if writesBinary {
            encoder?.flush()
            return encoder?.takeBytes() ?? []
        }
        defer { lines.removeAll(keepingCapacity: true) }
        return lines
    }
}

/// A record other than an event (a node, a subscription, a disposal, a hop…) waiting in a
/// live or binary recording's shared buffer, as the recorder made it: one `marker` byte, then
/// the retained address of its box. The writer thread writes its line or encodes it
/// (`WriterOutput.records`), so the producing thread formats nothing; a buffer dropped
/// unwritten lets go of it
/// (`DeferredEvent.discardValues`).
enum BoxedRecord {
    /// The byte in front of a boxed record (see `DeferredEvent.marker` for the others).
    static let marker: UInt8 = 0x05
    static let entrySize = 1 + MemoryLayout<UnsafeRawPointer>.size

    private final class Box {
        let record: TraceRecord
        init(_ record: TraceRecord) { self.record = record }
    }

    static func append(_ record: TraceRecord, to buffer: inout [UInt8]) {
        let address = Unmanaged.passRetained(Box(record)).toOpaque()
        buffer.append(marker)
        withUnsafeBytes(of: address) { buffer.append(contentsOf: $0) }
    }

    /// The record of the entry at `entry` (its marker), letting go of its box.
    static func take(_ entry: UnsafeRawPointer) -> TraceRecord {
        let address = entry.loadUnaligned(fromByteOffset: 1, as: UnsafeMutableRawPointer.self)
        return Unmanaged<Box>.fromOpaque(address).takeRetainedValue().record
    }
}

extension RecorderCore {
    /// The encoding a trace file named as `url` is written in: binary for `*.mtrace`
    /// (FORMAT.md's convention), else JSON Lines.
    static func encoding(named url: URL) -> TraceEncoding {
        url.pathExtension == BinaryTraceFormat.fileExtension ? .binary : .jsonLines
    }
}

extension RecorderCore.FormattedValue {
    /// The value as a binary event record holds it: the fields its JSON line would have
    /// (`write(to:)`), so that the two encodings of a recording convert to each other.
    var encodedValue: BinaryTraceEncoder.EventValue {
        switch self {
        case let .integer(value):
            return .integer(value)
        case let .string(string):
            let (text, truncated) = Self.textField(string)
            let size = string.utf8.count
            guard size <= Recorder.maxJSONLength else {
                return .text(text, truncated: truncated, json: nil, omittedJSONBytes: Int64(size), jsonError: nil)
            }
            return .string(text: text, truncated: truncated, string: string)
        case let .other(text, json, jsonError):
            let (cut, truncated) = Self.textField(text)
            return .text(cut, truncated: truncated, json: json, omittedJSONBytes: 0, jsonError: json == nil ? jsonError : nil)
        case let .omitted(text, size):
            let (cut, truncated) = Self.textField(text)
            return .text(cut, truncated: truncated, json: nil, omittedJSONBytes: Int64(size), jsonError: nil)
        }
    }
}
