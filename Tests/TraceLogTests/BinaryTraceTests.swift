import Foundation
import TestSupport
import TraceLog
@testable import TraceLog
import XCTest

/// The binary encoding (FORMAT.md, "The binary encoding"): a trace converts to it and back to
/// the same bytes; every reader reads it as it reads the JSON Lines; a cut file reads up to its
/// last complete chunk with the cut reported; corrupted bytes give an error at a byte offset.
final class BinaryTraceTests: XCTestCase {
    private func records(_ bytes: [UInt8], name: String = "t.mtrace") throws -> (records: [TraceRecord], warnings: [TraceWarning]) {
        let reader = try TraceReader(bytes: bytes, name: name)
        var records: [TraceRecord] = [.header(reader.header)]
        while let record = try reader.next() { records.append(record) }
        return (records, reader.warnings)
    }

    // MARK: Round trips

    func testEveryCommittedTraceConvertsToBinaryAndBackToTheSameBytes() throws {
        for (name, bytes) in try committedTraces() {
            let binary = try TraceConversion.converted(bytes, name: name, to: .binary)
            XCTAssertEqual(Array(binary.prefix(8)), BinaryTraceFormat.magic, name)
            XCTAssertLessThan(binary.count, bytes.count, name)
            XCTAssertEqual(try TraceReader(bytes: binary).encoding, .binary, name)
            let back = try TraceConversion.converted(binary, name: name, to: .jsonLines)
            XCTAssertTrue(back == bytes, "\(name) did not convert back to the same bytes")
            XCTAssertEqual(try records(binary).records, try records(bytes).records, name)
            XCTAssertEqual(try records(binary).warnings, [], name)
        }
    }

    func testEveryCommittedTraceLoadsAndComputesTheSameFromEitherEncoding() throws {
        for (name, bytes) in try committedTraces() {
            let binary = try TraceConversion.converted(bytes, name: name, to: .binary)
            let fromJSON = try Trace(bytes: bytes, name: name), fromBinary = try Trace(bytes: binary, name: name)
            XCTAssertEqual(fromBinary.header, fromJSON.header, name)
            XCTAssertEqual(fromBinary.nodes, fromJSON.nodes, name)
            XCTAssertEqual(fromBinary.subscriptions, fromJSON.subscriptions, name)
            XCTAssertEqual(fromBinary.disposals, fromJSON.disposals, name)
            XCTAssertEqual(fromBinary.threads, fromJSON.threads, name)
            XCTAssertEqual(Array(fromBinary.events), Array(fromJSON.events), name)
            XCTAssertEqual(fromBinary.hops, fromJSON.hops, name)
            XCTAssertEqual(fromBinary.marks, fromJSON.marks, name)
            XCTAssertEqual(fromBinary.summary, fromJSON.summary, name)
            let statsJSON = try TraceStats.compute(TraceReader(bytes: bytes, name: name))
            let statsBinary = try TraceStats.compute(TraceReader(bytes: binary, name: name))
            XCTAssertEqual(statsBinary.text, statsJSON.text, name)
            XCTAssertEqual(statsBinary.json, statsJSON.json, name)
            var exportJSON: [UInt8] = [], exportBinary: [UInt8] = []
            try PerfettoExport.export(TraceReader(bytes: bytes, name: name)) { exportJSON += $0 }
            try PerfettoExport.export(TraceReader(bytes: binary, name: name)) { exportBinary += $0 }
            XCTAssertTrue(exportBinary == exportJSON, "\(name): the Perfetto export differs")
        }
    }

    func testFuzzedTracesConvertToBinaryAndBackToTheSameBytes() throws {
        for seed in UInt64(1)...300 {
            var random = SplitMix(seed: seed)
            let bytes = FuzzedTrace.make(&random)
            let chunkLength = random.pick([1, 64, 1 << 16])
            var encoder: BinaryTraceEncoder?
            var binary: [UInt8] = []
            try TraceReader(bytes: bytes, name: "seed \(seed)").forEachWithHeader { record in
                if case let .header(header) = record {
                    encoder = BinaryTraceEncoder(header: header, chunkLength: chunkLength)
                } else {
                    encoder?.append(record)
                }
            }
            encoder?.flush()
            binary = encoder?.takeBytes() ?? []
            let back = try TraceConversion.converted(binary, name: "seed \(seed)", to: .jsonLines)
            XCTAssertTrue(back == bytes, "seed \(seed): \(String(decoding: bytes, as: UTF8.self))\nback: "
                          + String(decoding: back, as: UTF8.self))
            if back != bytes { return }
        }
    }

    // MARK: Cuts

    /// The offsets where each chunk begins, and the file's length, by walking the lengths.
    private func chunkStarts(_ binary: [UInt8]) -> [Int] {
        var starts: [Int] = []
        var offset = BinaryTraceFormat.preambleLength
        while offset < binary.count {
            starts.append(offset)
            let length = binary[(offset + 4)..<(offset + 8)].reversed().reduce(0) { $0 << 8 | Int($1) }
            offset += 12 + length
        }
        XCTAssertEqual(offset, binary.count)
        return starts + [binary.count]
    }

    func testABinaryTraceCutAtEveryOffsetOfItsLastChunksReadsUpToItsLastCompleteChunk() throws {
        let bytes = Array(try Data(contentsOf: repositoryRoot.appendingPathComponent("traces/swift-search.trace")))
        var encoder: BinaryTraceEncoder?
        try TraceReader(bytes: bytes).forEachWithHeader { record in
            if case let .header(header) = record { encoder = BinaryTraceEncoder(header: header, chunkLength: 300) } else { encoder?.append(record) }
        }
        let binary = try XCTUnwrap(encoder?.takeBytes())
        let starts = chunkStarts(binary)
        XCTAssertGreaterThan(starts.count, 8)
        let whole = try records(binary).records
        // Records read from the file cut at each chunk boundary: what a cut inside the next
        // chunk must give.
        var recordsBefore: [Int: Int] = [:]
        for start in starts.dropFirst() { recordsBefore[start] = try records(Array(binary[..<start])).records.count }
        XCTAssertEqual(recordsBefore[binary.count], whole.count)
        for cut in starts[starts.count - 5]..<binary.count {
            let complete = starts.last { $0 <= cut }!
            let read = try records(Array(binary[..<cut]), name: "cut.mtrace")
            XCTAssertEqual(read.records, Array(whole.prefix(recordsBefore[complete]!)), "cut at \(cut)")
            XCTAssertEqual(read.warnings.count, 1, "cut at \(cut)")
            let warning = try XCTUnwrap(read.warnings.first)
            XCTAssertEqual(warning.byteOffset, Int64(complete), "cut at \(cut)")
            if cut == complete {
                XCTAssertEqual(warning.description, "cut.mtrace: byte \(cut): warning: the trace ends without its SUMM chunk: "
                               + "the recording was cut off after byte \(cut)")
            } else {
                XCTAssertTrue(warning.description.hasPrefix("cut.mtrace: byte \(complete): warning: the trace is cut at byte "
                                                            + "\(cut) (the end of the file), inside "), warning.description)
                XCTAssertTrue(warning.description.hasSuffix("; read up to byte \(complete), its last complete chunk"),
                              warning.description)
            }
            // `Trace` and the conversion read it too, the conversion cut the same way.
            XCTAssertNoThrow(try Trace(bytes: Array(binary[..<cut]), name: "cut.mtrace"), "cut at \(cut)")
            let converted = try TraceConversion.converted(Array(binary[..<cut]), to: .jsonLines)
            XCTAssertEqual(try records(converted).records, read.records, "cut at \(cut)")
        }
    }

    // MARK: Corruption

    /// A binary trace from `records` after a virtual header, with small chunks.
    private func binary(_ records: [TraceRecord], chunkLength: Int = 1 << 16) -> [UInt8] {
        var encoder = BinaryTraceEncoder(header: TraceHeader(clock: .virtual), chunkLength: chunkLength)
        for record in records { encoder.append(record) }
        encoder.flush()
        return encoder.takeBytes()
    }

    private let smallTrace: [TraceRecord] = [
        .thread(ThreadRecord(id: 1, name: "main")),
        .node(NodeRecord(id: 1, kind: .source, name: "pipe", file: "A.swift", line: 3, label: "input")),
        .node(NodeRecord(id: 2, kind: .operator, name: "map", file: "A.swift", line: 4, upstream: [.init(node: 1, role: .data)])),
        .subscribe(SubscriptionRecord(id: 1, node: 1, parent: 0, time: 0, thread: 1)),
        .subscribe(SubscriptionRecord(id: 2, node: 2, parent: 0, time: 0, thread: 1)),
        .event(EventRecord(sequence: 1, time: 10, node: 1, subscription: 1, kind: .value, thread: 1, text: "1", json: "1")),
        .event(EventRecord(sequence: 2, time: 10, node: 2, subscription: 2, kind: .value, thread: 1, causes: [1],
                           text: "\"é\"", json: "\"\\u00e9\"")),
        .event(EventRecord(sequence: 3, time: 20, node: 1, subscription: 1, kind: .completed, thread: 1)),
        .dispose(DisposeRecord(subscription: 2, time: 20, thread: 1)),
        .summary(SummaryRecord(events: 3, nodes: 2, subscriptions: 2, threads: 1, duration: 20)),
    ]

    /// The error reading `bytes` as a trace gives, from the reader and from `Trace`.
    private func error(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> TraceError? {
        var fromReader: TraceError?
        do {
            _ = try records(bytes)
        } catch {
            fromReader = error as? TraceError
            XCTAssertNotNil(fromReader, "\(error)", file: file, line: line)
        }
        var fromTrace: TraceError?
        do {
            _ = try Trace(bytes: bytes, name: "t.mtrace")
        } catch {
            fromTrace = error as? TraceError
        }
        XCTAssertEqual(fromReader, fromTrace, file: file, line: line)
        return fromReader
    }

    /// `bytes` with a chunk of `kind` and `payload` (its checksum right) after them.
    private func appendingChunk(_ kind: String, _ payload: [UInt8], to bytes: [UInt8]) -> [UInt8] {
        var chunk = Array(kind.utf8)
        chunk.appendLittleEndian(UInt32(payload.count))
        chunk += payload
        chunk.appendLittleEndian(CRC32C.checksum(chunk))
        return bytes + chunk
    }

    /// `bytes` with the encoding's version set to `major`.`minor` and every chunk's checksum
    /// made again with `checksum`.
    private func rewritten(_ bytes: [UInt8], major: UInt8, minor: UInt8, checksum: Checksum) -> [UInt8] {
        var bytes = bytes
        bytes[8] = major
        bytes[9] = 0
        bytes[10] = minor
        bytes[11] = 0
        let starts = chunkStarts(bytes)
        for (start, end) in zip(starts, starts.dropFirst()) {
            let value = bytes[start..<(end - 4)].withUnsafeBytes { checksum.checksum($0) }
            for index in 0..<4 { bytes[end - 4 + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
        }
        return bytes
    }

    /// The reflected CRC-32 of `bytes` with the polynomial `reflected`, a bit at a time (the
    /// definition, against which the table and instruction paths are checked).
    private static func bitwise(_ bytes: ArraySlice<UInt8>, reflected polynomial: UInt32) -> UInt32 {
        var value: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            value ^= UInt32(byte)
            for _ in 0..<8 { value = value & 1 != 0 ? (value >> 1) ^ polynomial : value >> 1 }
        }
        return ~value
    }

    func testCRC32CIsTheCastagnoliChecksumWithOrWithoutTheInstruction() {
        XCTAssertEqual(CRC32C.checksum(Array("123456789".utf8)), 0xE306_9283)
        XCTAssertEqual(CRC32C.checksum([]), 0)
        // The instruction (where the processor has it), the tables, and a bit at a time agree at
        // every length, split and alignment.
        var random = SplitMix(seed: 1_200)
        let bytes = (0..<140).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        func bitwise(_ bytes: ArraySlice<UInt8>) -> UInt32 { Self.bitwise(bytes, reflected: 0x82F6_3B78) }
        bytes.withUnsafeBytes { all in
            for start in 0..<8 {
                for end in start...all.count {
                    let split = start + (end - start) / 3
                    let expected = bitwise(bytes[start..<end])
                    let first = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: all[start..<split]))
                    let whole = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: all[split..<end]), continuing: first)
                    XCTAssertEqual(whole, expected, "\(start)..<\(end)")
                    XCTAssertEqual(CRC32C.checksumByTables(UnsafeRawBufferPointer(rebasing: all[start..<end])), expected,
                                   "\(start)..<\(end), tables")
                }
            }
        }
    }

    func testTheEncodingsMajorVersionDecidesTheChecksum() throws {
        let current = binary(smallTrace)
        XCTAssertEqual(Array(current[8..<12]), [2, 0, 0, 0], "the writer writes encoding 2.0, checksummed with CRC-32C")
        let expected = try records(current).records
        // A 1.1 or 1.0 file, checksummed with CRC-32 as those were written, reads the same.
        XCTAssertEqual(try records(rewritten(current, major: 1, minor: 1, checksum: .crc32)).records, expected)
        XCTAssertEqual(try records(rewritten(current, major: 1, minor: 0, checksum: .crc32)).records, expected)
        // Each checksum is checked as its version says: CRC-32 under 2.0, or CRC-32C under 1.1,
        // is a wrong checksum at the HEAD chunk's.
        let starts = chunkStarts(current)
        for (major, minor, checksum) in [(UInt8(2), UInt8(0), Checksum.crc32), (1, 1, .crc32c)] {
            let version = "\(major).\(minor)"
            let found = try XCTUnwrap(error(rewritten(current, major: major, minor: minor, checksum: checksum)), version)
            XCTAssertEqual(found.byteOffset, Int64(starts[1] - 4), version)
            XCTAssertTrue(found.description.contains("of the HEAD chunk at byte 12"), found.description)
        }
    }

    func testCRC32IsTheIEEEChecksum() {
        XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926)
        XCTAssertEqual(CRC32.checksum([]), 0)
        // Eight bytes a step and one at a time agree, at every length and split.
        var random = SplitMix(seed: 28)
        let bytes = (0..<100).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        func bitwise(_ bytes: ArraySlice<UInt8>) -> UInt32 { Self.bitwise(bytes, reflected: 0xEDB8_8320) }
        for count in 0...bytes.count {
            let split = count / 3
            let first = CRC32.checksum(Array(bytes[..<split]))
            let whole = Array(bytes[split..<count]).withUnsafeBytes { CRC32.checksum($0, continuing: first) }
            XCTAssertEqual(whole, bitwise(bytes[..<count]), "\(count) bytes")
        }
    }

    func testASmallTraceReadsBackItsRecords() throws {
        XCTAssertEqual(try records(binary(smallTrace)).records, [.header(TraceHeader(clock: .virtual))] + smallTrace)
        let real = TraceHeader(clock: .real, wallClock: "2026-11-29T01:00:00.000000000Z", wallClockNanoseconds: 17,
                               pid: 42, process: "marbles", host: "h")
        let encoder = BinaryTraceEncoder(header: real)
        var copy = encoder
        XCTAssertEqual(try TraceReader(bytes: copy.takeBytes()).header, real)
    }

    func testAWrongMagicIsAnErrorAtByteZero() throws {
        var bytes = binary(smallTrace)
        bytes[3] = 0
        XCTAssertEqual(error(bytes)?.description,
                       "t.mtrace: byte 0: error: expected a trace: JSON Lines, whose first record opens with '{', or the "
                       + "binary encoding's magic 89 4D 52 42 0D 0A 1A 0A; found 89 4D 52 00 0D 0A 1A 0A")
        XCTAssertEqual(error([0x89])?.description,
                       "t.mtrace: byte 0: error: expected a trace: JSON Lines, whose first record opens with '{', or the "
                       + "binary encoding's magic 89 4D 52 42 0D 0A 1A 0A; found 89")
    }

    func testANewerEncodingIsRefused() {
        var bytes = binary(smallTrace)
        bytes[8] = 3
        bytes[10] = 0
        XCTAssertEqual(error(bytes)?.description, "t.mtrace: byte 8: error: expected binary encoding version 2.x or older; this "
                       + "trace's is 3.0, written by a newer Marbles: update Marbles to read it")
    }

    func testAWrongChecksumIsAnErrorNamingTheChunk() throws {
        var bytes = binary(smallTrace)
        let starts = chunkStarts(bytes)
        // A byte in the RECS chunk's payload.
        bytes[starts[2] + 20] ^= 0x40
        let found = try XCTUnwrap(error(bytes))
        XCTAssertEqual(found.byteOffset, Int64(starts[3] - 4))
        XCTAssertTrue(found.description.contains("error: expected the checksum 0x"), found.description)
        XCTAssertTrue(found.description.contains(" of the RECS chunk at byte \(starts[2]), found 0x"), found.description)
        XCTAssertTrue(found.description.hasSuffix(" (the file is corrupted)"), found.description)
    }

    func testEveryByteFlippedIsALocatedErrorOrAReportedCutNeverACrash() throws {
        let bytes = binary(smallTrace, chunkLength: 40)
        for position in bytes.indices {
            for flip: UInt8 in [0x01, 0x80, 0xFF] {
                var corrupted = bytes
                corrupted[position] ^= flip
                do {
                    let read = try records(corrupted)
                    // The minor version may be any: minor versions only add chunk kinds.
                    if position == 10 || position == 11 { continue }
                    // Only a length made longer can pass unseen: it reads as a cut chunk.
                    XCTAssertEqual(read.warnings.count, 1, "byte \(position) ^ \(flip)")
                    XCTAssertNotNil(read.warnings.first?.byteOffset, "byte \(position) ^ \(flip)")
                } catch let error as TraceError where position == 0 && corrupted[0] != 0x89 {
                    // No longer the binary magic's first byte: read as JSON Lines, refused at line 1.
                    XCTAssertEqual(error.line, 1, "byte \(position) ^ \(flip): \(error)")
                } catch let error as TraceError {
                    let offset = try XCTUnwrap(error.byteOffset, "byte \(position) ^ \(flip): \(error)")
                    XCTAssertTrue((0...Int64(bytes.count)).contains(offset), "byte \(position) ^ \(flip): \(error)")
                }
            }
        }
    }

    /// The preamble and HEAD chunk of a virtual trace, then `STRS` with "a".
    private var headAndOneString: [UInt8] {
        var strings: [UInt8] = []
        strings.appendLittleEndian(UInt32(1))
        strings.appendLittleEndian(UInt32(1))
        strings.append(UInt8(ascii: "a"))
        return appendingChunk("STRS", strings, to: binary([]))
    }

    func testAStringNumberOutsideTheTableIsAnErrorAtItsField() throws {
        let head = headAndOneString
        var label: [UInt8] = [BinaryTraceFormat.Tag.label.rawValue]
        label.appendLittleEndian(UInt64(1))
        label.appendLittleEndian(UInt32(7))
        let bytes = appendingChunk("RECS", label, to: head)
        XCTAssertEqual(error(bytes)?.description, "t.mtrace: byte \(head.count + 8 + 9): error: expected a string number 1 to 1 "
                       + "(of the STRS chunks before), found 7")
    }

    func testAnUnknownTagAndARecordPastItsChunkAreErrorsAtTheirOffsets() throws {
        let head = headAndOneString
        XCTAssertEqual(error(appendingChunk("RECS", [9], to: head))?.description,
                       "t.mtrace: byte \(head.count + 8): error: expected a record tag 1 to 8 (node, subscribe, dispose, thread, "
                       + "event, hop, mark, label), found 9")
        XCTAssertEqual(error(appendingChunk("RECS", [BinaryTraceFormat.Tag.event.rawValue, 1, 2], to: head))?.description,
                       "t.mtrace: byte \(head.count + 9): error: expected an event record of 66 bytes; the chunk has 2 left")
        XCTAssertEqual(error(appendingChunk("RECS", [BinaryTraceFormat.Tag.dispose.rawValue, 1, 2], to: head))?.description,
                       "t.mtrace: byte \(head.count + 9): error: expected a field of 8 bytes; the chunk has 2 bytes left")
    }

    /// An event kind past the last (pull, 4) and a pull naming a cause are errors at the kind.
    func testAnUnknownEventKindAndAPullWithACauseAreErrorsAtTheKind() throws {
        let head = headAndOneString
        func event(kind: UInt8, cause: UInt64) -> [UInt8] {
            var record: [UInt8] = [BinaryTraceFormat.Tag.event.rawValue]
            for field: UInt64 in [1, 0, 1, 1, 1, cause, 0] { record.appendLittleEndian(field) }
            record.appendLittleEndian(UInt32(0))
            record.appendLittleEndian(UInt32(0))
            return record + [kind, 0]
        }
        let kindAt = head.count + 8 + 65
        XCTAssertEqual(error(appendingChunk("RECS", event(kind: 5, cause: 0), to: head))?.description,
                       "t.mtrace: byte \(kindAt): error: expected an event kind 0 to 4 (value, failed, completed, "
                       + "interrupted, pull), found 5")
        XCTAssertEqual(error(appendingChunk("RECS", event(kind: 4, cause: 1), to: head))?.description,
                       "t.mtrace: byte \(kindAt): error: expected no causes for a pull (demand, caused by nothing a "
                       + "trace records), found 1")
    }

    /// An event's value is inline (its text and JSON after the record), so the string table
    /// holds only what the code names: a recording's distinct values do not pile up in it, for
    /// its writer or its reader.
    func testValuesAreInlineAndTheStringTableHoldsOnlyNames() throws {
        var records: [TraceRecord] = [
            .thread(ThreadRecord(id: 1, name: "main")),
            .node(NodeRecord(id: 1, kind: .source, name: "input", parameters: "", file: "A.swift", line: 1, label: "q",
                             upstream: [])),
            .subscribe(SubscriptionRecord(id: 1, node: 1, parent: 0, time: 0, thread: 1)),
        ]
        for number in 1...500 {
            let text = "query \(number) \"é\""
            records.append(.event(EventRecord(sequence: UInt64(number), time: Int64(number), node: 1, subscription: 1,
                                              kind: .value, thread: 1, causes: [], text: text,
                                              json: "\"query \(number) \\\"é\\\"\"")))
        }
        let bytes = binary(records)
        XCTAssertEqual(try self.records(bytes).records, [.header(TraceHeader(clock: .virtual))] + records)
        // The table: "main", "source", "input", "", "A.swift", "q", and nothing of the values.
        var strings = 0
        var offset = BinaryTraceFormat.preambleLength
        while offset < bytes.count {
            let kind = bytes[offset..<offset + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let length = Int(bytes[offset + 4..<offset + 8].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            if kind == BinaryTraceFormat.Kind.strings.rawValue {
                strings += Int(bytes[offset + 8..<offset + 12].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            }
            offset += 8 + length + 4
        }
        XCTAssertEqual(strings, 6)
    }

    /// An inline value longer than what its chunk has left is an error at the value.
    func testAnInlineValuePastItsChunkIsAnErrorAtTheValue() throws {
        let head = headAndOneString
        var record: [UInt8] = [BinaryTraceFormat.Tag.event.rawValue]
        for field: UInt64 in [1, 0, 1, 1, 1, 0, 0] { record.appendLittleEndian(field) }
        record.appendLittleEndian(UInt32(11))  // a text of 10 bytes
        record.appendLittleEndian(UInt32(0))
        record += [0, BinaryTraceFormat.EventFlag.inlineValue] + Array("short".utf8)
        XCTAssertEqual(error(appendingChunk("RECS", record, to: head))?.description,
                       "t.mtrace: byte \(head.count + 8 + 67): error: expected the value's text of 10 bytes; the chunk has 5 left")
        record[66] |= BinaryTraceFormat.EventFlag.integer
        XCTAssertEqual(error(appendingChunk("RECS", record, to: head))?.description,
                       "t.mtrace: byte \(head.count + 8 + 66): error: expected either an integer value (flag 0x2) or an "
                       + "inline one (flag 0x20), found both")
    }

    func testChunksOutOfPlaceAreErrors() throws {
        let head = binary([])
        XCTAssertEqual(error(appendingChunk("HEAD", [], to: head))?.description,
                       "t.mtrace: byte \(head.count): error: expected one HEAD chunk, found a second")
        let preamble = Array(head.prefix(BinaryTraceFormat.preambleLength))
        XCTAssertEqual(error(appendingChunk("RECS", [], to: preamble))?.description,
                       "t.mtrace: byte 12: error: expected the HEAD chunk first, found a RECS chunk")
        var tooLong = preamble + Array("RECS".utf8)
        tooLong.appendLittleEndian(UInt32.max)
        XCTAssertEqual(error(tooLong)?.description, "t.mtrace: byte 16: error: expected a chunk length of at most 134217728 "
                       + "bytes, found 4294967295 (for a RECS chunk: is the file corrupted?)")
    }

    func testAnUnknownChunkIsSkippedWithOneWarning() throws {
        let head = binary([])
        let bytes = appendingChunk("XTRA", [1, 2, 3], to: appendingChunk("XTRA", [], to: head))
        let read = try records(bytes)
        XCTAssertEqual(read.records, [.header(TraceHeader(clock: .virtual))])
        XCTAssertEqual(read.warnings.map(\.description), [
            "t.mtrace: byte \(head.count): warning: skipped a chunk of unknown kind XTRA (written by a newer Marbles?); "
                + "further chunks of this kind are skipped silently",
            "t.mtrace: byte \(head.count + 27): warning: the trace ends without its SUMM chunk: the recording was cut off "
                + "after byte \(head.count + 27)",
        ])
    }

    func testPlainEventsReadInOnePassMakeTheTraceThatTheirRecordsMake() throws {
        // Node 2 defined before node 1 (ids not at id - 1): events fall back from the batch.
        let records: [TraceRecord] = [
            .thread(ThreadRecord(id: 1, name: "main")),
            .node(NodeRecord(id: 2, kind: .source, name: "pipe", file: "A.swift", line: 3)),
            .node(NodeRecord(id: 1, kind: .operator, name: "map", file: "A.swift", line: 4, upstream: [.init(node: 2, role: .data)])),
            .subscribe(SubscriptionRecord(id: 1, node: 2, parent: 0, time: 0, thread: 1)),
            .subscribe(SubscriptionRecord(id: 2, node: 1, parent: 0, time: 0, thread: 1)),
        ] + (1...40).map { sequence -> TraceRecord in
            let value = String(sequence * 7 - 100)
            return .event(EventRecord(sequence: UInt64(sequence), time: Int64(sequence), node: UInt64(sequence % 2 + 1),
                                      subscription: UInt64(2 - sequence % 2), kind: sequence == 40 ? .completed : .value,
                                      thread: 1, causes: sequence > 1 && sequence % 3 != 0 ? [UInt64(sequence - 1)] : [],
                                      text: sequence == 40 ? nil : value, json: sequence == 40 ? nil : value))
        }
        var byRecords = Trace(header: TraceHeader(clock: .virtual))
        for record in records { XCTAssertNil(byRecords.add(record)) }
        let loaded = try Trace(bytes: binary(records, chunkLength: 200), name: "t.mtrace")
        XCTAssertEqual(loaded.nodes, byRecords.nodes)
        XCTAssertEqual(Array(loaded.events), Array(byRecords.events))
        XCTAssertEqual((0..<40).map { loaded.events.payloadNumber(at: $0) }, (0..<40).map { byRecords.events.payloadNumber(at: $0) })
        // A plain event of an undefined subscription is refused where it is.
        var undefined = records
        undefined.append(.event(EventRecord(sequence: 41, time: 41, node: 1, subscription: 9, kind: .value, thread: 1,
                                            text: "1", json: "1")))
        let bytes = binary(undefined)
        XCTAssertThrowsError(try Trace(bytes: bytes, name: "t.mtrace")) { error in
            // The last record of the last RECS chunk, before the SUMM-less end: 67 bytes and the checksum.
            XCTAssertEqual((error as? TraceError)?.byteOffset, Int64(bytes.count - 4 - 67), "\(error)")
        }
    }

    func testInlineValuesReadInOnePassMakeTheTraceThatTheirRecordsMake() throws {
        // Values of every shape an inline value has: ASCII strings (read from the chunk's bytes),
        // others (read through their records), a text without JSON and the reverse, a text equal
        // to another event's JSON, digits that are not an integer's, truncated texts, integers.
        let values: [(text: String?, json: String?, truncated: Bool)] = [
            ("search", "\"search\"", false), ("Reading(celsius: 21.5)", "{\"celsius\":21.5}", false),
            ("café", "\"café\"", false), ("🙂", nil, false), (nil, "[1,2]", false), ("[1,2]", "[1,2]", false),
            ("007", "\"007\"", false), ("search", "\"search\"", false), ("a long text cut", nil, true),
            ("12", "12", false), ("", "\"\"", false), ("line\nbreak \"quoted\"", "\"line\\nbreak \\\"quoted\\\"\"", false),
        ]
        let records: [TraceRecord] = [
            .thread(ThreadRecord(id: 1, name: "main")),
            .node(NodeRecord(id: 1, kind: .source, name: "pipe", file: "A.swift", line: 3)),
            .subscribe(SubscriptionRecord(id: 1, node: 1, parent: 0, time: 0, thread: 1)),
        ] + (1...60).map { sequence -> TraceRecord in
            let value = values[sequence % values.count]
            return .event(EventRecord(sequence: UInt64(sequence), time: Int64(sequence), node: 1, subscription: 1,
                                      kind: .value, thread: 1, causes: sequence % 4 == 0 ? [UInt64(sequence - 1)] : [],
                                      text: value.text, truncated: value.truncated, json: value.json))
        }
        var byRecords = Trace(header: TraceHeader(clock: .virtual))
        for record in records { XCTAssertNil(byRecords.add(record)) }
        let bytes = binary(records, chunkLength: 300)
        let loaded = try Trace(bytes: bytes, name: "t.mtrace")
        XCTAssertEqual(Array(loaded.events), Array(byRecords.events))
        XCTAssertEqual((0..<60).map { loaded.events.payloadNumber(at: $0) }, (0..<60).map { byRecords.events.payloadNumber(at: $0) })
        // Record by record, the same events.
        XCTAssertEqual(try self.records(bytes).records, [.header(TraceHeader(clock: .virtual))] + records)
        // An ASCII inline value of an undefined subscription is refused where its record begins.
        var undefined = records
        undefined.append(.event(EventRecord(sequence: 61, time: 61, node: 1, subscription: 9, kind: .value, thread: 1,
                                            text: "x", json: "\"x\"")))
        let refused = binary(undefined)
        XCTAssertThrowsError(try Trace(bytes: refused, name: "t.mtrace")) { error in
            // 67 bytes of record, "x" and "\"x\"", then the checksum.
            XCTAssertEqual((error as? TraceError)?.byteOffset, Int64(refused.count - 4 - 67 - 4), "\(error)")
        }
    }

    func testEventsOutOfSequenceOrderAreReadWithOneWarningAtTheFirst() throws {
        let records: [TraceRecord] = [
            .thread(ThreadRecord(id: 1, name: "main")),
            .node(NodeRecord(id: 1, kind: .source, name: "pipe", file: "A.swift", line: 3)),
            .subscribe(SubscriptionRecord(id: 1, node: 1, parent: 0, time: 0, thread: 1)),
            .event(EventRecord(sequence: 2, time: 0, node: 1, subscription: 1, kind: .value, thread: 1)),
            .event(EventRecord(sequence: 1, time: 0, node: 1, subscription: 1, kind: .value, thread: 1)),
            .summary(SummaryRecord(events: 2, nodes: 1, subscriptions: 1, threads: 1)),
        ]
        let bytes = binary(records)
        let trace = try Trace(bytes: bytes, name: "t.mtrace")
        XCTAssertEqual(trace.events.count, 2)
        XCTAssertEqual(trace.warnings.count, 1)
        XCTAssertTrue(trace.warnings.first?.description.hasPrefix("t.mtrace: byte ") ?? false, "\(trace.warnings)")
        XCTAssertTrue(trace.warnings.first?.message.hasPrefix("event 1 comes after event 2") ?? false, "\(trace.warnings)")
        XCTAssertEqual(try self.records(bytes).warnings, trace.warnings)
    }

    func testARecordTheTraceRefusesIsLocatedByItsByteOffset() throws {
        let bytes = binary([.thread(ThreadRecord(id: 1, name: "main")),
                            .dispose(DisposeRecord(subscription: 9, time: 0, thread: 1))])
        let starts = chunkStarts(bytes)
        let found = try XCTUnwrap({ () -> TraceError? in
            do {
                _ = try Trace(bytes: bytes, name: "t.mtrace")
                return nil
            } catch {
                return error as? TraceError
            }
        }())
        // The dispose record follows the thread record (tag and 25 bytes) in the RECS chunk.
        XCTAssertEqual(found.byteOffset, Int64(starts[2] + 8 + 26))
        XCTAssertTrue(found.description.hasPrefix("t.mtrace: byte \(starts[2] + 8 + 26): error: "), found.description)
    }
}

extension TraceReader {
    /// Calls `body` with the header, then each remaining record.
    func forEachWithHeader(_ body: (TraceRecord) throws -> Void) throws {
        try body(.header(header))
        try forEach(body)
    }
}

/// Random traces as Marbles writes them: every record type, every optional key, strings with
/// escapes, non-ASCII and control characters, JSON payloads of every kind, many causes.
private enum FuzzedTrace {
    static func make(_ random: inout SplitMix) -> [UInt8] {
        var records: [TraceRecord] = []
        let real = random.chance(50)
        records.append(.header(real ? TraceHeader(clock: .real, wallClock: string(&random), wallClockNanoseconds: integer(&random),
                                                  pid: random.chance(50) ? integer(&random) : nil, process: string(&random),
                                                  host: random.chance(50) ? string(&random) : nil)
                                    : TraceHeader(clock: .virtual)))
        var threads = 0, nodes = 0, subscriptions = 0, events = 0
        for _ in 0..<random.int(0...60) {
            switch random.below(9) {
            case 0:
                threads += 1
                records.append(.thread(ThreadRecord(id: UInt64(threads), name: string(&random),
                                                    scheduler: random.chance(50) ? string(&random) : nil,
                                                    os: random.chance(50) ? random.next() >> 1 : nil)))
            case 1:
                nodes += 1
                let upstream = (0..<random.below(4)).map { _ in
                    NodeRecord.Edge(node: UInt64(random.int(1...max(1, nodes))), role: EdgeRole(rawValue: random.pick(["data", "inner", string(&random)])))
                }
                records.append(.node(NodeRecord(id: UInt64(nodes), kind: NodeKind(rawValue: random.pick(["source", "operator", "sink"])),
                                                name: string(&random), parameters: string(&random), file: string(&random),
                                                line: random.next() >> 1, label: random.chance(50) ? string(&random) : nil,
                                                upstream: upstream)))
            case 2:
                subscriptions += 1
                // A request kept whole, one left out (its size and hash), or none.
                let kept = random.chance(30)
                let omitted = !kept && random.chance(15)
                    ? RequestDigest(bytes: RequestDigest.limit + 1 + random.below(1 << 20), hash: random.next()) : nil
                records.append(.subscribe(SubscriptionRecord(id: UInt64(subscriptions), node: UInt64(random.int(1...9)),
                                                             parent: UInt64(random.below(subscriptions)), time: integer(&random),
                                                             thread: UInt64(random.int(1...9)), late: random.chance(30),
                                                             request: kept ? request(&random) : nil, requestOmitted: omitted,
                                                             observes: links(&random, below: subscriptions),
                                                             observedBy: links(&random, below: subscriptions))))
            case 3:
                records.append(.dispose(DisposeRecord(subscription: UInt64(random.int(1...9)), time: integer(&random),
                                                      thread: UInt64(random.int(1...9)))))
            case 4, 5, 6:
                events += 1
                var causes = (0..<random.pick([0, 1, 1, 2, 5])).map { _ in UInt64(random.int(1...max(1, events))) }
                let kind = random.pick(EventKind.allCases)
                // A pull has no causes (a reader refuses one with causes).
                if kind == .pull { causes = [] }
                var text: String?, json: String?
                switch random.below(4) {
                case 0: break
                case 1:
                    let value = integer(&random)
                    text = String(value)
                    json = text
                case 2:
                    text = string(&random)
                    json = random.chance(50) ? self.json(&random) : nil
                default:
                    // Integers' JSON that is not their text, and texts that are not their JSON.
                    text = random.pick(["-0", "007", "1.0"])
                    json = random.chance(50) ? random.pick(["-0", "7", "1.0", "1"]) : nil
                }
                records.append(.event(EventRecord(sequence: UInt64(events), time: integer(&random), node: UInt64(random.int(1...9)),
                                                  subscription: UInt64(random.int(1...9)), kind: kind,
                                                  thread: UInt64(random.int(1...9)), causes: causes, text: text,
                                                  truncated: random.chance(10), json: json,
                                                  omittedJSONBytes: random.chance(10) ? Int64(random.int(1...1 << 30)) : 0,
                                                  jsonError: random.chance(10) ? string(&random) : nil)))
            case 7:
                let ran = random.chance(70)
                records.append(.hop(HopRecord(id: UInt64(random.int(1...9)), node: UInt64(random.below(9)),
                                              subscription: UInt64(random.below(9)), scheduler: string(&random),
                                              enqueued: integer(&random), from: UInt64(random.int(1...9)),
                                              started: ran ? integer(&random) : nil, to: ran ? UInt64(random.int(1...9)) : nil)))
            default:
                if random.chance(50) {
                    records.append(.mark(MarkRecord(time: integer(&random), thread: UInt64(random.int(1...9)), label: string(&random))))
                } else {
                    records.append(.label(LabelRecord(node: UInt64(random.int(1...9)), label: string(&random))))
                }
            }
        }
        if random.chance(80) {
            records.append(.summary(SummaryRecord(events: UInt64(events), nodes: UInt64(nodes), subscriptions: UInt64(subscriptions),
                                                  threads: UInt64(threads), hops: random.next() >> 1, marks: UInt64(random.below(5)),
                                                  dropped: UInt64(random.below(3)), duration: integer(&random))))
        }
        return records.flatMap(\.jsonLine)
    }

    static func integer(_ random: inout SplitMix) -> Int64 {
        random.pick([0, -1, 1, .max, .min, Int64(bitPattern: random.next()), Int64(random.below(1000))])
    }

    static func string(_ random: inout SplitMix) -> String {
        let pieces = ["", "a", "map", " ", "\"", "\\", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "e\u{301}", "\u{2028}",
                      "🙂", "日本", "…", "/", "{\"k\":1}"]
        return (0..<random.below(6)).map { _ in random.pick(pieces) }.joined()
    }

    /// Observation links: none, or up to three earlier subscriptions (an empty list too).
    static func links(_ random: inout SplitMix, below subscriptions: Int) -> [UInt64]? {
        guard subscriptions > 1, random.chance(30) else { return nil }
        return (0..<random.below(4)).map { _ in UInt64(random.int(1...(subscriptions - 1))) }
    }

    /// A request: any JSON but null, which a reader takes for none.
    static func request(_ random: inout SplitMix) -> String {
        let request = json(&random)
        return request == "null" ? "0" : request
    }

    /// JSON as a payload holds it: no spaces, sorted keys.
    static func json(_ random: inout SplitMix, depth: Int = 0) -> String {
        switch random.below(depth > 2 ? 5 : 7) {
        case 0: return String(integer(&random))
        case 1: return random.pick(["true", "false", "null", "0.5", "-1.25e-7", "1e+300"])
        case 2, 3, 4:
            var line = JSONLine()
            line.begin()
            line.field("s", string(&random))
            line.end()
            let object = String(decoding: line.bytes, as: UTF8.self)
            return String(object.dropFirst(5).dropLast(2))
        case 5: return "[" + (0..<random.below(4)).map { _ in json(&random, depth: depth + 1) }.joined(separator: ",") + "]"
        default:
            return "{" + ["a", "b", "é"].filter { _ in random.chance(50) }
                .map { "\"\($0)\":" + json(&random, depth: depth + 1) }.joined(separator: ",") + "}"
        }
    }
}
