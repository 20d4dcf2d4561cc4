import Foundation
import Signals
import TraceLog
import Recording
import Tutorials

/// A scenario's world in virtual time: inputs are pipes the script sends into, every
/// scheduler is a lane of one `TestScheduler`, and calls run the fake services, whose latency
/// is virtual too. What a live run does, minus the threads and the clock.
final class VirtualEnvironment: Environment, ScriptTarget, @unchecked Sendable {
    let scheduler = TestScheduler()
    private var inputs: [String: (signal: AnyObject, observer: AnyObject)] = [:]
    /// Every call started, by label, in order.
    private(set) var calls: [String] = []

    func input<Value: Codable>(_ label: String, of type: Value.Type, file: StaticString, line: UInt) -> Signal<Value, Never> {
        if let existing = inputs[label]?.signal as? Signal<Value, Never> { return existing }
        let (signal, observer) = Signal<Value, Never>.pipe(named: label, file: file, line: line)
        inputs[label] = (signal, observer)
        return signal
    }

    func scheduler(_ name: String) -> DateScheduler { scheduler.lane(name) }

    func call<Value: Codable, Failure: Swift.Error & Codable>(
        _ label: String, file: StaticString, line: UInt,
        _ perform: @escaping () -> SignalProducer<Value, Failure>
    ) -> SignalProducer<Value, Failure> {
        SignalProducer { observer, lifetime in
            self.calls.append(label)
            lifetime += perform().start(observer)
        }
    }

    @discardableResult
    func send<Value: Codable>(_ value: Value, to label: String) -> Bool {
        guard let observer = inputs[label]?.observer as? Signals.Observer<Value, Never> else { return false }
        observer.send(value: value)
        return true
    }

    /// Plays `script` at its virtual times and runs the clock to `duration` seconds.
    func play(_ script: [ScriptStep], until duration: TimeInterval) {
        for step in script {
            scheduler.schedule(atNanoseconds: Self.nanoseconds(step.at)) { step.perform(self) }
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
