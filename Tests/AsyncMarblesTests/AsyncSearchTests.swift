import Diagrams
import Foundation
import XCTest

// The sixth demo scenario (issue 30): the fake search engine of the TwitterInstant tutorial,
// written as a Swift developer writes it today, with AsyncSequence and swift-async-algorithms,
// next to its `Signals` version (Sources/Tutorials/TwitterInstant.swift). It is recorded live
// under a `VirtualTimeDriver` (the typing at the Signals script's planned times, a seeded
// fake service sleeping on the environment's clock), replayed from that recording, and drawn.
//
// It is also the code of the DocC guide "Recording an async pipeline"
// (Sources/AsyncMarbles/AsyncMarbles.docc/RecordingAnAsyncPipeline.md): each block between
// `// BEGIN GUIDE n` and `// END GUIDE n` is one of the guide's Swift blocks, line for line
// (`testTheGuideShowsTheseBlocksLineForLine`).
//
// traces/async-search.trace and its figures (diagrams/async/async-search-{marbles,pipeline}.
// {svg,png}, and the guide's copies of the SVGs) are written by `make figures`
// (MARBLES_RECORD=1) and checked byte for byte otherwise (`testTheFiguresAreDrawnFromARealRun`).

// BEGIN GUIDE 1
import AsyncAlgorithms
import AsyncMarbles
import Recording
import Replay
import TraceLog

/// What the search service answers: the tweets matching a query.
struct TweetSearch: Codable, Equatable, Sendable, CustomStringConvertible {
    var query: String
    var tweets: [String]
    var description: String { "\(tweets.count) tweets \"\(query)\"" }
}

/// The fake search engine: typed text → at least 3 characters → settled for 500 ms → the
/// latest text searched, the search still in flight cancelled → each result shown.
func instantSearch(in environment: some AsyncEnvironment,
                   search: @escaping @Sendable (String) async throws -> TweetSearch) -> some AsyncSequence<String, Never> {
    let settled = environment.input("searchText", of: String.self).marbles("typed")
        .filter { $0.count >= 3 }.marbles("validSearchText")
        .debounce(for: .milliseconds(500), clock: environment.clock).marbles("settled")
    let (results, display) = AsyncStream.makeStream(of: String.self)
    Task {
        var inFlight: Task<Void, Never>?
        for await text in settled {
            inFlight?.cancel()                      // latest only: the older search stops
            inFlight = Task {
                do {
                    let found = try await environment.call("search", request: text) { try await search(text) }
                    display.yield("\(found)")
                } catch is CancellationError {      // replaced by a newer text: shows nothing
                } catch {
                    display.yield("failed: \(error)")
                }
            }
        }
        await inFlight?.value
        display.finish()
    }
    return results.marbles("searchResults")
}
// END GUIDE 1

/// The fake search service: each search answers after a latency drawn from `seed` (1.2 to
/// 1.4 s, to the millisecond, as the Signals tutorial's), slept on the environment's clock,
/// so that it is virtual in a test and cancelled with its task.
final class FakeSearchService: Sendable {
    private let clock: EnvironmentClock
    private let state: Mutex

    init(seed: UInt64, clock: EnvironmentClock) {
        self.clock = clock
        state = Mutex(seed)
    }

    func search(_ query: String) async throws -> TweetSearch {
        try await clock.sleep(for: .milliseconds(1_200 + Int(state.next() % 201)))
        let users = ["ana", "bo", "cy", "dee", "eli", "fay"].prefix(4 + query.count % 3)
        return TweetSearch(query: query, tweets: users.map { "@\($0)_\(query.count)" })
    }

    /// A SplitMix64 generator under a lock.
    private final class Mutex: @unchecked Sendable {  // `value` under `lock`
        private let lock = NSLock()
        private var value: UInt64
        init(_ seed: UInt64) { value = seed }
        func next() -> UInt64 {
            lock.lock()
            defer { lock.unlock() }
            value &+= 0x9E37_79B9_7F4A_7C15
            var mixed = value
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
    }
}

/// What the user types and when (milliseconds from the start): the Signals TwitterInstant
/// script's planned times, in two bursts, so that "magi" settles and is searched, and
/// "magic!" settles while that search is still in flight.
let searchTyping: [(at: Int, text: String)] = [
    (250, "m"), (450, "ma"), (620, "mag"), (800, "magi"), (1_580, "magic"), (1_760, "magic!"),
]

/// The scenario recorded live under a driver: the script types, the fake service answers.
func recordAsyncSearch() throws -> (shown: [String], bytes: [UInt8]) {
// BEGIN GUIDE 2
let driver = VirtualTimeDriver()
let live = LiveAsyncEnvironment(clock: driver.clock)
let service = FakeSearchService(seed: 1, clock: live.clock)
let recorder = Recorder(clock: .virtual(driver.scheduler))
recorder.start()
let shown = try driver.run {
    let results = instantSearch(in: live, search: service.search)
    Task {                                          // the user types, at fixed virtual times
        for keystroke in searchTyping {
            try await live.clock.sleep(until: .init(offset: .milliseconds(keystroke.at)))
            try live.send(keystroke.text, to: "searchText")
        }
        try await live.clock.sleep(until: .init(offset: .milliseconds(4_600)))
        live.finishInputs()
    }
    var shown: [String] = []
    for await line in results { shown.append(line) }
    return shown
}
try recorder.stop()                                 // recorder.bytes: the trace
// END GUIDE 2
    return (shown, recorder.bytes)
}

/// A search a replay must never make: the answers come from the recording.
private struct SearchedInAReplay: Error {}

/// `recording` replayed under a new driver: the recorded typing at its times, the recorded
/// answers to the searches made, the service unused.
func replayAsyncSearch(_ recording: [UInt8]) throws -> (shown: [String], bytes: [UInt8], errors: [ReplayError]) {
// BEGIN GUIDE 3
let driver = VirtualTimeDriver()
let replay = ReplayAsyncEnvironment(trace: try Trace(bytes: recording, name: "async-search.trace"), driver: driver)
let recorder = Recorder(clock: .virtual(driver.scheduler))
recorder.start()
let shown = try driver.run {
    var shown: [String] = []
    for await line in instantSearch(in: replay, search: { _ in throw SearchedInAReplay() }) { shown.append(line) }
    return shown
}
try recorder.stop()
// replay.errors: what did not fit the recording (none here)
// END GUIDE 3
    return (shown, recorder.bytes, replay.errors)
}

final class AsyncSearchTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    private static let guide = root.appendingPathComponent("Sources/AsyncMarbles/AsyncMarbles.docc")
    private static let title = "TwitterInstant, with AsyncSequence"

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
            ("diagrams/async/async-search-marbles.svg", try MarbleRenderer.render(marbles, format: .svg)),
            ("diagrams/async/async-search-marbles.png", try MarbleRenderer.render(marbles, format: .png)),
            ("diagrams/async/async-search-pipeline.svg", try PipelineRenderer.render(pipeline, format: .svg)),
            ("diagrams/async/async-search-pipeline.png", try PipelineRenderer.render(pipeline, format: .png)),
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
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let page = try String(contentsOf: Self.guide.appendingPathComponent("RecordingAnAsyncPipeline.md"), encoding: .utf8)
        let shown = Self.swiftBlocks(in: page)
        XCTAssertEqual(shown.count, 4, "the guide shows four Swift blocks")
        for number in 1...4 {
            let compiled = Self.guideBlock(number, in: source)
            XCTAssertFalse(compiled.isEmpty, "no guide block \(number) in this file")
            XCTAssertTrue(shown.contains(compiled), "the guide's Swift block \(number) is not what AsyncSearchTests.swift "
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
