import Foundation
import Signals
import TraceLog
import XCTest

final class TraceReaderTests: XCTestCase {
    private let header = #"{"type":"header","format":"marbles-trace","version":"1.0","unit":"ns","clock":"virtual"}"#
    private let thread = #"{"type":"thread","id":1,"name":"main"}"#
    private let node = #"{"type":"node","id":1,"kind":"source","name":"pipe","parameters":"","file":"A.swift","line":3,"upstream":[]}"#
    private let subscribe = #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#
    private let summary = #"{"type":"summary","events":2,"nodes":1,"subscriptions":1,"threads":1,"hops":0,"marks":0,"dropped":0,"duration":20}"#

    private func event(_ seq: Int) -> String {
        #"{"type":"event","seq":\#(seq),"time":\#(seq * 10),"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"v","json":"v"}"#
    }

    private func bytes(_ lines: [String], trailingNewline: Bool = true) -> [UInt8] {
        Array((lines.joined(separator: "\n") + (trailingNewline ? "\n" : "")).utf8)
    }

    private func expectError(_ bytes: [UInt8], line: Int, column: Int? = nil, containing text: String,
                             file: StaticString = #filePath, fileLine: UInt = #line) {
        do {
            _ = try Trace(bytes: bytes, name: "t.trace")
            XCTFail("expected an error", file: file, line: fileLine)
        } catch let error as TraceError {
            XCTAssertEqual(error.file, "t.trace", file: file, line: fileLine)
            XCTAssertEqual(error.line, line, "\(error)", file: file, line: fileLine)
            if let column { XCTAssertEqual(error.column, column, "\(error)", file: file, line: fileLine) }
            XCTAssertTrue(error.message.contains(text), "\(error)", file: file, line: fileLine)
        } catch {
            XCTFail("unexpected \(error)", file: file, line: fileLine)
        }
    }

    func testReadsAWellFormedTrace() throws {
        let trace = try Trace(bytes: bytes([header, thread, node, subscribe, event(1), event(2), summary]))
        XCTAssertEqual(trace.events.map(\.sequence), [1, 2])
        XCTAssertEqual(trace.events.map(\.json), [#""v""#, #""v""#])
        XCTAssertTrue(trace.warnings.isEmpty)
    }

    /// `Trace` keeps its events as columns with shared strings: every field must come back as
    /// it was added, whichever ids, causes, texts and flags the events carry.
    func testATraceHandsBackEveryFieldOfItsEvents() throws {
        var trace = Trace(header: TraceHeader(clock: .virtual))
        let records: [TraceRecord] = [
            .thread(ThreadRecord(id: 7, name: "main")), .thread(ThreadRecord(id: 3, name: "io", scheduler: "net")),
            .node(NodeRecord(id: 9, kind: .source, name: "a", file: "A.swift", line: 1)),
            .node(NodeRecord(id: 4, kind: .operator, name: "b", file: "A.swift", line: 2, upstream: [.init(node: 9, role: .data)])),
            .subscribe(SubscriptionRecord(id: 20, node: 9, parent: 0, time: 0, thread: 7)),
            .subscribe(SubscriptionRecord(id: 11, node: 4, parent: 0, time: 0, thread: 3)),
        ]
        let events = [
            EventRecord(sequence: 5, time: -3, node: 9, subscription: 20, kind: .value, thread: 7, text: "x", json: "\"x\""),
            EventRecord(sequence: 8, time: 40, node: 4, subscription: 11, kind: .value, thread: 3, causes: [5, 2],
                        text: "x", truncated: true, omittedJSONBytes: 1_000_000),
            EventRecord(sequence: 6, time: .max, node: 4, subscription: 11, kind: .failed, thread: 7, causes: [5], text: ""),
            EventRecord(sequence: 9, time: .min, node: 9, subscription: 20, kind: .interrupted, thread: 3),
            EventRecord(sequence: 10, time: 0, node: 4, subscription: 11, kind: .completed, thread: 3, causes: [9]),
        ]
        for record in records + events.map(TraceRecord.event) { XCTAssertNil(trace.add(record)) }
        XCTAssertEqual(Array(trace.events), events)
        XCTAssertEqual(trace.events.reversed().map(\.sequence), [10, 9, 6, 8, 5])
        for event in events { XCTAssertEqual(trace.event(sequence: event.sequence), event) }
        XCTAssertEqual(trace.events(of: 4), [events[1], events[2], events[4]])
        XCTAssertEqual(trace.eventPositions(of: 9), [0, 3])
        XCTAssertEqual(trace.eventCount(of: 4), 3)
        XCTAssertEqual(trace.events.firstCause(at: 1), 5)
        XCTAssertNil(trace.events.firstCause(at: 3))
        XCTAssertEqual(trace.events.payload(at: 0), "\"x\"")
        XCTAssertEqual(trace.events.payload(at: 1), "x")
        XCTAssertNotEqual(trace.events.payloadNumber(at: 1), 0)
        XCTAssertNotEqual(trace.events.payloadNumber(at: 0), trace.events.payloadNumber(at: 1))
        XCTAssertEqual(trace.events.payloadNumber(at: 3), 0)
    }

    /// Texts that are an integer's digits are kept as the integer: they must come back as the
    /// same string, and share a payload number with the same digits however they arrived.
    func testIntegerTextsComeBackAsWrittenAndShareTheirNumber() throws {
        var trace = Trace(header: TraceHeader(clock: .virtual))
        for record: TraceRecord in [.thread(ThreadRecord(id: 1, name: "main")),
                                    .node(NodeRecord(id: 1, kind: .source, name: "a", file: "A.swift", line: 1)),
                                    .subscribe(SubscriptionRecord(id: 1, node: 1, parent: 0, time: 0, thread: 1))] {
            XCTAssertNil(trace.add(record))
        }
        let texts = ["0", "-0", "7", "-7", "007", "+7", "-", "", "1-2", "٣", "9223372036854775807", "-9223372036854775808",
                     "9223372036854775808", "-9223372036854775809", "12345678901234567890123", "5", "x5", "5 ",
                     // Either side of the integers that are their own payload numbers (0 to 2³¹ − 1).
                     "2147483646", "2147483647", "2147483648", "4294967295", "4294967296", "-1", "-2147483648", "1", "0"]
        var events: [EventRecord] = []
        for (index, text) in texts.enumerated() {
            // The JSON of a string value "5" is "\"5\"", but its text is "5", like an integer's.
            events.append(EventRecord(sequence: UInt64(2 * index + 1), time: 0, node: 1, subscription: 1, kind: .value,
                                      thread: 1, text: text, json: "\"\(text)\""))
            events.append(EventRecord(sequence: UInt64(2 * index + 2), time: 0, node: 1, subscription: 1, kind: .value,
                                      thread: 1, text: text, json: text))
        }
        for event in events { XCTAssertNil(trace.add(.event(event))) }
        XCTAssertEqual(Array(trace.events), events)
        for position in trace.events.indices {
            for other in trace.events.indices {
                XCTAssertEqual(trace.events.payloadNumber(at: position) == trace.events.payloadNumber(at: other),
                               trace.events.payload(at: position) == trace.events.payload(at: other), "\(position) \(other)")
            }
            // An integer's digits read back as the integer, inline or from the table; anything else as none.
            let json = trace.events.json(at: position)!
            XCTAssertEqual(trace.events.jsonInteger(at: position), Int64(json).flatMap { String($0) == json ? $0 : nil },
                           json)
        }
    }

    /// `Trace(reader:)` sizes its event columns for the most events the rest of a trace can
    /// hold: a reader knows the size of a regular file and of bytes in memory, and no event line
    /// is shorter than `Trace.shortestEventLine`, not even one the writer writes.
    func testAReaderKnowsTheTracesSizeAndTheShortestEventLineIsShortest() throws {
        let lines = [header, thread, node, subscribe, event(1), summary]
        XCTAssertEqual(try TraceReader(bytes: bytes(lines)).size, Int64(bytes(lines).count))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("size-\(UUID().uuidString).trace")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(bytes(lines)).write(to: url)
        XCTAssertEqual(try TraceReader(url: url).size, Int64(bytes(lines).count))

        let written = TraceRecord.event(EventRecord(sequence: 1, time: 0, node: 1, subscription: 1, kind: .value,
                                                    thread: 1, causes: [], text: nil, truncated: false, json: nil)).jsonLine
        XCTAssertEqual(written.count - 1, Trace.shortestEventLine, String(decoding: written, as: UTF8.self))
        // A trace of nothing else loads whole, as many events as lines.
        let shortest = String(decoding: written.dropLast(), as: UTF8.self)
        let events = (1...9).map { shortest.replacingOccurrences(of: #""seq":1"#, with: #""seq":\#($0)"#) }
        XCTAssertEqual(events.map(\.utf8.count), Array(repeating: Trace.shortestEventLine, count: 9))
        XCTAssertEqual(try Trace(bytes: bytes([header, thread, node, subscribe] + events)).events.map(\.sequence),
                       Array(1...9))
    }

    func testLeftOutRecordsAreCheckedButNotKept() throws {
        let hop = #"{"type":"hop","id":1,"node":1,"sub":1,"scheduler":"main","enqueued":0,"from":1,"started":5,"to":1}"#
        let dispose = #"{"type":"dispose","sub":1,"time":30,"thread":1}"#
        let mark = #"{"type":"mark","time":3,"thread":1,"label":"here"}"#
        let lines = [header, thread, node, subscribe, event(1), hop, mark, event(2), dispose, summary]
        let whole = try Trace(bytes: bytes(lines))
        XCTAssertEqual([whole.hops.count, whole.marks.count, whole.disposals.count], [1, 1, 1])
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("left-out-\(UUID().uuidString).trace")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(bytes(lines)).write(to: url)
        let slim = try Trace(contentsOf: url, leavingOut: [.hops, .marks, .disposals])
        XCTAssertEqual([slim.hops.count, slim.marks.count, slim.disposals.count], [0, 0, 0])
        XCTAssertEqual(Array(slim.events), Array(whole.events))
        XCTAssertEqual(slim.subscriptions, whole.subscriptions)
        let badHop = hop.replacingOccurrences(of: #""from":1"#, with: #""from":9"#)
        try Data(bytes([header, thread, node, subscribe, badHop, summary])).write(to: url)
        XCTAssertThrowsError(try Trace(contentsOf: url, leavingOut: [.hops])) { error in
            XCTAssertEqual((error as? TraceError)?.line, 5)
        }
    }

    func testSubscriptionsAreFoundByIdInAnyOrder() throws {
        var trace = Trace(header: TraceHeader(clock: .virtual))
        XCTAssertNil(trace.add(.thread(ThreadRecord(id: 1, name: "main"))))
        XCTAssertNil(trace.add(.node(NodeRecord(id: 1, kind: .source, name: "a", file: "A.swift", line: 1))))
        for id: UInt64 in [4, 9, 2, 30, 7] {
            XCTAssertNil(trace.add(.subscribe(SubscriptionRecord(id: id, node: 1, parent: 0, time: Int64(id), thread: 1))))
        }
        XCTAssertNil(trace.add(.event(EventRecord(sequence: 1, time: 0, node: 1, subscription: 2, kind: .value, thread: 1))))
        for id: UInt64 in [4, 9, 2, 30, 7] { XCTAssertEqual(trace.subscription(id)?.time, Int64(id)) }
        XCTAssertNil(trace.subscription(5))
        XCTAssertEqual(trace.events.first?.subscription, 2)
    }

    /// Nodes and threads numbered 1, 2, 3, … at first, then otherwise: each is found by its id,
    /// and an id never defined by none.
    func testNodesAndThreadsAreFoundByIdInAnyOrder() throws {
        var trace = Trace(header: TraceHeader(clock: .virtual))
        let threads: [UInt64] = [1, 2, 7, 3, 5], nodes: [UInt64] = [1, 2, 3, 9, 4, 6]
        for id in threads { XCTAssertNil(trace.add(.thread(ThreadRecord(id: id, name: "t\(id)")))) }
        for id in nodes {
            XCTAssertNil(trace.add(.node(NodeRecord(id: id, kind: .source, name: "n\(id)", file: "A.swift", line: id))))
            XCTAssertNil(trace.add(.subscribe(SubscriptionRecord(id: id, node: id, parent: 0, time: 0, thread: 1))))
        }
        for (sequence, (node, thread)) in zip(nodes, threads + threads).enumerated() {
            XCTAssertNil(trace.add(.event(EventRecord(sequence: UInt64(sequence + 1), time: 0, node: node,
                                                      subscription: node, kind: .value, thread: thread))))
        }
        for id in threads { XCTAssertEqual(trace.thread(id)?.name, "t\(id)") }
        for id in nodes {
            XCTAssertEqual(trace.node(id)?.name, "n\(id)")
            XCTAssertEqual(trace.eventCount(of: id), 1)
        }
        for id: UInt64 in [0, 4, 6, 8, 10] { XCTAssertNil(trace.thread(id)) }
        for id: UInt64 in [0, 5, 7, 8, 10] { XCTAssertNil(trace.node(id)) }
        XCTAssertEqual(trace.events.map(\.thread), [1, 2, 7, 3, 5, 1])
        XCTAssertEqual(trace.events.map(\.node), nodes)
    }

    func testEventsAreFoundBySequenceInAnyOrder() throws {
        let ascending = try Trace(bytes: bytes([header, thread, node, subscribe, event(2), event(5), event(9), summary]))
        XCTAssertEqual([2, 5, 9, 1, 3, 10].map { ascending.event(sequence: $0)?.time }, [20, 50, 90, nil, nil, nil])
        let shuffled = try Trace(bytes: bytes([header, thread, node, subscribe, event(5), event(9), event(2), summary]))
        XCTAssertEqual([2, 5, 9, 1, 3, 10].map { shuffled.event(sequence: $0)?.time }, [20, 50, 90, nil, nil, nil])
        XCTAssertEqual(shuffled.events(of: 1).map(\.sequence), [5, 9, 2])
    }

    func testARepeatedSequenceNumberIsAnErrorInAnyOrder() {
        expectError(bytes([header, thread, node, subscribe, event(1), event(2), event(2), summary]), line: 7,
                    containing: "expected a new sequence number, found 2 again")
        expectError(bytes([header, thread, node, subscribe, event(3), event(1), event(3), summary]), line: 7,
                    containing: "expected a new sequence number, found 3 again")
    }

    func testACutOffLastLineIsAWarning() throws {
        let full = bytes([header, thread, node, subscribe, event(1), event(2)])
        let cut = Array(full.dropLast(12))
        let trace = try Trace(bytes: cut, name: "t.trace")
        XCTAssertEqual(trace.events.map(\.sequence), [1])
        XCTAssertEqual(trace.warnings.count, 1)
        XCTAssertEqual(trace.warnings.first?.line, 6)
        XCTAssertTrue(trace.warnings.first?.message.contains("cut off") ?? false)
    }

    /// Issue 33 item 7: a trace saved with CRLF line endings was read without a word.
    func testCRLFLineEndingsAreReadWithOneWarning() throws {
        let lines = [header, thread, node, subscribe, event(1), event(2), summary]
        let crlf = Array((lines.joined(separator: "\r\n") + "\r\n").utf8)
        let trace = try Trace(bytes: crlf, name: "t.trace")
        XCTAssertEqual(trace.events.map(\.sequence), [1, 2])
        XCTAssertEqual(trace.warnings.count, 1)
        XCTAssertEqual(trace.warnings.first?.line, 1)
        XCTAssertTrue(trace.warnings.first?.message.hasPrefix("the line ends with a carriage return (CRLF line endings") ?? false,
                      "\(trace.warnings)")
        XCTAssertEqual(try Trace(bytes: bytes(lines), name: "t.trace").warnings, [])
    }

    /// Issue 31 item 8: sequence numbers out of file order were accepted without a word,
    /// although FORMAT.md says file order is sequence order.
    func testSequenceNumbersOutOfFileOrderAreReadWithOneWarning() throws {
        let trace = try Trace(bytes: bytes([header, thread, node, subscribe, event(1), event(3), event(2), event(5), event(4), summary]),
                              name: "t.trace")
        XCTAssertEqual(trace.events.map(\.sequence), [1, 3, 2, 5, 4], "read in file order")
        XCTAssertEqual(trace.warnings.count, 1, "\(trace.warnings)")
        XCTAssertEqual(trace.warnings.first?.line, 7)
        XCTAssertTrue(trace.warnings.first?.message.hasPrefix("event 2 comes after event 3: sequence numbers out of file order")
                      ?? false, "\(trace.warnings)")
        // Streamed the same way, by every reader path.
        let reader = try TraceReader(bytes: bytes([header, thread, node, subscribe, event(2), event(1), summary]), name: "t.trace")
        while try reader.next() != nil {}
        XCTAssertEqual(reader.warnings.map(\.line), [6])
        XCTAssertEqual(try Trace(bytes: bytes([header, thread, node, subscribe, event(1), event(2), summary])).warnings, [])
    }

    func testAWholeLastLineWithoutNewlineIsRead() throws {
        let trace = try Trace(bytes: bytes([header, thread, node, subscribe, event(1), summary], trailingNewline: false))
        XCTAssertEqual(trace.events.count, 1)
        XCTAssertTrue(trace.warnings.isEmpty)
    }

    func testATraceEndingWithoutItsSummaryIsReadWithAWarning() throws {
        let trace = try Trace(bytes: bytes([header, thread, node, subscribe, event(1)]), name: "t.trace")
        XCTAssertEqual(trace.events.count, 1)
        XCTAssertEqual(trace.warnings.map(\.description),
                       ["t.trace:5: warning: the trace ends without its summary record: the recording was cut off after line 5"])
    }

    func testAMalformedLineNamesLineColumnAndWhatWasExpected() {
        let broken = #"{"type":"event","seq":2,"time":x}"#
        expectError(bytes([header, thread, node, subscribe, broken, event(3)]), line: 5, column: 32, containing: "expected a value")
    }

    func testAFieldOfTheWrongTypeIsAnError() {
        let broken = #"{"type":"event","seq":"two","time":1,"node":1,"sub":1,"kind":"value","thread":1,"causes":[]}"#
        expectError(bytes([header, thread, node, subscribe, broken]), line: 5, column: 23, containing: "positive integer id for \"seq\"")
    }

    func testObservationLinksAreRead() throws {
        let linked = #"{"type":"subscribe","id":2,"node":1,"parent":1,"time":0,"thread":1,"observes":[1],"observedBy":[1]}"#
        let trace = try Trace(bytes: bytes([header, thread, node, subscribe, linked]), name: "t.trace")
        XCTAssertEqual(trace.subscriptions.map(\.observes), [nil, [1]])
        XCTAssertEqual(trace.subscriptions.map(\.observedBy), [nil, [1]])
    }

    func testAMalformedObservationLinkIsALocatedError() {
        let notIDs = #"{"type":"subscribe","id":2,"node":1,"parent":0,"time":0,"thread":1,"observes":[1,0]}"#
        expectError(bytes([header, thread, node, subscribe, notIDs]), line: 5, column: 79,
                    containing: "expected an array of positive subscription ids for \"observes\"")
        let notAnArray = #"{"type":"subscribe","id":2,"node":1,"parent":0,"time":0,"thread":1,"observedBy":1}"#
        expectError(bytes([header, thread, node, subscribe, notAnArray]), line: 5, column: 81,
                    containing: "expected an array of positive subscription ids for \"observedBy\"")
        let undefined = #"{"type":"subscribe","id":2,"node":1,"parent":0,"time":0,"thread":1,"observes":[7]}"#
        expectError(bytes([header, thread, node, subscribe, undefined]), line: 5,
                    containing: "expected subscription 7 of \"observes\" to be defined before it is used")
    }

    func testAnUndefinedIdIsAnError() {
        expectError(bytes([header, thread, subscribe]), line: 3, containing: "node 1 to be defined")
    }

    func testAnEmptyFileIsAnError() {
        expectError([], line: 1, column: 1, containing: "empty file")
    }

    func testABinaryFileIsAnError() {
        let binary: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF, 0x10]
        // Its first byte is the binary encoding's: the error is located by byte offset.
        XCTAssertThrowsError(try Trace(bytes: binary, name: "t.trace")) { error in
            XCTAssertEqual("\(error)", "t.trace: byte 0: error: expected a trace: JSON Lines, whose first record opens with "
                           + "'{', or the binary encoding's magic 89 4D 52 42 0D 0A 1A 0A; found 89 50 4E 47 0D 0A 1A 0A")
        }
        expectError(Array(binary.dropFirst()), line: 1, column: 1, containing: "'{' to open a record")
    }

    func testInvalidUTF8InAStringIsAnError() {
        var data = bytes([header, thread])
        data += Array(#"{"type":"mark","time":0,"thread":1,"label":"a"#.utf8) + [0xC3, 0x28] + Array("\"}\n".utf8)
        expectError(data, line: 3, containing: "valid UTF-8")
    }

    func testAFirstLineThatIsNotAHeaderIsAnError() {
        expectError(bytes([thread, header]), line: 1, containing: "header record")
    }

    func testANewerMajorVersionIsRefused() {
        let newer = header.replacingOccurrences(of: #""version":"1.0""#, with: #""version":"2.0""#)
        expectError(bytes([newer]), line: 1, containing: "newer Marbles")
    }

    func testANewerMinorVersionWithUnknownRecordsIsReadWithAWarning() throws {
        let newer = header.replacingOccurrences(of: #""version":"1.0""#, with: #""version":"1.7""#)
        let unknown = #"{"type":"gpu","id":1,"busy":true}"#
        let trace = try Trace(bytes: bytes([newer, thread, unknown, unknown, node, subscribe, event(1), summary]), name: "t.trace")
        XCTAssertEqual(trace.header.minor, 7)
        XCTAssertEqual(trace.events.count, 1)
        XCTAssertEqual(trace.warnings.count, 1)
        XCTAssertEqual(trace.warnings.first?.line, 3)
        XCTAssertTrue(trace.warnings.first?.message.contains("\"gpu\"") ?? false)
    }

    func testAHugeLineIsAnErrorNotUnboundedMemory() {
        let huge = #"{"type":"mark","time":0,"thread":1,"label":""# + String(repeating: "x", count: 5000) + #""}"#
        do {
            let reader = try TraceReader(bytes: bytes([header, thread, huge]), name: "t.trace", maxLineLength: 1024)
            while try reader.next() != nil {}
            XCTFail("expected an error")
        } catch let error as TraceError {
            XCTAssertEqual(error.line, 3)
            XCTAssertTrue(error.message.contains("at most 1024 bytes"), "\(error)")
        } catch {
            XCTFail("unexpected \(error)")
        }
    }

    func testAMissingFileIsAnError() {
        XCTAssertThrowsError(try TraceReader(url: URL(fileURLWithPath: "/nonexistent/x.trace"))) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent/x.trace: error: cannot open the trace"), "\(error)")
        }
    }

    func testEscapesRoundTripThroughWriterAndReader() throws {
        let hostile = "quote\" backslash\\ newline\n tab\t nul\u{0} bell\u{7} del\u{7F} sep\u{2028} emoji 🎉 accents é"
        let record = TraceRecord.mark(MarkRecord(time: 1, thread: 1, label: hostile))
        let line = record.jsonLine
        XCTAssertEqual(line.filter { $0 == UInt8(ascii: "\n") }.count, 1)
        XCTAssertEqual(line.last, UInt8(ascii: "\n"))
        let reader = try TraceReader(bytes: Array(header.utf8) + [0x0A] + Array(thread.utf8) + [0x0A] + line)
        XCTAssertEqual(try reader.next(), .thread(ThreadRecord(id: 1, name: "main")))
        XCTAssertEqual(try reader.next(), record)
        XCTAssertNil(try reader.next())
    }

    func testEveryRecordKindRoundTrips() throws {
        let records: [TraceRecord] = [
            .thread(ThreadRecord(id: 1, name: "worker", scheduler: "background", os: 4242)),
            .node(NodeRecord(id: 1, kind: .source, name: "pipe", file: "A.swift", line: 1, label: "in")),
            .node(NodeRecord(id: 2, kind: .operator, name: "flatMap", parameters: "latest", file: "A.swift", line: 2,
                             upstream: [.init(node: 1, role: .data)])),
            .subscribe(SubscriptionRecord(id: 1, node: 1, parent: 0, time: 0, thread: 1)),
            .subscribe(SubscriptionRecord(id: 2, node: 2, parent: 1, time: 5, thread: 1, late: true)),
            .event(EventRecord(sequence: 1, time: 7, node: 1, subscription: 1, kind: .value, thread: 1, causes: [],
                               text: "x…", truncated: true, json: #"{"a":[1,2.5,null,true]}"#)),
            .event(EventRecord(sequence: 2, time: 8, node: 2, subscription: 2, kind: .failed, thread: 1, causes: [1],
                               text: "boom", omittedJSONBytes: 70000)),
            .hop(HopRecord(id: 1, node: 2, subscription: 2, scheduler: "main", enqueued: 8, from: 1, started: 20, to: 1)),
            .hop(HopRecord(id: 2, node: 0, subscription: 0, scheduler: "main", enqueued: 9, from: 1)),
            .mark(MarkRecord(time: 9, thread: 1, label: "burst")),
            .dispose(DisposeRecord(subscription: 2, time: 30, thread: 1)),
            .label(LabelRecord(node: 2, label: "results")),
            .summary(SummaryRecord(events: 2, nodes: 2, subscriptions: 2, threads: 1, hops: 2, marks: 1, dropped: 3, duration: 30)),
        ]
        let realHeader = TraceHeader(clock: .real, wallClock: "2026-01-01T00:00:00.000000000Z",
                                     wallClockNanoseconds: 1_767_225_600_000_000_000, pid: 12, process: "p", host: "h")
        var data = TraceRecord.header(realHeader).jsonLine
        for record in records { data += record.jsonLine }
        let reader = try TraceReader(bytes: data)
        XCTAssertEqual(reader.header, realHeader)
        var read: [TraceRecord] = []
        while let record = try reader.next() { read.append(record) }
        XCTAssertEqual(read, records)
        let trace = try Trace(bytes: data)
        XCTAssertEqual(trace.node(2)?.label, "results")
        XCTAssertEqual(trace.hops.first?.queueWait, 12)
    }

    func testReadsAcrossChunkBoundaries() throws {
        var lines = [header, thread, node, subscribe]
        for seq in 1...30_000 { lines.append(event(seq)) }
        let data = bytes(lines)
        XCTAssertGreaterThan(data.count, 2 << 20)
        let reader = try TraceReader(bytes: data)
        var count = 0
        var last: UInt64 = 0
        while let record = try reader.next() {
            if case let .event(event) = record {
                count += 1
                XCTAssertEqual(event.sequence, last + 1)
                last = event.sequence
            }
        }
        XCTAssertEqual(count, 30_000)
        XCTAssertEqual(reader.bytesRead, Int64(data.count))
    }
}

extension TraceReaderTests {
    func testABinaryFileWithoutNewlinesIsAnErrorNotACutOffLine() {
        let binary: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00]
        do {
            _ = try TraceReader(bytes: binary, name: "b.trace")
            XCTFail("expected an error")
        } catch let error as TraceError {
            XCTAssertEqual(error.description, "b.trace:1:1: error: expected '{' to open a record")
        } catch {
            XCTFail("unexpected \(error)")
        }
    }

    // The reader matches keys and enumerated values as bytes; these cover the paths where the
    // bytes are not the text (escapes) and where a scalar is not what a record needs.

    func testEscapedKeysAndValuesMatchTheirDecodedText() throws {
        let escaped = #"{"\u0074ype":"ev\u0065nt","seq":1,"time":10,"n\u006fde":1,"sub":1,"kind":"val\u0075e","thread":1,"#
            + #""causes":[],"text":"caf\u00e9 \"x\"","json":"v"}"#
        let trace = try Trace(bytes: bytes([header, thread, node, subscribe, escaped]))
        XCTAssertEqual(trace.events.map(\.sequence), [1])
        XCTAssertEqual(trace.events.first?.kind, .value)
        XCTAssertEqual(trace.events.first?.text, "café \"x\"")
    }

    func testAnUnknownKindIsAnErrorNamingIt() {
        let broken = #"{"type":"event","seq":1,"time":1,"node":1,"sub":1,"kind":"valu","thread":1,"causes":[]}"#
        expectError(bytes([header, thread, node, subscribe, broken]), line: 5, column: 58, containing: "found \"valu\"")
    }

    func testAFractionOrAnOverflowingIntegerIsNotAnInteger() {
        let fraction = #"{"type":"event","seq":1,"time":1.5,"node":1,"sub":1,"kind":"value","thread":1,"causes":[]}"#
        expectError(bytes([header, thread, node, subscribe, fraction]), line: 5, column: 32, containing: "an integer for \"time\"")
        let huge = #"{"type":"event","seq":1,"time":9223372036854775808,"node":1,"sub":1,"kind":"value","thread":1,"causes":[]}"#
        expectError(bytes([header, thread, node, subscribe, huge]), line: 5, column: 32, containing: "an integer for \"time\"")
    }

    func testTheExtremeIntegersAreRead() throws {
        let mark = #"{"type":"mark","time":-9223372036854775808,"thread":1,"label":"m"}"#
        let last = #"{"type":"mark","time":9223372036854775807,"thread":1,"label":"n"}"#
        let trace = try Trace(bytes: bytes([header, thread, mark, last]))
        XCTAssertEqual(trace.marks.map(\.time), [.min, .max])
    }

    func testCausesThatAreNotPositiveIntegersAreAnError() {
        for causes in ["[0]", "[1,\"2\"]", "[1.0]", "{}"] {
            let broken = #"{"type":"event","seq":1,"time":1,"node":1,"sub":1,"kind":"value","thread":1,"causes":"# + causes + "}"
            expectError(bytes([header, thread, node, subscribe, broken]), line: 5, column: 86,
                        containing: causes == "{}" ? "an array for \"causes\"" : "positive sequence numbers")
        }
    }

    func testNullIsAcceptedForOptionalKeys() throws {
        let withNulls = #"{"type":"event","seq":1,"time":1,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"#
            + #""text":null,"json":null,"jsonOmitted":null}"#
        let trace = try Trace(bytes: bytes([header, thread, node, subscribe, withNulls]))
        XCTAssertNil(trace.events.first?.text)
        XCTAssertEqual(trace.events.first?.omittedJSONBytes, 0)
    }
}

/// What FORMAT.md says a trace is, enforced where it used to be accepted silently (issue 31
/// item 8): one summary, and it comes last; a version of two whole numbers, major 1; each key
/// once in a record.
extension TraceReaderTests {
    func testASummaryInMidTraceOrASecondSummaryIsAnError() {
        expectError(bytes([header, thread, node, subscribe, event(1), summary, event(2)]), line: 7,
                    containing: "expected the summary to be the last record, found an event record after it")
        expectError(bytes([header, thread, node, subscribe, event(1), summary, summary]), line: 7,
                    containing: "expected the summary to be the last record, found a summary record after it")
        expectError(bytes([header, thread, node, summary, subscribe]), line: 5,
                    containing: "found a subscribe record after it")
    }

    func testAVersionWithASignOrBeforeOneIsAnError() {
        for (version, expected) in [("-1.0", "of two whole numbers"), ("+1.1", "of two whole numbers"),
                                    ("1.-1", "of two whole numbers"), ("0.9", "no Marbles wrote a version before 1.0"),
                                    ("01.1", "of two whole numbers"), ("1.01", "of two whole numbers"), ("1.", "of two whole numbers")] {
            let line = header.replacingOccurrences(of: #""version":"1.0""#, with: #""version":"\#(version)""#)
            expectError(bytes([line, thread, node, subscribe, event(1), summary]), line: 1, containing: expected)
        }
    }

    func testARecordRepeatingAKeyIsAnErrorAtTheSecondOne() {
        let repeated = #"{"type":"thread","id":1,"name":"main","id":2}"#
        expectError(bytes([header, repeated, node, subscribe, event(1), summary]), line: 2, column: 39,
                    containing: #"each key once in a record, found "id" again"#)
        let repeatedEvent = event(1).replacingOccurrences(of: #""text":"v""#, with: #""text":"v","seq":7"#)
        expectError(bytes([header, thread, node, subscribe, repeatedEvent, summary]), line: 5,
                    containing: #"found "seq" again"#)
    }
}
