import Foundation
import MarblesTesting
import XCTest

// The DocC guide "Your first recorded pipeline" (Sources/Replay/Replay.docc/
// YourFirstRecordedPipeline.md), compiled here with the imports a user writes: each block
// between `// BEGIN GUIDE n` and `// END GUIDE n` is one of the guide's Swift blocks, line for
// line (`testTheGuideShowsTheseBlocksLineForLine`). The guide's trace, traces/thermostat.trace,
// and the `stats` output it shows come from this code run in virtual time
// (`testTheGuidesTraceAndOutputComeFromItsCode`); its golden test (block 3) runs here against
// that trace and traces/thermostat.replay.trace; `make figures` draws its figures from the
// trace and `make docs` checks they are current.

// BEGIN GUIDE 1
import Marbles

/// What the sensor service answers.
struct Reading: Codable, Equatable {
    var celsius: Double
}

/// The sensor service's failure: `Codable`, as every call's error must be, so that a replay
/// can give it back.
struct SensorError: Error, Codable {}

/// A thermostat: every second it asks the sensor for a reading (six times), and says whether
/// to heat, for the target temperature the user set.
func thermostat(in environment: Environment) -> SignalProducer<String, Never> {
    let main = environment.scheduler("main")
    let network = environment.scheduler("network")
    let readings = environment.timer("tick", every: 1, on: main)
        .take(first: 6)
        .flatMap(.latest) { _ in
            environment.call("sensor") { () -> SignalProducer<Reading, SensorError> in
                SignalProducer { observer, lifetime in     // the service: answers in 0.5 s
                    lifetime += network.schedule(after: network.currentDate.addingTimeInterval(0.5)) {
                        observer.send(value: Reading(celsius: 19.5))
                        observer.sendCompleted()
                    }
                }
            }
            .flatMapError { _ in SignalProducer<Reading, Never>.empty }
        }
    return SignalProducer(environment.input("target", of: Double.self))
        .combineLatest(with: readings)
        .map { target, reading in reading.celsius < target ? "heat" : "idle" }
        .skipRepeats()
        .observe(on: main)
}
// END GUIDE 1

private func guideRecordLive() throws { // not in the guide
// BEGIN GUIDE 2
let live = LiveEnvironment()
try Recorder.record(to: URL(fileURLWithPath: "traces/thermostat.trace")) {
    let running = thermostat(in: live).startWithValues { print($0) }
    try live.send(21.0, to: "target")       // the user sets 21 °C
    MainLoop.run(until: { false }, timeout: 3.5)
    try live.send(19.0, to: "target")       // then 19 °C
    MainLoop.run(until: { false }, timeout: 3.5)
    live.completeInputs()
    running.dispose()
}
// END GUIDE 2
} // not in the guide

// BEGIN GUIDE 3
final class ThermostatTests: XCTestCase {
    func testTheThermostatReplaysAsRecorded() throws {
        let replay = try Replayer(contentsOf: URL(fileURLWithPath: "traces/thermostat.trace"))
            .replay { environment in thermostat(in: environment).start() }
        assertTrace(replay, matchesGolden: "thermostat.replay.trace")
    }
// END GUIDE 3

// BEGIN GUIDE 4
    func testTheThermostatHeatsUntilTheTargetIsBelowTheReading() {
        expectMarbles(inputs: ["target": "-a------b-|"], calls: ["sensor": "-r|"],
                      inputValues: ["a": 21.0, "b": 19.0, "r": Reading(celsius: 19.5)], frame: 0.5,
                      { environment in thermostat(in: environment) },
                      "---h----i-----|", values: ["h": "heat", "i": "idle"])
    }
}
// END GUIDE 4

final class FirstPipelineGuideTests: XCTestCase {
    private let top = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    private var guide: URL { top.appendingPathComponent("Sources/Replay/Replay.docc/YourFirstRecordedPipeline.md") }
    /// The guide's trace, recorded from its code in virtual time.
    private var guideTrace: URL { top.appendingPathComponent("traces/thermostat.trace") }

    /// The guide's fenced blocks of `language`, in order.
    private func blocks(_ language: String) throws -> [[String]] {
        try FencedBlocks.blocks(in: guide, language: language)
    }

    /// This file's lines between `// BEGIN GUIDE n` and `// END GUIDE n`, without the lines
    /// marked "// not in the guide".
    private func compiledBlock(_ number: Int) throws -> [String] {
        try FencedBlocks.marked(number, tag: "GUIDE", skipping: "// not in the guide", in: #filePath)
    }

    func testTheGuideShowsTheseBlocksLineForLine() throws {
        let shown = try blocks("swift")
        for number in 1...4 {
            let compiled = try compiledBlock(number)
            XCTAssertFalse(compiled.isEmpty)
            XCTAssertTrue(shown.contains(compiled), "the guide's Swift block \(number) is not what FirstPipelineGuideTests.swift "
                + "compiles; change both together:\n\(compiled.joined(separator: "\n"))")
        }
    }

    /// The guide's recording, in virtual time: the live script's sends at the same times.
    static func simulatedRecording() -> [UInt8] {
        let scheduler = TestScheduler()
        let environment = VirtualEnvironment(scheduler: scheduler)
        let script = scheduler.lane("script")
        return Recorder.record(virtual: scheduler) {
            let running = thermostat(in: environment).startWithValues { _ in }
            script.schedule(after: Date(timeIntervalSinceReferenceDate: 0.5)) { try? environment.send(21.0, to: "target") }
            script.schedule(after: Date(timeIntervalSinceReferenceDate: 4)) { try? environment.send(19.0, to: "target") }
            script.schedule(after: Date(timeIntervalSinceReferenceDate: 7.5)) { environment.completeInputs() }
            scheduler.run()
            running.dispose()
        }
    }

    /// The guide's trace is what its code records (MARBLES_RECORD=1 writes it, as
    /// `make figures` does), and the `stats` output it shows is what `marbles stats` prints
    /// for that trace.
    func testTheGuidesTraceAndOutputComeFromItsCode() throws {
        let bytes = Self.simulatedRecording()
        XCTAssertEqual(bytes, Self.simulatedRecording(), "byte-identical run to run")
        if ProcessInfo.processInfo.environment["MARBLES_RECORD"] == "1" {
            try Data(bytes).write(to: guideTrace)
        }
        let committed = try [UInt8](Data(contentsOf: guideTrace))
        XCTAssertEqual(committed, bytes, "\(guideTrace.path) is not what the guide's code records; run `make figures`")
        let stats = try TraceStats.compute(try TraceReader(bytes: bytes, name: "traces/thermostat.trace"))
        let shown = try blocks("text").first { $0.first?.hasPrefix("traces/thermostat.trace: ") == true }
        XCTAssertEqual(shown?.joined(separator: "\n"), stats.text.trimmingCharacters(in: .newlines),
                       "the guide's stats output is not what marbles stats prints now:\n\(stats.text)")
    }

    func testTheLiveRecordingIsNotRunHere() {
        // Compiled only: it takes seven seconds of real time and writes into the working folder.
        _ = guideRecordLive as () throws -> Void
    }
}
