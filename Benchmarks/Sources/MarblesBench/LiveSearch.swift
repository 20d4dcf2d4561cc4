import Foundation
import Signals
import Recording
import Tutorials

/// The live TwitterInstant pipeline (search text → filter → throttle on main → the search
/// service on its network queue → observe(on: main) → display) on real queues, with and
/// without a recorder writing a trace file, as `marbles record --scenario twitter-instant`
/// runs it. Each query's end-to-end latency runs from the moment its text is sent into the
/// search field to the moment its results reach the subscriber, read from the monotonic clock
/// here in the harness; the figures are wall time, so they move with the machine's load.
enum LiveSearch {
    /// How the pipeline is timed in one configuration, and how many queries a round sends.
    struct Setup {
        /// For the table.
        var name: String
        /// The scenario's quiet period, in seconds.
        var quietPeriod: TimeInterval
        /// What the scenario's simulated latencies are multiplied by.
        var latencyScale: Double
        /// Copies of the pipeline built in one round, each on its own environment (own
        /// network and background queues, the one main queue). Every copy has the scenario's
        /// seed, so every query draws the same service latency on both sides of a comparison:
        /// the spread of the latencies is the pipeline's and the machine's, and the p50 does
        /// not jump between different draws.
        var pipelines: Int
        /// Queries each copy sends one after another, each once the previous one is shown.
        var queries: Int
        /// Seconds between the copies' first queries, so they do not all wait on the main
        /// queue at the same moment.
        var stagger: TimeInterval
    }

    /// One round's latencies in nanoseconds, and what the recorder recorded (zero without).
    struct Round {
        var latencies: [Double] = []
        var events: UInt64 = 0
        var bytes: Double = 0
    }

    /// The state of a round, touched on the main thread only.
    private final class Driver {
        var sentAt: [UInt64]
        var sentText: [String]
        var next: [Int]
        var latencies: [Double] = []
        var lost: String?
        init(pipelines: Int) {
            sentAt = Array(repeating: 0, count: pipelines)
            sentText = Array(repeating: "", count: pipelines)
            next = Array(repeating: 0, count: pipelines)
        }
    }

    /// Builds `setup.pipelines` copies (after starting `recorder`, as `marbles record` does),
    /// waits for the access request to be answered, sends the queries and times each one, then
    /// completes the inputs, tears the copies down and stops the recorder.
    static func round(_ setup: Setup, recordingTo url: URL?) throws -> Round {
        // A fresh file each round: over an earlier trace a recorder writes beside it and
        // renames at `stop()`, deleting the earlier one then.
        if let url { try? FileManager.default.removeItem(at: url) }
        let recorder = try url.map { try Recorder(to: $0, clock: .real) }
        recorder?.start()
        let driver = Driver(pipelines: setup.pipelines)
        var environments: [LiveEnvironment] = []
        var pipelines: [Disposable] = []
        func send(_ copy: Int) {
            let text = "query \(copy)-\(driver.next[copy])"
            driver.next[copy] += 1
            driver.sentText[copy] = text
            driver.sentAt[copy] = nanoseconds(CLOCK_MONOTONIC)
            Recorder.mark("searchText = \"\(text)\"")  // as the live runner marks each step
            _ = try? environments[copy].send(text, to: "searchText")
        }
        for copy in 0..<setup.pipelines {
            let environment = LiveEnvironment()
            environments.append(environment)
            let scenario = TwitterInstant(failureRate: 0, quietPeriod: setup.quietPeriod, latencyScale: setup.latencyScale)
            pipelines.append(scenario.build(in: environment, screen: Guarded(TwitterInstantScreen())) { search in
                let end = nanoseconds(CLOCK_MONOTONIC)
                guard search.query == driver.sentText[copy] else {
                    driver.lost = "pipeline \(copy) showed \"\(search.query)\" for \"\(driver.sentText[copy])\""
                    return
                }
                driver.latencies.append(Double(end - driver.sentAt[copy]))
                if driver.next[copy] < setup.queries {
                    DispatchQueue.main.async { send(copy) }
                }
            })
        }
        // The first text is lost if it comes before access is granted (`then` subscribes to
        // the field only afterwards): wait for the access request's longest latency and more.
        let accessAnswered = Date().addingTimeInterval(0.14 * setup.latencyScale + 0.2)
        MainLoop.run(until: { Date() >= accessAnswered }, timeout: 5)
        let start = DispatchWallTime.now()
        for copy in 0..<setup.pipelines {
            DispatchQueue.main.asyncAfter(wallDeadline: start + .nanoseconds(Int(Double(copy) * setup.stagger * 1e9))) {
                send(copy)
            }
        }
        let expected = setup.pipelines * setup.queries
        let limit = Double(setup.pipelines) * setup.stagger + Double(setup.queries) * (1 + 2 * setup.latencyScale) + 10
        let finished = MainLoop.run(until: { driver.latencies.count == expected || driver.lost != nil }, timeout: limit)
        environments.forEach { $0.completeInputs() }
        let settled = Date().addingTimeInterval(0.02)
        MainLoop.run(until: { Date() >= settled }, timeout: 1)
        pipelines.forEach { $0.dispose() }
        let summary = try recorder?.stop()
        if let lost = driver.lost { throw BenchError("live: \(lost)") }
        guard finished else {
            throw BenchError("live: \(driver.latencies.count) of \(expected) queries shown within \(Int(limit)) s "
                + "(was a text sent before access was granted?)")
        }
        var round = Round(latencies: driver.latencies, events: summary?.events ?? 0)
        if let url {
            round.bytes = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.doubleValue ?? 0
        }
        return round
    }

    /// The value at `fraction` (0.5 the median, 0.9 the 90th percentile) of `values`, by
    /// nearest rank.
    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// Runs `pairs` pairs of rounds without and with the recorder, alternating off, on, on,
    /// off, off, on, … so a drift of the machine's speed during the run falls on both alike;
    /// returns every latency of each side and the recorder's rounds.
    static func compare(_ setup: Setup, pairs: Int, url: URL) throws -> (off: [Double], on: [Double], recorded: [Round]) {
        var off: [Double] = [], on: [Double] = [], recorded: [Round] = []
        for index in 0..<(2 * pairs) {
            let recording = index % 4 == 1 || index % 4 == 2
            let round = try round(setup, recordingTo: recording ? url : nil)
            if recording {
                on += round.latencies
                recorded.append(round)
            } else {
                off += round.latencies
            }
        }
        return (off, on, recorded)
    }

    static func measure(quick: Bool, directory: URL, table: inout Table) throws {
        let url = directory.appendingPathComponent("marbles-bench-live.trace")
        defer { try? FileManager.default.removeItem(at: url) }
        let section = "live"
        // Without waits first: it warms up the pipeline's and the recorder's code for both.
        let bare = Setup(name: "no quiet period, services answer at once", quietPeriod: 0, latencyScale: 0,
                         pipelines: 1, queries: quick ? 200 : 500, stagger: 0)
        var warmUp = bare
        warmUp.queries = 100
        _ = try compare(warmUp, pairs: 1, url: url)
        let tutorial = Setup(name: "the tutorial's timing (0.5 s quiet period, search answers in 1.2–1.4 s)",
                             quietPeriod: 0.5, latencyScale: 1, pipelines: quick ? 16 : 32, queries: 1, stagger: 0.008)
        for (setup, pairs) in [(tutorial, quick ? 1 : 2), (bare, quick ? 2 : 4)] {
            let (off, on, recorded) = try compare(setup, pairs: pairs, url: url)
            let (offMedian, onMedian) = (percentile(off, 0.5), percentile(on, 0.5))
            let events = Double(recorded.map(\.events).reduce(0, +)) / Double(on.count)
            let megabytes = recorded.map(\.bytes).reduce(0, +) / Double(recorded.count) / 1e6
            let unit = offMedian >= 1e7 ? (scale: 1e6, name: "ms") : (scale: 1e3, name: "µs")
            func time(_ nanoseconds: Double) -> String { "\(decimal(nanoseconds / unit.scale, 2)) \(unit.name)" }
            table.add(Row(section: section,
                          figure: "TwitterInstant live, \(setup.name): \(setup.pipelines) × \(setup.queries) "
                              + "queries a round, \(pairs) rounds each way; end to end p50, recorder off → on "
                              + "(\(decimal(events)) events recorded per query, \(decimal(megabytes, 2)) MB a round)",
                          value: "\(time(offMedian)) → \(time(onMedian))"))
            table.add(Row(section: section, figure: "end to end p90, recorder off → on",
                          value: "\(time(percentile(off, 0.9))) → \(time(percentile(on, 0.9)))"))
            let change = (onMedian / offMedian - 1) * 100
            let value = "\(change >= 0 ? "+" : "")\(decimal(change, 2)) % (\(time(onMedian - offMedian)) per query)"
            if setup.latencyScale == 1 {
                table.add(Row(section: section, figure: "recorder on: change of the end-to-end p50 (same run)",
                              value: value, target: "< 1 %", met: abs(change) < 1))
            } else {
                table.add(Row(section: section, figure: "recorder on: change of the end-to-end p50, no waits (same run)",
                              value: value))
            }
        }
    }
}
