import Foundation
import Recording
import MarbleStreams
import Replay
import Signals
import TraceLog
import TestSupport
import XCTest

/// The sensor dashboard of issue 11: temperature readings summed (`scan`), combined with the
/// humidity (`combineLatest`), formatted (`map`), sampled by a refresh timer taken from the
/// environment (`sample(on:)`), repeats dropped (`skipRepeats`), delivered on `ui`. When the
/// screen closes the readings complete and the timer stops (`take(until:)`), so the dashboard
/// completes: a run that ends by completing ends the same way live and replayed.
enum SensorDashboard {
    /// Readings sent on the `sensor` scheduler, the refresh timer's own queue: (milliseconds,
    /// input, value). On one serial queue a reading and a tick run one after the other, and
    /// their recorded times say in which order, however late a loaded machine runs them; sent
    /// from another queue, a reading that ran late could reach `sample(on:)` after a tick it
    /// was stamped before, and the replay (which follows the stamps) would disagree.
    static let readings: [(Int, String, Int)] = [
        (20, "temperature", 213), (40, "humidity", 40), (60, "temperature", 215),
        (130, "temperature", 214), (240, "humidity", 42), (330, "temperature", 216),
        (350, "temperature", 216), (440, "humidity", 41), (560, "temperature", 217),
    ]
    /// When the screen closes, in milliseconds: after the last reading and two more ticks.
    static let close = 770

    /// With `operatorTimer`, the refresh timer is `SignalProducer.timer` on the environment's
    /// scheduler rather than the environment's own labelled timer.
    static func build(_ environment: Environment, shown: Outcome<String>, operatorTimer: Bool = false) -> Disposable {
        let temperature = environment.input("temperature", of: Int.self)
            .scan((sum: 0, count: 0)) { ($0.sum + $1, $0.count + 1) }
        let humidity = environment.input("humidity", of: Int.self)
        let dashboard = temperature.combineLatest(with: humidity)
            .map { total, humidity in
                "\(Double(total.sum / total.count) / 10)°C \(humidity)% n=\(total.count)"
            }
        let close = environment.input("close", of: Bool.self).map { _ in () }
        let sensor = environment.scheduler("sensor")
        let ticks = operatorTimer
            ? SignalProducer<Date, Never>.timer(interval: .milliseconds(100), on: sensor)
            : environment.timer("refresh", every: 0.1, on: sensor)
        let refresh = ticks
            .take(until: close)
            .map { _ in () }
        return SignalProducer(dashboard)
            .sample(on: refresh)
            .skipRepeats()
            .observe(on: environment.scheduler("ui"))
            .start { shown.observe($0) }
    }
}

final class TimerReplayTests: XCTestCase {
    /// Two ticks counted and a one-shot, recorded in virtual time.
    private func ticking(_ environment: Environment, seen: Seen<String>) -> Disposable {
        let lane = environment.scheduler("clock")
        let periodic = environment.timer("tick", every: 0.25, on: lane)
            .take(first: 3)
            .startWithValues { seen.values.append("tick \($0.timeIntervalSinceReferenceDate)") }
        let once = environment.timer("once", after: 0.4, on: lane)
            .start { event in
                if case let .value(date) = event { seen.values.append("once \(date.timeIntervalSinceReferenceDate)") }
                if case .completed = event { seen.terminals.append("once completed") }
            }
        return AnyDisposable {
            periodic.dispose()
            once.dispose()
        }
    }

    func testATimerIsRecordedAsALabelledSourceAndReplayedAtItsRecordedTicks() throws {
        let scheduler = TestScheduler()
        let environment = VirtualEnvironment(scheduler: scheduler)
        let recordedSeen = Seen<String>()
        let bytes = Recorder.record(virtual: scheduler) {
            let pipeline = ticking(environment, seen: recordedSeen)
            scheduler.advance(by: 1)
            pipeline.dispose()
        }
        let recorded = try Trace(bytes: bytes, name: "ticks")
        XCTAssertEqual(recordedSeen.values, ["tick 0.25", "once 0.4", "tick 0.5", "tick 0.75"])
        let timers = recorded.nodes.filter { $0.name == "timer" }
        XCTAssertEqual(timers.map(\.label), ["tick", "once"])

        let replayedSeen = Seen<String>()
        let replay = try Replayer(trace: recorded).replay { self.ticking($0, seen: replayedSeen) }
        XCTAssertEqual(replayedSeen.values, recordedSeen.values)
        XCTAssertEqual(replayedSeen.terminals, ["once completed"])
        let ticks = replay.trace.events.filter { replay.trace.node($0.node)?.label == "tick" && $0.kind == .value }
        XCTAssertEqual(ticks.map(\.time), [250_000_000, 500_000_000, 750_000_000])
        XCTAssertTrue(TraceDiff(recorded, replay.trace).isSame, TraceDiff(recorded, replay.trace).text)
    }

    func testReplayedTicksAreTheRecordedDatesNotTheReplaysClock() throws {
        // Ticks recorded at 0.3 s and 0.55 s with the dates a wall clock gave them.
        let trace = try craftedTrace([
            #"{"type":"thread","id":1,"name":"sensor"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"timer","parameters":"refresh","file":"App/Dash.swift","line":9,"label":"refresh","upstream":[]}"#,
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":1000,"thread":1}"#,
            #"{"type":"event","seq":1,"time":300000000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"d1","json":785000000.5}"#,
            #"{"type":"event","seq":2,"time":550000000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"d2","json":785000000.75}"#,
        ])
        let seen = Seen<Double>()
        let replay = try Replayer(trace: trace).replay { environment in
            environment.timer("refresh", every: 0.1, on: environment.scheduler("sensor"))
                .startWithValues { seen.values.append($0.timeIntervalSinceReferenceDate) }
        }
        XCTAssertEqual(seen.values, [785000000.5, 785000000.75])
        let ticks = replay.trace.events.filter { $0.kind == .value }
        XCTAssertEqual(ticks.map(\.time), [300_000_000, 550_000_000])
        XCTAssertEqual(Set(ticks.map { replay.trace.logicalThreadName($0.thread) }), ["sensor"])
    }

    func testATimerTheTraceLacksAndAnExtraStartAreErrors() throws {
        let trace = try craftedTrace([
            #"{"type":"thread","id":1,"name":"sensor"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"timer","parameters":"refresh","file":"App/Dash.swift","line":9,"label":"refresh","upstream":[]}"#,
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
        ])
        XCTAssertThrowsError(try Replayer(trace: trace).replay { environment in
            environment.timer("poll", every: 1, on: environment.scheduler("sensor")).startWithValues { _ in }
        }) { error in
            XCTAssertEqual((error as? ReplayError)?.kind, .missingTimer)
            XCTAssertTrue("\(error)".contains("expected a timer labelled \"poll\""), "\(error)")
        }
        assertASecondStartIsAnError(trace, expecting: "2nd time") { environment in
            environment.timer("refresh", every: 1, on: environment.scheduler("sensor"))
        }
    }

    /// Recorded live on real threads (readings from one queue, ticks on another, delivery on
    /// a third), the dashboard replays in agreement: the diff finds the same values in the
    /// same order at every node, times within the live run's jitter.
    func testATimerSampledDashboardRecordedLiveReplaysInAgreement() throws {
        try recordLiveAndReplay(operatorTimer: false)
    }

    /// The same with the timer made by `SignalProducer.timer` on the environment's scheduler:
    /// its live ticks run late by the machine's jitter, and the replay re-sends them as
    /// recorded rather than at exact multiples of 100 ms (which the diff would show as time
    /// shifts, and which could reorder a tick and a reading).
    func testADashboardSampledByAnOperatorTimerRecordedLiveReplaysInAgreement() throws {
        try recordLiveAndReplay(operatorTimer: true)
    }

    /// A start of `SignalProducer.timer` on a replay's scheduler gets its recorded ticks,
    /// dates and times; the timer moved to another line of its file is still found; a timer
    /// the trace lacks runs on the lane; more starts than recorded are an error.
    func testAnOperatorTimerOnAReplaySchedulerReSendsItsRecordedTicks() throws {
        let trace = try craftedTrace([
            #"{"type":"thread","id":1,"name":"sensor"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"timer","parameters":"0.1s, on: sensor","file":"ReplayTests/TimerReplayTests.swift","line":1,"upstream":[]}"#,
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"event","seq":1,"time":103000000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"d1","json":785000000.5}"#,
            #"{"type":"event","seq":2,"time":207000000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"d2","json":785000000.75}"#,
        ])
        let recorded = Seen<Double>()
        let computed = Seen<Double>()
        let replay = try Replayer(trace: trace).replay { environment in
            let sensor = environment.scheduler("sensor")
            let ticks = SignalProducer<Date, Never>.timer(interval: .milliseconds(100), on: sensor)
                .take(first: 2)
                .startWithValues { recorded.values.append($0.timeIntervalSinceReferenceDate) }
            // Not in the trace (added since): it runs on the lane, at exact multiples (within the
            // replay, which runs to the trace's last event).
            let added = SignalProducer<Date, Never>.timer(interval: .milliseconds(150), on: sensor)
                .take(first: 1)
                .startWithValues { computed.values.append($0.timeIntervalSinceReferenceDate) }
            return AnyDisposable {
                ticks.dispose()
                added.dispose()
            }
        }
        XCTAssertEqual(recorded.values, [785000000.5, 785000000.75])
        XCTAssertEqual(computed.values.count, 1)
        let timers = replay.trace.nodes.filter { $0.name == "timer" }
        let times = timers.map { timer in replay.trace.events.filter { $0.node == timer.id && $0.kind == .value }.map(\.time) }
        XCTAssertEqual(times, [[103_000_000, 207_000_000], [150_000_000]])

        assertASecondStartIsAnError(trace, expecting: "expected at most 1 starts of this timer, as recorded; the pipeline starts it a 2nd time") {
            SignalProducer<Date, Never>.timer(interval: .milliseconds(100), on: $0.scheduler("sensor"))
        }
    }

    /// A timer whose code moved to another file since the recording (a function extracted
    /// into a file of its own) is found when it is the recording's only timer of its interval;
    /// with two such timers in other files neither is taken, and the timer runs on the lane.
    func testAnOperatorTimerMovedToAnotherFileIsStillFoundWhenItIsTheOnlyOne() throws {
        let recordedIn = { (files: [String]) in
            try craftedTrace([#"{"type":"thread","id":1,"name":"sensor"}"#] + files.enumerated().flatMap { index, file in [
                #"{"type":"node","id":\#(index + 1),"kind":"source","name":"timer","parameters":"0.1s, on: sensor","file":"\#(file)","line":7,"upstream":[]}"#,
                #"{"type":"subscribe","id":\#(index + 1),"node":\#(index + 1),"parent":0,"time":0,"thread":1}"#,
            ] } + [
                #"{"type":"event","seq":1,"time":103000000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"d1","json":785000000.5}"#,
            ])
        }
        func replayedTicks(_ trace: Trace) throws -> [Double] {
            let seen = Seen<Double>()
            _ = try Replayer(trace: trace).replay { environment in
                SignalProducer<Date, Never>.timer(interval: .milliseconds(100), on: environment.scheduler("sensor"))
                    .take(first: 1)
                    .startWithValues { seen.values.append($0.timeIntervalSinceReferenceDate) }
            }
            return seen.values
        }
        XCTAssertEqual(try replayedTicks(recordedIn(["App/Dashboard.swift"])), [785000000.5])
        let ambiguous = try replayedTicks(recordedIn(["App/Dashboard.swift", "App/Settings.swift"]))
        XCTAssertEqual(ambiguous.count, 1)
        XCTAssertNotEqual(ambiguous, [785000000.5], "two candidates in other files: neither is taken")
    }

    /// `take(until:)` makes its source's start before its trigger's but begins the trigger
    /// first. With one boundary as both, recorded in virtual time, the trigger's answer comes
    /// first and ends the stream before the source sends anything. The replay pairs each start
    /// with the recorded subscription made in the same order, so each start gets its own
    /// recorded events: the stream ends the same way. Covered for an environment timer, an
    /// operator timer and a call.
    func testABoundaryThatIsItsOwnTakeUntilTriggerReplaysEachStartsOwnEvents() throws {
        let boundaries: [(String, (Environment) -> SignalProducer<Int, Never>)] = [
            ("environment timer", { $0.timer("tick", every: 0.25, on: $0.scheduler("clock")).map { _ in 1 } }),
            ("operator timer", { SignalProducer<Date, Never>.timer(interval: .milliseconds(250), on: $0.scheduler("clock")).map { _ in 1 } }),
            ("call", { environment in
                let clock = environment.scheduler("clock")
                return environment.call("ping") { () -> SignalProducer<Int, ServiceError> in
                    SignalProducer { observer, lifetime in
                        lifetime += clock.schedule(after: clock.currentDate.addingTimeInterval(0.25)) {
                            observer.send(value: 1)
                            observer.sendCompleted()
                        }
                    }
                }
                .flatMapError { _ in SignalProducer<Int, Never>.empty }
            }),
        ]
        for (name, boundary) in boundaries {
            func build(_ environment: Environment, seen: Seen<Int>) -> Disposable {
                let answers = boundary(environment)
                return answers.take(until: answers.map { _ in () }).start { event in
                    switch event {
                    case let .value(value): seen.values.append(value)
                    default: seen.terminals.append("\(event.kind)")
                    }
                }
            }
            let scheduler = TestScheduler()
            let environment = VirtualEnvironment(scheduler: scheduler)
            let recordedSeen = Seen<Int>()
            let bytes = Recorder.record(virtual: scheduler) {
                let pipeline = build(environment, seen: recordedSeen)
                scheduler.advance(by: 1)
                pipeline.dispose()
            }
            let recorded = try Trace(bytes: bytes, name: name)
            XCTAssertEqual(recordedSeen.values, [], name)
            XCTAssertEqual(recordedSeen.terminals, ["completed"], name)

            let replayedSeen = Seen<Int>()
            let replay = try Replayer(trace: recorded).replay { build($0, seen: replayedSeen) }
            XCTAssertEqual(replayedSeen.values, [], name)
            XCTAssertEqual(replayedSeen.terminals, ["completed"], name)
            let diff = TraceDiff(recorded, replay.trace)
            XCTAssertTrue(diff.isSame, "\(name): \(diff.text)")
        }
    }

    /// Replaying `trace` with the timer `make` gives started twice is an `extraTimer` error
    /// whose text contains `expected`.
    private func assertASecondStartIsAnError(_ trace: Trace, expecting expected: String,
                                             file: StaticString = #filePath, line: UInt = #line,
                                             _ make: @escaping (Environment) -> SignalProducer<Date, Never>) {
        XCTAssertThrowsError(try Replayer(trace: trace).replay { environment in
            let timer = make(environment)
            let first = timer.startWithValues { _ in }
            let second = timer.startWithValues { _ in }
            return AnyDisposable {
                first.dispose()
                second.dispose()
            }
        }, file: file, line: line) { error in
            XCTAssertEqual((error as? ReplayError)?.kind, .extraTimer, file: file, line: line)
            XCTAssertTrue("\(error)".contains(expected), "\(error)", file: file, line: line)
        }
    }

    private func recordLiveAndReplay(operatorTimer: Bool) throws {
        let recorder = Recorder(clock: .real)
        recorder.start()
        let environment = LiveEnvironment()
        let liveShown = Outcome<String>()
        let pipeline = SensorDashboard.build(environment, shown: liveShown, operatorTimer: operatorTimer)
        let sensor = environment.scheduler("sensor")
        let start = Date()
        for (milliseconds, input, value) in SensorDashboard.readings {
            sensor.schedule(after: start.addingTimeInterval(Double(milliseconds) / 1000)) {
                do { try environment.send(value, to: input) } catch { XCTFail("\(error)") }
            }
        }
        sensor.schedule(after: start.addingTimeInterval(Double(SensorDashboard.close) / 1000)) {
            do { try environment.send(true, to: "close") } catch { XCTFail("\(error)") }
            environment.completeInputs()
        }
        liveShown.waitForEnd()
        // Let the queues run dry so nothing of this run lands after the recording stops.
        for name in ["sensor", "ui"] {
            let drained = DispatchSemaphore(value: 0)
            environment.scheduler(name).schedule { drained.signal() }
            drained.wait()
        }
        pipeline.dispose()
        try recorder.stop()
        let live = try Trace(bytes: recorder.bytes, name: "live")

        let replayShown = Outcome<String>()
        let replay = try Replayer(trace: live).replay { SensorDashboard.build($0, shown: replayShown, operatorTimer: operatorTimer) }
        XCTAssertFalse(liveShown.values.isEmpty)
        XCTAssertEqual(liveShown.terminal, "completed")
        XCTAssertEqual(replayShown.values, liveShown.values)
        XCTAssertEqual(replayShown.terminal, "completed")
        let diff = TraceDiff(live, replay.trace, nameA: "live", nameB: "replay")
        XCTAssertTrue(diff.isSame, diff.text)
        let ticks = live.events.filter { live.node($0.node)?.name == "timer" && $0.kind == .value }
        XCTAssertGreaterThanOrEqual(ticks.count, 5)
    }
}
