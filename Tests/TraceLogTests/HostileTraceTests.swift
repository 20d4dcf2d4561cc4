import Foundation
import TraceLog
import XCTest

/// Corrupt traces get a located error or a defined result from every reader — `Trace`,
/// `TraceStats`, `PerfettoExport` — never a trap, a memory blow-up or quadratic time.
final class HostileTraceTests: XCTestCase {
    private let header = #"{"type":"header","format":"marbles-trace","version":"1.0","unit":"ns","clock":"virtual"}"#
    private let thread = #"{"type":"thread","id":1,"name":"main"}"#
    private let source = #"{"type":"node","id":1,"kind":"source","name":"pipe","parameters":"","file":"A.swift","line":3,"upstream":[]}"#
    private let sink = #"{"type":"node","id":2,"kind":"sink","name":"observeValues","parameters":"","file":"A.swift","line":4,"upstream":[{"node":1,"role":"data"}]}"#
    private let subscribe = #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#
    private let subscribeSink = #"{"type":"subscribe","id":2,"node":2,"parent":1,"time":0,"thread":1}"#

    private func event(_ seq: Int, node: Int = 1, sub: Int = 1, time: Int64? = nil, causes: [Int] = []) -> String {
        let causeList = causes.map(String.init).joined(separator: ",")
        return #"{"type":"event","seq":\#(seq),"time":\#(time ?? Int64(seq) * 10),"node":\#(node),"sub":\#(sub),"kind":"value","thread":1,"causes":[\#(causeList)],"text":"v"}"#
    }

    private func hop(enqueued: Int64, started: Int64) -> String {
        #"{"type":"hop","id":1,"node":1,"sub":1,"scheduler":"ui","enqueued":\#(enqueued),"from":1,"started":\#(started),"to":1}"#
    }

    private func bytes(_ lines: [String]) -> [UInt8] { Array((lines.joined(separator: "\n") + "\n").utf8) }

    private func stats(_ lines: [String], window: Int = 1 << 18) throws -> TraceStats {
        try TraceStats.compute(TraceReader(bytes: bytes(lines), name: "t.trace"), window: window)
    }

    private func export(_ lines: [String]) throws -> String {
        var out: [UInt8] = []
        try PerfettoExport.export(TraceReader(bytes: bytes(lines), name: "t.trace")) { out += $0 }
        return String(decoding: out, as: UTF8.self)
    }

    /// The error each reader gives for `lines`, all three required to agree.
    private func sameErrorFromEveryReader(_ lines: [String], file: StaticString = #filePath,
                                          line: UInt = #line) -> TraceError? {
        func error(_ body: () throws -> Void) -> TraceError? {
            do {
                try body()
                return nil
            } catch {
                return error as? TraceError
            }
        }
        let fromTrace = error { _ = try Trace(bytes: bytes(lines), name: "t.trace") }
        let fromStats = error { _ = try stats(lines) }
        let fromExport = error { _ = try export(lines) }
        XCTAssertNotNil(fromTrace, "Trace accepted it", file: file, line: line)
        XCTAssertEqual(fromStats, fromTrace, "stats", file: file, line: line)
        XCTAssertEqual(fromExport, fromTrace, "export", file: file, line: line)
        return fromTrace
    }

    // MARK: Time arithmetic

    func testLatenciesBetweenTimesAtBothEndsOfInt64SaturateInStats() throws {
        let result = try stats([header, thread, source, sink, subscribe, subscribeSink,
                                event(1, time: .min), event(2, node: 2, sub: 2, time: .max, causes: [1]),
                                event(3, time: .max, causes: [1]), event(4, node: 2, sub: 2, time: .min, causes: [3])])
        let sinkLine = try XCTUnwrap(result.nodes.first { $0.node.id == 2 })
        XCTAssertEqual(sinkLine.stageLatency?.max, .max)
        // Event 3, caused by event 1, reaches the sink: its path latency from event 1 saturates.
        XCTAssertEqual(result.paths.first?.latency?.max, .max)
        XCTAssertFalse(result.text.isEmpty)
    }

    func testQueueWaitsBetweenTimesAtBothEndsOfInt64Saturate() throws {
        XCTAssertEqual(HopRecord(id: 1, node: 1, subscription: 1, scheduler: "ui", enqueued: .min, from: 1, started: .max).queueWait, .max)
        XCTAssertEqual(HopRecord(id: 1, node: 1, subscription: 1, scheduler: "ui", enqueued: .max, from: 1, started: .min).queueWait, .min)
        let lines = [header, thread, source, subscribe, hop(enqueued: .min, started: .max)]
        XCTAssertEqual(try stats(lines).hops.first?.wait?.max, .max)
        XCTAssertTrue(try export(lines).contains(#""dur":9223372036854775.807"#))
    }

    func testSaturatingArithmeticClampsAtTheBounds() {
        XCTAssertEqual(Int64.max.saturatingSubtracting(-1), .max)
        XCTAssertEqual(Int64.min.saturatingSubtracting(1), .min)
        XCTAssertEqual(Int64.max.saturatingAdding(1), .max)
        XCTAssertEqual(Int64.min.saturatingAdding(-1), .min)
        XCTAssertEqual(Int64(5).saturatingSubtracting(7), -2)
    }

    // MARK: The window

    func testAHugeWindowCostsMemoryForTheTraceNotTheWindow() throws {
        // A window of Int.max slots used to be allocated up front (and trapped).
        var lines = [header, thread, source, sink, subscribe, subscribeSink]
        for value in 1...40 {
            let time = Int64(value) * 100
            lines.append(event(2 * value - 1, time: time))
            lines.append(event(2 * value, node: 2, sub: 2, time: time + 7, causes: [2 * value - 1]))
        }
        let huge = try stats(lines, window: .max)
        let usual = try stats(lines)
        XCTAssertEqual(huge.text, usual.text)
        XCTAssertEqual(huge.unresolvedCauses, 0)
        XCTAssertEqual(huge.nodes.first { $0.node.id == 2 }?.stageLatency?.max, 7)
        var exported: [UInt8] = []
        try PerfettoExport.export(TraceReader(bytes: bytes(lines)), window: .max) { exported += $0 }
        XCTAssertEqual(String(decoding: exported, as: UTF8.self), try export(lines))
    }

    func testTheWindowStillForgetsCausesOlderThanItsSize() throws {
        // 40 sources, then 40 effects each 40 events after its cause.
        var lines = [header, thread, source, sink, subscribe, subscribeSink]
        for seq in 1...40 { lines.append(event(seq)) }
        for seq in 1...40 { lines.append(event(40 + seq, node: 2, sub: 2, causes: [seq])) }
        XCTAssertEqual(try stats(lines, window: 16).unresolvedCauses, 40)
        XCTAssertEqual(try stats(lines, window: 64).unresolvedCauses, 0)
    }

    // MARK: Causes

    func testACauseThatIsTheEventItselfIsAnErrorAtItsLineInEveryReader() {
        let error = sameErrorFromEveryReader([header, thread, source, subscribe, event(1), event(2, causes: [2])])
        XCTAssertEqual(error?.line, 6)
        XCTAssertEqual(error?.message, "expected causes to be earlier events (sequence numbers below 2), found 2: the event itself")
    }

    func testACauseAfterItsEffectIsAnErrorInEveryReader() {
        let error = sameErrorFromEveryReader([header, thread, source, subscribe, event(1, causes: [2]), event(2, causes: [1])])
        XCTAssertEqual(error?.line, 5)
        XCTAssertEqual(error?.message, "expected causes to be earlier events (sequence numbers below 1), found 2: a later event")
    }

    func testALongChainOfCausesFindsItsSourceForEveryEvent() throws {
        // 20,000 events, each caused by the one before: the root is kept with each event, so
        // every sink value finds the source event 20,000 steps back.
        let count = 20_000
        var lines = [header, thread, source, sink, subscribe, subscribeSink, event(1, time: 0)]
        for seq in 2...count { lines.append(event(seq, time: Int64(seq), causes: [seq - 1])) }
        let result = try stats(lines)
        XCTAssertEqual(result.paths.count, 1)
        XCTAssertEqual(result.paths.first?.latency?.count, count)
        XCTAssertEqual(result.paths.first?.latency?.max, Int64(count))
    }

    // MARK: Ids

    func testStatsAndExportRejectUndefinedAndRepeatedIdsAsTraceDoes() {
        let cases: [(lines: [String], line: Int, message: String)] = [
            ([header, thread, subscribe], 3, "expected node 1 to be defined before it is used"),
            ([header, thread, source, source], 4, "expected a new node id, found node 1 again"),
            ([header, thread, source, subscribe, subscribe], 5, "expected a new subscription id, found subscription 1 again"),
            ([header, thread, thread], 3, "expected a new thread id, found thread 1 again"),
            ([header, thread, source, subscribe, event(1), event(1)], 6, "expected a new sequence number, found 1 again"),
            ([header, thread, source, event(1)], 4, "expected subscription 1 to be defined before it is used"),
            ([header, source, subscribe], 3, "expected thread 1 to be defined before it is used"),
            ([header, thread, sink], 3, "expected upstream node 1 to be defined before node 2"),
            ([header, thread, source, #"{"type":"label","node":7,"label":"x"}"#], 4, "expected node 7 to be defined before its label"),
            ([header, thread, source, subscribe, #"{"type":"dispose","sub":3,"time":5,"thread":1}"#], 5,
             "expected subscription 3 to be defined before it is used"),
        ]
        for (lines, line, message) in cases {
            let error = sameErrorFromEveryReader(lines)
            XCTAssertEqual(error?.line, line, message)
            XCTAssertEqual(error?.message, message)
        }
    }

    func testIdsInAnyOrderAreCheckedExactly() {
        var validator = TraceValidator()
        XCTAssertNil(validator.check(.thread(ThreadRecord(id: 1, name: "main"))))
        for id: UInt64 in [5, 6, 7, 2, 40, 3, 1, 41] {
            XCTAssertNil(validator.check(.node(NodeRecord(id: id, kind: .source, name: "n", file: "f", line: 1))), "\(id)")
        }
        for id: UInt64 in [1, 2, 3, 5, 6, 7, 40, 41] {
            XCTAssertEqual(validator.check(.node(NodeRecord(id: id, kind: .source, name: "n", file: "f", line: 1))),
                           "expected a new node id, found node \(id) again")
        }
        for id: UInt64 in [4, 8, 39, 42, .max] {
            XCTAssertEqual(validator.check(.label(LabelRecord(node: id, label: "x"))), "expected node \(id) to be defined before its label")
        }
    }

    // MARK: Messages

    func testAnErrorQuotesAtMost200CharactersOfALongValue() {
        let long = String(repeating: "x", count: 100_000)
        let line = #"{"type":"header","format":"\#(long)","version":"1.0","unit":"ns","clock":"virtual"}"#
        XCTAssertThrowsError(try TraceReader(bytes: bytes([line]), name: "t.trace")) { error in
            let message = (error as? TraceError)?.message ?? ""
            XCTAssertTrue(message.hasPrefix(#"expected format "marbles-trace", found "xxx"#), message)
            XCTAssertTrue(message.hasSuffix("x\u{2026}\""), message)
            XCTAssertLessThanOrEqual(message.count, 260)
        }
    }
}
