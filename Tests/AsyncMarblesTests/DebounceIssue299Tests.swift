import AsyncAlgorithms
import AsyncMarbles
import Diagrams
import Foundation
import Recording
import TraceLog
import XCTest

/// swift-async-algorithms issue #299: `debounce(for: .steps(3))` of `ab--cd-e-f---gh|` gave
/// `----b-------c--[dh|]` in its validation harness, where `------------f--[h|]` was expected.
/// Here the same input plays into swift-async-algorithms 1.1.4's own `debounce`, one frame a
/// millisecond, on a `VirtualTimeDriver`: every job in a decided order, time moved only when no
/// job is ready.
///
/// The figure (diagrams/async/debounce-issue-299.svg, drawn from traces/debounce-issue-299.trace,
/// both rewritten by `make figures`) shows why the output is what it is: each element starts a
/// new 3-frame quiet period; only f's (9 to 12) passes with nothing arriving, so f is sent at
/// 12; g and h come too close together, and the end at 15 sends the h still waiting, at once.
/// At frame 4, c arrives exactly as b's quiet period ends: the driver delivers the input
/// first (what is due at one instant runs in the order it was scheduled, and the input's
/// frames were scheduled before b's sleep began), so b is never sent. The report's `----b` is
/// what the other order at that tie would give (b's wake-up first); its `c` at 12 and `[dh|]`
/// at 15 are not reproduced by `debounce` on this driver. The figure draws no causal arrows;
/// the trace has them (each debounced element is caused by the burst it settled).
final class DebounceIssue299Tests: XCTestCase {
    private static let input = "ab--cd-e-f---gh|"

    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    private var committedTrace: URL { root.appendingPathComponent("traces/debounce-issue-299.trace") }
    private var committedFigure: URL { root.appendingPathComponent("diagrams/async/debounce-issue-299.svg") }
    private var committedPNG: URL { root.appendingPathComponent("diagrams/async/debounce-issue-299.png") }

    /// The issue's test, recorded: its input and the debounced output, each a tapped lane.
    private static func recording() throws -> (line: String, bytes: [UInt8]) {
        let test = AsyncMarbleTest()
        let recorder = Recorder(clock: .virtual(test.driver.scheduler))
        recorder.start()
        let typed = try test.input(input).marbles("input")
        let debounced = typed.debounce(for: .milliseconds(3), clock: test.clock).marbles("debounced")
        let line = try test.output(of: debounced)
        try recorder.stop()
        return (line, recorder.bytes)
    }

    func testTheIssuesInputDebouncesToTheExpectedLine() throws {
        XCTAssertEqual(try Self.recording().line, "------------f--(h|)")
    }

    /// The variant the issue says passes in the harness gives the same line here.
    func testTheIssuesPassingVariantGivesTheSameLine() throws {
        let test = AsyncMarbleTest()
        let typed = try test.input("ab-c-d-e-f---gh|")
        XCTAssertEqual(try test.output(of: typed.debounce(for: .milliseconds(3), clock: test.clock)), "------------f--(h|)")
    }

    /// swift-async-algorithms' own debounce expectations (TestDebounce) hold on this driver.
    func testSwiftAsyncAlgorithmsOwnDebounceLinesHold() throws {
        for (input, expected) in [("abcd----e---f-g----|", "------d----e-----g-|"),
                                  ("abcd----e---f-g-|", "------d----e----(g|)")] {
            let test = AsyncMarbleTest()
            let typed = try test.input(input)
            XCTAssertEqual(try test.output(of: typed.debounce(for: .milliseconds(3), clock: test.clock)), expected, input)
        }
    }

    /// The committed trace is what the test records, byte for byte, every run; the committed
    /// figures are what Marbles draws from it (MARBLES_RECORD=1 rewrites all three, as
    /// `make figures` does).
    func testTheFigureIsDrawnFromARealRun() throws {
        let bytes = try Self.recording().bytes
        XCTAssertEqual(bytes, try Self.recording().bytes, "byte-identical run to run")
        let trace = try Trace(bytes: bytes, name: "traces/debounce-issue-299.trace")
        let figure = try MarbleFigure(trace: trace, options: MarbleOptions(
            title: "swift-async-algorithms #299: \(Self.input) debounced for 3 frames"))
        let svg = try MarbleRenderer.render(figure, format: .svg)
        let png = try MarbleRenderer.render(figure, format: .png)
        if ProcessInfo.processInfo.environment["MARBLES_RECORD"] == "1" {
            try FileManager.default.createDirectory(at: committedFigure.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            try Data(bytes).write(to: committedTrace)
            try svg.write(to: committedFigure)
            try png.write(to: committedPNG)
        }
        XCTAssertEqual(try [UInt8](Data(contentsOf: committedTrace)), bytes,
                       "\(committedTrace.path) is not what the test records; run `make figures`")
        XCTAssertEqual(try Data(contentsOf: committedFigure), svg,
                       "\(committedFigure.path) is not what Marbles draws from the trace; run `make figures`")
        XCTAssertEqual(try Data(contentsOf: committedPNG), png,
                       "\(committedPNG.path) is not what Marbles draws from the trace; run `make figures`")
    }
}
