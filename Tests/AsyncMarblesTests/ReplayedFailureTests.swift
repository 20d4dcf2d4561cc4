import AsyncMarbles
import Recording
import Replay
import TraceLog
import XCTest

/// A call's failure replayed is recorded as the live run recorded it, whatever the error's
/// type: a replay cannot make the error again (`ReplayedCallFailure` stands in for it), and
/// its `json` must not appear where the live error had none. Found in a user's package: a
/// search service throwing a plain `struct Flaky: Error {}` replayed with one difference per
/// failure, `failed Flaky() in A, failed "Flaky()" in B`.
final class ReplayedFailureTests: XCTestCase {
    /// Not `Encodable`: the live trace has its text only.
    private struct Flaky: Error {}
    /// `Encodable`, but its encoding throws: the live trace has its text and `jsonError`.
    private struct Unencodable: Error, Encodable {
        struct Refused: Error {}
        func encode(to encoder: any Encoder) throws { throw Refused() }
    }
    /// `Encodable`: the live trace has its JSON.
    private struct Refused: Error, Codable {
        var code: Int
    }

    private static func pipeline(in environment: some AsyncEnvironment,
                                 failure: @escaping @Sendable (Int) -> any Error) -> some AsyncSequence<String, Never> {
        environment.input("query", of: Int.self).marbles("queries")
            .map { query -> String in
                do {
                    let answer: Int = try await environment.call("lookup", request: query) {
                        try await environment.clock.sleep(for: .milliseconds(10))
                        if query % 2 == 1 { throw failure(query) }
                        return query * 10
                    }
                    return "\(answer)"
                } catch {
                    return "failed"
                }
            }
            .marbles("shown")
    }

    private final class Lines: @unchecked Sendable {  // touched only by the driver's thread
        var lines: [String] = []
    }

    private func record(failure: @escaping @Sendable (Int) -> any Error) throws -> [UInt8] {
        let driver = VirtualTimeDriver()
        let recorder = Recorder(clock: .virtual(driver.scheduler))
        recorder.start()
        let live = LiveAsyncEnvironment(clock: driver.clock)
        let shown = Lines()
        let results = Self.pipeline(in: live, failure: failure)
        try driver.run {
            Task {
                for query in 1...4 {
                    try await live.clock.sleep(until: .init(offset: .milliseconds(100 * query)))
                    try live.send(query, to: "query")
                }
                live.finishInputs()
            }
            for await line in results { shown.lines.append(line) }
        }
        try recorder.stop()
        XCTAssertEqual(shown.lines, ["failed", "20", "failed", "40"])
        return recorder.bytes
    }

    private func replay(_ bytes: [UInt8]) throws -> [UInt8] {
        let driver = VirtualTimeDriver()
        let replay = ReplayAsyncEnvironment(trace: try Trace(bytes: bytes, name: "live"), driver: driver, name: "live")
        let recorder = Recorder(clock: .virtual(driver.scheduler))
        recorder.start()
        let shown = Lines()
        let results = Self.pipeline(in: replay) { _ in
            XCTFail("a replay does not call the service")
            return Flaky()
        }
        try driver.run {
            for await line in results { shown.lines.append(line) }
        }
        try recorder.stop()
        XCTAssertEqual(replay.errors, [])
        XCTAssertEqual(shown.lines, ["failed", "20", "failed", "40"])
        return recorder.bytes
    }

    /// The failure events of the call, as the trace has them.
    private func failures(_ bytes: [UInt8]) throws -> [EventRecord] {
        let trace = try Trace(bytes: bytes, name: "trace")
        let call = try XCTUnwrap(trace.nodes.first { $0.name == "call" })
        return trace.events.filter { $0.node == call.id && $0.kind == .failed }
    }

    private func assertReplayedAsRecorded(_ failure: @escaping @Sendable (Int) -> any Error,
                                          file: StaticString = #filePath, line: UInt = #line) throws {
        let live = try record(failure: failure)
        let replayed = try replay(live)
        let diff = TraceDiff(try Trace(bytes: live, name: "live"), try Trace(bytes: replayed, name: "replay"),
                             nameA: "live", nameB: "replay")
        XCTAssertTrue(diff.isSame, diff.text, file: file, line: line)
        let (a, b) = (try failures(live), try failures(replayed))
        XCTAssertEqual(a.count, 2, file: file, line: line)
        XCTAssertEqual(a.map(\.text), b.map(\.text), file: file, line: line)
        XCTAssertEqual(a.map(\.json), b.map(\.json), file: file, line: line)
        XCTAssertEqual(a.map(\.jsonError), b.map(\.jsonError), file: file, line: line)
    }

    func testAFailureThatIsNotEncodableIsReplayedWithoutJSON() throws {
        try assertReplayedAsRecorded { _ in Flaky() }
        let live = try failures(try record { _ in Flaky() })
        XCTAssertEqual(live.map(\.json), [nil, nil])
    }

    func testAFailureWhoseEncodingThrowsIsReplayedWithItsJSONError() throws {
        try assertReplayedAsRecorded { _ in Unencodable() }
        let live = try failures(try record { _ in Unencodable() })
        XCTAssertTrue(live.allSatisfy { $0.jsonError != nil && $0.json == nil }, "\(live)")
    }

    func testAnEncodableFailureIsReplayedWithItsJSON() throws {
        try assertReplayedAsRecorded { Refused(code: $0) }
        let live = try failures(try record { Refused(code: $0) })
        XCTAssertEqual(live.map(\.json), ["{\"code\":1}", "{\"code\":3}"])
    }
}
