import Foundation
import MarbleStreams
import Recording
import Replay
import Signals
import TraceLog
import XCTest

/// A replay runs each operator timer as late as the live run's ran (issue 27: "replay
/// reproduces every decision that shaped the run"). Live, a debounce's timer may run after
/// the next value has arrived, though it was due before: the value it waited for is then
/// dropped. A replay that ran the timer when it was due sent that value, and diverged.
///
/// The live run here is simulated in virtual time by a scheduler whose timers run 2 ms late,
/// recorded with `recordsTimersInVirtualTime` as a live recording records them.
final class TimerDecisionTests: XCTestCase {
    /// Runs every timer `lateness` after it is due; everything else as `base` does.
    private final class LateScheduler: DateScheduler, @unchecked Sendable {  // immutable
        let base: DateScheduler
        let lateness: TimeInterval
        init(_ base: DateScheduler, lateness: TimeInterval) {
            self.base = base
            self.lateness = lateness
        }
        var name: String { base.name }
        var currentDate: Date { base.currentDate }
        func schedule(_ action: @escaping () -> Void) -> Disposable? { base.schedule(action) }
        func schedule(after date: Date, action: @escaping () -> Void) -> Disposable? {
            base.schedule(after: date.addingTimeInterval(lateness), action: action)
        }
        func schedule(after date: Date, interval: DispatchTimeInterval, leeway: DispatchTimeInterval,
                      action: @escaping () -> Void) -> Disposable? {
            base.schedule(after: date.addingTimeInterval(lateness), interval: interval, leeway: leeway, action: action)
        }
    }

    /// A virtual-time environment and a started recorder that records operator timers as a live
    /// recording does (`recordsTimersInVirtualTime`).
    private func recordingAsLive() -> (TestScheduler, Recorder, VirtualEnvironment) {
        let scheduler = TestScheduler()
        let recorder = Recorder(clock: .virtual(scheduler))
        recorder.recordsTimersInVirtualTime = true
        recorder.start()
        return (scheduler, recorder, VirtualEnvironment(scheduler: scheduler))
    }

    /// Runs every action, even one whose disposable was disposed: as a live queue runs a timer
    /// that had already begun when the next value superseded it.
    private final class UncancellableScheduler: DateScheduler, @unchecked Sendable {  // immutable
        let base: DateScheduler
        init(_ base: DateScheduler) { self.base = base }
        var name: String { base.name }
        var currentDate: Date { base.currentDate }
        func schedule(_ action: @escaping () -> Void) -> Disposable? { base.schedule(action) }
        func schedule(after date: Date, action: @escaping () -> Void) -> Disposable? {
            _ = base.schedule(after: date, action: action)
            return nil
        }
        func schedule(after date: Date, interval: DispatchTimeInterval, leeway: DispatchTimeInterval,
                      action: @escaping () -> Void) -> Disposable? {
            _ = base.schedule(after: date, interval: interval, leeway: leeway, action: action)
            return nil
        }
    }

    /// A debounce's timer that ran after the value that superseded it (live: its action began
    /// before the value came and took the operator's lock after it) did nothing, and is
    /// recorded as a timer that never ran, so a replay lets the value cancel it (live seed
    /// 50000244: a timer that started 86 µs before the next value sent nothing, and its replay,
    /// running it then, sent the value it had waited with).
    func testASupersededTimerThatRanIsRecordedAsNeverRun() throws {
        let (scheduler, recorder, environment) = recordingAsLive()
        let seen = Seen<String>()
        let q0 = UncancellableScheduler(environment.scheduler("q0"))
        let running = SignalProducer(environment.input("text", of: Int.self)).debounce(0.006, on: q0)
            .startWithValues { seen.values.append("\($0)") }
        let driver = environment.scheduler("driver")
        // 2's timer, due at 16 ms, still runs after 3 came at 14 ms: it is superseded.
        for (at, value) in [(0.0001, 1), (0.010, 2), (0.014, 3)] {
            driver.schedule(after: driver.currentDate.addingTimeInterval(at)) { try? environment.send(value, to: "text") }
        }
        _ = scheduler.run()
        running.dispose()
        try recorder.stop()
        XCTAssertEqual(seen.values, ["1", "3"])
        let trace = try Trace(bytes: recorder.bytes, name: "superseded")
        let timers = trace.hops.filter { $0.due != nil }.sorted { $0.id < $1.id }
        XCTAssertEqual(timers.count, 3)
        XCTAssertEqual(timers.map { $0.started != nil }, [true, false, true],
                       "the superseded timer (the second) ran, did nothing, and is written as never run")
    }

    /// The user's code, recorded and replayed: a debounce of 6 ms on "q0", and a delay.
    private func pipeline(_ environment: Environment, _ q0: DateScheduler, seen: Seen<String>) -> Disposable {
        let debounced = SignalProducer(environment.input("text", of: Int.self)).debounce(0.006, on: q0)
        return debounced.delay(0.001, on: q0).start { event in
            switch event {
            case let .value(value): seen.values.append("\(value)")
            case .completed: seen.values.append("|")
            default: seen.values.append("\(event)")
            }
        }
    }

    /// Sends 1 at 0.1 ms, 2 at 10.1 ms and 3 at 16.6 ms: 2's debounce timer is due at 16.1 ms,
    /// before 3, but runs at 18.1 ms, after it, so 2 is dropped.
    private func recordLateRun(lateness: TimeInterval = 0.002) throws -> (Trace, [String]) {
        let (bytes, seen) = try recordLateRunBytes(lateness: lateness)
        return (try Trace(bytes: bytes, name: "late"), seen)
    }

    private func recordLateRunBytes(lateness: TimeInterval = 0.002) throws -> ([UInt8], [String]) {
        let (scheduler, recorder, environment) = recordingAsLive()
        let seen = Seen<String>()
        let running = pipeline(environment, LateScheduler(environment.scheduler("q0"), lateness: lateness), seen: seen)
        let driver = environment.scheduler("driver")
        for (at, value) in [(0.0001, 1), (0.0101, 2), (0.0166, 3)] {
            driver.schedule(after: driver.currentDate.addingTimeInterval(at)) { try? environment.send(value, to: "text") }
        }
        driver.schedule(after: driver.currentDate.addingTimeInterval(0.040)) { try? environment.complete("text") }
        _ = scheduler.run()
        running.dispose()
        try recorder.stop()
        return (recorder.bytes, seen.values)
    }

    func testATimerThatRanLateIsRecordedWithItsDueTime() throws {
        let (trace, live) = try recordLateRun()
        XCTAssertEqual(live, ["1", "3", "|"], "2's timer ran after 3 had come")
        let debounce = try XCTUnwrap(trace.nodes.first { $0.name == "debounce" })
        // In the order armed (a hop is written when it runs, one that never ran at the end).
        let timers = trace.hops.filter { $0.node == debounce.id && $0.due != nil }.sorted { $0.id < $1.id }
        // 1's timer: due 6.1 ms, ran 8.1 ms; 2's: due 16.1 ms, cancelled by 3; 3's: due 22.6 ms, ran 24.6 ms.
        XCTAssertEqual(timers.map(\.due), [6_100_000, 16_100_000, 22_600_000])
        XCTAssertEqual(timers.map(\.lateness), [2_000_000, nil, 2_000_000])
        // Each delayed value is a timer of the delay's.
        let delay = try XCTUnwrap(trace.nodes.first { $0.name == "delay" })
        XCTAssertEqual(trace.hops.filter { $0.node == delay.id && $0.due != nil }.count, 3, "1, 3 and the completion")
        // The due time survives both encodings, byte for byte.
        let (bytes, _) = try recordLateRunBytes()
        XCTAssertTrue(String(decoding: bytes, as: UTF8.self).contains(#""due":16100000"#))
        let binary = try TraceConversion.converted(bytes, to: .binary)
        XCTAssertEqual(try TraceConversion.converted(binary, to: .jsonLines), bytes)
        XCTAssertEqual(try Trace(bytes: binary, name: "binary").hops, trace.hops)
    }

    func testAReplayRunsEachTimerAsLateAsItRanLive() throws {
        let (trace, live) = try recordLateRun()
        let seen = Seen<String>()
        let replay = try Replayer(trace: trace).replay { self.pipeline($0, $0.scheduler("q0"), seen: seen) }
        XCTAssertEqual(seen.values, live, "2 dropped, as live: its timer runs after 3 comes")
        // The debounce's three timers and the delay's three (1, 3, the completion).
        XCTAssertEqual(replay.timersRunLate.matched, 6)
        XCTAssertEqual(replay.timersRunLate.neverRanLive, 1)
        XCTAssertEqual(replay.notes, ["6 operator timers ran as late as live (1 that never ran live, cancelled first, "
                                      + "were held past the recording's end)"])
        let diff = TraceDiff(trace, replay.trace, nameA: "live", nameB: "replay")
        XCTAssertTrue(diff.isSame, diff.text)
        // The debounce sent 3 when it did live (16.6 + 6 + 2 ms late), not when it was due.
        let debounce = try XCTUnwrap(replay.trace.nodes.first { $0.name == "debounce" })
        XCTAssertEqual(replay.trace.events.filter { $0.node == debounce.id && $0.kind == .value }.map(\.time),
                       [8_100_000, 24_600_000])
        // Deterministic.
        let again = try Replayer(trace: trace).replay { self.pipeline($0, $0.scheduler("q0"), seen: Seen<String>()) }
        XCTAssertEqual(again.bytes, replay.bytes)
    }

    func testWithoutTimerHopsEveryTimerRunsWhenDue() throws {
        // The same late run without its timer hops (as recorded before they were): the replay
        // runs 2's timer when due, before 3 comes, and sends 2; the diff shows it.
        let (bytes, _) = try recordLateRunBytes()
        let lines = String(decoding: bytes, as: UTF8.self)
            .replacingOccurrences(of: #","due":[0-9]+"#, with: "", options: .regularExpression)
        XCTAssertFalse(lines.contains("due"))
        let stripped = try Trace(bytes: Array(lines.utf8), name: "stripped")
        let seen = Seen<String>()
        let replay = try Replayer(trace: stripped).replay { self.pipeline($0, $0.scheduler("q0"), seen: seen) }
        XCTAssertEqual(seen.values, ["1", "2", "3", "|"])
        XCTAssertFalse(TraceDiff(stripped, replay.trace, nameA: "live", nameB: "replay").isSame)
    }

    func testAReplayKeepingHopWaitsRecordsWhatEachSubscriptionObserves() throws {
        // The replay's probe wraps its recorder to keep hop waits (`HopNotingProbe`); the
        // recorder's handle dropped the links it was handed (the protocol's default), so a
        // replay with `.asRecorded` had no `observes`.
        let (trace, _) = try recordLateRun()
        func links(_ hopLatency: ReplayEnvironment.HopLatency) throws -> [[UInt64]] {
            let replay = try Replayer(trace: trace, hopLatency: hopLatency)
                .replay { self.pipeline($0, $0.scheduler("q0"), seen: Seen<String>()) }
            return replay.trace.subscriptions.map { $0.observes ?? [] }
        }
        let plain = try links(.zero)
        XCTAssertFalse(plain.allSatisfy(\.isEmpty))
        XCTAssertEqual(try links(.asRecorded), plain)
    }

    /// A delay's value and its completion, due 0.5 ms apart, both run 2 ms late: the
    /// recording's lateness of the completion is then edited to 1 ms, as clock skew between
    /// the trace's clock and the scheduler's can make it read. Live, a serial queue ran the
    /// completion after the value; the replay must too, or the value is dropped.
    func testANodesTimersRunInTheOrderTheyWereArmed() throws {
        let (scheduler, recorder, environment) = recordingAsLive()
        func delayed(_ environment: Environment, _ q0: DateScheduler, seen: Seen<String>) -> Disposable {
            SignalProducer(environment.input("text", of: Int.self)).delay(0.001, on: q0).start { event in
                seen.values.append(event.value.map(String.init) ?? (event.isCompleted ? "|" : "\(event)"))
            }
        }
        let live = Seen<String>()
        let running = delayed(environment, LateScheduler(environment.scheduler("q0"), lateness: 0.002), seen: live)
        let driver = environment.scheduler("driver")
        driver.schedule(after: driver.currentDate.addingTimeInterval(0.010)) { try? environment.send(5, to: "text") }
        driver.schedule(after: driver.currentDate.addingTimeInterval(0.0105)) { try? environment.complete("text") }
        _ = scheduler.run()
        running.dispose()
        try recorder.stop()
        XCTAssertEqual(live.values, ["5", "|"])
        let text = String(decoding: recorder.bytes, as: UTF8.self)
        XCTAssertTrue(text.contains(#""due":11500000,"started":13500000"#), text)
        let skewed = try Trace(bytes: Array(text.replacingOccurrences(of: #""due":11500000,"started":13500000"#,
                                                                       with: #""due":11500000,"started":12500000"#).utf8),
                               name: "skewed")
        let seen = Seen<String>()
        _ = try Replayer(trace: skewed).replay { delayed($0, $0.scheduler("q0"), seen: seen) }
        XCTAssertEqual(seen.values, ["5", "|"], "the completion's timer runs after the value's, armed before it")
    }

    /// A retry's backoff is an operator timer too: each next attempt starts as late as it did.
    func testARetrysBackoffRunsAsLateAsItDid() throws {
        struct Boom: Error {}
        func failing(_ q0: DateScheduler) -> Disposable {
            SignalProducer<Int, Boom>(error: Boom()).retry(upTo: 2, interval: 0.010, on: q0).start { _ in }
        }
        let (scheduler, recorder, environment) = recordingAsLive()
        let running = failing(LateScheduler(environment.scheduler("q0"), lateness: 0.002))
        _ = scheduler.run()
        running.dispose()
        try recorder.stop()
        let trace = try Trace(bytes: recorder.bytes, name: "backoff")
        let retry = try XCTUnwrap(trace.nodes.first { $0.name == "retry" })
        XCTAssertEqual(trace.hops.filter { $0.node == retry.id }.map(\.lateness), [2_000_000, 2_000_000])
        let replay = try Replayer(trace: trace).replay { failing($0.scheduler("q0")) }
        // The failing producer's attempts began at 0, 12 and 24 ms, as recorded, not 0, 10, 20.
        let attempts = replay.trace.subscriptions.filter { $0.node != retry.id && $0.parent != 0 }.map(\.time)
        XCTAssertEqual(Set(attempts), [0, 12_000_000, 24_000_000])
    }

    /// A killed recording lacks the timers that never ran (a recording writes them when it
    /// stops): matched by position, the rest of their node's timers would take the wrong
    /// recorded lateness. Its timers run when due, and the replay says none ran late.
    func testACutOffRecordingsTimersRunWhenDue() throws {
        let (bytes, _) = try recordLateRunBytes()
        // As a killed process leaves it: no never-run timer hop and no summary.
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
            .filter { !$0.hasPrefix(#"{"type":"summary""#) && !($0.contains(#""due":"#) && !$0.contains(#""started":"#)) }
        XCTAssertEqual(lines.count, String(decoding: bytes, as: UTF8.self).split(separator: "\n").count - 2)
        let cut = try Trace(bytes: Array((lines.joined(separator: "\n") + "\n").utf8), name: "cut")
        XCTAssertNil(cut.summary)
        let seen = Seen<String>()
        let replay = try Replayer(trace: cut).replay { self.pipeline($0, $0.scheduler("q0"), seen: seen) }
        XCTAssertEqual(replay.timersRunLate.matched, 0)
        XCTAssertEqual(seen.values, ["1", "2", "3", "|"], "every timer when due: 2's before 3 came")
    }

    func testAVirtualRecordingHasNoTimerHops() throws {
        let scheduler = TestScheduler()
        let recorder = Recorder(clock: .virtual(scheduler))
        recorder.start()
        let environment = VirtualEnvironment(scheduler: scheduler)
        let running = pipeline(environment, environment.scheduler("q0"), seen: Seen<String>())
        let driver = environment.scheduler("driver")
        driver.schedule(after: driver.currentDate.addingTimeInterval(0.001)) { try? environment.send(1, to: "text") }
        _ = scheduler.run()
        running.dispose()
        try recorder.stop()
        XCTAssertTrue(try Trace(bytes: recorder.bytes, name: "virtual").hops.allSatisfy { $0.due == nil })
    }
}
