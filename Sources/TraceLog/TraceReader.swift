import Foundation

/// A problem in a trace file: where it is and what was expected there.
///
/// ```swift
/// do {
///     _ = try Trace(contentsOf: URL(fileURLWithPath: "traces/search.trace"))
/// } catch let error as TraceError {
///     print(error)   // traces/search.trace:12:5: error: … (where, and what was expected there)
/// }
/// ```
public struct TraceError: Error, Equatable, CustomStringConvertible {
    /// The file's path (or the name given to in-memory bytes).
    public var file: String
    /// 1-based line; 0 when the problem is not in a line (the file cannot be opened).
    public var line: Int
    /// 1-based column in characters; 0 when the problem is the whole line.
    public var column: Int
    public var message: String
    /// Where the problem is in a binary trace, which has no lines: the byte offset from the
    /// file's start (`line` is then 0).
    public var byteOffset: Int64?

    public init(file: String, line: Int, column: Int, message: String, byteOffset: Int64? = nil) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.byteOffset = byteOffset
    }

    /// One line, the file's name too (a newline in it shows as ⏎).
    public var description: String {
        if let byteOffset { return "\(file.reportLine): byte \(byteOffset): error: \(message)" }
        if line == 0 { return "\(file.reportLine): error: \(message)" }
        if column == 0 { return "\(file.reportLine):\(line): error: \(message)" }
        return "\(file.reportLine):\(line):\(column): error: \(message)"
    }
}

/// Something a reader skipped and went on: a record kind it does not know, a cut-off last line.
public struct TraceWarning: Equatable, CustomStringConvertible, Sendable {
    public var file: String
    /// 1-based line; 0 in a binary trace, which has no lines.
    public var line: Int
    public var message: String
    /// Where in a binary trace the warning is about: the byte offset from the file's start.
    public var byteOffset: Int64? = nil

    public var description: String {
        if let byteOffset { return "\(file.reportLine): byte \(byteOffset): warning: \(message)" }
        return "\(file.reportLine):\(line): warning: \(message)"
    }
}

/// How a trace's records are written down (FORMAT.md).
public enum TraceEncoding: String, Sendable, CaseIterable {
    /// JSON Lines: one JSON object a line; the interchange format.
    case jsonLines = "jsonl"
    /// Fixed-size binary records in checksummed chunks (FORMAT.md, "The binary encoding").
    case binary
}

/// Reads a trace one record at a time, in constant memory: the header when opened, then
/// `next()` until nil.
///
/// A last line cut off mid-record (a process that died while writing) ends the trace with a
/// warning, and so does a trace ending without its summary record (a recording cut between
/// two lines). A malformed line anywhere else is an error naming file, line and column.
///
/// ```swift
/// let reader = try TraceReader(url: URL(fileURLWithPath: "traces/search.trace"))
/// var values = 0
/// try reader.forEach { record in
///     if case let .event(event) = record, event.kind == .value { values += 1 }
/// }
/// print(values, "values;", reader.warnings.count, "warnings")
/// ```
public final class TraceReader {
    /// The file's path, or the name given to in-memory bytes.
    public let name: String
    /// The trace's header, read when the reader was made.
    public private(set) var header: TraceHeader
    /// What was skipped so far (at most `maxWarnings`; then one more says how many followed).
    public private(set) var warnings: [TraceWarning] = []
    /// The number of the last line read.
    @exclusivity(unchecked) public private(set) var lineNumber = 0
    /// Bytes consumed so far.
    @exclusivity(unchecked) public private(set) var bytesRead: Int64 = 0

    /// The size of the whole trace in bytes, header included, when it is known: a regular
    /// file's or the bytes given; nil for a pipe or a device.
    package let size: Int64?

    /// Lines longer than this are an error: a reader must not need unbounded memory.
    public let maxLineLength: Int
    static let maxWarnings = 100

    /// The trace's encoding, told by its first byte.
    public var encoding: TraceEncoding { binary == nil ? .jsonLines : .binary }
    /// The reader of a trace in the binary encoding; nil for JSON Lines.
    private var binary: BinaryTraceDecoder?

    private var source: Source
    /// The bytes read and not yet consumed are `buffer[start..<end]`; `capacity` bytes are
    /// allocated. Not an array: the pointer stays put between reads. No access to this
    /// per-line state spans a call out of the reader, so no two can overlap: it goes without
    /// run-time exclusivity checks (some 150 instructions a line).
    @exclusivity(unchecked) private var buffer: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var start = 0
    @exclusivity(unchecked) private var end = 0
    @exclusivity(unchecked) private var atEOF = false
    private var unknownKinds: [String: Int] = [:]
    /// The fields of the line being decoded, kept to reuse their storage from line to line.
    private var recordLine = RecordLine()
    private var suppressedWarnings = 0
    /// Whether the summary record was read, and whether the end of the trace was reported as
    /// cut off (once: by a cut last line or by the missing summary).
    @exclusivity(unchecked) private var sawSummary = false
    @exclusivity(unchecked) private var reportedCut = false
    /// Whether a line ending in a carriage return (CRLF line endings) was reported (once).
    @exclusivity(unchecked) private var reportedCarriageReturn = false
    /// The last event's sequence number, and whether one out of file order was reported (once).
    @exclusivity(unchecked) private var lastSequence: UInt64 = 0
    @exclusivity(unchecked) private var reportedOrder = false

    private enum Source {
        case file(UnsafeMutablePointer<FILE>)
        case bytes([UInt8], Int)
    }

    /// Opens the trace at `url` and reads its header; `name` stands for the file in messages
    /// (when nil, the path the URL was made from, relative if it was: a command line's
    /// messages name a file as it was typed).
    public convenience init(url: URL, name: String? = nil, maxLineLength: Int = 64 << 20) throws {
        try self.init(path: PathName(url.path), name: name ?? url.relativePath, maxLineLength: maxLineLength)
    }

    /// Opens the trace at `path`, its bytes used as given (a name that is not UTF-8 too), and
    /// reads its header; `name` stands for the file in messages (when nil, the path as shown,
    /// a byte that is not UTF-8 as `\xFF`).
    package convenience init(path: PathName, name: String? = nil, maxLineLength: Int = 64 << 20) throws {
        let name = name ?? path.shown
        guard let file = path.withCString({ fopen($0, "rb") }) else {
            throw TraceError(file: name, line: 0, column: 0,
                             message: "cannot open the trace: \(String(cString: strerror(errno)))")
        }
        try self.init(source: .file(file), name: name, maxLineLength: maxLineLength)
    }

    /// Reads a trace held in memory; `name` stands for the file in messages.
    public convenience init(bytes: [UInt8], name: String = "<memory>", maxLineLength: Int = 64 << 20) throws {
        try self.init(source: .bytes(bytes, 0), name: name, maxLineLength: maxLineLength)
    }

    private init(source: Source, name: String, maxLineLength: Int) throws {
        self.source = source
        self.name = name
        switch source {
        case let .file(file):
            var status = stat()
            let regular = fstat(fileno(file), &status) == 0 && status.st_mode & S_IFMT == S_IFREG
            self.size = regular ? Int64(status.st_size) : nil
        case let .bytes(bytes, _):
            self.size = Int64(bytes.count)
        }
        self.maxLineLength = maxLineLength
        self.capacity = 1 << 20
        self.buffer = .allocate(capacity: 1 << 20)
        self.header = TraceHeader(clock: .virtual)
        fill()
        if end > start && buffer[start] == BinaryTraceFormat.magic[0] {
            let readAhead = Array(UnsafeBufferPointer(start: buffer + start, count: end - start))
            start = end
            let input: BinaryTraceDecoder.Input
            switch self.source {
            case let .file(file): input = .file(file)
            case let .bytes(bytes, offset): input = .bytes(bytes, offset)
            }
            let decoder = try BinaryTraceDecoder(name: name, readAhead: readAhead, input: input)
            binary = decoder
            header = decoder.header
            takeWarnings(of: decoder)
            return
        }
        guard let first = try nextLine() else {
            throw TraceError(file: name, line: 1, column: 1, message: "expected a header line, found an empty file")
        }
        guard case let .header(header) = try decode(first) else {
            throw TraceError(file: name, line: lineNumber, column: 1,
                             message: "expected the header record (\"type\":\"header\") on the first line")
        }
        self.header = header
    }

    deinit {
        if case let .file(file) = source { fclose(file) }
        buffer.deallocate()
    }

    /// The next record after the header, or nil at the end of the trace.
    public func next() throws -> TraceRecord? {
        try next(handlingEvents: false) { _, _ in }
    }

    /// The next record after the header, or nil at the end of the trace, except that an event
    /// line written as the writer writes it is handed to `event` (with the line's bytes, valid
    /// only during the call) instead of being returned: a reader that keeps events its own
    /// way reads them without a record, `String`s or arrays made for each. The scanned event
    /// is lent `inout` only so that it is passed by address: handed over by value, its 144
    /// bytes were copied (a call to memcpy) at each step; `event` need not change it.
    func next(handlingEvents event: (inout WrittenEvent, UnsafeBufferPointer<UInt8>) throws -> Void) throws -> TraceRecord? {
        try next(handlingEvents: true, event)
    }

    private func next(handlingEvents: Bool,
                      _ event: (inout WrittenEvent, UnsafeBufferPointer<UInt8>) throws -> Void) throws -> TraceRecord? {
        if let binary {
            let record = try binary.next(handlingEvents: handlingEvents) { written, bytes in
                noteSequence(written.sequence)
                try event(&written, bytes)
            }
            if case let .event(event)? = record { noteSequence(event.sequence) }
            bytesRead = binary.bytesRead
            takeWarnings(of: binary)
            return record
        }
        while let line = try nextLine() {
            if let record = try decode(line, handlingEvents: handlingEvents, event) {
                switch record {
                case .header:
                    throw TraceError(file: name, line: lineNumber, column: 1, message: "expected one header, found a second")
                case .summary:
                    sawSummary = true
                default:
                    break
                }
                return record
            }
        }
        if !sawSummary && !reportedCut {
            reportedCut = true
            warn("the trace ends without its summary record: the recording was cut off after line \(lineNumber)")
        }
        return nil
    }

    /// Calls `body` with each remaining record.
    public func forEach(_ body: (TraceRecord) throws -> Void) throws {
        while let record = try next() { try body(record) }
    }

    // MARK: Lines

    private struct Line {
        var range: Range<Int>
        var complete: Bool
    }

    private func fill() {
        if start > 0 {
            memmove(buffer, buffer + start, end - start)
            end -= start
            start = 0
        }
        if end == capacity {
            let grown = capacity + min(capacity, maxLineLength + 1)
            let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
            larger.update(from: buffer, count: end)
            buffer.deallocate()
            buffer = larger
            capacity = grown
        }
        let room = capacity - end
        var got = 0
        switch source {
        case let .file(file):
            got = fread(buffer + end, 1, room, file)
        case let .bytes(bytes, offset):
            got = min(room, bytes.count - offset)
            bytes.withUnsafeBufferPointer { source in
                if got > 0 { (buffer + end).update(from: source.baseAddress! + offset, count: got) }
            }
            source = .bytes(bytes, offset + got)
        }
        if got == 0 { atEOF = true }
        end += got
    }

    /// The next line's bytes; handles blank lines by returning them (decode skips them).
    private func nextLine() throws -> Line? {
        var scanned = start
        while true {
            if scanned < end, let hit = memchr(buffer + scanned, Int32(UInt8(ascii: "\n")), end - scanned) {
                let newline = buffer.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                lineNumber += 1
                let line = Line(range: start..<newline, complete: true)
                bytesRead += Int64(newline + 1 - start)
                start = newline + 1
                guard line.range.count <= maxLineLength else { throw lineTooLong() }
                return line
            }
            scanned = end
            if end - start > maxLineLength {
                lineNumber += 1
                throw lineTooLong()
            }
            if atEOF {
                guard end > start else { return nil }
                lineNumber += 1
                let line = Line(range: start..<end, complete: false)
                bytesRead += Int64(end - start)
                start = end
                return line
            }
            let offset = scanned - start
            fill()
            scanned = start + offset
        }
    }

    private func lineTooLong() -> TraceError {
        TraceError(file: name, line: lineNumber, column: 0,
                   message: "expected a line of at most \(maxLineLength) bytes; this one is longer")
    }

    /// FORMAT.md: file order is sequence order. A trace whose events are not (edited, or
    /// concatenated by hand) is still read, in file order, with one warning: causes and
    /// figures follow the numbers, and a cause may then come after its effect.
    @inline(__always)
    private func noteSequence(_ sequence: UInt64) {
        if sequence <= lastSequence && !reportedOrder {
            reportedOrder = true
            warn("event \(sequence) comes after event \(lastSequence): sequence numbers out of file order (FORMAT.md: file "
                 + "order is sequence order; was the trace edited?); read in file order")
        }
        lastSequence = sequence
    }

    private func warn(_ message: String, byteOffset: Int64? = nil) {
        let byteOffset = byteOffset ?? binary?.recordOffset
        if warnings.count < Self.maxWarnings {
            warnings.append(TraceWarning(file: name, line: byteOffset == nil ? lineNumber : 0, message: message,
                                         byteOffset: byteOffset))
        } else {
            suppressedWarnings += 1
        }
    }

    private func takeWarnings(of decoder: BinaryTraceDecoder) {
        for warning in decoder.takeWarnings() { warn(warning.message, byteOffset: warning.offset) }
    }

    /// A problem with the record last read (an id it uses is not defined, say), located where
    /// that record is: its line, or its byte offset in a binary trace.
    package func problem(_ message: String) -> TraceError {
        if let binary { return TraceError(file: name, line: 0, column: 0, message: message, byteOffset: binary.recordOffset) }
        return TraceError(file: name, line: lineNumber, column: 0, message: message)
    }

    // MARK: Records

    /// The record of a line; nil for a blank line, a record skipped, or an event handed to
    /// `event` (when `handlingEvents`).
    private func decode(_ line: Line, handlingEvents: Bool = false,
                        _ event: (inout WrittenEvent, UnsafeBufferPointer<UInt8>) throws -> Void = { _, _ in }) throws -> TraceRecord? {
        do {
            let bytes = UnsafeBufferPointer(start: buffer + line.range.lowerBound, count: line.range.count)
            // FORMAT.md's lines end with LF; a CR before it (a file saved with CRLF line endings)
            // is whitespace to the reader, said once.
            if bytes.last == 0x0D && !reportedCarriageReturn {
                reportedCarriageReturn = true
                warn("the line ends with a carriage return (CRLF line endings, as some editors save): read as if it "
                     + "ended with a line feed alone, as FORMAT.md's lines do")
            }
            // A record starts with '{'; only a line starting otherwise can be blank.
            if bytes.first != UInt8(ascii: "{"),
               bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return nil }
            // Most lines are events as the writer writes them: read in one pass.
            if handlingEvents {
                var written = WrittenEvent()
                if JSONParser.scanWrittenEvent(bytes, into: &written) {
                    noteSequence(written.sequence)
                    try event(&written, bytes)
                    return nil
                }
            } else if let written = JSONParser.writtenEvent(bytes) {
                noteSequence(written.sequence)
                return .event(written)
            }
            // Most others are subscriptions, their ends and hops: read in one pass too.
            if let record = JSONParser.writtenStructure(bytes) { return record }
            try JSONParser.parseRecordLine(bytes, into: &recordLine)
            var fields = Fields(recordLine, bytes: bytes)
            return try record(&fields)
        } catch let error as JSONSyntaxError {
            if !line.complete && lineNumber > 1 {
                reportedCut = true
                warn("the last line is cut off (no newline at the end, \(line.range.count) bytes); ignored")
                return nil
            }
            throw TraceError(file: name, line: lineNumber, column: column(of: error.offset, in: line.range),
                             message: "expected \(error.expected)")
        } catch let error as FieldError {
            if !line.complete && lineNumber > 1 {
                reportedCut = true
                warn("the last line is cut off (no newline at the end, \(line.range.count) bytes); ignored")
                return nil
            }
            throw TraceError(file: name, line: lineNumber, column: column(of: error.offset, in: line.range),
                             message: "expected \(error.expected)")
        }
    }

    /// The 1-based column, in characters (Unicode scalars), of a byte offset in a line.
    private func column(of offset: Int, in range: Range<Int>) -> Int {
        var column = 1
        for byte in UnsafeBufferPointer(start: buffer + range.lowerBound, count: min(offset, range.count))
        where byte & 0xC0 != 0x80 {
            column += 1
        }
        return column
    }

    private enum RecordType {
        case header, node, subscribe, dispose, thread, event, hop, mark, label, summary
    }

    /// The record types by name, the most frequent first.
    private static let recordTypes: [(name: StaticString, value: RecordType)] = [
        ("event", .event), ("subscribe", .subscribe), ("dispose", .dispose), ("hop", .hop), ("thread", .thread),
        ("node", .node), ("mark", .mark), ("label", .label), ("summary", .summary), ("header", .header),
    ]

    /// What `observes` and `observedBy` must be.
    private static let subscriptionList = "an array of positive subscription ids"

    private static let eventKinds: [(name: StaticString, value: EventKind)] = [
        ("value", .value), ("completed", .completed), ("failed", .failed), ("interrupted", .interrupted),
        ("pull", .pull),
    ]

    private func record(_ fields: inout Fields) throws -> TraceRecord? {
        if let duplicate = fields.firstRepeatedKey() {
            throw FieldError(offset: duplicate.offset, expected: "each key once in a record, found \"\(duplicate.key)\" again")
        }
        guard let type = try fields.choice("type", among: Self.recordTypes) else {
            let name = try fields.string("type")
            unknownKinds[name, default: 0] += 1
            if unknownKinds[name] == 1 {
                warn("skipped a record of unknown type \(Self.quoted(name)) (written by a newer Marbles?); "
                     + "further records of this type are skipped silently")
            }
            return nil
        }
        switch type {
        case .header:
            let format = try fields.string("format")
            guard format == TraceFormat.name else {
                throw fields.error("format \"\(TraceFormat.name)\", found \(Self.quoted(format))", at: "format")
            }
            let version = try fields.string("version")
            let parts = version.split(separator: ".", omittingEmptySubsequences: false)
            // Digits only: Int("-1") and Int("+1") would read a sign; no leading zero ("01.1"
            // is not a version FORMAT.md allows, and would read as 1.1).
            guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (48...57).contains($0) } }),
                  parts.allSatisfy({ $0 == "0" || !$0.hasPrefix("0") }),
                  let major = Int(parts[0]), let minor = Int(parts[1]) else {
                throw fields.error("a version \"MAJOR.MINOR\" of two whole numbers, found \(Self.quoted(version))", at: "version")
            }
            guard major >= 1 else {
                throw fields.error("format version \(TraceFormat.major).x, found \(Self.quoted(version)): no Marbles wrote a version "
                                   + "before 1.0", at: "version")
            }
            guard major <= TraceFormat.major else {
                throw fields.error("format version \(TraceFormat.major).x or older; this trace is version \(Self.cut(version)), "
                                   + "written by a newer Marbles: update Marbles to read it", at: "version")
            }
            let unit = try fields.string("unit")
            guard unit == "ns" else { throw fields.error("unit \"ns\", found \(Self.quoted(unit))", at: "unit") }
            let clockName = try fields.string("clock")
            guard let clock = TraceClock(rawValue: clockName) else {
                throw fields.error("clock \"real\" or \"virtual\", found \(Self.quoted(clockName))", at: "clock")
            }
            var header = TraceHeader(clock: clock, wallClock: try fields.optionalString("wallClock"),
                                     wallClockNanoseconds: try fields.optionalInteger("wallClockNs"),
                                     pid: try fields.optionalInteger("pid"), process: try fields.optionalString("process"),
                                     host: try fields.optionalString("host"))
            header.major = major
            header.minor = minor
            return .header(header)
        case .node:
            var upstream: [NodeRecord.Edge] = []
            for (index, element) in try fields.array("upstream").enumerated() {
                guard case .object = element, case let .integer(node)? = element["node"], node > 0,
                      case let .string(role)? = element["role"] else {
                    throw fields.error("upstream element \(index) to be {\"node\":ID,\"role\":\"...\"}", at: "upstream")
                }
                upstream.append(.init(node: UInt64(node), role: EdgeRole(rawValue: role)))
            }
            return .node(NodeRecord(id: try fields.id("id"), kind: NodeKind(rawValue: try fields.string("kind")), name: try fields.string("name"),
                                    parameters: try fields.string("parameters"), file: try fields.string("file"),
                                    line: try fields.unsigned("line"), label: try fields.optionalString("label"),
                                    upstream: upstream))
        case .subscribe:
            let request = fields.raw("request").flatMap { $0 == "null" ? nil : $0 }
            return .subscribe(SubscriptionRecord(id: try fields.id("id"), node: try fields.id("node"),
                                                 parent: try fields.unsigned("parent"), time: try fields.integer("time"),
                                                 thread: try fields.id("thread"), late: try fields.optionalBool("late") ?? false,
                                                 request: request, requestOmitted: try fields.requestDigest(besides: request),
                                                 observes: try fields.optionalPositiveIntegers("observes", Self.subscriptionList),
                                                 observedBy: try fields.optionalPositiveIntegers("observedBy", Self.subscriptionList)))
        case .dispose:
            return .dispose(DisposeRecord(subscription: try fields.id("sub"), time: try fields.integer("time"),
                                          thread: try fields.id("thread")))
        case .thread:
            let os = try fields.optionalInteger("os")
            return .thread(ThreadRecord(id: try fields.id("id"), name: try fields.string("name"),
                                        scheduler: try fields.optionalString("scheduler"), os: os.map { UInt64(max(0, $0)) }))
        case .event:
            // Read in the order the writer writes, so each key is found at the lookup's cursor.
            let sequence = try fields.id("seq"), time = try fields.integer("time")
            let node = try fields.id("node"), subscription = try fields.id("sub")
            guard let kind = try fields.choice("kind", among: Self.eventKinds) else {
                let kindName = try fields.string("kind")
                throw fields.error("kind value, failed, completed, interrupted or pull, found \(Self.quoted(kindName))", at: "kind")
            }
            let thread = try fields.id("thread")
            let causes = try fields.positiveIntegers("causes", "causes to be positive sequence numbers")
            if kind == .pull, let cause = causes.first {
                throw fields.error("no causes for a pull (demand, caused by nothing a trace records), found \(cause)", at: "causes")
            }
            noteSequence(sequence)
            return .event(EventRecord(sequence: sequence, time: time, node: node, subscription: subscription, kind: kind,
                                      thread: thread, causes: causes, text: try fields.optionalString("text"),
                                      truncated: try fields.optionalBool("truncated") ?? false, json: fields.raw("json"),
                                      omittedJSONBytes: try fields.optionalInteger("jsonOmitted") ?? 0,
                                      jsonError: try fields.optionalString("jsonError")))
        case .hop:
            let started = try fields.optionalInteger("started")
            let to = try fields.optionalInteger("to")
            return .hop(HopRecord(id: try fields.id("id"), node: try fields.unsigned("node"), subscription: try fields.unsigned("sub"),
                                  scheduler: try fields.string("scheduler"), enqueued: try fields.integer("enqueued"),
                                  from: try fields.id("from"), started: started, to: to.map { UInt64(max(0, $0)) },
                                  due: try fields.optionalInteger("due")))
        case .mark:
            return .mark(MarkRecord(time: try fields.integer("time"), thread: try fields.id("thread"),
                                    label: try fields.string("label")))
        case .label:
            return .label(LabelRecord(node: try fields.id("node"), label: try fields.string("label")))
        case .summary:
            return .summary(SummaryRecord(events: try fields.unsigned("events"), nodes: try fields.unsigned("nodes"),
                                          subscriptions: try fields.unsigned("subscriptions"),
                                          threads: try fields.unsigned("threads"), hops: try fields.unsigned("hops"),
                                          marks: try fields.unsigned("marks"), dropped: try fields.unsigned("dropped"),
                                          duration: try fields.integer("duration")))
        }
    }

    /// The most characters of a value from the trace an error or warning quotes.
    static let quoteLimit = 200

    /// A value from the trace in quotes, cut to `quoteLimit` characters.
    static func quoted(_ text: String) -> String { "\"\(cut(text))\"" }

    /// A value from the trace cut to `quoteLimit` characters, ending with `…` when cut: a
    /// message must not repeat a line of megabytes.
    static func cut(_ text: String) -> String {
        guard text.utf8.count > quoteLimit,
              let limit = text.index(text.startIndex, offsetBy: quoteLimit, limitedBy: text.endIndex),
              limit != text.endIndex else { return text }
        return text[..<text.index(before: limit)] + "\u{2026}"
    }

    /// How many records of each unknown type were skipped, by type name.
    public var skippedRecords: [(type: String, count: Int)] {
        unknownKinds.keys.sorted().map { ($0, unknownKinds[$0] ?? 0) }
    }

    /// How many warnings were left out of `warnings` after the first `maxWarnings`.
    public var suppressedWarningCount: Int { suppressedWarnings }
}

/// A field is missing or of the wrong type, at a byte offset of its line.
struct FieldError: Error {
    let offset: Int
    let expected: String
}

/// The top-level fields of one record line, with typed access that names what is wrong.
/// Keys are matched as bytes; a `String` is made only for a string value asked for.
struct Fields {
    let fields: [LineField]
    let strings: [String]
    let bytes: UnsafeBufferPointer<UInt8>
    /// Where the next lookup starts: records are read in the order they are written, so the
    /// key asked for is almost always the one after the last found.
    private var cursor = 0

    init(_ line: RecordLine, bytes: UnsafeBufferPointer<UInt8>) {
        self.fields = line.fields
        self.strings = line.strings
        self.bytes = bytes
    }

    private func equals(_ range: Range<Int>, _ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard range.count == count else { return false }
        guard count > 0, let base = bytes.baseAddress else { return true }
        return memcmp(base + range.lowerBound, text.utf8Start, count) == 0
    }

    /// The first key that a record repeats (JSON leaves its meaning open; the first would win
    /// silently), with where it is repeated.
    func firstRepeatedKey() -> (key: String, offset: Int)? {
        func name(_ field: LineField) -> String {
            field.decodedKey.map { strings[$0] } ?? String(decoding: UnsafeBufferPointer(rebasing: bytes[field.key]), as: UTF8.self)
        }
        guard fields.count > 1 else { return nil }
        var seen = Set<String>()
        for field in fields {
            let key = name(field)
            // At the key's opening quote (where the writer's keys are: no escapes), else at its value.
            if !seen.insert(key).inserted { return (key, field.decodedKey == nil ? field.key.lowerBound - 1 : field.range.lowerBound) }
        }
        return nil
    }

    /// The field of `key`, searched from the one after the last found.
    private mutating func field(_ key: StaticString) -> LineField? {
        let count = fields.count
        var index = cursor < count ? cursor : 0
        for _ in 0..<count {
            let candidate = fields[index]
            let found: Bool
            if let decoded = candidate.decodedKey {
                found = strings[decoded] == key.description
            } else {
                found = equals(candidate.key, key)
            }
            if found {
                cursor = index + 1
                return candidate
            }
            index = index + 1 == count ? 0 : index + 1
        }
        return nil
    }

    mutating func error(_ expected: String, at key: StaticString) -> FieldError {
        FieldError(offset: field(key)?.range.lowerBound ?? 0, expected: expected)
    }

    private mutating func required(_ key: StaticString, _ what: String) throws -> LineField {
        guard let field = field(key) else {
            throw FieldError(offset: 0, expected: "a field \"\(key)\" (\(what)) in this record")
        }
        return field
    }

    private func text(_ value: LineValue) -> String? {
        switch value {
        case let .plainString(range): return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        case let .string(index): return strings[index]
        default: return nil
        }
    }

    mutating func string(_ key: StaticString) throws -> String {
        let field = try required(key, "a string")
        guard let value = text(field.value) else {
            throw FieldError(offset: field.range.lowerBound, expected: "a string for \"\(key)\"")
        }
        return value
    }

    /// The value among `choices` whose name the string value of `key` is, or nil when it is
    /// none of them (`string(key)` then says what it is); no `String` is made for a match.
    mutating func choice<Value>(_ key: StaticString, among choices: [(name: StaticString, value: Value)]) throws -> Value? {
        let field = try required(key, "a string")
        switch field.value {
        case let .plainString(range):
            return choices.first { equals(range, $0.name) }?.value
        case let .string(index):
            return choices.first { strings[index] == $0.name.description }?.value
        default:
            throw FieldError(offset: field.range.lowerBound, expected: "a string for \"\(key)\"")
        }
    }

    mutating func optionalString(_ key: StaticString) throws -> String? {
        guard let field = field(key) else { return nil }
        if case .null = field.value { return nil }
        guard let value = text(field.value) else {
            throw FieldError(offset: field.range.lowerBound, expected: "a string or null for \"\(key)\"")
        }
        return value
    }

    mutating func integer(_ key: StaticString) throws -> Int64 {
        let field = try required(key, "an integer")
        guard case let .integer(value) = field.value else {
            throw FieldError(offset: field.range.lowerBound, expected: "an integer for \"\(key)\"")
        }
        return value
    }

    mutating func optionalInteger(_ key: StaticString) throws -> Int64? {
        guard let field = field(key) else { return nil }
        switch field.value {
        case .null: return nil
        case let .integer(value): return value
        default: throw FieldError(offset: field.range.lowerBound, expected: "an integer or null for \"\(key)\"")
        }
    }

    mutating func optionalBool(_ key: StaticString) throws -> Bool? {
        guard let field = field(key) else { return nil }
        guard case let .bool(value) = field.value else {
            throw FieldError(offset: field.range.lowerBound, expected: "true or false for \"\(key)\"")
        }
        return value
    }

    mutating func unsigned(_ key: StaticString) throws -> UInt64 {
        let field = try required(key, "an integer")
        guard case let .integer(value) = field.value, value >= 0 else {
            throw FieldError(offset: field.range.lowerBound, expected: "a non-negative integer for \"\(key)\"")
        }
        return UInt64(value)
    }

    /// A positive id (ids start at 1).
    mutating func id(_ key: StaticString) throws -> UInt64 {
        let field = try required(key, "an id")
        guard case let .integer(value) = field.value, value > 0 else {
            throw FieldError(offset: field.range.lowerBound, expected: "a positive integer id for \"\(key)\"")
        }
        return UInt64(value)
    }

    mutating func array(_ key: StaticString) throws -> [JSONValue] {
        let field = try required(key, "an array")
        guard case .other = field.value,
              case let .array(value)? = try? JSONParser.parse(UnsafeBufferPointer(rebasing: bytes[field.range])) else {
            throw FieldError(offset: field.range.lowerBound, expected: "an array for \"\(key)\"")
        }
        return value
    }

    /// An array of positive integers, parsed straight into `UInt64`s.
    mutating func positiveIntegers(_ key: StaticString, _ what: String) throws -> [UInt64] {
        let field = try required(key, "an array")
        guard case .other = field.value, bytes[field.range.lowerBound] == UInt8(ascii: "[") else {
            throw FieldError(offset: field.range.lowerBound, expected: "an array for \"\(key)\"")
        }
        guard let elements = JSONParser.positiveIntegers(UnsafeBufferPointer(rebasing: bytes[field.range])) else {
            throw FieldError(offset: field.range.lowerBound, expected: what)
        }
        return elements
    }

    /// As `positiveIntegers(_:_:)`, or nil when the key is missing or null.
    mutating func optionalPositiveIntegers(_ key: StaticString, _ what: String) throws -> [UInt64]? {
        guard let field = field(key) else { return nil }
        if case .null = field.value { return nil }
        guard case .other = field.value, bytes[field.range.lowerBound] == UInt8(ascii: "["),
              let elements = JSONParser.positiveIntegers(UnsafeBufferPointer(rebasing: bytes[field.range])) else {
            throw FieldError(offset: field.range.lowerBound, expected: what + " for \"\(key)\"")
        }
        return elements
    }

    /// A request left out (`requestOmitted` with `requestHash`), or nil when neither is there.
    /// Both or neither, and not beside a `request` kept whole.
    mutating func requestDigest(besides request: String?) throws -> RequestDigest? {
        let size = field("requestOmitted"), hash = field("requestHash")
        guard size != nil || hash != nil else { return nil }
        guard let size else {
            throw FieldError(offset: hash!.range.lowerBound, expected: "\"requestOmitted\" beside \"requestHash\"")
        }
        guard case let .integer(bytes) = size.value, bytes > 0 else {
            throw FieldError(offset: size.range.lowerBound, expected: "a positive integer for \"requestOmitted\" (the request's size in bytes)")
        }
        guard request == nil else {
            throw FieldError(offset: size.range.lowerBound, expected: "either \"request\" or \"requestOmitted\", not both")
        }
        guard let hash else {
            throw FieldError(offset: size.range.lowerBound, expected: "\"requestHash\" beside \"requestOmitted\"")
        }
        guard let text = self.text(hash.value), let value = RequestDigest.hash(fromText: text) else {
            throw FieldError(offset: hash.range.lowerBound,
                             expected: "a \"requestHash\" of the form \"fnv1a64:\" and 16 lowercase hexadecimal digits")
        }
        return RequestDigest(bytes: Int(bytes), hash: value)
    }

    /// The field's JSON text as written.
    mutating func raw(_ key: StaticString) -> String? {
        guard let field = field(key) else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[field.range]), as: UTF8.self)
    }
}
