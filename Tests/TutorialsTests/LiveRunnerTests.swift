import Foundation
import Signals
import TraceLog
import Tutorials
import Demo
import XCTest

/// The live runner on real threads, with a scenario a few tenths of a second long. Outcomes
/// are asserted, never timings.
final class LiveRunnerTests: XCTestCase {
    /// Each text typed is echoed in capitals by a fake service on the network queue.
    private struct Echo: Scenario {
        let name = "echo"
        let title = "Echo"
        let duration: TimeInterval = 0.3
        let seed: UInt64 = 1
        let seen = Guarded<[String]>([])

        func build(in environment: Environment) -> Disposable {
            let main = environment.scheduler("main")
            let network = environment.scheduler("network")
            let service = FakeService(seed: seed)
            let disposables = CompositeDisposable()
            disposables += environment.input("text", of: String.self)
                .flatMap(.merge) { text in
                    environment.call("echo") { () -> SignalProducer<String, SignInError> in
                        service.respond(.success(text.uppercased()), after: 0.01, on: network)
                    }
                }
                .observe(on: main)
                .observeValues { value in seen.modify { $0.append(value) } }
            return disposables
        }

        func script(seed: UInt64) -> [ScriptStep] {
            [.type("a", into: "text", at: 0.02), .type("b", into: "text", at: 0.06), .type("c", into: "text", at: 0.06),
             .type("late", into: "text", at: 30)]
        }
    }

    func testALiveRunPlaysTheScriptInOrderAndRecordsARealTrace() throws {
        let scenario = Echo()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("live-runner-\(getpid()).trace")
        defer { try? FileManager.default.removeItem(at: url) }
        let played = Guarded<[String]>([])
        let summary = try LiveRunner.record(scenario, to: url) { step in played.modify { $0.append(step.description) } }

        XCTAssertEqual(played.value, ["text = \"a\"", "text = \"b\"", "text = \"c\""], "in order; the step after the run is dropped")
        XCTAssertEqual(scenario.seen.value.sorted(), ["A", "B", "C"])
        let trace = try Trace(contentsOf: url)
        XCTAssertEqual(trace.header.clock, .real)
        XCTAssertEqual(trace.marks.map(\.label), played.value)
        let input = try XCTUnwrap(trace.nodes.first { $0.name == "input" && $0.label == "text" })
        XCTAssertEqual(trace.events(of: input.id).map(\.kind), [.value, .value, .value, .completed],
                       "the inputs complete when the run ends")
        XCTAssertEqual(trace.events(of: input.id).compactMap(\.text), ["a", "b", "c"])
        XCTAssertEqual(summary.marks, 3)
        XCTAssertGreaterThan(trace.hops.count, 0, "observe(on: main) hops from the network queue")

        let replay = try Figures.replay(scenario, from: trace, name: url.path)
        let diff = Figures.agreement(of: trace, and: replay.trace, recordingName: "live", replayName: "replay")
        XCTAssertTrue(diff.isSame, diff.text)
    }
}
