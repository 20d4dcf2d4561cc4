import Foundation

/// Reads the records of a trace in the binary encoding (FORMAT.md, "The binary encoding"), one
/// chunk in memory at a time. `TraceReader` makes one when a trace begins with the binary magic
/// and hands its records on, so every reader of traces reads both encodings.
///
/// A file cut inside a chunk ends the trace with a warning at the cut chunk's offset; anything
/// else malformed is a `TraceError` at the byte offset where it is, saying what was expected.
final class BinaryTraceDecoder {
    private typealias Format = BinaryTraceFormat

    enum Input {
        case file(UnsafeMutablePointer<FILE>)
        case bytes([UInt8], Int)
    }

    let name: String
    /// The trace's header, read when the decoder was made.
    private(set) var header = TraceHeader(clock: .virtual)
    /// Bytes consumed so far: the end of the last complete chunk.
    private(set) var bytesRead: Int64 = 0
    /// Where the record last returned begins: what a problem found in it is located by.
    private(set) var recordOffset: Int64 = 0
    /// Warnings not yet taken by the reader, each with the offset it is about.
    private var pendingWarnings: [(offset: Int64, message: String)] = []

    private var input: Input
    /// Bytes read ahead of `input` (what the reader read before it knew the encoding).
    private var readAhead: [UInt8]
    private var readAheadStart = 0
    /// The payload of the `RECS` chunk being read, where it begins in the file, and the
    /// position of the next record in it.
    private var payload: [UInt8] = []
    private var payloadOffset: Int64 = 0
    private var cursor = 0
    /// The string table; number 0 stands for none.
    private var strings: [String] = [""]
    private var sawSummary = false
    private var reportedCut = false
    private var ended = false
    private var unknownKinds: Set<UInt32> = []
    /// The chunks' checksum, which the encoding's major version decides.
    private var checksum = Checksum.crc32
    /// `error(at:_:)` as a function value, for `ChunkFields`: made once, not once a record.
    private let locate: (Int64, String) -> TraceError

    /// Reads the magic and the `HEAD` chunk from `readAhead`, then `input`.
    init(name: String, readAhead: [UInt8], input: Input) throws {
        self.name = name
        self.readAhead = readAhead
        self.input = input
        locate = { offset, expected in
            TraceError(file: name, line: 0, column: 0, message: "expected \(expected)", byteOffset: offset)
        }
        let preamble = read(Format.preambleLength)
        let magicBytes = Array(preamble.prefix(Format.magic.count))
        guard magicBytes == Format.magic else {
            throw error(at: 0, "a trace: JSON Lines, whose first record opens with '{', or the binary encoding's magic "
                        + "\(Self.hex(Format.magic)); found \(Self.hex(magicBytes))")
        }
        guard preamble.count == Format.preambleLength else {
            throw error(at: Int64(preamble.count), "the encoding's version after the magic (4 bytes); the file ends")
        }
        let major = UInt16(preamble[8]) | UInt16(preamble[9]) << 8
        guard major >= 1 else {
            throw error(at: 8, "binary encoding version 1.0 or later, found \(major).\(UInt16(preamble[10]) | UInt16(preamble[11]) << 8)")
        }
        guard major <= Format.major else {
            throw error(at: 8, "binary encoding version \(Format.major).x or older; this trace's is \(major).\(UInt16(preamble[10]) | UInt16(preamble[11]) << 8), "
                        + "written by a newer Marbles: update Marbles to read it")
        }
        checksum = Checksum(major: major)
        bytesRead = Int64(Format.preambleLength)
        guard let (kind, chunk, offset) = try nextChunk() else {
            throw error(at: bytesRead, "the HEAD chunk after the magic; the file \(reportedCut ? "is cut in it" : "ends")")
        }
        guard kind == Format.Kind.header.rawValue else {
            throw error(at: offset, "the HEAD chunk first, found a \(Format.name(ofKind: kind)) chunk")
        }
        header = try Self.header(chunk, at: offset + Int64(Format.chunkHeaderLength), error: locate)
    }

    /// The warnings found since the last call.
    func takeWarnings() -> [(offset: Int64, message: String)] {
        defer { pendingWarnings = [] }
        return pendingWarnings
    }

    /// The next record after the header, or nil at the end of the trace.
    func next() throws -> TraceRecord? {
        try next(handlingEvents: false) { _, _ in }
    }

    /// The next record after the header, or nil at the end of the trace, except that (when
    /// `handlingEvents`) an event
    /// with an integer value or none, at most one cause and nothing else is handed to `event`
    /// as a `WrittenEvent` (with no bytes: its value is its `jsonInteger`) instead of being
    /// returned, as `TraceReader` hands on the event lines a writer writes: `Trace` keeps
    /// them without a record made for each.
    func next(handlingEvents: Bool,
              _ event: (inout WrittenEvent, UnsafeBufferPointer<UInt8>) throws -> Void) throws -> TraceRecord? {
        while true {
            if cursor < payload.count {
                if handlingEvents, try handOnPlainEvents(event) { continue }
                return try record()
            }
            if ended { return nil }
            guard let (kind, chunk, offset) = try nextChunk() else {
                ended = true
                if !sawSummary && !reportedCut {
                    reportedCut = true
                    pendingWarnings.append((bytesRead, "the trace ends without its SUMM chunk: the recording was cut off "
                                            + "after byte \(bytesRead)"))
                }
                return nil
            }
            let start = offset + Int64(Format.chunkHeaderLength)
            switch Format.Kind(rawValue: kind) {
            case .header:
                throw error(at: offset, "one HEAD chunk, found a second")
            case .strings:
                try addStrings(chunk, at: start)
            case .records:
                payload = chunk
                payloadOffset = start
                cursor = 0
            case .summary:
                let (counts, duration) = try chunk.withUnsafeBytes { raw in
                    var fields = ChunkFields(bytes: raw, start: start, error: locate)
                    let counts = try (0..<7).map { _ in try fields.u64() }
                    let duration = try fields.i64()
                    try fields.requireEnd("the SUMM chunk")
                    return (counts, duration)
                }
                sawSummary = true
                recordOffset = start
                return .summary(SummaryRecord(events: counts[0], nodes: counts[1], subscriptions: counts[2], threads: counts[3],
                                              hops: counts[4], marks: counts[5], dropped: counts[6], duration: duration))
            case nil:
                if unknownKinds.insert(kind).inserted {
                    pendingWarnings.append((offset, "skipped a chunk of unknown kind \(Format.name(ofKind: kind)) (written by a "
                                            + "newer Marbles?); further chunks of this kind are skipped silently"))
                }
            }
        }
    }

    // MARK: Chunks

    /// Up to `count` bytes from the read-ahead, then the input; fewer only at the end.
    private func read(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        let ahead = min(count, readAhead.count - readAheadStart)
        if ahead > 0 {
            bytes += readAhead[readAheadStart..<(readAheadStart + ahead)]
            readAheadStart += ahead
            if readAheadStart == readAhead.count {
                readAhead = []
                readAheadStart = 0
            }
        }
        let rest = count - ahead
        guard rest > 0 else { return bytes }
        switch input {
        case let .file(file):
            let read = [UInt8](unsafeUninitializedCapacity: rest) { buffer, count in
                count = fread(buffer.baseAddress!, 1, rest, file)
            }
            if bytes.isEmpty { return read }
            bytes += read
        case let .bytes(source, offset):
            let got = min(rest, source.count - offset)
            bytes += source[offset..<(offset + got)]
            input = .bytes(source, offset + got)
        }
        return bytes
    }

    /// The next complete chunk: its kind, payload and offset; nil at the end of the file or at
    /// a chunk the file ends in (reported as a warning).
    private func nextChunk() throws -> (kind: UInt32, payload: [UInt8], offset: Int64)? {
        let offset = bytesRead
        let head = read(Format.chunkHeaderLength)
        if head.isEmpty { return nil }
        guard head.count == Format.chunkHeaderLength else {
            reportCut(at: offset, length: offset + Int64(head.count), "a chunk's kind and length")
            return nil
        }
        let kind = head.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }.littleEndian
        let length = Int(head.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self) }.littleEndian)
        guard length <= Format.maxChunkLength else {
            throw error(at: offset + 4, "a chunk length of at most \(Format.maxChunkLength) bytes, found \(length) "
                        + "(for a \(Format.name(ofKind: kind)) chunk: is the file corrupted?)")
        }
        var body = read(length + Format.checksumLength)
        guard body.count == length + Format.checksumLength else {
            reportCut(at: offset, length: offset + Int64(Format.chunkHeaderLength + body.count),
                      "the \(Format.name(ofKind: kind)) chunk of \(length) bytes")
            return nil
        }
        let stored = body.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: length, as: UInt32.self) }.littleEndian
        body.removeLast(Format.checksumLength)
        let computed = body.withUnsafeBytes { checksum.checksum($0, continuing: head.withUnsafeBytes { checksum.checksum($0) }) }
        guard stored == computed else {
            throw error(at: offset + Int64(Format.chunkHeaderLength + length),
                        "the checksum \(Self.hex32(computed)) of the \(Format.name(ofKind: kind)) chunk at byte \(offset), "
                        + "found \(Self.hex32(stored)) (the file is corrupted)")
        }
        bytesRead = offset + Int64(Format.chunkHeaderLength + length + Format.checksumLength)
        return (kind, body, offset)
    }

    private func reportCut(at offset: Int64, length: Int64, _ what: String) {
        reportedCut = true
        pendingWarnings.append((offset, "the trace is cut at byte \(length) (the end of the file), inside \(what) that "
                                + "begins at byte \(offset); read up to byte \(offset), its last complete chunk"))
    }

    private func addStrings(_ chunk: [UInt8], at start: Int64) throws {
        try chunk.withUnsafeBytes { raw in
            var fields = ChunkFields(bytes: raw, start: start, error: locate)
            let count = try fields.u32()
            for _ in 0..<count { strings.append(try fields.string()) }
            try fields.requireEnd("the STRS chunk's \(count) strings")
        }
    }

    private static func header(_ chunk: [UInt8], at start: Int64,
                               error: @escaping (Int64, String) -> TraceError) throws -> TraceHeader {
        try chunk.withUnsafeBytes { try header(ChunkFields(bytes: $0, start: start, error: error), error: error) }
    }

    private static func header(_ fields: ChunkFields, error: (Int64, String) -> TraceError) throws -> TraceHeader {
        var fields = fields
        let clockOffset = fields.offset
        let clock: TraceClock
        switch try fields.u8() {
        case 0: clock = .virtual
        case 1: clock = .real
        case let other: throw error(clockOffset, "a clock 0 (virtual) or 1 (real), found \(other)")
        }
        let versionOffset = fields.offset
        let major = Int(try fields.u16()), minor = Int(try fields.u16())
        guard major >= 1 else {
            throw error(versionOffset, "trace format version \(TraceFormat.major).x, found \(major).\(minor): no Marbles wrote a "
                        + "version before 1.0")
        }
        guard major <= TraceFormat.major else {
            throw error(versionOffset, "trace format version \(TraceFormat.major).x or older; this trace is version "
                        + "\(major).\(minor), written by a newer Marbles: update Marbles to read it")
        }
        let presentOffset = fields.offset
        let present = try fields.u8()
        guard present & ~0x1F == 0 else {
            throw error(presentOffset, "the header's present keys as bits 0 to 4, found 0x\(String(present, radix: 16))")
        }
        var header = TraceHeader(clock: clock)
        header.major = major
        header.minor = minor
        if present & 1 != 0 { header.wallClock = try fields.string() }
        if present & 2 != 0 { header.wallClockNanoseconds = try fields.i64() }
        if present & 4 != 0 { header.pid = try fields.i64() }
        if present & 8 != 0 { header.process = try fields.string() }
        if present & 16 != 0 { header.host = try fields.string() }
        try fields.requireEnd("the HEAD chunk")
        return header
    }

    // MARK: Records

    private func record() throws -> TraceRecord {
        recordOffset = payloadOffset + Int64(cursor)
        return try payload.withUnsafeBytes { raw in
            var fields = ChunkFields(bytes: raw, start: payloadOffset, position: cursor, error: locate)
            defer { cursor = fields.position }
            return try record(&fields)
        }
    }

    private func record(_ fields: inout ChunkFields) throws -> TraceRecord {
        let tag = try fields.u8()
        switch Format.Tag(rawValue: tag) {
        case .node:
            let id = try fields.u64()
            let kind = try string(&fields), name = try string(&fields), parameters = try string(&fields)
            let file = try string(&fields), line = try fields.u64(), label = try optionalString(&fields)
            let count = try fields.u32()
            var upstream: [NodeRecord.Edge] = []
            for _ in 0..<count {
                let node = try fields.u64()
                upstream.append(NodeRecord.Edge(node: node, role: EdgeRole(rawValue: try string(&fields))))
            }
            return .node(NodeRecord(id: id, kind: NodeKind(rawValue: kind), name: name, parameters: parameters, file: file,
                                    line: line, label: label, upstream: upstream))
        case .subscribe:
            let id = try fields.u64(), node = try fields.u64(), parent = try fields.u64(), time = try fields.i64()
            let thread = try fields.u64(), flags = try flags(&fields, within: 15), request = try optionalString(&fields)
            var omitted: RequestDigest?
            if flags & 2 != 0 {
                let offset = fields.offset
                let bytes = try fields.u64(), hash = try fields.u64()
                guard request == nil, bytes > 0, bytes <= UInt64(Int.max) else {
                    throw error(at: offset, "a left-out request's size above 0, and no request beside it")
                }
                omitted = RequestDigest(bytes: Int(bytes), hash: hash)
            }
            let observes = flags & 4 != 0 ? try subscriptionIDs(&fields) : nil
            let observedBy = flags & 8 != 0 ? try subscriptionIDs(&fields) : nil
            return .subscribe(SubscriptionRecord(id: id, node: node, parent: parent, time: time, thread: thread,
                                                 late: flags & 1 != 0, request: request, requestOmitted: omitted,
                                                 observes: observes, observedBy: observedBy))
        case .dispose:
            return .dispose(DisposeRecord(subscription: try fields.u64(), time: try fields.i64(), thread: try fields.u64()))
        case .thread:
            let id = try fields.u64(), name = try string(&fields), scheduler = try optionalString(&fields)
            let hasOS = try flags(&fields, within: 1) != 0
            let os = try fields.u64()
            return .thread(ThreadRecord(id: id, name: name, scheduler: scheduler, os: hasOS ? os : nil))
        case .event:
            return .event(try event(&fields))
        case .hop:
            let id = try fields.u64(), node = try fields.u64(), subscription = try fields.u64()
            let scheduler = try string(&fields), enqueued = try fields.i64(), from = try fields.u64()
            let present = try flags(&fields, within: 7)
            let started = try fields.i64(), to = try fields.u64()
            let due = present & 4 != 0 ? try fields.i64() : nil
            return .hop(HopRecord(id: id, node: node, subscription: subscription, scheduler: scheduler, enqueued: enqueued,
                                  from: from, started: present & 1 != 0 ? started : nil, to: present & 2 != 0 ? to : nil,
                                  due: due))
        case .mark:
            return .mark(MarkRecord(time: try fields.i64(), thread: try fields.u64(), label: try string(&fields)))
        case .label:
            return .label(LabelRecord(node: try fields.u64(), label: try string(&fields)))
        case nil:
            throw error(at: recordOffset, "a record tag 1 to 8 (node, subscribe, dispose, thread, event, hop, mark, label), "
                        + "found \(tag)")
        }
    }

    /// Hands the plain events from `cursor` on to `handler` (`next(handlingEvents:)`); returns
    /// whether there was one. A plain event has at most one cause, and an integer value, none,
    /// or an inline value whose text and JSON are ASCII: those are handed on as ranges of the
    /// chunk's bytes, as a JSON Lines reader hands on a line's, so no `String` is made for
    /// them. Stops before any other record, leaving it to `record()`, which says what is wrong
    /// with it, if anything.
    private func handOnPlainEvents(_ handler: (inout WrittenEvent, UnsafeBufferPointer<UInt8>) throws -> Void) throws -> Bool {
        typealias Flag = Format.EventFlag
        let length = 1 + Format.eventLength
        let start = cursor
        let handled = Flag.integer | Flag.inlineValue | Flag.truncated
        try payload.withUnsafeBufferPointer { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            while cursor + length <= raw.count, raw[cursor] == Format.Tag.event.rawValue {
                let flags = raw[cursor + 66], kindNumber = raw[cursor + 65]
                guard flags & ~handled == 0, flags & (Flag.integer | Flag.inlineValue) != (Flag.integer | Flag.inlineValue),
                      let kind = EventKind(number: kindNumber),
                      kind != .pull || raw.loadUnaligned(fromByteOffset: cursor + 41, as: UInt64.self) == 0 else { break }
                let textField = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: cursor + 57, as: UInt32.self)))
                let jsonField = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: cursor + 61, as: UInt32.self)))
                var event = WrittenEvent()
                var end = cursor + length
                if flags & Flag.inlineValue != 0 {
                    // The text's bytes, then the JSON's, right after the fixed record.
                    let textEnd = end + max(0, textField - 1), jsonEnd = textEnd + max(0, jsonField - 1)
                    guard jsonEnd <= raw.count, Self.isASCII(bytes, end..<jsonEnd) else { break }
                    if textField > 0 { event.text = .plain(end..<textEnd) }
                    if jsonField > 0 { event.json = textEnd..<jsonEnd }
                    end = jsonEnd
                } else {
                    guard textField == 0, jsonField == 0 else { break }
                }
                event.sequence = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: cursor + 1, as: UInt64.self))
                event.time = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: cursor + 9, as: Int64.self))
                event.node = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: cursor + 17, as: UInt64.self))
                event.subscription = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: cursor + 25, as: UInt64.self))
                event.thread = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: cursor + 33, as: UInt64.self))
                event.firstCause = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: cursor + 41, as: UInt64.self))
                event.kind = kind
                event.truncated = flags & Flag.truncated != 0
                if flags & Flag.integer != 0 {
                    event.jsonInteger = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: cursor + 49, as: Int64.self))
                    event.text = .plain(0..<0)
                    event.json = 0..<0
                    event.textIsJSONInteger = true
                }
                recordOffset = payloadOffset + Int64(cursor)
                cursor = end
                try handler(&event, bytes)
            }
        }
        return cursor != start
    }

    /// Whether the bytes in `range` are all ASCII: eight at a time, then one at a time.
    @inline(__always)
    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        let raw = UnsafeRawBufferPointer(bytes)
        var position = range.lowerBound
        var high: UInt64 = 0
        while position + 8 <= range.upperBound {
            high |= raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            position += 8
        }
        while position < range.upperBound {
            high |= UInt64(raw[position])
            position += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }

    private func event(_ fields: inout ChunkFields) throws -> EventRecord {
        try fields.require(Format.eventLength, "an event record")
        let sequence = try fields.u64(), time = try fields.i64(), node = try fields.u64()
        let subscription = try fields.u64(), thread = try fields.u64(), cause = try fields.u64()
        let integer = try fields.i64()
        let textOffset = fields.offset
        let textField = try fields.u32(), jsonField = try fields.u32()
        let kindOffset = fields.offset
        let kindNumber = try fields.u8()
        guard let kind = EventKind(number: kindNumber) else {
            throw error(at: kindOffset, "an event kind 0 to 4 (value, failed, completed, interrupted, pull), found \(kindNumber)")
        }
        let flags = try flags(&fields, within: Format.EventFlag.all)
        let inline = flags & Format.EventFlag.inlineValue != 0
        var text: String?, json: String?
        if flags & Format.EventFlag.integer != 0 {
            guard !inline else {
                throw error(at: kindOffset + 1, "either an integer value (flag 0x2) or an inline one (flag 0x20), found both")
            }
            text = String(integer)
            json = text
        } else if !inline {
            text = try tableString(textField, at: textOffset)
            json = try tableString(jsonField, at: textOffset + 4)
        }
        var causes: [UInt64] = cause == 0 ? [] : [cause]
        if flags & Format.EventFlag.moreCauses != 0 {
            let count = try fields.u32()
            try fields.require(Int(count) * 8, "\(count) more causes")
            causes.reserveCapacity(Int(count) + 1)
            for _ in 0..<count { causes.append(try fields.u64()) }
        }
        if kind == .pull, let first = causes.first {
            throw error(at: kindOffset, "no causes for a pull (demand, caused by nothing a trace records), found \(first)")
        }
        let omitted = flags & Format.EventFlag.omitted != 0 ? try fields.i64() : 0
        let jsonError = flags & Format.EventFlag.jsonError != 0 ? try string(&fields) : nil
        if inline {
            if textField > 0 { text = try fields.utf8(Int(textField - 1), "the value's text") }
            if jsonField > 0 { json = try fields.utf8(Int(jsonField - 1), "the value's JSON") }
        }
        return EventRecord(sequence: sequence, time: time, node: node, subscription: subscription, kind: kind, thread: thread,
                           causes: causes, text: text, truncated: flags & Format.EventFlag.truncated != 0, json: json,
                           omittedJSONBytes: omitted, jsonError: jsonError)
    }

    /// A subscribe record's `observes` or `observedBy`: a `u32` count, then that many ids, each
    /// above 0.
    private func subscriptionIDs(_ fields: inout ChunkFields) throws -> [UInt64] {
        let count = try fields.u32()
        try fields.require(Int(count) * 8, "\(count) subscription ids")
        var ids: [UInt64] = []
        ids.reserveCapacity(Int(count))
        for _ in 0..<count {
            let offset = fields.offset
            let id = try fields.u64()
            guard id > 0 else { throw error(at: offset, "a subscription id above 0, found 0") }
            ids.append(id)
        }
        return ids
    }

    private func flags(_ fields: inout ChunkFields, within allowed: UInt8) throws -> UInt8 {
        let offset = fields.offset
        let flags = try fields.u8()
        guard flags & ~allowed == 0 else {
            throw error(at: offset, "flags within 0x\(String(allowed, radix: 16, uppercase: true)), found 0x"
                        + String(flags, radix: 16, uppercase: true))
        }
        return flags
    }

    private func string(_ fields: inout ChunkFields) throws -> String {
        let offset = fields.offset
        guard let string = try optionalString(&fields) else {
            throw error(at: offset, "a string number 1 to \(strings.count - 1), found 0 (none) where a string is required")
        }
        return string
    }

    private func optionalString(_ fields: inout ChunkFields) throws -> String? {
        let offset = fields.offset
        return try tableString(try fields.u32(), at: offset)
    }

    /// The string numbered `field` (0: none), read at `offset`.
    private func tableString(_ field: UInt32, at offset: Int64) throws -> String? {
        let number = Int(field)
        guard number != 0 else { return nil }
        guard number < strings.count else {
            throw error(at: offset, "a string number 1 to \(strings.count - 1) (of the STRS chunks before), found \(number)")
        }
        return strings[number]
    }

    // MARK: Errors

    private func error(at offset: Int64, _ expected: String) -> TraceError {
        TraceError(file: name, line: 0, column: 0, message: "expected \(expected)", byteOffset: offset)
    }


    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.isEmpty ? "an empty file"
            : bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: " ")
    }

    private static func hex32(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}

/// Little-endian fields read from a chunk's payload, each checked to be within it.
private struct ChunkFields {
    /// The payload, valid while the fields are read.
    let bytes: UnsafeRawBufferPointer
    /// Where the payload begins in the file.
    let start: Int64
    var position: Int
    let error: (Int64, String) -> TraceError

    init(bytes: UnsafeRawBufferPointer, start: Int64, position: Int = 0, error: @escaping (Int64, String) -> TraceError) {
        self.bytes = bytes
        self.start = start
        self.position = position
        self.error = error
    }

    /// The file offset of the next field.
    var offset: Int64 { start + Int64(position) }

    /// Throws unless `count` more bytes are in the payload.
    func require(_ count: Int, _ what: String) throws {
        guard count <= bytes.count - position else {
            throw error(offset, "\(what) of \(count) bytes; the chunk has \(bytes.count - position) left")
        }
    }

    func requireEnd(_ what: String) throws {
        guard position == bytes.count else {
            throw error(offset, "the end of \(what), found \(bytes.count - position) more bytes")
        }
    }

    private mutating func load<Value: FixedWidthInteger>(_: Value.Type) throws -> Value {
        let size = MemoryLayout<Value>.size
        guard size <= bytes.count - position else {
            throw error(offset, "a field of \(size) bytes; the chunk has \(bytes.count - position) bytes left")
        }
        defer { position += size }
        return Value(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: Value.self))
    }

    mutating func u8() throws -> UInt8 { try load(UInt8.self) }
    mutating func u16() throws -> UInt16 { try load(UInt16.self) }
    mutating func u32() throws -> UInt32 { try load(UInt32.self) }
    mutating func u64() throws -> UInt64 { try load(UInt64.self) }
    mutating func i64() throws -> Int64 { try load(Int64.self) }

    /// A `u32` byte count and that many bytes of UTF-8.
    mutating func string() throws -> String {
        try utf8(Int(try u32()), "a string")
    }

    /// `count` bytes of UTF-8 (`what` they are, for the error when the chunk has fewer).
    mutating func utf8(_ count: Int, _ what: String) throws -> String {
        try require(count, what)
        defer { position += count }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)]), as: UTF8.self)
    }
}
