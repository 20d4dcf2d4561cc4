// The sixth demo scenario (issue 30): the fake search engine of the TwitterInstant tutorial,
// written as a Swift developer writes it today, with AsyncSequence and swift-async-algorithms,
// next to its `Signals` version (Sources/Tutorials/TwitterInstant.swift). It is recorded
// under a `VirtualTimeDriver` (the typing at the Signals script's planned times, a seeded fake
// service sleeping on the environment's clock), replayed from that recording, and drawn, by
// `marbles demo` (`AsyncSearchScenario`) and by its tests (Tests/AsyncMarblesTests/AsyncSearchTests.swift).
//
// It is also the code of the DocC guide "Recording an async pipeline"
// (Sources/AsyncMarbles/AsyncMarbles.docc/RecordingAnAsyncPipeline.md): each block between
// `// BEGIN GUIDE n` and `// END GUIDE n` is one of the guide's Swift blocks, line for line
// (AsyncSearchTests' `testTheGuideShowsTheseBlocksLineForLine`), so the blocks are written as
// the guide shows them, at the left margin.


import Foundation  // the fake service's lock; the guide's imports follow

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
    let (results, display) = MarbledStream.makeStream(of: String.self)
    Task {
        var inFlight: Task<Void, Never>?
        for await text in settled {
            inFlight?.cancel()                      // latest only: the older search stops
            inFlight = settled.following {          // the search and its result follow this text
                Task {
                    do {
                        let found = try await environment.call("search", request: text) { try await search(text) }
                        display.yield("\(found)")
                    } catch is CancellationError {  // replaced by a newer text: shows nothing
                    } catch {
                        display.yield("failed: \(error)")
                    }
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


/// The sixth demo scenario, the async search: recorded under a virtual-time driver, so its
/// recording is the same bytes every run (no committed recording is needed to reproduce it),
/// replayed from that recording, and drawn from the replay as the `Signals` scenarios are.
public enum AsyncSearchScenario {
    /// The name on the command line and in file names.
    public static let name = "async-search"
    /// The title of its figures.
    public static let title = "TwitterInstant, with AsyncSequence"
    /// Its recording, `traces/async-search.trace`.
    public static let recordingPath = "traces/\(name).trace"

    /// Records the scenario: the trace's bytes, the same every run.
    public static func record() throws -> [UInt8] {
        try recordAsyncSearch().bytes
    }

    /// Replays `recording` (the bytes of a trace the scenario recorded) in virtual time: the
    /// replay's trace bytes. Throws the first `ReplayError` when the recording does not fit
    /// the pipeline.
    public static func replay(_ recording: [UInt8]) throws -> [UInt8] {
        let replayed = try replayAsyncSearch(recording)
        if let error = replayed.errors.first { throw error }
        return replayed.bytes
    }
}
