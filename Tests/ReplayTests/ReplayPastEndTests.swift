import Foundation
import Recording
import MarbleStreams
import Replay
import Signals
import TraceLog
import XCTest

/// A replay is never cut off silently at the recording's end (issue 27 item 3: with fewer
/// retries, a backoff moved one upload past the recorded end and the replay reported 5 of 6
/// files, exit 0), and a timer whose timing the code changed is not replayed with the old
/// ticks (item 2).
final class ReplayPastEndTests: XCTestCase {
    /// A tap delayed by `delay` seconds on the `work` lane, seen by a sink.
    private func delayed(_ environment: Environment, by delay: TimeInterval, seen: Seen<Int>) -> Disposable {
        let work = environment.scheduler("work")
        return environment.input("tap", of: Int.self)
            .delay(delay, on: work)
            .observeValues { seen.values.append($0) } ?? AnyDisposable {}
    }

    /// Two taps at 0 and 50 ms, delayed by 100 ms, recorded in virtual time until 200 ms.
    private func recording() throws -> Trace {
        let scheduler = TestScheduler()
        let environment = VirtualEnvironment(scheduler: scheduler)
        let seen = Seen<Int>()
        let bytes = try Recorder.record(virtual: scheduler) {
            let pipeline = delayed(environment, by: 0.1, seen: seen)
            try environment.send(1, to: "tap")
            scheduler.advance(by: 0.05)
            try environment.send(2, to: "tap")
            scheduler.advance(by: 0.15)
            pipeline.dispose()
        }
        XCTAssertEqual(seen.values, [1, 2])
        return try Trace(bytes: bytes, name: "taps")
    }

    func testTheSameCodeEndsWhereTheRecordingDid() throws {
        let trace = try recording()
        let seen = Seen<Int>()
        let replay = try Replayer(trace: trace).replay { self.delayed($0, by: 0.1, seen: seen) }
        XCTAssertEqual(seen.values, [1, 2])
        XCTAssertNil(replay.pastEnd)
        XCTAssertEqual(replay.notes, [])
    }

    func testWorkTheEditedCodeMovedPastTheEndStillRunsAndIsReported() throws {
        let trace = try recording()
        let seen = Seen<Int>()
        // A longer delay: the second tap is delivered at 50 + 400 ms, past the recorded end.
        let replay = try Replayer(trace: trace).replay { self.delayed($0, by: 0.4, seen: seen) }
        XCTAssertEqual(seen.values, [1, 2], "both taps arrive, the second after the recording's end")
        let pastEnd = try XCTUnwrap(replay.pastEnd)
        XCTAssertEqual(pastEnd.recordedEnd, 200_000_000)
        XCTAssertEqual(pastEnd.ranTo, 450_000_000)
        XCTAssertNil(pastEnd.stillWaiting)
        XCTAssertGreaterThanOrEqual(pastEnd.events, 2, "the delayed value, at the delay and at the sink")
        let times = replay.trace.events.filter { $0.kind == .value }.map(\.time)
        XCTAssertEqual(times.max(), 450_000_000)
        XCTAssertEqual(replay.notes, [
            "the replay ran 250ms past the recording's end (200ms): \(pastEnd.events) events happened after it",
        ])
        // Deterministic, as every replay.
        let again = try Replayer(trace: trace).replay { self.delayed($0, by: 0.4, seen: Seen<Int>()) }
        XCTAssertEqual(again.bytes, replay.bytes)
    }

    func testARepeatingTimerIsNotWaitedForButEndlessWorkIsCutAtTheLimitAndSaid() throws {
        let trace = try recording()
        // A timer the recording lacks ticks on its lane; nothing else waits: no run past the end.
        let ticking = try Replayer(trace: trace).replay { environment in
            let timer = SignalProducer<Date, Never>.timer(interval: .milliseconds(30), on: environment.scheduler("work"))
                .startWithValues { _ in }
            let pipeline = self.delayed(environment, by: 0.1, seen: Seen<Int>())
            return AnyDisposable {
                timer.dispose()
                pipeline.dispose()
            }
        }
        XCTAssertNil(ticking.pastEnd)
        // Work that always schedules more (a retry without end) runs to the limit, then stops, said.
        var replayer = Replayer(trace: trace)
        replayer.pastEndLimit = 1_000_000_000
        let endless = try replayer.replay { environment in
            let work = environment.scheduler("work")
            let stop = SerialDisposable()
            func again(_ count: Int) {
                stop.inner = work.schedule(after: work.currentDate.addingTimeInterval(0.3)) { again(count + 1) }
            }
            again(0)
            return AnyDisposable { stop.dispose() }
        }
        let pastEnd = try XCTUnwrap(endless.pastEnd)
        XCTAssertEqual(pastEnd.ranTo, 1_200_000_000, "the last step within a second past the 200 ms end")
        XCTAssertEqual(pastEnd.stillWaiting, 1_500_000_000)
        XCTAssertTrue(endless.notes.last?.contains("work still waited at 1.5s and was not run") ?? false, "\(endless.notes)")
    }

    /// A refresh timer every `interval` seconds on `sensor`, its ticks counted.
    private func refreshing(_ environment: Environment, every interval: TimeInterval, seen: Seen<Int>) -> Disposable {
        environment.timer("refresh", every: interval, on: environment.scheduler("sensor"))
            .take(first: 4)
            .startWithValues { _ in seen.values.append(seen.values.count) }
    }

    func testATimersTimingIsItsNodesParameterAndAChangeIsSimulatedAndNamed() throws {
        let scheduler = TestScheduler()
        let environment = VirtualEnvironment(scheduler: scheduler)
        let bytes = Recorder.record(virtual: scheduler) {
            let pipeline = refreshing(environment, every: 0.1, seen: Seen<Int>())
            scheduler.advance(by: 0.5)
            pipeline.dispose()
        }
        let recorded = try Trace(bytes: bytes, name: "refresh")
        let timer = try XCTUnwrap(recorded.nodes.first { $0.name == "timer" })
        XCTAssertEqual(timer.parameters, "refresh, after: 0.1s, every: 0.1s")
        XCTAssertEqual(timer.label, "refresh")

        // The same timing: the recorded ticks, nothing simulated.
        let same = try Replayer(trace: recorded).replay { self.refreshing($0, every: 0.1, seen: Seen<Int>()) }
        XCTAssertEqual(same.simulatedTimers, [])
        XCTAssertTrue(TraceDiff(recorded, same.trace).isSame, TraceDiff(recorded, same.trace).text)

        // Another interval: ticks at the new interval, in virtual time, and the note says so.
        let seen = Seen<Int>()
        let changed = try Replayer(trace: recorded).replay { self.refreshing($0, every: 0.25, seen: seen) }
        // A repeating timer is not waited for past the end: the ticks up to the recorded 0.5 s.
        XCTAssertEqual(seen.values, [0, 1])
        let ticks = changed.trace.events.filter { changed.trace.node($0.node)?.name == "timer" && $0.kind == .value }
        XCTAssertEqual(ticks.map(\.time), [250_000_000, 500_000_000])
        XCTAssertNil(changed.pastEnd)
        XCTAssertEqual(changed.simulatedTimers.map(\.description), [
            "timer \"refresh\" (ReplayTests/ReplayPastEndTests.swift:102) changed its timing: recorded after: 0.1s, every: 0.1s, "
                + "replayed after: 0.25s, every: 0.25s; its ticks were simulated at the new timing, not re-sent",
        ])
        // diff names the change as one changed node, not "same".
        let diff = TraceDiff(recorded, changed.trace)
        XCTAssertFalse(diff.isSame)
        XCTAssertEqual(diff.differences.filter { $0.kind == .nodeChanged }.count, 1, diff.text)
        XCTAssertEqual(diff.differences.first?.kind, .nodeChanged, diff.text)
    }
}
