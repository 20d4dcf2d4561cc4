/// Writes trace records in the binary encoding (FORMAT.md, "The binary encoding"): the
/// magic, a `HEAD` chunk, then the records in `RECS` chunks of about `chunkLength` bytes, each
/// after a `STRS` chunk with the strings it is the first to use, and the summary in `SUMM`.
///
/// Records are kept until a chunk is full, `flush()` or the summary; `takeBytes()` hands over
/// the complete chunks made so far, so a writer can append them to a file as it goes.
///
/// ```swift
/// var encoder = BinaryTraceEncoder(header: TraceHeader(clock: .virtual))
/// encoder.append(.thread(ThreadRecord(id: 1, name: "main")))
/// encoder.append(.summary(SummaryRecord(threads: 1)))
/// let bytes = encoder.takeBytes()   // a whole binary trace
/// print(bytes.count)
/// ```
public struct BinaryTraceEncoder {
    private typealias Format = BinaryTraceFormat

    /// Complete chunks not yet taken.
    private var output: [UInt8] = []
    /// The payload of the `RECS` chunk being filled, and of the `STRS` chunk before it.
    private var records: [UInt8] = []
    private var strings: [UInt8] = []
    private var newStrings: UInt32 = 0
    /// The number of each string in the table, by its bytes (`String`'s own equality would take
    /// two spellings of "é" for one, and change the text converted back).
    private var numbers: [StringBytes: UInt32] = [:]
    private let chunkLength: Int

    /// Starts a trace with `header`; a chunk of records is written once it holds about
    /// `chunkLength` bytes.
    public init(header: TraceHeader, chunkLength: Int = 1 << 16) {
        self.chunkLength = max(1, min(chunkLength, Format.maxChunkLength / 2))
        output = Format.magic
        output.appendLittleEndian(Format.major)
        output.appendLittleEndian(Format.minor)
        var payload: [UInt8] = []
        payload.append(header.clock == .real ? 1 : 0)
        payload.appendLittleEndian(UInt16(clamping: header.major))
        payload.appendLittleEndian(UInt16(clamping: header.minor))
        var present: UInt8 = 0
        if header.wallClock != nil { present |= 1 << 0 }
        if header.wallClockNanoseconds != nil { present |= 1 << 1 }
        if header.pid != nil { present |= 1 << 2 }
        if header.process != nil { present |= 1 << 3 }
        if header.host != nil { present |= 1 << 4 }
        payload.append(present)
        if let wallClock = header.wallClock { payload.appendString(wallClock) }
        if let nanoseconds = header.wallClockNanoseconds { payload.appendLittleEndian(nanoseconds) }
        if let pid = header.pid { payload.appendLittleEndian(pid) }
        if let process = header.process { payload.appendString(process) }
        if let host = header.host { payload.appendString(host) }
        Self.appendChunk(.header, payload, to: &output)
    }

    /// The complete chunks written since the last call (the first call's begin with the magic).
    public mutating func takeBytes() -> [UInt8] {
        // The next chunks go into room for as many bytes as these took: a writer taking its
        // chunks each round does not grow an array from nothing, copying it as it doubles.
        var taken: [UInt8] = []
        taken.reserveCapacity(max(output.count, chunkLength + Format.chunkHeaderLength + Format.checksumLength))
        swap(&taken, &output)
        return taken
    }

    /// Ends the chunk being filled, so that `takeBytes()` hands over every record appended.
    public mutating func flush() {
        if newStrings > 0 {
            var payload: [UInt8] = []
            payload.reserveCapacity(4 + strings.count)
            payload.appendLittleEndian(newStrings)
            payload += strings
            Self.appendChunk(.strings, payload, to: &output)
            strings.removeAll(keepingCapacity: true)
            newStrings = 0
        }
        if !records.isEmpty {
            Self.appendChunk(.records, records, to: &output)
            records.removeAll(keepingCapacity: true)
        }
    }

    /// Appends a record after the header. A second header cannot be written: it is ignored.
    public mutating func append(_ record: TraceRecord) {
        switch record {
        case .header:
            return
        case let .summary(summary):
            flush()
            var payload: [UInt8] = []
            for count in [summary.events, summary.nodes, summary.subscriptions, summary.threads, summary.hops,
                          summary.marks, summary.dropped] {
                payload.appendLittleEndian(count)
            }
            payload.appendLittleEndian(summary.duration)
            Self.appendChunk(.summary, payload, to: &output)
            return
        case let .node(node):
            let kind = number(node.kind.rawValue), name = number(node.name), parameters = number(node.parameters)
            let file = number(node.file), label = node.label.map { number($0) } ?? 0
            let roles = node.upstream.map { number($0.role.rawValue) }
            records.append(Format.Tag.node.rawValue)
            records.appendLittleEndian(node.id)
            for reference in [kind, name, parameters, file] { records.appendLittleEndian(reference) }
            records.appendLittleEndian(node.line)
            records.appendLittleEndian(label)
            records.appendLittleEndian(UInt32(node.upstream.count))
            for (edge, role) in zip(node.upstream, roles) {
                records.appendLittleEndian(edge.node)
                records.appendLittleEndian(role)
            }
        case let .subscribe(subscription):
            let request = subscription.request.map { number($0) } ?? 0
            records.append(Format.Tag.subscribe.rawValue)
            records.appendLittleEndian(subscription.id)
            records.appendLittleEndian(subscription.node)
            records.appendLittleEndian(subscription.parent)
            records.appendLittleEndian(subscription.time)
            records.appendLittleEndian(subscription.thread)
            records.append((subscription.late ? 1 : 0) | (subscription.requestOmitted != nil ? 2 : 0)
                           | (subscription.observes != nil ? 4 : 0) | (subscription.observedBy != nil ? 8 : 0))
            records.appendLittleEndian(request)
            if let omitted = subscription.requestOmitted {
                records.appendLittleEndian(UInt64(omitted.bytes))
                records.appendLittleEndian(omitted.hash)
            }
            for ids in [subscription.observes, subscription.observedBy] {
                guard let ids else { continue }
                records.appendLittleEndian(UInt32(ids.count))
                for id in ids { records.appendLittleEndian(id) }
            }
        case let .dispose(dispose):
            records.append(Format.Tag.dispose.rawValue)
            records.appendLittleEndian(dispose.subscription)
            records.appendLittleEndian(dispose.time)
            records.appendLittleEndian(dispose.thread)
        case let .thread(thread):
            let name = number(thread.name), scheduler = thread.scheduler.map { number($0) } ?? 0
            records.append(Format.Tag.thread.rawValue)
            records.appendLittleEndian(thread.id)
            records.appendLittleEndian(name)
            records.appendLittleEndian(scheduler)
            records.append(thread.os == nil ? 0 : 1)
            records.appendLittleEndian(thread.os ?? 0)
        case let .event(event):
            appendEvent(event)
            return
        case let .hop(hop):
            let scheduler = number(hop.scheduler)
            records.append(Format.Tag.hop.rawValue)
            records.appendLittleEndian(hop.id)
            records.appendLittleEndian(hop.node)
            records.appendLittleEndian(hop.subscription)
            records.appendLittleEndian(scheduler)
            records.appendLittleEndian(hop.enqueued)
            records.appendLittleEndian(hop.from)
            records.append((hop.started == nil ? 0 : 1) | (hop.to == nil ? 0 : 2) | (hop.due == nil ? 0 : 4))
            records.appendLittleEndian(hop.started ?? 0)
            records.appendLittleEndian(hop.to ?? 0)
            if let due = hop.due { records.appendLittleEndian(due) }
        case let .mark(mark):
            let label = number(mark.label)
            records.append(Format.Tag.mark.rawValue)
            records.appendLittleEndian(mark.time)
            records.appendLittleEndian(mark.thread)
            records.appendLittleEndian(label)
        case let .label(label):
            let text = number(label.label)
            records.append(Format.Tag.label.rawValue)
            records.appendLittleEndian(label.node)
            records.appendLittleEndian(text)
        }
        if records.count + strings.count >= chunkLength { flush() }
    }

    private mutating func appendEvent(_ event: EventRecord) {
        var value = EventValue.none
        if !event.truncated, event.omittedJSONBytes == 0, event.jsonError == nil, let eventText = event.text,
           event.json == eventText, let integer = Int64(eventText), String(integer) == eventText {
            value = .integer(integer)
        } else if event.text != nil || event.json != nil || event.truncated || event.omittedJSONBytes != 0
                    || event.jsonError != nil {
            value = .text(event.text, truncated: event.truncated, json: event.json, omittedJSONBytes: event.omittedJSONBytes,
                          jsonError: event.jsonError)
        }
        appendEvent(sequence: event.sequence, time: event.time, node: event.node, subscription: event.subscription,
                    thread: event.thread, kind: event.kind, firstCause: event.causes.first ?? 0,
                    otherCauses: event.causes.dropFirst(), value: value)
    }

    /// An event's value as the binary record holds it.
    package enum EventValue {
        /// No value (an end, a pull, a value event with neither text nor JSON).
        case none
        /// An integer: its text and its JSON are both its decimal digits.
        case integer(Int64)
        /// Any other value: its text (cut when `truncated`), its JSON as written (or the size
        /// of the JSON left out, or what its encoding threw), written inline.
        case text(String?, truncated: Bool, json: String?, omittedJSONBytes: Int64, jsonError: String?)
        /// A `String` value: its text (cut when `truncated`), and its JSON the string literal
        /// of `string`, written straight into the record (no JSON text made first).
        case string(text: String, truncated: Bool, string: String)
    }

    /// Appends an event record from its fields (FORMAT.md, "RECS"): what `append(.event(_:))`
    /// writes, and what a live recorder's writer appends for each event it takes from the
    /// threads' rings, without an `EventRecord` made for it.
    package mutating func appendEvent(sequence: UInt64, time: Int64, node: UInt64, subscription: UInt64, thread: UInt64,
                                      kind: EventKind, firstCause: UInt64, otherCauses: ArraySlice<UInt64>,
                                      value: EventValue) {
        var flags: UInt8 = 0
        var integer: Int64 = 0
        var inlineText: String?, inlineJSON: String?, omitted: Int64 = 0, jsonError: UInt32?
        var jsonLiteral: String?
        switch value {
        case .none:
            break
        case let .integer(value):
            flags |= Format.EventFlag.integer
            integer = value
        case let .string(text, truncated, string):
            flags |= Format.EventFlag.inlineValue | (truncated ? Format.EventFlag.truncated : 0)
            (inlineText, jsonLiteral) = (text, string)
        case let .text(text, truncated, json, omittedJSONBytes, error):
            flags |= Format.EventFlag.inlineValue | (truncated ? Format.EventFlag.truncated : 0)
            (inlineText, inlineJSON, omitted) = (text, json, omittedJSONBytes)
            jsonError = error.map { number($0) }
        }
        if !otherCauses.isEmpty { flags |= Format.EventFlag.moreCauses }
        if omitted != 0 { flags |= Format.EventFlag.omitted }
        if jsonError != nil { flags |= Format.EventFlag.jsonError }
        // The tag and the fixed 66 bytes, assembled in place and appended in one copy: this
        // runs for every event a live binary recording writes.
        let fixed = 1 + Format.eventLength
        let recordStart = records.count
        withUnsafeTemporaryAllocation(byteCount: fixed, alignment: 8) { raw in
            raw.storeBytes(of: Format.Tag.event.rawValue, toByteOffset: 0, as: UInt8.self)
            raw.storeBytes(of: sequence.littleEndian, toByteOffset: 1, as: UInt64.self)
            raw.storeBytes(of: time.littleEndian, toByteOffset: 9, as: Int64.self)
            raw.storeBytes(of: node.littleEndian, toByteOffset: 17, as: UInt64.self)
            raw.storeBytes(of: subscription.littleEndian, toByteOffset: 25, as: UInt64.self)
            raw.storeBytes(of: thread.littleEndian, toByteOffset: 33, as: UInt64.self)
            raw.storeBytes(of: firstCause.littleEndian, toByteOffset: 41, as: UInt64.self)
            raw.storeBytes(of: integer.littleEndian, toByteOffset: 49, as: Int64.self)
            raw.storeBytes(of: (inlineText.map { UInt32($0.utf8.count) + 1 } ?? 0).littleEndian, toByteOffset: 57,
                           as: UInt32.self)
            raw.storeBytes(of: (inlineJSON.map { UInt32($0.utf8.count) + 1 } ?? 0).littleEndian, toByteOffset: 61,
                           as: UInt32.self)
            raw.storeBytes(of: kind.number, toByteOffset: 65, as: UInt8.self)
            raw.storeBytes(of: flags, toByteOffset: 66, as: UInt8.self)
            records.append(contentsOf: UnsafeRawBufferPointer(raw))
        }
        if !otherCauses.isEmpty {
            records.appendLittleEndian(UInt32(otherCauses.count))
            for cause in otherCauses { records.appendLittleEndian(cause) }
        }
        if omitted != 0 { records.appendLittleEndian(omitted) }
        if let jsonError { records.appendLittleEndian(jsonError) }
        if let inlineText { records.append(contentsOf: inlineText.utf8) }
        if let inlineJSON { records.append(contentsOf: inlineJSON.utf8) }
        if let jsonLiteral {
            // The literal's length is known once written: the record's `json` field gets it then.
            let start = records.count
            JSONLine.appendString(jsonLiteral, to: &records)
            let length = (UInt32(records.count - start) + 1).littleEndian
            records.withUnsafeMutableBytes { $0.storeBytes(of: length, toByteOffset: recordStart + 61, as: UInt32.self) }
        }
        if records.count + strings.count >= chunkLength { flush() }
    }

    /// The number of `string` in the table, adding it to the next `STRS` chunk when new.
    private mutating func number(_ string: String) -> UInt32 {
        if let known = numbers[StringBytes(string)] { return known }
        // A string that would make the strings' chunk too long goes in the next one.
        if newStrings > 0, strings.count + string.utf8.count + 8 > Format.maxChunkLength { flush() }
        let next = UInt32(numbers.count + 1)
        numbers[StringBytes(string)] = next
        strings.appendString(string)
        newStrings += 1
        return next
    }

    private static func appendChunk(_ kind: Format.Kind, _ payload: [UInt8], to output: inout [UInt8]) {
        let start = output.count
        output.appendLittleEndian(kind.rawValue)
        output.appendLittleEndian(UInt32(payload.count))
        output += payload
        let checksum = output.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        output.appendLittleEndian(checksum)
    }
}

/// A string compared and hashed by its UTF-8 bytes.
private struct StringBytes: Hashable {
    var string: String

    init(_ string: String) {
        var string = string
        string.makeContiguousUTF8()
        self.string = string
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.string.utf8.elementsEqual(rhs.string.utf8) }

    func hash(into hasher: inout Hasher) {
        var string = string
        string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

extension [UInt8] {
    /// Appends `value`'s bytes, least significant first.
    @inline(__always)
    package mutating func appendLittleEndian<Value: FixedWidthInteger>(_ value: Value) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    /// Appends a string as its UTF-8 byte count (`u32`) and bytes.
    mutating func appendString(_ string: String) {
        appendLittleEndian(UInt32(string.utf8.count))
        append(contentsOf: string.utf8)
    }
}
