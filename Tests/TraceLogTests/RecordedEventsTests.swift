import Foundation
import TraceLog
import XCTest
import TestSupport

/// The events an in-memory recorder places in a trace's columns as it records them
/// (`RecordedColumns`, then `Trace(header:recordedEvents:)` and
/// `finishRecordedEvents()`), against the trace the same recording's bytes read as: the same
/// events, payloads, lookups and indexes; and what does not check out is refused.
final class RecordedEventsTests: XCTestCase {
    /// One line of `record`, without its newline.
    private func line(_ record: TraceRecord) -> [UInt8] {
        var line = JSONLine(capacity: 0)
        record.write(to: &line)
        return Array(line.bytes.dropLast())
    }

    private struct Recording {
        var bytes: [UInt8] = []
        var columns = RecordedColumns()
        /// The records other than events, in order.
        var others: [TraceRecord] = []
        /// The binary events placed, by position.
        var binary: [Int: BinaryEvent] = [:]

        /// Every event placed (the batch let go of).
        mutating func placed() -> TraceEvents {
            columns.flush()
            columns.release()
            return columns.events
        }

        mutating func add(_ record: TraceRecord, line: [UInt8]) {
            bytes += line + [0x0A]
            others.append(record)
        }
    }

    /// A recording as a recorder makes one: ids numbered in order, each defined before it is
    /// used; events numbered one by one, most of them binary (an integer or none, at most one
    /// cause), some written as lines (texts, long texts cut, JSON too large to keep, several
    /// causes), with new threads, nodes and subscriptions defined between them.
    private func record(seed: UInt64) -> Recording {
        var numbers = SplitMix(seed: seed)
        var recording = Recording()
        let header = TraceHeader(clock: .virtual)
        recording.bytes += line(.header(header)) + [0x0A]
        var threads: UInt64 = 0, nodes: UInt64 = 0, subscriptions: UInt64 = 0
        func define() {
            threads += 1
            let thread = TraceRecord.thread(ThreadRecord(id: threads, name: "t\(threads)"))
            recording.add(thread, line: line(thread))
            nodes += 1
            let node = TraceRecord.node(NodeRecord(id: nodes, kind: .operator, name: "n\(nodes)", file: "A.swift", line: 1))
            recording.add(node, line: line(node))
            subscriptions += 1
            let subscription = TraceRecord.subscribe(SubscriptionRecord(id: subscriptions, node: nodes, parent: 0, time: 0,
                                                                        thread: threads))
            recording.add(subscription, line: line(subscription))
        }
        define()
        var integer: Int64 = 0
        let kinds: [EventKind] = [.value, .value, .value, .value, .completed, .failed, .interrupted]
        for sequence in UInt64(1)...UInt64(3_000 + numbers.below(2_000)) {
            if numbers.chance(1) { define() }
            if numbers.chance(1) {
                let dispose = TraceRecord.dispose(DisposeRecord(subscription: UInt64(1 + numbers.below(Int(subscriptions))),
                                                                time: Int64(sequence), thread: 1))
                recording.add(dispose, line: line(dispose))
            }
            let node = UInt64(1 + numbers.below(Int(nodes)))
            let subscription = UInt64(1 + numbers.below(Int(subscriptions)))
            let thread = UInt64(1 + numbers.below(Int(threads)))
            let kind = kinds[numbers.below(kinds.count)]
            let time = Int64(sequence) * 7 - Int64(numbers.below(20))
            if numbers.chance(85) {
                switch numbers.below(3) {
                case 0: integer = Int64(numbers.below(40)) - 5
                case 1: integer = Int64(bitPattern: numbers.next())
                default: break
                }
                // A cause at or above the event's number is left over from an earlier
                // recording: the recorder writes none.
                let cause = numbers.chance(60) ? UInt64(numbers.below(Int(sequence) + 2)) : 0
                let event = BinaryEvent(sequence: sequence, time: time, node: node, subscription: subscription, kind: kind,
                                        thread: thread, cause: cause, integer: kind == .value ? integer : nil)
                recording.binary[recording.columns.count] = event
                recording.columns.append(sequence: sequence, time: time, node: Int(node - 1),
                                                 subscription: Int(subscription - 1), thread: Int(thread - 1),
                                                 kind: kind, cause: event.writtenCause,
                                                 integer: event.hasInteger ? event.integer : nil)
                let written = event.writtenCause
                let digits = event.hasInteger ? String(event.integer) : nil
                recording.bytes += line(.event(EventRecord(sequence: sequence, time: time, node: node,
                                                           subscription: subscription, kind: kind, thread: thread,
                                                           causes: written == 0 ? [] : [written], text: digits,
                                                           json: digits))) + [0x0A]
                continue
            }
            // Causes as a recorder writes them: earlier events, never 0.
            let causes = sequence == 1 ? [] : (0..<numbers.below(4)).map { _ in UInt64(1 + numbers.below(Int(sequence) - 1)) }
            let record: EventRecord
            switch numbers.below(4) {
            case 0:
                let text = "w\(numbers.below(30))"
                record = EventRecord(sequence: sequence, time: time, node: node, subscription: subscription, kind: kind,
                                     thread: thread, causes: causes, text: text, json: "\"\(text)\"")
            case 1:
                record = EventRecord(sequence: sequence, time: time, node: node, subscription: subscription, kind: kind,
                                     thread: thread, causes: causes, text: String(repeating: "é", count: 40) + "…",
                                     truncated: true, json: nil, omittedJSONBytes: 90_000)
            case 2:
                record = EventRecord(sequence: sequence, time: time, node: node, subscription: subscription, kind: kind,
                                     thread: thread, causes: causes, text: "tab\tand \"quotes\"",
                                     json: "{\"a\":[1,2]}")
            default:
                // An integer with more than one cause: a line, its text its JSON.
                record = EventRecord(sequence: sequence, time: time, node: node, subscription: subscription, kind: kind,
                                     thread: thread, causes: causes, text: "12", json: "12")
            }
            let bytes = line(.event(record))
            XCTAssertTrue(bytes.withUnsafeBufferPointer { recording.columns.append(line: $0) }, "seed \(seed)")
            recording.bytes += bytes + [0x0A]
        }
        let summary = TraceRecord.summary(SummaryRecord(events: 0, nodes: nodes, subscriptions: subscriptions,
                                                        threads: threads, hops: 0, marks: 0, dropped: 0, duration: 0))
        recording.add(summary, line: line(summary))
        return recording
    }

    func testPlacedEventsAreTheEventsTheRecordingsBytesReadAs() throws {
        for seed in UInt64(1)...12 {
            var recording = record(seed: seed)
            var placed = Trace(header: TraceHeader(clock: .virtual), recordedEvents: recording.placed())
            for record in recording.others { XCTAssertNil(placed.add(record), "seed \(seed)") }
            XCTAssertNil(placed.finishRecordedEvents(), "seed \(seed)")
            let read = try Trace(bytes: recording.bytes, name: "seed \(seed)")
            XCTAssertEqual(placed.events.count, read.events.count, "seed \(seed)")
            XCTAssertGreaterThan(recording.binary.count, 2_000)
            XCTAssertGreaterThan(placed.events.count - recording.binary.count, 300)
            guard placed.events.count == read.events.count else { continue }
            for position in placed.events.indices {
                XCTAssertEqual(placed.events[position], read.events[position], "seed \(seed) position \(position)")
                XCTAssertEqual(placed.events.payload(at: position), read.events.payload(at: position))
                XCTAssertEqual(placed.events.jsonInteger(at: position), read.events.jsonInteger(at: position))
                // Payloads are numbered in the order met, lines' and integers' alike.
                XCTAssertEqual(placed.events.payloadNumber(at: position), read.events.payloadNumber(at: position))
                if let event = recording.binary[position] {
                    let back = placed.events.recordedBinaryEvent(at: position)
                    XCTAssertEqual([back.sequence, back.node, back.subscription, back.thread, back.writtenCause],
                                   [event.sequence, event.node, event.subscription, event.thread, event.writtenCause])
                    XCTAssertEqual(back.time, event.time)
                    XCTAssertEqual(back.kind, event.kind)
                    XCTAssertEqual(back.hasInteger, event.hasInteger)
                    if event.hasInteger { XCTAssertEqual(back.integer, event.integer, "seed \(seed) position \(position)") }
                }
            }
            for node in read.nodes.map(\.id) + [0, 999] {
                XCTAssertEqual(placed.eventPositions(of: node), read.eventPositions(of: node), "seed \(seed) node \(node)")
            }
            for sequence in [0, 1, 2, UInt64(read.events.count), UInt64(read.events.count + 1), .max] {
                XCTAssertEqual(placed.eventPosition(sequence: sequence), read.eventPosition(sequence: sequence))
            }
            XCTAssertEqual(placed.subscriptions, read.subscriptions)
            XCTAssertEqual(placed.disposals, read.disposals)
            // Both go on alike: the next event is checked against every number placed.
            var (next, other) = (placed, read)
            let again = EventRecord(sequence: 5, time: 0, node: 1, subscription: 1, kind: .value, thread: 1)
            XCTAssertNotNil(next.add(.event(again)))
            XCTAssertEqual(next.add(.event(again)), other.add(.event(again)))
        }
    }

    /// What a recorder never writes is refused, not taken: ids numbered out of order, an event
    /// whose node, subscription or thread is not defined.
    func testPlacedEventsThatDoNotCheckOutAreRefused() {
        func placed(threads: [UInt64], eventThread: Int, eventNode: Int) -> String? {
            var columns = RecordedColumns()
            columns.append(sequence: 1, time: 0, node: eventNode, subscription: 0, thread: eventThread,
                                   kind: .value, cause: 0, integer: 3)
            columns.flush()
            columns.release()
            var trace = Trace(header: TraceHeader(clock: .virtual), recordedEvents: columns.events)
            for thread in threads { trace.add(.thread(ThreadRecord(id: thread, name: "t"))) }
            trace.add(.node(NodeRecord(id: 1, kind: .operator, name: "n", file: "A.swift", line: 1)))
            trace.add(.subscribe(SubscriptionRecord(id: 1, node: 1, parent: 0, time: 0, thread: threads[0])))
            return trace.finishRecordedEvents()
        }
        XCTAssertNil(placed(threads: [1, 2], eventThread: 1, eventNode: 0))
        XCTAssertEqual(placed(threads: [2, 1], eventThread: 0, eventNode: 0),
                       "expected the recording's ids numbered 1, 2, 3, … in the order defined")
        XCTAssertEqual(placed(threads: [1, 2], eventThread: 2, eventNode: 0),
                       "expected every event's node, subscription and thread defined, and events numbered one by one")
        XCTAssertEqual(placed(threads: [1], eventThread: 0, eventNode: 1),
                       "expected every event's node, subscription and thread defined, and events numbered one by one")
    }

    /// A line that is not an event line as the writer writes it, or names id 0, is not placed.
    func testALineThatIsNotAnEventIsNotPlaced() {
        var columns = RecordedColumns()
        let lines = [
            line(.thread(ThreadRecord(id: 1, name: "t"))),
            line(.event(EventRecord(sequence: 1, time: 0, node: 0, subscription: 1, kind: .value, thread: 1))),
            Array("{\"type\":\"event\",\"seq\":1".utf8),
        ]
        for line in lines { XCTAssertFalse(line.withUnsafeBufferPointer { columns.append(line: $0) }) }
        XCTAssertEqual(columns.count, 0)
    }
}
