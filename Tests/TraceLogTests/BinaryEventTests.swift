import Foundation
import TraceLog
import XCTest

/// `Trace.addEvents(from:stride:count:)`, the bulk path a recorder's binary events take,
/// against adding each event's record with `add(.event(…))`: the same events kept, the same
/// lookups, the same first wrong event refused with the same message.
final class BinaryEventTests: XCTestCase {
    /// The entries as a recorder's buffer holds them: a marker byte, then the event, unaligned.
    private func entries(_ events: [BinaryEvent]) -> (bytes: [UInt8], stride: Int) {
        let stride = 1 + MemoryLayout<BinaryEvent>.size
        var bytes = [UInt8](repeating: 1, count: events.count * stride)
        bytes.withUnsafeMutableBytes { raw in
            for (index, event) in events.enumerated() {
                raw.storeBytes(of: event, toByteOffset: index * stride + 1, as: BinaryEvent.self)
            }
        }
        return (bytes, stride)
    }

    private func record(_ event: BinaryEvent) -> EventRecord {
        let cause = event.writtenCause
        let payload = event.hasInteger ? String(event.integer) : nil
        return EventRecord(sequence: event.sequence, time: event.time, node: event.node, subscription: event.subscription,
                           kind: event.eventKind, thread: event.thread, causes: cause == 0 ? [] : [cause],
                           text: payload, json: payload)
    }

    /// Ids 1, 2, 3, … in order, or some other order, with gaps.
    private func ids(_ count: Int, dense: Bool, _ numbers: inout SplitMix) -> [UInt64] {
        dense ? (1...UInt64(count)).map { $0 } : (1...UInt64(count)).map { $0 * 3 + 1 }.shuffled(using: &numbers)
    }

    private func compare(_ bulk: Trace, _ single: Trace, sequences: Set<UInt64>, nodes: [UInt64], seed: UInt64,
                         file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(bulk.events.count, single.events.count, "seed \(seed)", file: file, line: line)
        guard bulk.events.count == single.events.count else { return }
        for position in bulk.events.indices {
            XCTAssertEqual(bulk.events[position], single.events[position], "seed \(seed) position \(position)",
                           file: file, line: line)
            XCTAssertEqual(bulk.events.payloadNumber(at: position), single.events.payloadNumber(at: position),
                           "seed \(seed) position \(position)", file: file, line: line)
            XCTAssertEqual(bulk.events.jsonInteger(at: position), single.events.jsonInteger(at: position),
                           "seed \(seed) position \(position)", file: file, line: line)
        }
        for node in nodes + [999] {
            XCTAssertEqual(bulk.eventPositions(of: node), single.eventPositions(of: node), "seed \(seed) node \(node)",
                           file: file, line: line)
        }
        for sequence in sequences.union([0, 1, .max]) {
            XCTAssertEqual(bulk.eventPosition(sequence: sequence), single.eventPosition(sequence: sequence),
                           "seed \(seed) sequence \(sequence)", file: file, line: line)
        }
    }

    func testRunsOfBinaryEventsAreAddedAsTheirRecordsAre() {
        var refused = 0, kept = 0
        for seed in UInt64(1)...60 {
            var numbers = SplitMix(seed: seed)
            let dense = seed % 4 != 0
            let threads = ids(2, dense: dense, &numbers)
            let nodes = ids(4, dense: dense, &numbers)
            var subscriptions = ids(5, dense: dense || seed % 8 == 4, &numbers)
            var single = Trace(header: TraceHeader(clock: .virtual))
            for thread in threads { single.add(.thread(ThreadRecord(id: thread, name: "t\(thread)"))) }
            for node in nodes { single.add(.node(NodeRecord(id: node, kind: .operator, name: "n", file: "A.swift", line: 1))) }
            for (index, subscription) in subscriptions.enumerated() {
                single.add(.subscribe(SubscriptionRecord(id: subscription, node: nodes[index % nodes.count], parent: 0,
                                                         time: 0, thread: threads[0])))
            }
            var bulk = single
            var sequence = UInt64(numbers.below(3))
            var integer: Int64 = 0
            var seen = Set<UInt64>()
            // Runs of binary events, as the lines of a recorder's buffer cut them.
            for run in 0..<(1 + numbers.below(4)) {
                if run > 0, numbers.chance(30) {
                    // A subscription defined between two runs (a line).
                    let id = (subscriptions.max() ?? 0) + UInt64(1 + numbers.below(2))
                    subscriptions.append(id)
                    let record = TraceRecord.subscribe(SubscriptionRecord(id: id, node: nodes[0], parent: 0, time: 0,
                                                                          thread: threads[0]))
                    XCTAssertEqual(bulk.add(record), single.add(record))
                }
                var events: [BinaryEvent] = []
                for _ in 0..<numbers.below(numbers.chance(50) ? 1400 : 20) {
                    // Mostly numbered one after another, sometimes repeated, skipped or lower.
                    switch numbers.below(10_000) {
                    case 0..<4: sequence = sequence > 2 ? sequence - UInt64(1 + numbers.below(2)) : sequence
                    case 4..<8: break
                    case 8..<60: sequence += UInt64(2 + numbers.below(5))
                    default: sequence += 1
                    }
                    if numbers.chance(60) { integer = Int64(numbers.below(50)) - 10 }
                    var node = nodes[numbers.below(nodes.count)]
                    var subscription = subscriptions[numbers.below(subscriptions.count)]
                    var thread = threads[numbers.below(threads.count)]
                    switch numbers.below(10_000) {
                    case 0..<3: node = 77
                    case 3..<6: subscription = 77
                    case 6..<9: thread = 77
                    default: break
                    }
                    let cause = numbers.chance(50) ? UInt64(numbers.below(Int(sequence) + 3)) : 0
                    let kinds: [EventKind] = [.value, .value, .value, .completed, .failed, .interrupted]
                    events.append(BinaryEvent(sequence: sequence, time: Int64(sequence) * 10, node: node,
                                              subscription: subscription, kind: kinds[numbers.below(kinds.count)],
                                              thread: thread, cause: cause, integer: numbers.chance(80) ? integer : nil))
                    seen.insert(sequence)
                }
                var expected: (index: Int, problem: String)?
                for (index, event) in events.enumerated() {
                    if let problem = single.add(.event(record(event))) {
                        expected = (index, problem)
                        break
                    }
                }
                let (bytes, stride) = entries(events)
                let found = bytes.withUnsafeBytes { raw in
                    bulk.addEvents(from: raw.baseAddress! + 1, stride: stride, count: events.count)
                }
                XCTAssertEqual(found?.index, expected?.index, "seed \(seed) run \(run)")
                XCTAssertEqual(found?.problem, expected?.problem, "seed \(seed) run \(run)")
                if expected != nil { refused += 1 }
                // After a refused event the run's remaining events are dropped (the recorder's
                // trace throws there); the next run continues from what both hold.
            }
            kept += single.events.count
            compare(bulk, single, sequences: seen, nodes: nodes, seed: seed)
        }
        // The cases must all have come up: runs refused part-way and many events kept.
        XCTAssertGreaterThan(refused, 20)
        XCTAssertGreaterThan(kept, 20_000)
    }

    /// Many distinct integers (the payload table grows several times, from a reservation that
    /// fits them, or one too small, or none), consecutive, spread over `Int64`, repeated:
    /// every event keeps the number and integer its record gets.
    func testManyDistinctIntegersAreNumberedAsTheirRecordsAre() {
        for seed in UInt64(1)...8 {
            var numbers = SplitMix(seed: seed)
            var single = Trace(header: TraceHeader(clock: .virtual))
            single.add(.thread(ThreadRecord(id: 1, name: "t")))
            single.add(.node(NodeRecord(id: 1, kind: .operator, name: "n", file: "A.swift", line: 1)))
            single.add(.subscribe(SubscriptionRecord(id: 1, node: 1, parent: 0, time: 0, thread: 1)))
            var bulk = single
            var events: [BinaryEvent] = []
            var integers: [Int64] = []
            for index in 0..<6_000 {
                let integer: Int64
                switch numbers.below(4) {
                case 0: integer = Int64(index)
                case 1: integer = Int64(bitPattern: numbers.next())
                case 2: integer = integers.isEmpty ? 0 : integers[numbers.below(integers.count)]
                default: integer = integers.last ?? .min
                }
                integers.append(integer)
                events.append(BinaryEvent(sequence: UInt64(index + 1), time: Int64(index), node: 1, subscription: 1,
                                          kind: .value, thread: 1, cause: 0, integer: numbers.chance(95) ? integer : nil))
            }
            let distinct = Set(integers).count
            let reserved = [distinct, distinct / 3, 0, distinct * 2][Int(seed % 4)]
            bulk.reserveEvents(events.count, causes: 0, integers: reserved)
            for event in events { XCTAssertNil(single.add(.event(record(event)))) }
            let (bytes, stride) = entries(events)
            let found = bytes.withUnsafeBytes { raw in
                bulk.addEvents(from: raw.baseAddress! + 1, stride: stride, count: events.count)
            }
            XCTAssertNil(found?.problem, "seed \(seed)")
            compare(bulk, single, sequences: Set(events.map(\.sequence)), nodes: [1], seed: seed)
        }
    }
}
