import Foundation
import TraceLog
import XCTest
import TestSupport

/// `Trace(reader:)` reads the lines a writer writes in one pass each, straight into its
/// columns; every other line takes the general path (field list, key lookups, a record). The
/// two must give the same trace, column by column and payload number by payload number, and
/// the same located error. A line with a space before its record always takes the general
/// path, so a copy of a trace with every line so indented is read the general way.
final class OnePassLoadTests: XCTestCase {
    /// The lines of `bytes` (without their newlines; the last may be cut).
    private func lines(_ bytes: [UInt8]) -> [[UInt8]] {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        if lines.last == [] { lines.removeLast() }
        return lines
    }

    private func joined(_ lines: [[UInt8]]) -> [UInt8] {
        lines.flatMap { $0 + [UInt8(ascii: "\n")] }
    }

    /// `bytes` with a space at the start of every line but empty ones, which sends every
    /// record down the general path.
    private func indented(_ bytes: [UInt8]) -> [UInt8] {
        var indented: [UInt8] = []
        indented.reserveCapacity(bytes.count * 11 / 10)
        var lineStart = true
        for byte in bytes {
            if lineStart && byte != UInt8(ascii: "\n") { indented.append(UInt8(ascii: " ")) }
            indented.append(byte)
            lineStart = byte == UInt8(ascii: "\n")
        }
        return indented
    }

    /// The trace read from `bytes` both ways is the same, or both ways fail at the same place
    /// with the same message. Returns whether it was read.
    @discardableResult
    private func assertSameBothWays(_ bytes: [UInt8], _ what: String, file: StaticString = #filePath,
                                    line: UInt = #line) -> Bool {
        let onePass = Result { try Trace(bytes: bytes, name: "t.trace") }
        let general = Result { try Trace(bytes: indented(bytes), name: "t.trace") }
        switch (onePass, general) {
        case let (.success(a), .success(b)):
            assertSame(a, b, what, file: file, line: line)
            return true
        case let (.failure(a as TraceError), .failure(b as TraceError)):
            // The indented line's columns count the space, but for a missing field's, which
            // points at the line's start.
            XCTAssertEqual(a.line, b.line, what, file: file, line: line)
            let missing = a.message.hasPrefix("expected a field ")
            XCTAssertEqual(a.column, b.column == 0 || missing ? b.column : b.column - 1, "\(what): \(a) / \(b)",
                           file: file, line: line)
            XCTAssertEqual(a.message, b.message, what, file: file, line: line)
        default:
            XCTFail("\(what): \(onePass) / \(general)", file: file, line: line)
        }
        return false
    }

    private func assertSame(_ a: Trace, _ b: Trace, _ what: String, file: StaticString, line: UInt) {
        XCTAssertEqual(a.header, b.header, what, file: file, line: line)
        XCTAssertEqual(a.nodes, b.nodes, what, file: file, line: line)
        XCTAssertEqual(a.subscriptions, b.subscriptions, what, file: file, line: line)
        XCTAssertEqual(a.disposals, b.disposals, what, file: file, line: line)
        XCTAssertEqual(a.threads, b.threads, what, file: file, line: line)
        XCTAssertEqual(a.hops, b.hops, what, file: file, line: line)
        XCTAssertEqual(a.marks, b.marks, what, file: file, line: line)
        XCTAssertEqual(a.summary, b.summary, what, file: file, line: line)
        XCTAssertEqual(a.warnings.map(\.line), b.warnings.map(\.line), what, file: file, line: line)
        XCTAssertEqual(a.events.count, b.events.count, what, file: file, line: line)
        let events = (a.events, b.events)
        for position in 0..<min(events.0.count, events.1.count) {
            let at = "\(what), event \(position)"
            XCTAssertEqual(events.0[position], events.1[position], at, file: file, line: line)
            XCTAssertEqual(events.0.payloadNumber(at: position), events.1.payloadNumber(at: position), at, file: file, line: line)
            XCTAssertEqual(events.0.jsonInteger(at: position), events.1.jsonInteger(at: position), at, file: file, line: line)
            XCTAssertEqual(events.0.json(at: position), events.1.json(at: position), at, file: file, line: line)
            XCTAssertEqual(events.0.subscriptionIndex(at: position), events.1.subscriptionIndex(at: position), at,
                           file: file, line: line)
        }
        for node in a.nodes {
            XCTAssertEqual(a.eventPositions(of: node.id), b.eventPositions(of: node.id), what, file: file, line: line)
        }
    }

    func testEveryCommittedTraceReadsTheSameBothWays() throws {
        for (name, bytes) in try committedTraces() {
            XCTAssertTrue(assertSameBothWays(bytes, name), name)
        }
    }

    /// A trace whose events carry every kind of payload the one pass reads itself (integers at
    /// the edges of the digits it takes, texts that are and are not their JSON, escapes, a
    /// number that is not an integer, causes, a cut text and omitted bytes), and whose
    /// subscriptions and hops have every optional field.
    func testRecordsOfEveryShapeReadTheSameBothWays() {
        var records: [TraceRecord] = [
            .header(TraceHeader(clock: .virtual)),
            .thread(ThreadRecord(id: 1, name: "main")),
            .node(NodeRecord(id: 1, kind: .source, name: "pipe", parameters: "", file: "A.swift", line: 3)),
            .subscribe(SubscriptionRecord(id: 1, node: 1, parent: 0, time: 0, thread: 1)),
        ]
        let payloads: [(String?, String?)] = [
            ("5", "5"), ("-5", "-5"), ("0", "0"), ("-0", "-0"), ("5", "6"), ("05", "5"), ("5", nil), (nil, "5"),
            ("123456789012345678", "123456789012345678"), ("1234567890123456789", "1234567890123456789"),
            ("9223372036854775807", "9223372036854775807"), ("-9223372036854775808", "-9223372036854775808"),
            ("99999999999999999999", "99999999999999999999"), ("1.5", "1.5"), ("1e3", "1e3"),
            ("a", #""a""#), ("\"a\"", #""a""#), ("caf\u{e9}", #""caf\u00e9""#), ("x\ny", "null"), ("", "true"),
            ("5", #""5""#), ("[1,2]", "[1,2]"), ("5", "5"), ("a", #""a""#),
        ]
        var sequence: UInt64 = 0
        for (index, (text, json)) in payloads.enumerated() {
            sequence += 1
            records.append(.event(EventRecord(sequence: sequence, time: Int64(index), node: 1, subscription: 1,
                                              kind: .value, thread: 1, causes: sequence > 2 ? [sequence - 1, 1] : [],
                                              text: text, truncated: index % 5 == 4, json: json,
                                              omittedJSONBytes: index % 7 == 6 ? 99 : 0)))
        }
        // Subscriptions, their ends and hops in every shape the writer writes them.
        records += [
            .thread(ThreadRecord(id: 2, name: "worker \"2\"", scheduler: "q")),
            .subscribe(SubscriptionRecord(id: 2, node: 1, parent: 1, time: -3, thread: 2, late: true)),
            .subscribe(SubscriptionRecord(id: 3, node: 1, parent: 0, time: 4, thread: 1, request: "7")),
            .subscribe(SubscriptionRecord(id: 4, node: 1, parent: 2, time: 4, thread: 1, late: true,
                                          request: #"{"q":["a\u00e9",1.5,null]}"#)),
            .subscribe(SubscriptionRecord(id: 5, node: 1, parent: 0, time: 4, thread: 1, request: "null")),
            .subscribe(SubscriptionRecord(id: 6, node: 1, parent: 0, time: 4, thread: 1, observes: [3, 2])),
            .subscribe(SubscriptionRecord(id: 7, node: 1, parent: 6, time: 4, thread: 1, request: "7",
                                          observes: [], observedBy: [6])),
            .hop(HopRecord(id: 1, node: 1, subscription: 2, scheduler: "main", enqueued: 5, from: 1, started: 6, to: 2)),
            .hop(HopRecord(id: 2, node: 0, subscription: 0, scheduler: "caf\u{e9} \"q\"", enqueued: -5, from: 2)),
            .hop(HopRecord(id: 3, node: 1, subscription: 3, scheduler: "", enqueued: 5, from: 1, started: 7)),
            .dispose(DisposeRecord(subscription: 2, time: 99, thread: 2)),
            .dispose(DisposeRecord(subscription: 1, time: 99, thread: 1)),
        ]
        let bytes = records.flatMap(\.jsonLine)
        XCTAssertTrue(assertSameBothWays(bytes, "payloads"), "\(Result { try Trace(bytes: bytes) })")
    }

    /// Committed traces with one line edited at random (a seeded generator, so the same edits
    /// every run): each copy reads the same both ways, or fails the same way.
    func testEditedLinesReadTheSameBothWays() throws {
        var random = SplitMix(seed: 0x5EED_0F_1A57)
        let numbers = ["0", "-0", "1", "-1", "01", "1.0", "1e2", "123456789012345678", "1234567890123456789",
                       "9223372036854775807", "-9223372036854775808", "99999999999999999999", "null", "\"1\"", "true"]
        let values = ["5", "-5", "0", "-0", "05", "5.0", "null", "true", "false", "[1,2]", "{\"a\":1}", "\"5\"",
                      "\"caf\\u00e9\"", "\"a\\nb\"", "\"a\\q\"", "\"é\"", "\"\"", "12345678901234567890", "[", "\"a"]
        var read = 0, failed = 0
        for (name, bytes) in try committedTraces() {
            let original = lines(bytes)
            for _ in 0..<60 {
                var edited = original
                let index = 1 + Int(random.next() % UInt64(original.count - 1))
                var line = edited[index]
                guard !line.isEmpty else { continue }
                let position = Int(random.next() % UInt64(line.count))
                switch random.next() % 6 {
                case 0:
                    // A value after some key replaced by a number written another way.
                    line = replacingValue(in: line, at: position, with: numbers[Int(random.next() % UInt64(numbers.count))])
                case 1:
                    line = replacingValue(in: line, at: position, with: values[Int(random.next() % UInt64(values.count))])
                case 2:
                    line.insert(UInt8(ascii: " "), at: position)
                case 3:
                    line.remove(at: position)
                case 4:
                    // A key renamed, or one the writer never writes.
                    line = replacingKey(in: line, at: position, with: ["late", "request", "started", "to", "x", "text",
                                                                      "json", "id"][Int(random.next() % 8)])
                default:
                    // Cut short: the last line of a trace cut off, or a line in the middle.
                    line = Array(line.prefix(position))
                    if random.next() % 2 == 0 { edited.removeSubrange((index + 1)...) }
                }
                edited[index] = line
                var copy = joined(edited)
                if index == edited.count - 1, random.next() % 2 == 0 { copy.removeLast() }
                if assertSameBothWays(copy, "\(name) line \(index + 1): \(String(decoding: line, as: UTF8.self))") {
                    read += 1
                } else {
                    failed += 1
                }
            }
        }
        // Both outcomes are exercised, not only errors.
        XCTAssertGreaterThan(read, 100)
        XCTAssertGreaterThan(failed, 100)
    }

    /// Events numbered one after another, with an integer value (text and JSON the same
    /// digits) or none and at most one earlier cause, of ids at `id - 1` of their lists, are
    /// put in a batch and appended together; every other event is added by itself. Seeded
    /// traces of such runs, longer than a batch, with here and there an event that must leave
    /// the batch (a number skipped or taken from an earlier gap, two causes, a text that is not
    /// its JSON, a JSON without text, a cut text, omitted bytes, a non-integer, a record in
    /// between) or, in every other trace, one that must be refused (a number repeated, a cause
    /// at or after its event, an undefined node, subscription or thread): read the same both
    /// ways, or failing at the same line with the same message.
    func testRunsOfIntegerEventsReadTheSameBothWays() {
        var random = SplitMix(seed: 0xBA7C_4ED5)
        func below(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        var read = 0, failed = 0
        for trial in 0..<60 {
            let refusals = trial % 2 == 1
            var records: [TraceRecord] = [.header(TraceHeader(clock: .virtual))]
            // Ids numbered 1, 2, 3, … in file order, or, in some traces, not.
            let threadIDs: [UInt64] = trial % 5 == 4 ? [2, 1] : [1, 2]
            for id in threadIDs { records.append(.thread(ThreadRecord(id: id, name: "t\(id)"))) }
            let nodeIDs: [UInt64] = trial % 7 == 6 ? [2, 1, 3] : [1, 2, 3]
            for id in nodeIDs {
                records.append(.node(NodeRecord(id: id, kind: .source, name: "n\(id)", parameters: "", file: "A.swift",
                                                line: 1)))
            }
            let subscriptionIDs: [UInt64] = trial % 6 == 5 ? [1, 3, 2] : [1, 2, 3]
            for id in subscriptionIDs {
                records.append(.subscribe(SubscriptionRecord(id: id, node: id, parent: 0, time: 0, thread: 1)))
            }
            var nextSubscription: UInt64 = 4
            var sequence: UInt64 = 0
            var skipped: [UInt64] = []
            for _ in 0..<(600 + below(900)) {
                sequence += 1
                var number = sequence
                let node = UInt64(1 + below(3))
                var subscription = node, thread = UInt64(1 + below(2)), eventNode = node
                var causes: [UInt64] = sequence > 1 && below(2) == 0 ? [sequence - 1 - UInt64(below(min(Int(sequence) - 1, 5)))] : []
                let value = below(40) - 20
                var kind = EventKind.value
                var text: String? = String(value), json: String? = String(value)
                var truncated = false, omitted: Int64 = 0
                if below(12) == 0 {
                    kind = .completed
                    text = nil
                    json = nil
                }
                if below(120) == 0 {
                    switch below(refusals ? 16 : 11) {
                    case 0:
                        skipped += [sequence, sequence + 1]
                        sequence += 2
                        number = sequence
                    case 1:
                        if let earlier = skipped.popLast() {
                            sequence -= 1
                            number = earlier
                        }
                    case 2: if sequence > 2 { causes = [sequence - 1, 1] }
                    case 3: json = String(value + 1)
                    case 4: text = nil
                    case 5: truncated = true
                    case 6: omitted = 7
                    case 7:
                        text = "1.5"
                        json = "1.5"
                    case 8:
                        records.append(.subscribe(SubscriptionRecord(id: nextSubscription, node: node, parent: 0, time: 0,
                                                                     thread: 1)))
                        nextSubscription += 1
                    case 9: records.append(.mark(MarkRecord(time: 0, thread: 1, label: "m")))
                    case 10: text = "x\(value)"
                    case 11: if sequence > 1 { number = sequence - 1 }
                    case 12: causes = [sequence]
                    case 13: causes = [sequence + 1]
                    case 14: eventNode = 9
                    default:
                        if below(2) == 0 { subscription = 9 } else { thread = 9 }
                    }
                }
                records.append(.event(EventRecord(sequence: number, time: Int64(sequence), node: eventNode,
                                                  subscription: subscription, kind: kind, thread: thread, causes: causes,
                                                  text: text, truncated: truncated, json: json,
                                                  omittedJSONBytes: omitted)))
            }
            if assertSameBothWays(records.flatMap(\.jsonLine), "trial \(trial)") { read += 1 } else { failed += 1 }
        }
        // Both outcomes are exercised, not only errors.
        XCTAssertGreaterThanOrEqual(read, 30)
        XCTAssertGreaterThanOrEqual(failed, 10)
    }

    /// `line` with the value after the first ':' at or after `position` replaced by `value`.
    private func replacingValue(in line: [UInt8], at position: Int, with value: String) -> [UInt8] {
        guard let colon = line[position...].firstIndex(of: UInt8(ascii: ":")) else { return line }
        var end = colon + 1
        var depth = 0, quoted = false
        while end < line.count {
            let byte = line[end]
            if quoted {
                if byte == UInt8(ascii: "\\") { end += 1 } else if byte == UInt8(ascii: "\"") { quoted = false }
            } else if byte == UInt8(ascii: "\"") {
                quoted = true
            } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                depth += 1
            } else if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") {
                if depth == 0 { break }
                depth -= 1
            } else if byte == UInt8(ascii: ","), depth == 0 {
                break
            }
            end += 1
        }
        return Array(line[...colon]) + Array(value.utf8) + Array(line[min(end, line.count)...])
    }

    /// `line` with the key before the first ':' at or after `position` renamed `key`.
    private func replacingKey(in line: [UInt8], at position: Int, with key: String) -> [UInt8] {
        guard let colon = line[position...].firstIndex(of: UInt8(ascii: ":")), colon > 0,
              line[colon - 1] == UInt8(ascii: "\""),
              let open = line[..<(colon - 1)].lastIndex(of: UInt8(ascii: "\"")) else { return line }
        return Array(line[...open]) + Array(key.utf8) + Array(line[(colon - 1)...])
    }
}
