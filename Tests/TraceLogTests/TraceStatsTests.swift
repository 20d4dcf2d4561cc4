import Signals
import TraceLog
import Recording
import XCTest

final class TraceStatsTests: XCTestCase {
    /// pipe → filter(odd) → delay(10 ms) → observe(on: lane "ui") → observeValues; values
    /// 1...4 at 1 ms steps, then completion at 6 ms.
    private func recordDelayedPipeline() -> [UInt8] {
        let scheduler = TestScheduler()
        return Recorder.record(virtual: scheduler) {
            let (signal, input) = Signal<Int, Never>.pipe(named: "input")
            signal
                .filter { $0 % 2 == 1 }
                .delay(0.010, on: scheduler)
                .observe(on: scheduler.lane("ui"))
                .observeValues { _ in }
            for value in 1...4 {
                scheduler.schedule(atNanoseconds: Int64(value) * 1_000_000) { input.send(value: value) }
            }
            scheduler.schedule(atNanoseconds: 6_000_000) { input.sendCompleted() }
            scheduler.run()
        }
    }

    private func stats() throws -> TraceStats {
        try TraceStats.compute(TraceReader(bytes: recordDelayedPipeline(), name: "delayed.trace"))
    }

    func testCountsEventsByKindPerNode() throws {
        let stats = try stats()
        let byName = Dictionary(stats.nodes.map { ($0.node.name, $0) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(byName["pipe"]?.values, 4)
        XCTAssertEqual(byName["pipe"]?.completed, 1)
        XCTAssertEqual(byName["filter"]?.values, 2)
        XCTAssertEqual(byName["delay"]?.values, 2)
        XCTAssertEqual(byName["observe(on:)"]?.values, 2)
    }

    func testFilterDropsAreCounted() throws {
        let stats = try stats()
        XCTAssertEqual(stats.nodes.first { $0.node.name == "filter" }?.dropped, 2)
        XCTAssertEqual(stats.nodes.first { $0.node.name == "delay" }?.dropped, 0)
        XCTAssertNil(stats.nodes.first { $0.node.name == "pipe" }?.dropped)
    }

    /// A recording cut off (no summary record) just after the filter passed 3 on: the delay
    /// (10 ms) has received 1 and 3 and sent neither yet. Those are not drops in a cut trace;
    /// in a complete one (the same lines with a summary) they are.
    func testWhatWasInFlightAtACutIsNotCountedAsDropped() throws {
        let lines = String(decoding: recordDelayedPipeline(), as: UTF8.self).split(separator: "\n").map(String.init)
        let filter = try XCTUnwrap(lines.first { $0.contains(#""type":"node""#) && $0.contains(#""name":"filter""#) })
        let filterID = try XCTUnwrap(filter.firstMatch(of: /"id":(\d+)/)?.1)
        let passed3 = try XCTUnwrap(lines.firstIndex { $0.contains(#""node":\#(filterID),"#) && $0.contains(#""text":"3""#) })
        let cut = lines[...passed3].joined(separator: "\n") + "\n"
        let cutStats = try TraceStats.compute(TraceReader(bytes: Array(cut.utf8), name: "cut.trace"))
        XCTAssertTrue(cutStats.cutOff)
        XCTAssertEqual(cutStats.nodes.first { $0.node.name == "delay" }?.dropped, 0)
        XCTAssertEqual(cutStats.nodes.first { $0.node.name == "filter" }?.dropped, 1)
        XCTAssertTrue(cutStats.text.contains("(cut off: what a node received after the last value it passed on is not counted as dropped;"))
        let summary = #"{"type":"summary","events":6,"nodes":5,"subscriptions":5,"threads":2,"hops":0,"marks":0,"dropped":0,"duration":3000000}"#
        let whole = try TraceStats.compute(TraceReader(bytes: Array((cut + summary + "\n").utf8), name: "whole.trace"))
        XCTAssertFalse(whole.cutOff)
        XCTAssertEqual(whole.nodes.first { $0.node.name == "delay" }?.dropped, 2)
        XCTAssertFalse(whole.text.contains("cut off"))
        XCTAssertTrue(cutStats.json.contains(#""cutOff":true"#))
        XCTAssertFalse(whole.json.contains("cutOff"))
    }

    func testStageLatencyEndToEndAndSlowestStage() throws {
        let stats = try stats()
        let delay = try XCTUnwrap(stats.nodes.first { $0.node.name == "delay" }?.stageLatency)
        XCTAssertEqual(delay.p50, 10_000_000)
        XCTAssertEqual(delay.max, 10_000_000)
        XCTAssertEqual(stats.nodes.first { $0.node.name == "filter" }?.stageLatency?.max, 0)
        // The delay waits on purpose: it is not the slowest stage (issue 27 item 8).
        XCTAssertNil(stats.slowestStage)
        let path = try XCTUnwrap(stats.paths.first)
        XCTAssertEqual(path.source.label, "input")
        XCTAssertEqual(path.sink.name, "observeValues")
        XCTAssertEqual(path.latency?.count, 2)
        XCTAssertEqual(path.latency?.p99, 10_000_000)
        XCTAssertEqual(stats.unresolvedCauses, 0)
    }

    func testHopQueueWaitIsReportedPerScheduler() throws {
        let stats = try stats()
        let hop = try XCTUnwrap(stats.hops.first)
        XCTAssertEqual(hop.scheduler, "ui")
        XCTAssertEqual(hop.node?.name, "observe(on:)")
        XCTAssertEqual(hop.wait?.count, 3)
        XCTAssertEqual(hop.wait?.max, 0)
        XCTAssertEqual(hop.neverRan, 0)
    }

    /// A live trace's operator timers (`due`) are reported by how late they ran, apart from the
    /// queue waits of plain hops: a debounce's 6 ms quiet period is not a queue wait.
    func testOperatorTimersAreReportedByLatenessNotByTheWaitTheyAskedFor() throws {
        let lines = [
            #"{"type":"header","format":"marbles-trace","version":"1.1","unit":"ns","clock":"real"}"#,
            #"{"type":"thread","id":1,"name":"main"}"#,
            #"{"type":"thread","id":2,"name":"q0","scheduler":"q0"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"input","parameters":"text","file":"App.swift","line":1,"label":"text","upstream":[]}"#,
            #"{"type":"node","id":2,"kind":"operator","name":"debounce","parameters":"0.006s, on: q0","file":"App.swift","line":2,"upstream":[{"node":1,"role":"data"}]}"#,
            #"{"type":"node","id":3,"kind":"operator","name":"observe(on:)","parameters":"q0","file":"App.swift","line":3,"upstream":[{"node":2,"role":"data"}]}"#,
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"subscribe","id":2,"node":2,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"subscribe","id":3,"node":3,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"hop","id":1,"node":2,"sub":2,"scheduler":"q0","enqueued":1000000,"from":1,"due":7000000,"started":7300000,"to":2}"#,
            #"{"type":"hop","id":3,"node":3,"sub":3,"scheduler":"q0","enqueued":7400000,"from":2,"started":7450000,"to":2}"#,
            #"{"type":"hop","id":4,"node":2,"sub":2,"scheduler":"q0","enqueued":9000000,"from":1,"due":15000000,"started":15100000,"to":2}"#,
            #"{"type":"hop","id":2,"node":2,"sub":2,"scheduler":"q0","enqueued":8000000,"from":1,"due":14000000}"#,
        ]
        let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        let stats = try TraceStats.compute(TraceReader(bytes: bytes, name: "timers.trace"))
        let timer = try XCTUnwrap(stats.hops.first { $0.isTimer })
        XCTAssertEqual(timer.wait?.count, 2)
        XCTAssertEqual(timer.wait?.max, 300_000, "7.3 ms started − 7 ms due, not 6.3 ms since it was armed")
        XCTAssertEqual(timer.neverRan, 1, "the one a later value cancelled")
        let hop = try XCTUnwrap(stats.hops.first { !$0.isTimer })
        XCTAssertEqual(hop.wait?.max, 50_000)
        XCTAssertTrue(stats.text.contains("queue wait per hop"))
        XCTAssertTrue(stats.text.contains("lateness per operator timer"))
        XCTAssertTrue(stats.json.contains(#""lateness":"#) && stats.json.contains(#""timer":true"#), stats.json)
        // Perfetto: a timer's slice is named as one, with its lateness.
        var exported: [UInt8] = []
        _ = try PerfettoExport.export(TraceReader(bytes: bytes)) { exported += $0 }
        let text = String(decoding: exported, as: UTF8.self)
        XCTAssertTrue(text.contains(#""name":"timer: q0""#) && text.contains(#""lateNs":300000"#), text)
        XCTAssertTrue(text.contains(#""name":"queue wait: q0""#))
    }

    func testTextAndJSONReportsAreDeterministic() throws {
        let first = try stats()
        let second = try stats()
        XCTAssertEqual(first.text, second.text)
        XCTAssertEqual(first.json, second.json)
        XCTAssertTrue(first.text.contains("slowest stage: none but operators that wait on purpose (the longest wait: "
            + "#3 delay(0.01s, on: test) at TraceLogTests/TraceStatsTests.swift:15, p95 10.000 ms)"), first.text)
        let json = try JSONSerialization.jsonObject(with: Data(first.json.utf8)) as? [String: Any]
        XCTAssertEqual(json?["events"] as? Int, first.events)
        XCTAssertNil(json?["slowestStage"])
    }

    /// A name holding a newline, a tab or a carriage return stays on its node's line, and so
    /// does the trace's name in the heading: the report gives each node one line.
    func testANameWithANewlineStaysOnItsLine() throws {
        func report(_ name: String, file: String) throws -> String {
            let scheduler = TestScheduler()
            let bytes = Recorder.record(virtual: scheduler) {
                let (signal, input) = Signal<Int, Never>.pipe(named: name)
                signal.map { $0 + 1 }.observe(on: scheduler.lane("ui")).observeValues { _ in }
                scheduler.schedule(atNanoseconds: 1_000) { input.send(value: 1) }
                scheduler.run()
            }
            return try TraceStats.compute(TraceReader(bytes: bytes, name: file)).text
        }
        let plain = try report("input", file: "t.trace"), hostile = try report("in\nput\tx\r", file: "t\n.trace")
        func lineCount(_ text: String) -> Int { text.split(separator: "\n", omittingEmptySubsequences: false).count }
        XCTAssertEqual(lineCount(hostile), lineCount(plain), hostile)
        XCTAssertTrue(hostile.contains("in\u{23CE}put x\u{240D}"), hostile)
        XCTAssertTrue(hostile.hasPrefix("t\u{23CE}.trace: "), hostile)
    }

    func testPercentilesAreExactForFewSamplesAndCloseForMany() {
        var few = LatencyDistribution()
        for value in 1...100 { few.add(Int64(value)) }
        XCTAssertEqual(few.summary, LatencySummary(count: 100, p50: 50, p95: 95, p99: 99, max: 100))
        var many = LatencyDistribution()
        for value in 1...100_000 { many.add(Int64(value) * 1_000) }
        let summary = many.summary!
        XCTAssertEqual(summary.max, 100_000_000)
        XCTAssertEqual(Double(summary.p50), 50_000_000, accuracy: 50_000_000 * 0.01)
        XCTAssertEqual(Double(summary.p99), 99_000_000, accuracy: 99_000_000 * 0.01)
        XCTAssertLessThanOrEqual(summary.p99, 99_000_000)
    }

    func testDurationsFormatWithIntegerArithmetic() {
        XCTAssertEqual(formatDuration(0), "0 ns")
        XCTAssertEqual(formatDuration(999), "999 ns")
        XCTAssertEqual(formatDuration(12_500), "12.500 µs")
        XCTAssertEqual(formatDuration(3_250_000), "3.250 ms")
        XCTAssertEqual(formatDuration(1_000_000_007), "1.000 s")
    }
}

extension TraceStatsTests {
    func testDropsAreNotGuessedWhenSeveralSubscriptionsShareANode() throws {
        let scheduler = TestScheduler()
        let bytes = Recorder.record(virtual: scheduler) {
            let producer = SignalProducer<Int, Never>([1, 2, 3, 4]).filter { $0 > 2 }
            producer.start()
            producer.start()
        }
        let stats = try TraceStats.compute(TraceReader(bytes: bytes))
        let filter = try XCTUnwrap(stats.nodes.first { $0.node.name == "filter" })
        XCTAssertEqual(filter.values, 4)
        XCTAssertNil(filter.dropped)
    }

    func testCausesOutsideTheWindowAreCountedAsUnresolved() throws {
        // 30 values, each delayed 100 ms: every delayed value is 30 events after its cause.
        let scheduler = TestScheduler()
        let bytes = Recorder.record(virtual: scheduler) {
            let (signal, input) = Signal<Int, Never>.pipe()
            signal.delay(0.1, on: scheduler).observeValues { _ in }
            for value in 1...30 {
                scheduler.schedule(atNanoseconds: Int64(value) * 1_000_000) { input.send(value: value) }
            }
            scheduler.run()
        }
        let narrow = try TraceStats.compute(TraceReader(bytes: bytes), window: 16)
        XCTAssertEqual(narrow.unresolvedCauses, 30)
        XCTAssertNil(narrow.nodes.first { $0.node.name == "delay" }?.stageLatency)
        let wide = try TraceStats.compute(TraceReader(bytes: bytes), window: 64)
        XCTAssertEqual(wide.unresolvedCauses, 0)
        XCTAssertEqual(wide.nodes.first { $0.node.name == "delay" }?.stageLatency?.max, 100_000_000)
    }
}

extension TraceStatsTests {
    /// The dashboard shape: readings → scan(average) → combineLatest(with: readings) → map →
    /// sample(on: a 250 ms timer) → skipRepeats → observe(on: lane "main") → sink. Readings
    /// at 100, 210 and 320 ms, then 900 ms; the timer ticks at 250, 500, 750, 1000 ms.
    private func recordDashboard() -> [UInt8] {
        let scheduler = TestScheduler()
        return Recorder.record(virtual: scheduler) {
            let (readings, input) = Signal<Double, Never>.pipe(named: "celsius")
            let average = readings.scan((sum: 0.0, n: 0)) { ($0.sum + $1, $0.n + 1) }
            let text = average.combineLatest(with: readings).map { acc, last in "\(last) (avg \(acc.sum / Double(acc.n)))" }
            let ticks = SignalProducer<Date, Never>.timer(interval: .milliseconds(250), on: scheduler).map { _ in () }
            let shown = SignalProducer(text).sample(on: ticks).skipRepeats().observe(on: scheduler.lane("main"))
                .startWithValues { _ in }
            for (milliseconds, reading) in [(100, 20.0), (210, 21.0), (320, 22.0), (900, 23.0)] {
                scheduler.schedule(atNanoseconds: Int64(milliseconds) * 1_000_000) { input.send(value: reading) }
            }
            scheduler.schedule(atNanoseconds: 1_100_000_000) { shown.dispose() }
            scheduler.run()
        }
    }

    func testSinksHaveALineOfTheEventsDeliveredToThem() throws {
        let stats = try TraceStats.compute(TraceReader(bytes: recordDashboard()))
        let sink = try XCTUnwrap(stats.nodes.first { $0.node.kind == .sink })
        XCTAssertEqual(sink.node.name, "startWithValues")
        // Ticks at 250 (reading 21), 500 (22), 750 (22 again: skipped) and 1000 ms (23).
        XCTAssertEqual(sink.values, 3)
        XCTAssertEqual(sink.interrupted, 1)
        XCTAssertNil(sink.stageLatency)
        XCTAssertNil(sink.dropped)
        XCTAssertTrue(stats.text.contains("#\(sink.node.id) startWithValues"), stats.text)
    }

    func testDataAgeFollowsEveryCauseToTheNewestInputOfEachSource() throws {
        let stats = try TraceStats.compute(TraceReader(bytes: recordDashboard()))
        let reading = try XCTUnwrap(stats.paths.first { $0.source.label == "celsius" })
        let timer = try XCTUnwrap(stats.paths.first { $0.source.name == "timer" })
        XCTAssertEqual(reading.sink.kind, .sink)
        XCTAssertEqual(timer.sink.id, reading.sink.id)
        // The timer triggers every displayed value, at once: its latency and data age are 0.
        XCTAssertEqual(timer.latency?.count, 3)
        XCTAssertEqual(timer.latency?.max, 0)
        XCTAssertEqual(timer.dataAge?.max, 0)
        // The readings trigger nothing the sink shows, but each shown value is a reading
        // 40 ms (210 → 250), 180 ms (320 → 500) and 100 ms (900 → 1000) old.
        XCTAssertNil(reading.latency)
        let age = try XCTUnwrap(reading.dataAge)
        XCTAssertEqual(age.count, 3)
        XCTAssertEqual(age.p50, 100_000_000)
        XCTAssertEqual(age.max, 180_000_000)

        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(stats.json.utf8)) as? [String: Any])
        let paths = try XCTUnwrap(json["paths"] as? [[String: Any]])
        let readingPath = try XCTUnwrap(paths.first { $0["source"] as? Int == Int(reading.source.id) })
        XCTAssertNil(readingPath["latency"])
        XCTAssertEqual((readingPath["dataAge"] as? [String: Any])?["max"] as? Int, 180_000_000)
        let nodes = try XCTUnwrap(json["nodes"] as? [[String: Any]])
        XCTAssertEqual(nodes.first { $0["kind"] as? String == "sink" }?["values"] as? Int, 3)
        XCTAssertTrue(stats.text.contains("data age"), stats.text)
    }

    func testACauseOutsideTheWindowLeavesADataAgeOut() throws {
        // Each sum combines the newest value with the first one, 40 events back.
        let scheduler = TestScheduler()
        let bytes = Recorder.record(virtual: scheduler) {
            let (signal, input) = Signal<Int, Never>.pipe(named: "numbers")
            signal.combineLatest(with: signal.take(first: 1)).observeValues { _ in }
            for value in 1...40 {
                scheduler.schedule(atNanoseconds: Int64(value) * 1_000_000) { input.send(value: value) }
            }
            scheduler.run()
        }
        let wide = try TraceStats.compute(TraceReader(bytes: bytes), window: 1024)
        XCTAssertEqual(wide.paths.first?.dataAge?.count, 40)
        let narrow = try TraceStats.compute(TraceReader(bytes: bytes), window: 16)
        XCTAssertGreaterThan(narrow.unresolvedCauses, 0)
        XCTAssertLessThan(narrow.paths.first?.dataAge?.count ?? 0, 40)
        XCTAssertEqual(narrow.paths.first?.latency?.count, 40)
    }
}

extension TraceStatsTests {
    /// A label of 200,000 characters on the first of 400 nodes: every node's row used to be
    /// padded to it (80 MB of text); the table now grows with its rows, the label cut in its
    /// cell and whole in the JSON.
    func testTheTextTableGrowsWithItsRowsNotWithTheLongestName() throws {
        let label = String(repeating: "L", count: 200_000)
        let scheduler = TestScheduler()
        let bytes = Recorder.record(virtual: scheduler) {
            let (signal, input) = Signal<Int, Never>.pipe(named: label)
            var tail = signal
            for _ in 0..<400 { tail = tail.map { $0 + 1 } }
            tail.observeValues { _ in }
            input.send(value: 1)
        }
        let stats = try TraceStats.compute(TraceReader(bytes: bytes, name: "wide.trace"))
        let text = stats.text
        XCTAssertEqual(stats.nodes.count, 402)
        XCTAssertLessThan(text.utf8.count, 402 * 200)
        let firstRow = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("#1 pipe") })
        XCTAssertTrue(firstRow.hasPrefix("#1 pipe \"LLL"))
        XCTAssertTrue(firstRow.contains("…"))
        XCTAssertTrue(text.contains("note: names longer than 60 characters are cut (…); stats --json has them whole"))
        XCTAssertTrue(stats.json.contains(label))
    }

    private struct Refused: Error {}

    /// Attempts per call (issue 27 item 8): each start of a `retry` and the attempts of its
    /// upstream it made, counted from the subscriptions the retry started.
    func testRetriesCountAttemptsPerStartAndTheStartsThatGaveUp() throws {
        let scheduler = TestScheduler()
        var attempts: [Int: Int] = [:]
        let bytes = Recorder.record(virtual: scheduler) {
            let (requests, input) = Signal<Int, Never>.pipe(named: "requests")
            // Request n fails its first n attempts; retry(upTo: 2) allows three.
            SignalProducer(requests).promoteError(Refused.self).flatMap(.concat) { request in
                SignalProducer<Int, Refused> { observer, _ in
                    attempts[request, default: 0] += 1
                    if attempts[request]! <= request {
                        observer.send(error: Refused())
                    } else {
                        observer.send(value: request)
                        observer.sendCompleted()
                    }
                }
                .retry(upTo: 2)
                .flatMapError { _ in SignalProducer<Int, Never>(value: -1) }
            }.start()
            for request in 0...3 { input.send(value: request) }
            scheduler.run()
        }
        let stats = try TraceStats.compute(TraceReader(bytes: bytes, name: "retries.trace"))
        let retry = try XCTUnwrap(stats.retries.first)
        XCTAssertEqual(stats.retries.count, 1)
        XCTAssertEqual(retry.node.name, "retry")
        XCTAssertEqual(retry.starts, 4)
        XCTAssertEqual(retry.attempts, 1 + 2 + 3 + 3, "request 3 gives up after three attempts")
        XCTAssertEqual(retry.mostAttempts, 3)
        XCTAssertEqual(retry.gaveUp, 1)
        XCTAssertTrue(stats.text.contains("retries: attempts of the upstream per start"), stats.text)
        XCTAssertTrue(stats.json.contains(#""retries":[{"node":"#), stats.json)
    }
}
