import AsyncAlgorithms
@testable import AsyncMarbles
import MarbleNotation
import Recording
import Signals
import TraceLog
import XCTest

/// Async pipelines in virtual time (issue 30): swift-async-algorithms' operators, whose own
/// tasks the driver runs, give the same line every run, without waiting. The test methods are
/// synchronous: the driver runs the pipeline's jobs on their thread.
final class VirtualTimeTests: XCTestCase {
    func testDebounceEmitsTheLastElementAfterAQuietPeriod() throws {
        let test = AsyncMarbleTest(frame: .milliseconds(100))
        let typed = try test.input("ab----c--|")
        let settled = typed.debounce(for: .milliseconds(200), clock: test.clock)
        XCTAssertEqual(try test.output(of: settled), "---b----c|")
    }

    func testTypedValuesAreNamedBySymbols() throws {
        let test = AsyncMarbleTest(frame: .milliseconds(10))
        let readings = try test.input("a-b-c|", values: ["a": 19.5, "b": 21.0, "c": 17.25])
        let heating = readings.map { $0 < 20 }
        XCTAssertEqual(try test.output(of: heating) { $0 ? "h" : "i" }, "h-i-h|")
    }

    func testCombineLatestOfTwoInputs() throws {
        let test = AsyncMarbleTest()
        let letters = try test.input("a---b---|")
        let digits = try test.input("--1---2---|", values: ["1": 1, "2": 2])
        let names: [String: String] = ["a1": "x", "b1": "y", "b2": "z"]
        let combined = combineLatest(letters, digits)
        XCTAssertEqual(try test.output(of: combined) { names["\($0)\($1)"] ?? "?" }, "--x-y-z---|")
    }

    func testAnyNumberOfInputsMerge() throws {
        let test = AsyncMarbleTest()
        let first = try test.input("a-----d|")
        let second = try test.input("-b--c|")
        let third = try test.input("---e----|")
        XCTAssertEqual(try test.output(of: merge(first, second, third)), "ab-ec-d-|")
    }

    func testAFailedInputFailsThePipeline() throws {
        let test = AsyncMarbleTest()
        let numbers = try test.input("1-2-#", values: ["1": 1, "2": 2])
        XCTAssertEqual(try test.output(of: numbers.map { $0 * 3 }) { "\($0)" }, "3-6-#")
    }

    func testAnOutputNeverFinishedEndsAtTheHorizon() throws {
        let test = AsyncMarbleTest()
        let ticks = AsyncTimerSequence(interval: .milliseconds(3), clock: test.clock)
        XCTAssertEqual(try test.output(of: ticks.prefix(100), frames: 10) { _ in "t" }, "---t--t--t")
    }

    func testAValueTheInputHasNoValueForIsALocatedError() {
        let test = AsyncMarbleTest()
        XCTAssertThrowsError(try test.input("a-b|", values: ["a": 1])) { error in
            XCTAssertEqual((error as? MarbleSyntaxError)?.column, 3)
        }
    }

    /// Two recordings of one pipeline of several tasks (merge's and debounce's own, the
    /// inputs') are the same bytes: the driver decides every job's turn.
    func testTwoRunsRecordTheSameBytes() throws {
        func recording() throws -> (line: String, bytes: [UInt8]) {
            let test = AsyncMarbleTest(frame: .milliseconds(10))
            let recorder = Recorder(clock: .virtual(test.driver.scheduler))
            recorder.start()
            let clicks = try test.input("a-b--c-----d-|").marbles("clicks")
            let keys = try test.input("-x---yz--|").marbles("keys")
            let settled = merge(clicks, keys).marbles("merged")
                .debounce(for: .milliseconds(20), clock: test.clock).marbles("settled")
            let line = try test.output(of: settled)
            try recorder.stop()
            return (line, recorder.bytes)
        }
        let first = try recording()
        let second = try recording()
        // Quiet for 2 frames after b (2) and after z (6); d (11) is due at 13, where the
        // inputs have both finished: d, then the end.
        XCTAssertEqual(first.line, "----b---z----(d|)")
        XCTAssertEqual(first.line, second.line)
        XCTAssertEqual(first.bytes, second.bytes)
        let trace = try Trace(bytes: first.bytes, name: "merged")
        let merged = try XCTUnwrap(trace.nodes.first { $0.label == "merged" })
        XCTAssertEqual(merged.name, "merge")
        XCTAssertEqual(trace.events.filter { $0.node == merged.id && $0.kind == .value }.map { $0.text ?? "" },
                       ["a", "x", "b", "c", "y", "z", "d"])
        // merge and debounce pull their upstream from tasks of their own, which inherit the
        // task-local pull they were started in, and each names causes by its rule
        // (`Received.Rule`): a merged element is caused by the one input element it passed on;
        // a debounced element by the burst it settled (what the debounce received since its
        // previous element), the last one received first (the primary cause): the element
        // passed, or for d the merge's end, which made the debounce pass d on at once.
        let settled = try XCTUnwrap(trace.nodes.first { $0.label == "settled" })
        let text = { (sequence: UInt64) in
            trace.events.first { $0.sequence == sequence }.map { $0.text ?? $0.kind.rawValue } ?? "?"
        }
        XCTAssertEqual(trace.events.filter { $0.node == merged.id && $0.kind == .value }.map { $0.causes.map(text) },
                       [["a"], ["x"], ["b"], ["c"], ["y"], ["z"], ["d"]])
        XCTAssertEqual(trace.events.filter { $0.node == settled.id && $0.kind == .value }.map { $0.causes.map(text) },
                       [["b", "a", "x"], ["z", "c", "y"], ["completed", "d"]])
    }

    func testARunWaitingOnNothingVirtualIsStuck() {
        let driver = VirtualTimeDriver()
        let (never, _) = AsyncStream<Int>.makeStream()
        XCTAssertThrowsError(try driver.run { for await _ in never {} }) { error in
            guard case .stuck = (error as? VirtualTimeError)?.reason else { return XCTFail("\(error)") }
        }
    }

    func testARunInsideATaskIsRefused() async {
        let driver = VirtualTimeDriver()
        XCTAssertThrowsError(try driver.run { 1 }) { error in
            XCTAssertEqual((error as? VirtualTimeError)?.reason, .insideTask)
        }
    }

    /// A task the body started and left sleeping is cancelled when the run winds down, and
    /// ends inside it.
    func testSleepsLeftWhenTheBodyReturnsAreCancelled() throws {
        let driver = VirtualTimeDriver()
        let clock = driver.clock
        let ended = Flag()
        try driver.run {
            Task {
                do {
                    try await clock.sleep(for: .seconds(3600))
                } catch {
                    ended.value = "\(type(of: error))"
                }
            }
            try await clock.sleep(for: .seconds(1))
        }
        XCTAssertEqual(ended.value, "CancellationError")
        XCTAssertEqual(driver.clock.now, VirtualClock.Instant(nanoseconds: 1_000_000_000))
    }

    func testACancelledSleepThrowsAtOnce() throws {
        let driver = VirtualTimeDriver()
        let clock = driver.clock
        let outcome = try driver.run {
            let sleeper = Task { try await clock.sleep(for: .seconds(10)) }
            try await clock.sleep(for: .seconds(2))
            sleeper.cancel()
            do {
                try await sleeper.value
                return "slept"
            } catch {
                return "\(type(of: error)) at \(clock.now)"
            }
        }
        XCTAssertEqual(outcome, "CancellationError at 2s")
    }

    private final class Flag: @unchecked Sendable {  // set and read on the driver's thread
        var value = ""
    }
}
