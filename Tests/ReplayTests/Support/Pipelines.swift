import Locks
import MarbleStreams
import MarblesTesting
import Recording
import Replay
import Signals
import TraceLog
import XCTest
import TestSupport

/// The error the test services fail with.
struct ServiceError: Swift.Error, Codable, Equatable {
    var code: Int
}

/// The environment a pipeline is recorded in, live or simulated: inputs a script sends into.
protocol ScriptableEnvironment: Environment {
    func send<Value: Codable>(_ value: Value, to label: String) throws
    func completeInputs()
}

extension LiveEnvironment: ScriptableEnvironment {}

/// The tests' virtual-time environment records the same nodes a live run has.
extension VirtualEnvironment: ScriptableEnvironment {}

/// One step of a script: after `milliseconds` from the start, do `action`.
struct Step {
    let milliseconds: Int
    let action: (ScriptableEnvironment) -> Void

    static func send<Value: Codable>(_ value: Value, to label: String, at milliseconds: Int) -> Step {
        Step(milliseconds: milliseconds) { environment in
            do { try environment.send(value, to: label) } catch { XCTFail("the script's send to \(label): \(error)") }
        }
    }

    static func complete(at milliseconds: Int) -> Step {
        Step(milliseconds: milliseconds) { $0.completeInputs() }
    }
}

/// A test pipeline written against `Environment`, with its script and the outcome its sink saw.
struct TestPipeline {
    let script: [Step]
    /// Builds the pipeline; returns its teardown and a way to wait for its end.
    let build: (Environment) -> (Disposable, waitForEnd: () -> Void)
}

enum Recording {
    /// Records `pipeline` live: real queues, a real-clock recorder, the script run on the
    /// `script` queue scheduler at its real times, the teardown recorded (as the tutorials'
    /// live runner does). Returns the trace.
    static func live(_ pipeline: TestPipeline, file: StaticString = #filePath, line: UInt = #line) throws -> Trace {
        let recorder = Recorder(clock: .real)
        recorder.start()
        let environment = LiveEnvironment()
        let (teardown, waitForEnd) = pipeline.build(environment)
        let script = environment.scheduler("script")
        let start = Date()
        for step in pipeline.script {
            script.schedule(after: start.addingTimeInterval(Double(step.milliseconds) / 1000)) {
                step.action(environment)
            }
        }
        waitForEnd()
        // The sink has its terminal event, but the queues may still be finishing the actions
        // that sent it (releasing, disposing): let each run dry so nothing of this run reaches
        // a later recording.
        for name in ["script", "network", "ui"] {
            let drained = DispatchSemaphore(value: 0)
            environment.scheduler(name).schedule { drained.signal() }
            drained.wait()
        }
        teardown.dispose()
        try recorder.stop()
        return try Trace(bytes: recorder.bytes, name: "live")
    }

    /// Records `pipeline` in virtual time on the virtual environment, its script on the
    /// `script` lane. Deterministic.
    static func simulated(_ pipeline: TestPipeline) throws -> (bytes: [UInt8], trace: Trace) {
        let scheduler = TestScheduler()
        let environment = VirtualEnvironment(scheduler: scheduler)
        let script = scheduler.lane("script")
        let bytes = Recorder.record(virtual: scheduler) {
            let teardown = pipeline.build(environment).0
            for step in pipeline.script {
                script.schedule(after: Date(timeIntervalSinceReferenceDate: Double(step.milliseconds) / 1000)) {
                    step.action(environment)
                }
            }
            scheduler.run()
            teardown.dispose()
        }
        return (bytes, try Trace(bytes: bytes, name: "simulated"))
    }
}

/// The test pipelines: each covers operators whose replay must reproduce the recording.
enum Pipelines {
    /// Search as you type: each query starts a `search` call whose latency depends on the
    /// query (one letter: 150 ms, more: 30 ms), delivered on `network`; `flatMap(.latest)`
    /// drops a slow answer overtaken by a newer query; results hop to `ui`.
    static func search(performed: Counter = Counter()) -> TestPipeline {
        TestPipeline(script: [
            .send("a", to: "query", at: 0),
            .send("ab", to: "query", at: 40),
            .send("abc", to: "query", at: 200),
            .complete(at: 330),
        ]) { environment in
            let outcome = Outcome<[String]>()
            let network = environment.scheduler("network")
            let disposable = environment.input("query", of: String.self)
                .flatMap(.latest) { query in
                    environment.call("search") { () -> SignalProducer<[String], ServiceError> in
                        performed.increment()
                        let latency = query.count == 1 ? 0.150 : 0.030
                        return SignalProducer { observer, lifetime in
                            lifetime += network.schedule(after: network.currentDate.addingTimeInterval(latency)) {
                                observer.send(value: [query + "1", query + "2"])
                                observer.sendCompleted()
                            }
                        }
                    }
                }
                .observe(on: environment.scheduler("ui"))
                .observe { outcome.observe($0) }
            return (AnyDisposable { disposable?.dispose() }, { outcome.waitForEnd() })
        }
    }

    /// Typing debounced by 50 ms on `ui`.
    static func debounce() -> TestPipeline {
        TestPipeline(script: [
            .send("h", to: "text", at: 0),
            .send("he", to: "text", at: 10),
            .send("hel", to: "text", at: 20),
            .send("hell", to: "text", at: 200),
            .complete(at: 350),
        ]) { environment in
            let outcome = Outcome<String>()
            let disposable = environment.input("text", of: String.self)
                .debounce(0.05, on: environment.scheduler("ui"))
                .observe { outcome.observe($0) }
            return (AnyDisposable { disposable?.dispose() }, { outcome.waitForEnd() })
        }
    }

    /// Taps throttled to one per 100 ms on `ui`.
    static func throttle() -> TestPipeline {
        TestPipeline(script: [
            .send(1, to: "taps", at: 0),
            .send(2, to: "taps", at: 20),
            .send(3, to: "taps", at: 40),
            .send(4, to: "taps", at: 250),
            .complete(at: 400),
        ]) { environment in
            let outcome = Outcome<Int>()
            let disposable = environment.input("taps", of: Int.self)
                .throttle(0.1, on: environment.scheduler("ui"))
                .observe { outcome.observe($0) }
            return (AnyDisposable { disposable?.dispose() }, { outcome.waitForEnd() })
        }
    }

    /// A sign-in form: user name and password combined, validated, delivered on `ui`.
    static func combineLatest() -> TestPipeline {
        TestPipeline(script: [
            .send("a", to: "user", at: 0),
            .send("x", to: "password", at: 20),
            .send("ab", to: "user", at: 40),
            .send("xyz", to: "password", at: 60),
            .complete(at: 100),
        ]) { environment in
            let outcome = Outcome<Bool>()
            let disposable = environment.input("user", of: String.self)
                .combineLatest(with: environment.input("password", of: String.self))
                .map { user, password in user.count >= 2 && password.count >= 3 }
                .observe(on: environment.scheduler("ui"))
                .observe { outcome.observe($0) }
            return (AnyDisposable { disposable?.dispose() }, { outcome.waitForEnd() })
        }
    }

    /// A fetch that fails twice (20 ms each, on `network`) and then succeeds, retried.
    static func retry(performed: Counter = Counter()) -> TestPipeline {
        TestPipeline(script: [
            .send("go", to: "button", at: 0),
            .complete(at: 150),
        ]) { environment in
            let outcome = Outcome<Int>()
            let network = environment.scheduler("network")
            let disposable = environment.input("button", of: String.self)
                .flatMap(.concat) { _ in
                    environment.call("fetch") { () -> SignalProducer<Int, ServiceError> in
                        let attempt = performed.increment()
                        return SignalProducer { observer, lifetime in
                            lifetime += network.schedule(after: network.currentDate.addingTimeInterval(0.020)) {
                                if attempt < 3 {
                                    observer.send(error: ServiceError(code: 500 + attempt))
                                } else {
                                    observer.send(value: 42)
                                    observer.sendCompleted()
                                }
                            }
                        }
                    }
                    .retry(upTo: 3)
                }
                .observe { outcome.observe($0) }
            return (AnyDisposable { disposable?.dispose() }, { outcome.waitForEnd() })
        }
    }
}

/// A thread-safe count of how often a service ran.
final class Counter: @unchecked Sendable {
    private let lock = Lock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    @discardableResult
    func increment() -> Int { lock.withLock { count += 1; return count } }
}

/// Each node's events as `kind text` strings, keyed by the node's name and call site: what
/// must agree between a recording and its replay.
func valueSequences(_ trace: Trace) -> [String: [String]] {
    var result: [String: [String]] = [:]
    for node in trace.nodes {
        let key = "\(node.name)(\(node.parameters))@\(node.file):\(node.line)"
        result[key, default: []] += trace.events(of: node.id).map { "\($0.kind) \($0.json ?? "")" }
    }
    return result
}

/// Each node's events' logical thread names, keyed like `valueSequences`.
func threadSequences(_ trace: Trace) -> [String: [String]] {
    var result: [String: [String]] = [:]
    for node in trace.nodes {
        let key = "\(node.name)(\(node.parameters))@\(node.file):\(node.line)"
        result[key, default: []] += trace.events(of: node.id).map { trace.logicalThreadName($0.thread) }
    }
    return result
}
