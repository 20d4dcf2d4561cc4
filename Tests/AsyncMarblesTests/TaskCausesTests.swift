import AsyncAlgorithms
@testable import AsyncMarbles
@testable import Demo
import Recording
import TraceLog
import XCTest

/// Causes through operators that pull their upstream from a task of their own (issue 30): a
/// tap right on a `debounce` names as causes what the debounce received since the tap's
/// previous element; `merge` names none (see `Received`).
final class TaskCausesTests: XCTestCase {
    private func texts(_ sequences: [UInt64], in trace: Trace) -> [String] {
        sequences.map { sequence in trace.events.first { $0.sequence == sequence }.map { $0.text ?? $0.kind.rawValue } ?? "?" }
    }

    func testADebouncedElementIsCausedByTheBurstItSettled() throws {
        let trace = try Trace(bytes: try recordAsyncSearch().bytes, name: "async-search")
        let settled = try XCTUnwrap(trace.nodes.first { $0.label == "settled" })
        let valid = try XCTUnwrap(trace.nodes.first { $0.label == "validSearchText" })
        let sent = trace.events(of: settled.id).filter { $0.kind != .pull }
        XCTAssertEqual(sent.map { $0.text ?? $0.kind.rawValue }, ["magi", "magic!", "completed"])
        // "mag" and "magi" came 180 ms apart, then 500 ms of quiet: "magi" passed, "mag" was
        // dropped for it; the last one received is the primary cause (written first).
        XCTAssertEqual(texts(sent[0].causes, in: trace), ["magi", "mag"])
        XCTAssertEqual(texts(sent[1].causes, in: trace), ["magic!", "magic"])
        for cause in sent[0].causes + sent[1].causes {
            XCTAssertEqual(trace.events.first { $0.sequence == cause }?.node, valid.id)
        }
        // The end is caused by the filter's end, received since "magic!".
        XCTAssertEqual(texts(sent[2].causes, in: trace), ["completed"])
    }

    func testAMergedElementNamesNoCauses() async throws {
        let recorder = Recorder(clock: .real)
        recorder.start()
        let left = [1, 2].async.marbles("left"), right = [10, 20].async.marbles("right")
        var seen: [Int] = []
        for await value in merge(left, right).marbles("merged") { seen.append(value) }
        try recorder.stop()
        XCTAssertEqual(seen.sorted(), [1, 2, 10, 20])
        let trace = try Trace(bytes: recorder.bytes, name: "merge")
        let merged = try XCTUnwrap(trace.nodes.first { $0.label == "merged" })
        XCTAssertEqual(merged.name, "merge")
        let values = trace.events(of: merged.id).filter { $0.kind == .value }
        XCTAssertEqual(values.count, 4)
        // What merge received since its previous element is not what made this one.
        XCTAssertEqual(values.flatMap(\.causes), [])
    }
}
