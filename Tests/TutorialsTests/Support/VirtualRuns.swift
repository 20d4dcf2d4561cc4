import Foundation
import MarbleStreams
import Recording
import Signals
import TraceLog
import Tutorials
import XCTest

/// The scripts of the scenarios send into the virtual environment's inputs as into a live one.
extension VirtualEnvironment: ScriptTarget {}

extension VirtualEnvironment {
    /// Plays `script` at its virtual times and runs the clock to `duration` seconds.
    func play(_ script: [ScriptStep], until duration: TimeInterval) {
        for step in script {
            scheduler.schedule(atNanoseconds: Self.nanoseconds(step.at)) {
                do { try step.perform(self) } catch { XCTFail("step at \(step.at) s: \(step.description): \(error)") }
            }
        }
        scheduler.advance(toNanoseconds: Self.nanoseconds(duration))
    }

    static func nanoseconds(_ seconds: TimeInterval) -> Int64 { Int64((seconds * 1e9).rounded()) }
}

/// Runs `scenario`'s own script in virtual time on `build`'s pipeline, recording a virtual
/// trace; returns the environment (for its calls) and the trace.
func runVirtually(_ scenario: Scenario, script: [ScriptStep]? = nil,
                  build: (VirtualEnvironment) -> Disposable) throws -> (environment: VirtualEnvironment, trace: Trace) {
    let environment = VirtualEnvironment()
    var pipeline: Disposable?
    let bytes = Recorder.record(virtual: environment.scheduler) {
        pipeline = build(environment)
        environment.play(script ?? scenario.script(), until: scenario.duration)
    }
    pipeline?.dispose()
    return (environment, try Trace(bytes: bytes, name: scenario.name))
}

extension Trace {
    /// The display texts of the value events of the node labelled `label`.
    func values(of label: String) -> [String] {
        guard let node = nodes.first(where: { $0.label == label }) else { return [] }
        return events(of: node.id).filter { $0.kind == .value }.compactMap(\.text)
    }

    /// The events of the node labelled `label`, by kind.
    func kinds(of label: String) -> [EventKind] {
        guard let node = nodes.first(where: { $0.label == label }) else { return [] }
        return events(of: node.id).map(\.kind)
    }
}
