import Foundation
import MarbleStreams
import Recording
import Replay
import Signals
import TraceLog
import XCTest

final class ReplayerTests: XCTestCase {
    // MARK: The environment

    func testInputsReEmitRecordedValuesAtRecordedTimesOnRecordedLanes() throws {
        let recorded = try Recording.simulated(Pipelines.debounce()).trace
        let replayed = try Replayer(trace: recorded).replay { Pipelines.debounce().build($0).0 }.trace
        let inputs = replayed.events.filter { replayed.node($0.node)?.name == "input" }
        XCTAssertEqual(inputs.map(\.json), ["\"h\"", "\"he\"", "\"hel\"", "\"hell\"", nil])
        XCTAssertEqual(inputs.map(\.kind), [.value, .value, .value, .value, .completed])
        XCTAssertEqual(inputs.map(\.time), [0, 10_000_000, 20_000_000, 200_000_000, 350_000_000])
        XCTAssertEqual(Set(inputs.map { replayed.logicalThreadName($0.thread) }), ["script"])
        let debounced = replayed.events.filter { replayed.node($0.node)?.name == "debounce" }
        XCTAssertEqual(debounced.compactMap(\.json), ["\"hel\"", "\"hell\""])
        XCTAssertEqual(debounced.first?.time, 70_000_000)
        XCTAssertEqual(replayed.header.clock, .virtual)
    }

    func testCallsReturnRecordedResultsAfterRecordedLatencyWithoutCallingTheService() throws {
        let recordedCalls = Counter()
        let recorded = try Recording.simulated(Pipelines.search(performed: recordedCalls)).trace
        XCTAssertEqual(recordedCalls.value, 3)
        let replayedCalls = Counter()
        let replayed = try Replayer(trace: recorded).replay { Pipelines.search(performed: replayedCalls).build($0).0 }.trace
        XCTAssertEqual(replayedCalls.value, 0, "a replay never calls the real service")
        let calls = replayed.events.filter { replayed.node($0.node)?.name == "call" }
        // "a" (150 ms) is interrupted by "ab" at 40 ms; "ab" answers at 70 ms, "abc" at 230 ms.
        XCTAssertEqual(calls.map(\.kind), [.interrupted, .value, .completed, .value, .completed])
        XCTAssertEqual(calls.map(\.time), [40_000_000, 70_000_000, 70_000_000, 230_000_000, 230_000_000])
        XCTAssertEqual(calls.filter { $0.kind == .value }.map { replayed.logicalThreadName($0.thread) }, ["network", "network"])
        let delivered = replayed.events.filter { replayed.node($0.node)?.name == "observe(on:)" }
        XCTAssertEqual(delivered.compactMap(\.json), [#"["ab1","ab2"]"#, #"["abc1","abc2"]"#])
        XCTAssertEqual(Set(delivered.map { replayed.logicalThreadName($0.thread) }), ["ui"])
    }

    /// An input sent from two threads in turn re-emits each value on its own thread's lane:
    /// a lane found for one thread must not answer for the next.
    func testAnInputSentFromTwoThreadsInTurnReEmitsEachValueOnItsThreadsLane() throws {
        let threads: [UInt64] = [1, 2, 2, 1, 1, 2, 1]
        var lines = [
            #"{"type":"header","format":"marbles-trace","version":"1.1","unit":"ns","clock":"virtual"}"#,
            #"{"type":"thread","id":1,"name":"keyboard"}"#,
            #"{"type":"thread","id":2,"name":"paste"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"input","parameters":"typed","file":"T.swift","line":1,"label":"typed","upstream":[]}"#,
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
        ]
        for (index, thread) in threads.enumerated() {
            lines.append(#"{"type":"event","seq":\#(index + 1),"time":\#(index * 1_000),"node":1,"sub":1,"kind":"value","thread":\#(thread),"causes":[],"text":"\#(index)","json":\#(index)}"#)
        }
        let recorded = try Trace(bytes: Array((lines.joined(separator: "\n") + "\n").utf8))
        let replayed = try Replayer(trace: recorded).replay { environment in
            environment.input("typed", of: Int.self).observeValues { _ in } ?? AnyDisposable()
        }.trace
        let inputs = replayed.events.filter { replayed.node($0.node)?.name == "input" }
        XCTAssertEqual(inputs.compactMap(\.json), (0..<threads.count).map { "\($0)" })
        XCTAssertEqual(inputs.map { replayed.logicalThreadName($0.thread) },
                       ["keyboard", "paste", "paste", "keyboard", "keyboard", "paste", "keyboard"])
    }

    /// The replay runs to the recording's end: its summary's duration, or past it (or, cut
    /// off, without one) its latest event, which need not be its last (threads stamp events
    /// out of time order).
    func testTheReplayRunsToTheSummarysDurationOrTheLatestEvent() throws {
        func trace(times: [Int64], duration: Int64?) throws -> Trace {
            var lines = [
                #"{"type":"header","format":"marbles-trace","version":"1.1","unit":"ns","clock":"virtual"}"#,
                #"{"type":"thread","id":1,"name":"main"}"#,
                #"{"type":"node","id":1,"kind":"source","name":"input","parameters":"typed","file":"T.swift","line":1,"label":"typed","upstream":[]}"#,
                #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
            ]
            for (index, time) in times.enumerated() {
                lines.append(#"{"type":"event","seq":\#(index + 1),"time":\#(time),"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"1","json":1}"#)
            }
            if let duration {
                lines.append(#"{"type":"summary","events":\#(times.count),"nodes":1,"subscriptions":1,"threads":1,"hops":0,"marks":0,"dropped":0,"duration":\#(duration)}"#)
            }
            return try Trace(bytes: Array((lines.joined(separator: "\n") + "\n").utf8))
        }
        XCTAssertEqual(Replayer(trace: try trace(times: [5, 30_000, 10_000], duration: nil)).end, 30_000)
        XCTAssertEqual(Replayer(trace: try trace(times: [5, 30_000, 10_000], duration: 20_000)).end, 30_000)
        XCTAssertEqual(Replayer(trace: try trace(times: [5, 30_000, 10_000], duration: 90_000)).end, 90_000)
        XCTAssertEqual(Replayer(trace: try trace(times: [], duration: 7)).end, 7)
        XCTAssertEqual(Replayer(trace: try trace(times: [], duration: nil)).end, 0)
    }

    func testSchedulersAreNamedLanesOfTheTestScheduler() throws {
        let recorded = try Recording.simulated(Pipelines.debounce()).trace
        let scheduler = TestScheduler()
        let environment = ReplayEnvironment(trace: recorded, scheduler: scheduler)
        let ui = environment.scheduler("ui")
        XCTAssertEqual(ui.name, "ui")
        XCTAssertTrue(ui === environment.scheduler("ui"))
        // It runs on the test scheduler's clock.
        var ran = false
        ui.schedule(after: 0.5) { ran = true }
        scheduler.advance(by: 0.4)
        XCTAssertFalse(ran)
        scheduler.advance(by: 0.1)
        XCTAssertTrue(ran)
        XCTAssertEqual(ui.currentDate, scheduler.currentDate)
    }

    func testAnInputAskedForTwiceIsOneSignalReEmittingOnce() throws {
        let recorded = try Recording.simulated(Pipelines.debounce()).trace
        let scheduler = TestScheduler()
        let environment = ReplayEnvironment(trace: recorded, scheduler: scheduler)
        var seen: [String] = []
        let first = environment.input("text", of: String.self)
        let second = environment.input("text", of: String.self)
        XCTAssertTrue(first === second)
        first.observeValues { seen.append($0) }
        scheduler.run()
        XCTAssertEqual(seen, ["h", "he", "hel", "hell"])
        XCTAssertEqual(environment.errors, [])
    }

    // MARK: Determinism

    func testReplayingTheSameTraceTenTimesGivesByteIdenticalTraces() throws {
        let recorded = try Recording.simulated(Pipelines.search()).trace
        let replayer = Replayer(trace: recorded)
        let first = try replayer.replay { Pipelines.search().build($0).0 }.bytes
        XCTAssertGreaterThan(first.count, 1000)
        for run in 1..<10 {
            let again = try replayer.replay { Pipelines.search().build($0).0 }
            let firstTrace = try Trace(bytes: first)
            XCTAssertTrue(again.bytes == first, "replay \(run + 1) differs from the first: "
                + TraceDiff(firstTrace, again.trace).text)
        }
    }

    func testReplayingALiveRecordingTenTimesGivesByteIdenticalTraces() throws {
        let recorded = try Recording.live(Pipelines.search())
        XCTAssertEqual(recorded.header.clock, .real)
        let replayer = Replayer(trace: recorded)
        let first = try replayer.replay { Pipelines.search().build($0).0 }.bytes
        for run in 1..<10 {
            let again = try replayer.replay { Pipelines.search().build($0).0 }
            let firstTrace = try Trace(bytes: first)
            XCTAssertTrue(again.bytes == first, "replay \(run + 1) differs from the first: "
                + TraceDiff(firstTrace, again.trace).text)
        }
    }

    func testReplayOfAVirtualRecordingReproducesEveryNodesEventsTimesAndThreads() throws {
        for pipeline in [Pipelines.search(), Pipelines.debounce(), Pipelines.throttle(), Pipelines.combineLatest(),
                         Pipelines.retry()] {
            let recorded = try Recording.simulated(pipeline).trace
            let replayed = try Replayer(trace: recorded).replay { pipeline.build($0).0 }.trace
            let before = timedSequences(recorded), after = timedSequences(replayed)
            XCTAssertFalse(after.isEmpty)
            for (node, events) in after {
                XCTAssertEqual(before[node], events, node)
            }
            let diff = TraceDiff(recorded, replayed)
            XCTAssertEqual(diff.timeTolerance, 0)
            XCTAssertTrue(diff.isSame, diff.text)
            // Only the simulated service's own nodes (inside the calls) are not in the replay.
            for node in diff.insideCalls {
                XCTAssertEqual(node.kind, .nodeOnlyInA, diff.text)
                XCTAssertTrue(node.node.contains("@ReplayTests/Pipelines.swift:"), diff.text)
            }
        }
    }

    // MARK: Fidelity against live recordings

    func testSearchReplayReproducesTheLiveValuesAndThreads() throws {
        let live = Counter()
        try assertFidelity(Pipelines.search(performed: live), sinkValues: [#"["ab1","ab2"]"#, #"["abc1","abc2"]"#])
        XCTAssertEqual(live.value, 3)
        let recorded = try Recording.live(Pipelines.search())
        let diff = TraceDiff(recorded, try Replayer(trace: recorded).replay { Pipelines.search().build($0).0 }.trace)
        XCTAssertEqual(diff.insideCalls.count, 1, "the service's producer, which the replay does not run")
        XCTAssertTrue(diff.text.contains("not compared: 1 node inside boundary calls"), diff.text)
    }

    func testDebounceReplayReproducesTheLiveValues() throws {
        try assertFidelity(Pipelines.debounce(), sinkValues: ["\"hel\"", "\"hell\""])
    }

    func testThrottleReplayReproducesTheLiveValues() throws {
        try assertFidelity(Pipelines.throttle(), sinkValues: ["1", "3", "4"])
    }

    func testCombineLatestReplayReproducesTheLiveValuesAndThreads() throws {
        try assertFidelity(Pipelines.combineLatest(), sinkValues: ["false", "false", "true"])
    }

    func testRetryReplayReproducesTheLiveFailuresAndResult() throws {
        let live = Counter()
        try assertFidelity(Pipelines.retry(performed: live), sinkValues: ["42"])
        XCTAssertEqual(live.value, 3)
    }

    /// Records `pipeline` live, checks its last node sent `sinkValues`, replays it and checks
    /// every node both traces have sent the same events on the same logical threads.
    private func assertFidelity(_ pipeline: TestPipeline, sinkValues: [String],
                                file: StaticString = #filePath, line: UInt = #line) throws {
        let recorded = try Recording.live(pipeline)
        let replayed = try Replayer(trace: recorded).replay { pipeline.build($0).0 }.trace
        XCTAssertEqual(replayed.header.clock, .virtual, file: file, line: line)
        let last = try XCTUnwrap(lastOperator(recorded), file: file, line: line)
        XCTAssertEqual(recorded.events(of: last.id).filter { $0.kind == .value }.compactMap(\.json), sinkValues,
                       "live outcome", file: file, line: line)
        let liveValues = valueSequences(recorded), replayValues = valueSequences(replayed)
        let liveThreads = threadSequences(recorded), replayThreads = threadSequences(replayed)
        XCTAssertGreaterThan(replayValues.count, 2, file: file, line: line)
        for (node, events) in replayValues {
            XCTAssertEqual(liveValues[node], events, "values of \(node)", file: file, line: line)
            XCTAssertEqual(liveThreads[node], replayThreads[node], "threads of \(node)", file: file, line: line)
        }
        // The diff agrees: only the service's own nodes, inside the calls a replay does not
        // make, are missing from the replay; times are measured, not judged.
        let diff = TraceDiff(recorded, replayed, nameA: "live", nameB: "replay")
        XCTAssertNil(diff.timeTolerance, file: file, line: line)
        XCTAssertGreaterThan(diff.timing.matched, 4, file: file, line: line)
        XCTAssertTrue(diff.isSame, diff.text, file: file, line: line)
        for node in diff.insideCalls {
            XCTAssertEqual(node.kind, .nodeOnlyInA, diff.text, file: file, line: line)
            XCTAssertTrue(node.node.hasPrefix("SignalProducer @ReplayTests/Pipelines.swift:"), diff.text,
                          file: file, line: line)
        }
    }

    private func lastOperator(_ trace: Trace) -> NodeRecord? {
        trace.sinks.compactMap { $0.upstream.first.flatMap { trace.node($0.node) } }.last
    }

    private func timedSequences(_ trace: Trace) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for node in trace.nodes {
            let key = "\(node.name)(\(node.parameters))@\(node.file):\(node.line)"
            result[key, default: []] += trace.events(of: node.id).map {
                "\($0.time) \(trace.logicalThreadName($0.thread)) \($0.kind) \($0.json ?? "")"
            }
        }
        return result
    }
}

final class HopLatencyTests: XCTestCase {
    private func waits(_ trace: Trace, node name: String) -> [Int64] {
        trace.hops.sorted { $0.id < $1.id }.filter { trace.node($0.node)?.name == name }.compactMap(\.queueWait)
    }

    func testHopsWaitTheirRecordedQueueWaitWhenAsked() throws {
        let recorded = try Recording.live(Pipelines.search())
        let liveWaits = waits(recorded, node: "observe(on:)")
        XCTAssertEqual(liveWaits.count, 3, "two results and the completion hop to ui")
        XCTAssertTrue(liveWaits.contains { $0 > 0 }, "a real queue takes some time")

        let asRecorded = try Replayer(trace: recorded, hopLatency: .asRecorded).replay { Pipelines.search().build($0).0 }
        // Each hop waits at least its recorded wait, and starts when the live one started: the
        // replay enqueued it earlier, by the time its cause's cascade took live (`HopWaits`).
        let replayedWaits = waits(asRecorded.trace, node: "observe(on:)")
        XCTAssertEqual(replayedWaits.count, liveWaits.count)
        XCTAssertTrue(zip(replayedWaits, liveWaits).allSatisfy { $0 >= $1 }, "\(replayedWaits) against \(liveWaits)")
        func starts(_ trace: Trace) -> [Int64?] {
            trace.hops.sorted { $0.id < $1.id }.filter { trace.node($0.node)?.name == "observe(on:)" }.map(\.started)
        }
        XCTAssertEqual(starts(asRecorded.trace), starts(recorded))
        let delivered = asRecorded.trace.events.filter { asRecorded.trace.node($0.node)?.name == "observe(on:)" }
        let upstream = asRecorded.trace.events.filter { asRecorded.trace.node($0.node)?.name == "flatMap" }
        XCTAssertEqual(zip(delivered, upstream).map { $0.time - $1.time }, replayedWaits)

        let immediate = try Replayer(trace: recorded, hopLatency: .zero).replay { Pipelines.search().build($0).0 }
        XCTAssertEqual(waits(immediate.trace, node: "observe(on:)"), [0, 0, 0])
        // A recording made in real time replays its hops as recorded unless told otherwise.
        XCTAssertEqual(Replayer(trace: recorded).hopLatency, .asRecorded)
        let byDefault = try Replayer(trace: recorded).replay { Pipelines.search().build($0).0 }
        XCTAssertEqual(byDefault.bytes, asRecorded.bytes)
        XCTAssertEqual(valueSequences(asRecorded.trace), valueSequences(immediate.trace))
    }

    func testAVirtualRecordingReplaysItsHopsAtOnceByDefault() throws {
        let scheduler = TestScheduler()
        let recorder = Recorder(clock: .virtual(scheduler))
        recorder.start()
        let environment = VirtualEnvironment(scheduler: scheduler)
        let running = SignalProducer(environment.input("text", of: Int.self))
            .observe(on: environment.scheduler("ui")).startWithValues { _ in }
        try environment.send(1, to: "text")
        _ = scheduler.run()
        running.dispose()
        try recorder.stop()
        let trace = try Trace(bytes: recorder.bytes, name: "virtual")
        XCTAssertEqual(Replayer(trace: trace).hopLatency, .zero)
    }

    func testRecordedHopLatencyIsDeterministic() throws {
        let recorded = try Recording.live(Pipelines.combineLatest())
        let replayer = Replayer(trace: recorded, hopLatency: .asRecorded)
        let first = try replayer.replay { Pipelines.combineLatest().build($0).0 }.bytes
        for _ in 1..<10 {
            let again = try replayer.replay { Pipelines.combineLatest().build($0).0 }.bytes
            XCTAssertTrue(again == first)
        }
    }

    func testTheHopNotingProbeIsDetachedAfterTheReplay() throws {
        let recorded = try Recording.simulated(Pipelines.search()).trace
        _ = try Replayer(trace: recorded, hopLatency: .asRecorded).replay { Pipelines.search().build($0).0 }
        XCTAssertNil(Instrumentation.probe)
    }
}
