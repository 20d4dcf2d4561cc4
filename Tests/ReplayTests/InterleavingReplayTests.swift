import Foundation
import Recording
import Replay
import Signals
import TraceLog
import TestSupport
import XCTest

/// A replay reproduces the order in which events from two threads reached a multi-input
/// operator (issue 27 item 1: 7 of 7 live recordings of two timer sources on two queues
/// disagreed with their replays, because a replay ran each tick's chain at its tick's time,
/// while live one queue's chain reached `combineLatest` after the other's).
final class InterleavingReplayTests: XCTestCase {
    /// A live recording in which `a` sent its second value first (at 100 ms on `qa`) but
    /// reached combineLatest last (103 ms), after `b`'s second value (sent 101 ms on `qb`,
    /// arrived 102 ms): combineLatest emitted (1, 20) then (2, 20). `b2Time` moves b's
    /// second value out of the race.
    private func raceTrace(b2Time: Int = 101_000_000, arrivalB: Int = 102_000_000) throws -> Trace {
        try craftedTrace(raceRecords(b2Time: b2Time, arrivalB: arrivalB), clock: "real")
    }

    private func raceRecords(b2Time: Int = 101_000_000, arrivalB: Int = 102_000_000) -> [String] {
        [
            #"{"type":"thread","id":1,"name":"qa"}"#,
            #"{"type":"thread","id":2,"name":"qb"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"input","parameters":"a","file":"App/Fusion.swift","line":3,"label":"a","upstream":[]}"#,
            #"{"type":"node","id":2,"kind":"source","name":"input","parameters":"b","file":"App/Fusion.swift","line":4,"label":"b","upstream":[]}"#,
            #"{"type":"node","id":3,"kind":"operator","name":"combineLatest","parameters":"","file":"App/Fusion.swift","line":5,"upstream":[{"node":1,"role":"data"},{"node":2,"role":"data"}]}"#,
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"subscribe","id":2,"node":2,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"subscribe","id":3,"node":3,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"event","seq":1,"time":10000000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"1","json":1}"#,
            #"{"type":"event","seq":2,"time":20000000,"node":2,"sub":2,"kind":"value","thread":2,"causes":[],"text":"10","json":10}"#,
            #"{"type":"event","seq":3,"time":20000000,"node":3,"sub":3,"kind":"value","thread":2,"causes":[2],"text":"(1, 10)"}"#,
            #"{"type":"event","seq":4,"time":100000000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"2","json":2}"#,
            #"{"type":"event","seq":5,"time":\#(b2Time),"node":2,"sub":2,"kind":"value","thread":2,"causes":[],"text":"20","json":20}"#,
            #"{"type":"event","seq":6,"time":\#(arrivalB),"node":3,"sub":3,"kind":"value","thread":2,"causes":[5],"text":"(1, 20)"}"#,
            #"{"type":"event","seq":7,"time":103000000,"node":3,"sub":3,"kind":"value","thread":1,"causes":[4],"text":"(2, 20)"}"#,
        ]
    }

    private func fusion(_ environment: Environment, seen: Seen<String>) -> Disposable {
        environment.input("a", of: Int.self).combineLatest(with: environment.input("b", of: Int.self))
            .observeValues { seen.values.append("(\($0.0), \($0.1))") } ?? AnyDisposable {}
    }

    func testTheOrderInWhichTwoThreadsReachedCombineLatestIsReplayed() throws {
        let seen = Seen<String>()
        let replay = try Replayer(trace: raceTrace()).replay { self.fusion($0, seen: seen) }
        XCTAssertEqual(seen.values, ["(1, 10)", "(1, 20)", "(2, 20)"], "as live, not (2, 10) then (2, 20)")
        // a's second value is delivered when it reached combineLatest live; every other event at its time.
        let a = try XCTUnwrap(replay.trace.nodes.first { $0.label == "a" })
        XCTAssertEqual(replay.trace.events.filter { $0.node == a.id }.map(\.time), [10_000_000, 103_000_000])
        // Deterministic.
        let again = try Replayer(trace: raceTrace()).replay { self.fusion($0, seen: Seen<String>()) }
        XCTAssertEqual(again.bytes, replay.bytes)
    }

    func testTheDiffNamesARaceAsInputsMeetingInAnotherOrder() throws {
        let live = try raceTrace()
        // What a replay that ran each source at its own time gave: a first, from qa.
        let records = raceRecords().map { line in
            line.replacingOccurrences(of: #""thread":2,"causes":[5],"text":"(1, 20)""#, with: #""thread":1,"causes":[4],"text":"(2, 10)""#)
        }
        let other = try craftedTrace(records, clock: "real")
        let diff = TraceDiff(live, other, nameA: "live", nameB: "replay")
        let kinds = diff.differences.map(\.kind)
        XCTAssertEqual(kinds.first, .orderDiffers, diff.text)
        XCTAssertFalse(kinds.contains(.valueDiffers), diff.text)
        XCTAssertTrue(diff.text.contains("inputs met in another order: (1, 20) from \"qb\" in A, (2, 10) from \"qa\" in B: "
            + "a race between threads"), diff.text)
    }

    func testWithoutARaceEveryEventKeepsItsRecordedTime() throws {
        // b's second value comes after a's reached combineLatest: nothing to reorder.
        let trace = try raceTrace(b2Time: 104_000_000, arrivalB: 105_000_000)
        let seen = Seen<String>()
        let replay = try Replayer(trace: trace).replay { self.fusion($0, seen: seen) }
        XCTAssertEqual(seen.values, ["(1, 10)", "(2, 10)", "(2, 20)"])
        let a = try XCTUnwrap(replay.trace.nodes.first { $0.label == "a" })
        XCTAssertEqual(replay.trace.events.filter { $0.node == a.id }.map(\.time), [10_000_000, 100_000_000])
    }
}

/// Two timers on two queues, one chain slower than the other, through `combineLatest`,
/// recorded live on real threads: the stress test of item 1, on outcome only. (Each timer ends
/// by `take(first:)`: a `take(until:)` on both, stopped by one input, makes that input's
/// consequences meet each timer's ticks at two places at two times, which one delivery time
/// cannot reproduce both of; see DecisionTimes.)
final class LiveInterleavingReplayTests: XCTestCase {
    /// Work that takes a while, the same amount every time (not a wait).
    private static func slowly(_ value: Int) -> Int {
        var hash = UInt64(truncatingIfNeeded: value) &+ 1
        for _ in 0..<20_000 { hash = hash &* 6364136223846793005 &+ 1442695040888963407 }
        return value + Int(hash >> 63)
    }

    static func fusion(_ environment: Environment, shown: Outcome<String>) -> Disposable {
        let a = environment.timer("a", every: 0.002, on: environment.scheduler("qa"))
            .take(first: 60)
            .scan(0) { count, _ in count + 1 }
            .map { slowly($0) }
        // b ends some 60 ms before a: their completions never race (one tick's value and its
        // completion reaching combineLatest at two moments cannot both be reproduced).
        let b = environment.timer("b", every: 0.003, on: environment.scheduler("qb"))
            .take(first: 20)
            .scan(0) { count, _ in count + 1 }
        return SignalProducer.combineLatest(a, b).map { "\($0)-\($1)" }
            .start { shown.observe($0) }
    }

    func testTwoTimersOnTwoQueuesReplayAsTheyRanLive() throws {
        for run in 1...3 {
            let recorder = Recorder(clock: .real)
            recorder.start()
            let environment = LiveEnvironment()
            let liveShown = Outcome<String>()
            let pipeline = Self.fusion(environment, shown: liveShown)
            liveShown.waitForEnd()
            for name in ["qa", "qb"] {
                let drained = DispatchSemaphore(value: 0)
                environment.scheduler(name).schedule { drained.signal() }
                drained.wait()
            }
            pipeline.dispose()
            try recorder.stop()
            let live = try Trace(bytes: recorder.bytes, name: "live \(run)")

            let replayShown = Outcome<String>()
            let replay = try Replayer(trace: live).replay { Self.fusion($0, shown: replayShown) }
            XCTAssertGreaterThan(liveShown.values.count, 30, "run \(run)")
            XCTAssertEqual(replayShown.values, liveShown.values, "run \(run)")
            XCTAssertEqual(replayShown.terminal, liveShown.terminal, "run \(run)")
            let diff = TraceDiff(live, replay.trace, nameA: "live", nameB: "replay")
            XCTAssertTrue(diff.isSame, "run \(run):\n\(diff.text)")

        }
    }
}
