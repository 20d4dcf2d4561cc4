import AsyncAlgorithms
import AsyncMarbles
import Recording
import Replay
import Signals
import TraceLog
import XCTest

/// Timers across an async pipeline's boundary (issue 30, and issue 27's "timers are
/// comparable"): recorded as `timer` nodes with their interval, replayed from the recorded
/// ticks, simulated at a changed interval.
final class EnvironmentTimerTests: XCTestCase {
    private final class Lines: @unchecked Sendable {  // touched only by the driver's thread
        var lines: [String] = []
    }

    /// Two sensors, combined: a fast one (every `fast` ms, 6 ticks) and a slow one (every
    /// 17 ms, 3 ticks), each tick its instant in milliseconds.
    private static func sensors(in environment: some AsyncEnvironment, fast: Int = 7,
                                fastTicks: Int = 6) -> some AsyncSequence<String, Never> {
        let a = environment.timer("fast", every: .milliseconds(fast)).prefix(fastTicks).marbles("fast ticks")
        let b = environment.timer("slow", every: .milliseconds(17)).prefix(3).marbles("slow ticks")
        return combineLatest(a, b).map { "\($0.offset.components.seconds * 1000 + $0.offset.components.attoseconds / 1_000_000_000_000_000)+\($1.offset.components.attoseconds / 1_000_000_000_000_000)" }
            .marbles("pairs")
    }

    /// Runs the sensors live under a driver, recorded.
    private func recordLive() throws -> (lines: [String], bytes: [UInt8]) {
        let driver = VirtualTimeDriver()
        let recorder = Recorder(clock: .virtual(driver.scheduler))
        recorder.start()
        let live = LiveAsyncEnvironment(clock: driver.clock)
        let lines = Lines()
        let pipeline = Self.sensors(in: live)
        try driver.run {
            for await line in pipeline { lines.lines.append(line) }
        }
        try recorder.stop()
        return (lines.lines, recorder.bytes)
    }

    private func replay(_ bytes: [UInt8], fast: Int = 7,
                        fastTicks: Int = 6) throws -> (lines: [String], bytes: [UInt8], errors: [ReplayError]) {
        let driver = VirtualTimeDriver()
        let replay = ReplayAsyncEnvironment(trace: try Trace(bytes: bytes, name: "live"), driver: driver, name: "live")
        let recorder = Recorder(clock: .virtual(driver.scheduler))
        recorder.start()
        let lines = Lines()
        let pipeline = Self.sensors(in: replay, fast: fast, fastTicks: fastTicks)
        try driver.run {
            for await line in pipeline { lines.lines.append(line) }
        }
        try recorder.stop()
        return (lines.lines, recorder.bytes, replay.errors)
    }

    func testATimersIntervalIsAParameterOfItsNodeAndEachTickItsInstant() throws {
        let live = try recordLive()
        let trace = try Trace(bytes: live.bytes, name: "live")
        let timers = trace.nodes.filter { $0.name == "timer" }
        XCTAssertEqual(timers.map(\.parameters), ["fast, after: 0.007s, every: 0.007s", "slow, after: 0.017s, every: 0.017s"])
        let fast = trace.events(of: timers[0].id)
        XCTAssertEqual(fast.map(\.json), ["7000000", "14000000", "21000000", "28000000", "35000000", "42000000"])
        XCTAssertEqual(fast.map(\.time), [7, 14, 21, 28, 35, 42].map { Int64($0) * 1_000_000 })
        // The taps downstream are linked to the timers, their elements caused by the ticks.
        let tap = try XCTUnwrap(trace.nodes.first { $0.label == "fast ticks" })
        XCTAssertEqual(tap.upstream.map(\.node), [timers[0].id])
        XCTAssertEqual(live.lines.first, "14+17")
    }

    /// A live recording's ticks came late; the replay re-sends them as recorded (times and
    /// instants), so it agrees, where ticks made again at the interval would not.
    func testAReplaySendsTheRecordedTicksAndAgreesWithTheLiveRun() throws {
        let live = try recordLive()
        // Live, every tick of "fast" came 1.5 ms late, and so did what it caused (at the
        // same instants: a cascade takes no virtual time); its instants stay the clock's.
        var text = String(decoding: live.bytes, as: UTF8.self)
        let trace = try Trace(bytes: live.bytes, name: "live")
        let fast = try XCTUnwrap(trace.nodes.first { $0.parameters.hasPrefix("fast") })
        let late = Set(trace.events(of: fast.id).map(\.time))
        for event in trace.events where late.contains(event.time) {
            text = text.replacingOccurrences(of: #""seq":\#(event.sequence),"time":\#(event.time),"#,
                                             with: #""seq":\#(event.sequence),"time":\#(event.time + 1_500_000),"#)
        }
        let edited = Array(text.utf8)
        let replayed = try replay(edited)
        XCTAssertEqual(replayed.errors, [])
        let diff = TraceDiff(try Trace(bytes: edited, name: "live"), try Trace(bytes: replayed.bytes, name: "replay"),
                             nameA: "live", nameB: "replay")
        XCTAssertTrue(diff.isSame, diff.text)
        XCTAssertEqual(try replay(edited).bytes, replayed.bytes, "two replays differ")
    }

    /// Code that asks for another interval gets ticks at it in virtual time, and the diff's
    /// root cause is the timer's changed node.
    func testAReplayWithAnotherIntervalTicksAtItAndTheDiffNamesTheChangedTimer() throws {
        let live = try recordLive()
        let replayed = try replay(live.bytes, fast: 5)
        XCTAssertEqual(replayed.errors, [])
        XCTAssertNotEqual(replayed.lines, live.lines)
        let diff = TraceDiff(try Trace(bytes: live.bytes, name: "live"), try Trace(bytes: replayed.bytes, name: "replay"),
                             nameA: "live", nameB: "replay")
        XCTAssertEqual(diff.rootCauses.first?.kind, .nodeChanged, diff.text)
        XCTAssertTrue(diff.text.contains("parameters (fast, after: 0.007s, every: 0.007s) in A, (fast, after: 0.005s, every: 0.005s) in B"),
                      diff.text)
    }

    /// Code that takes more ticks than the live run did gets them after the recorded ones, at
    /// the timer's interval, in virtual time.
    func testPastTheRecordedTicksTheTimerTicksOnAtItsInterval() throws {
        let replayed = try replay(try recordLive().bytes, fastTicks: 8)
        XCTAssertEqual(replayed.errors, [])
        let trace = try Trace(bytes: replayed.bytes, name: "replay")
        let fast = try XCTUnwrap(trace.nodes.first { $0.parameters.hasPrefix("fast") })
        XCTAssertEqual(trace.events(of: fast.id).map(\.time), [7, 14, 21, 28, 35, 42, 49, 56].map { Int64($0) * 1_000_000 })
    }

    /// A timer the trace lacks is a replay error, and ticks at its interval meanwhile.
    func testATimerTheTraceLacksIsAReplayError() throws {
        let driver = VirtualTimeDriver()
        let replay = ReplayAsyncEnvironment(trace: try Trace(bytes: try recordLive().bytes, name: "live"), driver: driver)
        let ticks = replay.timer("medium", every: .milliseconds(10)).prefix(2)
        let instants = try driver.run { () async -> [String] in
            var instants: [String] = []
            for await instant in ticks { instants.append("\(instant)") }
            return instants
        }
        XCTAssertEqual(replay.errors.map(\.kind), [.missingTimer])
        XCTAssertEqual(instants, ["0.01 seconds", "0.02 seconds"])
    }
}
