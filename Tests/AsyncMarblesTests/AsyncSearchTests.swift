import AsyncAlgorithms
import AsyncMarbles
@testable import Demo
import Diagrams
import Foundation
import Replay
import TraceLog
import XCTest

// The sixth demo scenario (issue 30), whose code is Sources/Demo/AsyncSearch.swift: the fake
// search engine of the TwitterInstant tutorial written with AsyncSequence, recorded under a
// `VirtualTimeDriver`, replayed from that recording, and drawn.
//
// The DocC guide "Recording an async pipeline"
// (Sources/AsyncMarbles/AsyncMarbles.docc/RecordingAnAsyncPipeline.md) shows its code: each
// block between `// BEGIN GUIDE n` and `// END GUIDE n`, in AsyncSearch.swift (1 to 3) and
// here (4), is one of the guide's Swift blocks, line for line
// (`testTheGuideShowsTheseBlocksLineForLine`).
//
// traces/async-search.trace and the guide's copies of its figures are written by `make
// figures` (MARBLES_RECORD=1) and checked byte for byte otherwise
// (`testTheFiguresAreDrawnFromARealRun`); the demo's figures (diagrams/async-search-*) are
// drawn from its replay by `marbles demo` and checked by DemoTests' GoldenTests.

final class AsyncSearchTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    private static let guide = root.appendingPathComponent("Sources/AsyncMarbles/AsyncMarbles.docc")
    private static let title = AsyncSearchScenario.title

    /// "magi" is searched; "magic!" settles while that search is in flight, which is
    /// cancelled: only "magic!"'s result is shown.
    func testOnlyTheLatestSearchIsShown() throws {
        let live = try recordAsyncSearch()
        XCTAssertEqual(live.shown, ["4 tweets \"magic!\""])
        let trace = try Trace(bytes: live.bytes, name: "live")
        let search = try XCTUnwrap(trace.nodes.first { $0.name == "call" && $0.label == "search" })
        let calls = trace.subscriptions.filter { $0.node == search.id }
        XCTAssertEqual(calls.map { $0.request ?? "" }, ["\"magi\"", "\"magic!\""])
        XCTAssertEqual(trace.events.filter { $0.subscription == calls[0].id }.map(\.kind), [.interrupted])
        XCTAssertEqual(trace.events.filter { $0.subscription == calls[1].id }.map(\.kind), [.value, .completed])
        let settled = try XCTUnwrap(trace.nodes.first { $0.label == "settled" })
        XCTAssertEqual(settled.name, "debounce")
        XCTAssertEqual(trace.events(of: settled.id).compactMap(\.text), ["magi", "magic!"])
    }

    func testTheReplayAgreesWithTheLiveRecording() throws {
        let live = try recordAsyncSearch()
        let replayed = try replayAsyncSearch(live.bytes)
        XCTAssertEqual(replayed.errors, [])
        XCTAssertEqual(replayed.shown, live.shown)
        let diff = TraceDiff(try Trace(bytes: live.bytes, name: "live"), try Trace(bytes: replayed.bytes, name: "replay"),
                             nameA: "live", nameB: "replay")
        XCTAssertTrue(diff.isSame, diff.text)
    }

    func testTwoReplaysAreTheSameBytes() throws {
        let live = try recordAsyncSearch()
        let first = try replayAsyncSearch(live.bytes)
        let second = try replayAsyncSearch(live.bytes)
        XCTAssertFalse(first.bytes.isEmpty)
        XCTAssertEqual(first.bytes, second.bytes)
    }

    /// The guide's marble test (block 4): the search box's filter and debounce, in lines.
    func testTheSearchBoxsTimingInMarbleLines() throws {
// BEGIN GUIDE 4
let test = AsyncMarbleTest(frame: .milliseconds(100))
let typed = try test.input("--a-b-c-d-------e-f-----------|",
                           values: ["a": "m", "b": "ma", "c": "mag", "d": "magi", "e": "magic", "f": "magic!"])
let settled = typed.filter { $0.count >= 3 }.debounce(for: .milliseconds(500), clock: test.clock)
XCTAssertEqual(try test.output(of: settled) { $0 == "magi" ? "d" : "f" },
               "-------------d---------f------|")
// END GUIDE 4
    }

    /// The committed trace is what the scenario records, byte for byte, every run; the
    /// committed figures (and the guide's copies of the SVGs) are what Marbles draws from it.
    /// MARBLES_RECORD=1 (`make figures`) rewrites them.
    func testTheFiguresAreDrawnFromARealRun() throws {
        let bytes = try recordAsyncSearch().bytes
        XCTAssertEqual(bytes, try recordAsyncSearch().bytes, "byte-identical run to run")
        let trace = try Trace(bytes: bytes, name: "traces/async-search.trace")
        let marbles = try MarbleFigure(trace: trace, options: MarbleOptions(title: Self.title))
        let pipeline = PipelineGraph(trace: trace, title: Self.title)
        let files: [(path: String, bytes: Data)] = [
            ("traces/async-search.trace", Data(bytes)),
            ("Sources/AsyncMarbles/AsyncMarbles.docc/Resources/async-search-marbles.svg",
             try MarbleRenderer.render(marbles, format: .svg)),
            ("Sources/AsyncMarbles/AsyncMarbles.docc/Resources/async-search-pipeline.svg",
             try PipelineRenderer.render(pipeline, format: .svg)),
            ("Sources/AsyncMarbles/AsyncMarbles.docc/Resources/debounce-issue-299.svg",
             try Data(contentsOf: Self.root.appendingPathComponent("diagrams/async/debounce-issue-299.svg"))),
        ]
        let record = ProcessInfo.processInfo.environment["MARBLES_RECORD"] == "1"
        for file in files {
            let url = Self.root.appendingPathComponent(file.path)
            if record {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try file.bytes.write(to: url)
            }
            XCTAssertEqual(try? Data(contentsOf: url), file.bytes, "\(file.path) is not what the test makes; run `make figures`")
        }
    }

    /// Every Swift block of the guide is one of this file's guide blocks, line for line.
    func testTheGuideShowsTheseBlocksLineForLine() throws {
        let source = try String(contentsOf: Self.root.appendingPathComponent("Sources/Demo/AsyncSearch.swift"), encoding: .utf8)
            + "\n" + String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let page = try String(contentsOf: Self.guide.appendingPathComponent("RecordingAnAsyncPipeline.md"), encoding: .utf8)
        let shown = Self.swiftBlocks(in: page)
        XCTAssertEqual(shown.count, 4, "the guide shows four Swift blocks")
        for number in 1...4 {
            let compiled = Self.guideBlock(number, in: source)
            XCTAssertFalse(compiled.isEmpty, "no guide block \(number) in this file")
            XCTAssertTrue(shown.contains(compiled), "the guide's Swift block \(number) is not what AsyncSearch.swift or AsyncSearchTests.swift "
                + "compiles; change both together:\n\(compiled.joined(separator: "\n"))")
        }
    }

    /// The lines between `// BEGIN GUIDE n` and `// END GUIDE n`.
    private static func guideBlock(_ number: Int, in source: String) -> [String] {
        let lines = source.components(separatedBy: "\n")
        guard let begin = lines.firstIndex(of: "// BEGIN GUIDE \(number)"),
              let end = lines[begin...].firstIndex(of: "// END GUIDE \(number)") else { return [] }
        return Array(lines[(begin + 1)..<end])
    }

    /// The lines of each ```swift block of a page.
    private static func swiftBlocks(in page: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in page.components(separatedBy: "\n") {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!)
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }
}
