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
    /// binary events (an integer value or none), deferred events (taking their values), boxed
    /// records (letting go of them) and plain ones.
    mutating func records(_ raw: UnsafeRawBufferPointer) {
        BufferEntry.forEach(in: raw) { entry in
            switch entry {
            case let .binary(binary):
                event(binary, value: binary.hasInteger ? .integer(binary.integer) : .none)
            case let .deferred(at):
                let (binary, value, others) = DeferredEvent.take(at: at)
                event(binary, value: value, others: others)
            case let .boxed(at):
                record(BoxedRecord.take(at))
            case let .plain(at):
                record(PlainRecord.read(at))
            case let .line(line):
                lines.append(contentsOf: line)
            }
        }
    }

    /// Appends a record other than an event: its line, or its encoding (the header makes the
    /// binary encoder).
    private mutating func record(_ record: TraceRecord) {
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

/// A subscription or a disposal waiting in a live or binary recording's shared buffer as its
/// fixed fields, with no box to allocate and free: the commonest records other than events
/// (TwitterInstant makes about 56 a query). One `marker` byte, a kind byte, then five 64-bit
/// fields: a subscription's id, node, parent, time and thread; a disposal's subscription, time
/// and thread in the same places (node and parent 0). A subscription with anything more (a request,
/// observation links, `late`) is boxed instead (`BoxedRecord`).
enum PlainRecord {
    /// The byte in front of a plain record (see `DeferredEvent.marker` for the others).
    static let marker: UInt8 = 0x06
    static let entrySize = 2 + 5 * 8
    private static let subscribe: UInt8 = 1, dispose: UInt8 = 2

    /// Appends `record` as a plain record when it is one (a subscription with nothing but its
    /// fixed fields, or a disposal) and returns true; else appends nothing and returns false.
    @inline(__always)
    static func append(_ record: TraceRecord, to buffer: inout [UInt8]) -> Bool {
        let fields: (UInt8, UInt64, UInt64, UInt64, Int64, UInt64)
        switch record {
        case let .subscribe(subscription):
            guard !subscription.late, subscription.request == nil, subscription.requestOmitted == nil,
                  subscription.observes == nil, subscription.observedBy == nil else { return false }
            fields = (subscribe, subscription.id, subscription.node, subscription.parent, subscription.time, subscription.thread)
        case let .dispose(disposal):
            fields = (dispose, disposal.subscription, 0, 0, disposal.time, disposal.thread)
        default:
            return false
        }
        withUnsafeTemporaryAllocation(byteCount: entrySize, alignment: 8) { raw in
            raw[0] = marker
            raw[1] = fields.0
            raw.storeBytes(of: fields.1, toByteOffset: 2, as: UInt64.self)
            raw.storeBytes(of: fields.2, toByteOffset: 10, as: UInt64.self)
            raw.storeBytes(of: fields.3, toByteOffset: 18, as: UInt64.self)
            raw.storeBytes(of: fields.4, toByteOffset: 26, as: Int64.self)
            raw.storeBytes(of: fields.5, toByteOffset: 34, as: UInt64.self)
            buffer.append(contentsOf: UnsafeRawBufferPointer(raw))
        }
        return true
    }

    /// The record of the entry at `entry` (its marker).
    static func read(_ entry: UnsafeRawPointer) -> TraceRecord {
        func field(_ index: Int) -> UInt64 { entry.loadUnaligned(fromByteOffset: 2 + 8 * index, as: UInt64.self) }
        let time = Int64(bitPattern: field(3))
        if entry.load(fromByteOffset: 1, as: UInt8.self) == subscribe {
            return .subscribe(SubscriptionRecord(id: field(0), node: field(1), parent: field(2), time: time, thread: field(4)))
        }
        return .dispose(DisposeRecord(subscription: field(0), time: time, thread: field(4)))
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
