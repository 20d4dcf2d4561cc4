import AsyncAlgorithms
import AsyncMarbles
import Recording
import Replay
import Signals
import TraceLog
import XCTest

/// An async pipeline's boundaries (inputs, calls, clock) recorded live and served back by a
/// replay (issue 30): the live run is made under a `VirtualTimeDriver`, so that it is itself
/// deterministic, and its replay must agree with it event for event.
final class AsyncEnvironmentTests: XCTestCase {
    private struct Refused: Error, Codable, CustomStringConvertible {
        var code: Int
        var description: String { "Refused(\(code))" }
    }

    /// A search box: typed text, settled for 300 ms, searched (the service takes 40 ms a
    /// character and refuses "err"), each answer or failure shown.
    private static func searches(in environment: some AsyncEnvironment, settling: Duration = .milliseconds(300),
                                 service: @escaping @Sendable (String) async throws -> [String])
        -> some AsyncSequence<String, Never> {
        environment.input("query", of: String.self).marbles("typed")
            .debounce(for: settling, clock: environment.clock).marbles("settled")
            .map { query -> String in
                do {
                    let hits = try await environment.call("search", request: query) { try await service(query) }
                    return hits.joined(separator: ",")
                } catch {
                    return "failed: \(error)"
                }
            }
            .marbles("shown")
    }

    private static func service(_ clock: EnvironmentClock) -> @Sendable (String) async throws -> [String] {
        { query in
            try await clock.sleep(for: .milliseconds(40 * query.count))
            if query == "err" { throw Refused(code: 503) }
            return [query.uppercased(), query + "!"]
        }
    }

    /// What the user types, and when (milliseconds from the start).
    private static let typing: [(at: Int, text: String)] = [
        (0, "s"), (100, "sw"), (200, "swi"), (700, "swift"), (1_500, "er"), (1_600, "err"), (2_400, "go"),
    ]

    private final class Shown: @unchecked Sendable {  // touched only by the driver's thread
        var lines: [String] = []
    }

    /// Records the search box live, under a driver: a script types, the real (simulated)
    /// service answers.
    private func recordLive(thread: String = "tasks") throws -> (shown: [String], bytes: [UInt8]) {
        let driver = VirtualTimeDriver(name: thread)
        let recorder = Recorder(clock: .virtual(driver.scheduler))
        recorder.start()
        let live = LiveAsyncEnvironment(clock: driver.clock)
        let shown = Shown()
        let pipeline = Self.searches(in: live, service: Self.service(live.clock))
        try driver.run {
            let clock = live.clock
            Task {
                for keystroke in Self.typing {
                    try await clock.sleep(until: .init(offset: .milliseconds(keystroke.at)))
                    try live.send(keystroke.text, to: "query")
                }
                try await clock.sleep(for: .seconds(1))
                live.finishInputs()
            }
            for await line in pipeline { shown.lines.append(line) }
        }
        try recorder.stop()
        return (shown.lines, recorder.bytes)
    }

    /// Replays `bytes` under a new driver: the recorded typing and answers, the service unused.
    private func replay(_ bytes: [UInt8], settling: Duration = .milliseconds(300)) throws
        -> (shown: [String], bytes: [UInt8], errors: [ReplayError]) {
        let driver = VirtualTimeDriver()
        let replay = ReplayAsyncEnvironment(trace: try Trace(bytes: bytes, name: "live"), driver: driver, name: "live")
        let recorder = Recorder(clock: .virtual(driver.scheduler))
        recorder.start()
        let shown = Shown()
        let pipeline = Self.searches(in: replay, settling: settling) { _ in
            XCTFail("a replay does not call the service")
            return []
        }
        try driver.run {
            for await line in pipeline { shown.lines.append(line) }
        }
        try recorder.stop()
        return (shown.lines, recorder.bytes, replay.errors)
    }

    /// A call made in a `map` hangs from the tap that pulls the map (its subscription's parent),
    /// so the pipeline figure draws it into that operator, as a `Signals` call into its `flatMap`.
    func testACallMadeWhileATapPullsIsAChildOfThatTapsSubscription() throws {
        let trace = try Trace(bytes: try recordLive().bytes, name: "live")
        let shown = try XCTUnwrap(trace.nodes.first { $0.label == "shown" })
        let search = try XCTUnwrap(trace.nodes.first { $0.name == "call" })
        let shownSubscriptions = Set(trace.subscriptions.filter { $0.node == shown.id }.map(\.id))
        let calls = trace.subscriptions.filter { $0.node == search.id }
        XCTAssertEqual(calls.count, 4)  // swi, swift, err, go: what settled
        for call in calls { XCTAssertTrue(shownSubscriptions.contains(call.parent), "\(call)") }
    }

    func testAReplayAgreesWithItsLiveRecording() throws {
        let live = try recordLive()
        XCTAssertEqual(live.shown, ["SWI,swi!", "SWIFT,swift!", "failed: Refused(503)", "GO,go!"])
        let replayed = try replay(live.bytes)
        XCTAssertEqual(replayed.errors, [])
        XCTAssertEqual(replayed.shown, live.shown)
        let diff = TraceDiff(try Trace(bytes: live.bytes, name: "live"), try Trace(bytes: replayed.bytes, name: "replay"),
                             nameA: "live", nameB: "replay")
        XCTAssertTrue(diff.isSame, diff.text)
    }

    /// The same recording replayed into a pipeline that settles for 500 ms instead of 300: the
    /// diff's one root cause is the debounce's changed interval (its node's parameters, read
    /// from the operator's sequence), which explains the settled stream's missing "swi" and
    /// the search never made, a call only in the live run.
    func testAReplayWithAChangedParameterDiffersFromTheRecording() throws {
        let live = try recordLive()
        let replayed = try replay(live.bytes, settling: .milliseconds(500))
        XCTAssertEqual(replayed.errors, [])
        // "swi" is not settled 500 ms after it was typed ("swift" came at 700 ms): never searched.
        XCTAssertEqual(replayed.shown, ["SWIFT,swift!", "failed: Refused(503)", "GO,go!"])
        let diff = TraceDiff(try Trace(bytes: live.bytes, name: "live"), try Trace(bytes: replayed.bytes, name: "replay"),
                             nameA: "live", nameB: "replay")
        XCTAssertFalse(diff.isSame)
        let first = try XCTUnwrap(diff.firstDivergence)
        XCTAssertEqual(first.kind, .nodeChanged)
        XCTAssertTrue(first.node.contains("settled"), diff.text)
        XCTAssertEqual(first.nodeA?.parameters, "interval: 0.3s")
        XCTAssertEqual(first.nodeB?.parameters, "interval: 0.5s")
        XCTAssertEqual(diff.rootCauses.map(\.kind), [.nodeChanged], diff.text)
        XCTAssertTrue(diff.differences.contains { $0.kind == .missingInB && $0.node.contains("settled") && $0.a?.value == "\"swi\"" },
                      diff.text)
        XCTAssertTrue(diff.differences.contains { $0.kind == .callOnlyInA && $0.requestA == "\"swi\"" }, diff.text)
    }

    /// A replay's jobs show on the thread the recording's tasks ran on (live, the global
    /// concurrent executor's queue), not on its own driver's: the threads agree too.
    func testAReplaysWorkShowsOnTheRecordingsThread() throws {
        let live = try recordLive(thread: "Swift global concurrent queue")
        let replayed = try replay(live.bytes)
        let trace = try Trace(bytes: replayed.bytes, name: "replay")
        XCTAssertEqual(Set(trace.events.compactMap { trace.thread($0.thread)?.name }), ["Swift global concurrent queue"])
        let diff = TraceDiff(try Trace(bytes: live.bytes, name: "live"), trace, nameA: "live", nameB: "replay")
        XCTAssertTrue(diff.isSame, diff.text)
    }

    func testTwoReplaysAreTheSameBytes() throws {
        let live = try recordLive()
        let first = try replay(live.bytes)
        let second = try replay(live.bytes)
        XCTAssertEqual(first.bytes, second.bytes)
        XCTAssertFalse(first.bytes.isEmpty)
    }

    func testTheRecordingHoldsTheBoundaries() throws {
        let trace = try Trace(bytes: try recordLive().bytes, name: "live")
        let query = try XCTUnwrap(trace.nodes.first { $0.name == "input" && $0.label == "query" })
        XCTAssertEqual(trace.events(of: query.id).map { $0.text ?? "" }, Self.typing.map(\.text) + [""])
        XCTAssertEqual(trace.events(of: query.id).last?.kind, .completed)
        let search = try XCTUnwrap(trace.nodes.first { $0.name == "call" && $0.label == "search" })
        XCTAssertEqual(trace.subscriptions.filter { $0.node == search.id }.map { $0.request ?? "" },
                       ["\"swi\"", "\"swift\"", "\"err\"", "\"go\""])
        XCTAssertEqual(trace.events(of: search.id).filter { $0.kind == .failed }.map { $0.text ?? "" }, ["Refused(503)"])
        // The tap on the input links to the input node, and its elements are caused by its events.
        let typed = try XCTUnwrap(trace.nodes.first { $0.label == "typed" })
        XCTAssertEqual(typed.upstream.map(\.node), [query.id])
        XCTAssertEqual(typed.name, "marbles")
        let firstTyped = try XCTUnwrap(trace.events(of: typed.id).first { $0.kind == .value })
        XCTAssertEqual(firstTyped.causes, [trace.events(of: query.id)[0].sequence])
    }

    func testARequestTheTraceNeverRecordedIsAReplayError() throws {
        let live = try recordLive()
        let driver = VirtualTimeDriver()
        let replay = ReplayAsyncEnvironment(trace: try Trace(bytes: live.bytes, name: "live"), driver: driver, name: "live")
        let shouted = replay.input("query", of: String.self).map { $0.uppercased() }
        let answers = try driver.run {
            var answers: [String] = []
            for await query in shouted {
                do {
                    let hits: [String] = try await replay.call("search", request: query) { [] }
                    answers.append(hits.joined())
                } catch let error as ReplayError {
                    answers.append(error.kind.rawValue)
                }
            }
            return answers
        }
        XCTAssertEqual(answers, Array(repeating: "unrecordedRequest", count: Self.typing.count))
        XCTAssertEqual(replay.errors.first?.kind, .unrecordedRequest)
        XCTAssertEqual(replay.errors.first?.request, "\"S\"")
    }

    func testAnInputTheTraceLacksIsAReplayError() throws {
        let live = try recordLive()
        let driver = VirtualTimeDriver()
        let replay = ReplayAsyncEnvironment(trace: try Trace(bytes: live.bytes, name: "live"), driver: driver, name: "live")
        _ = replay.input("qeury", of: String.self)
        XCTAssertEqual(replay.errors.map(\.kind), [.missingInput])
        XCTAssertTrue(replay.errors[0].message.contains("\"query\""), replay.errors[0].message)
    }

    func testALiveSendIsRefusedWithAReason() throws {
        let live = LiveAsyncEnvironment()
        _ = live.input("count", of: Int.self)
        XCTAssertThrowsError(try live.send(1, to: "cuont")) { error in
            XCTAssertEqual((error as? InputError)?.reason, .unknownLabel(inputs: ["count"]))
        }
        XCTAssertThrowsError(try live.send("one", to: "count")) { error in
            XCTAssertEqual((error as? InputError)?.reason, .wrongType(expected: "Int", sent: "String"))
        }
        try live.finish("count")
        XCTAssertThrowsError(try live.send(2, to: "count")) { error in
            XCTAssertEqual((error as? InputError)?.reason, .completed)
        }
    }

    /// On the real clock: what was sent is recorded (the times are real, so not looked at).
    func testALiveRunOnTheRealClockRecordsItsInputs() async throws {
        let recorder = Recorder(clock: .real)
        recorder.start()
        let live = LiveAsyncEnvironment()
        let doubled = live.input("count", of: Int.self).map { $0 * 2 }.marbles("doubled")
        for count in 1...3 { try live.send(count, to: "count") }
        live.finishInputs()
        var seen: [Int] = []
        for await value in doubled { seen.append(value) }
        try recorder.stop()
        XCTAssertEqual(seen, [2, 4, 6])
        let trace = try Trace(bytes: recorder.bytes, name: "real")
        let count = try XCTUnwrap(trace.nodes.first { $0.name == "input" && $0.label == "count" })
        XCTAssertEqual(trace.events(of: count.id).map(\.kind), [.value, .value, .value, .completed])
    }
}
