import Foundation
import MarbleStreams
import Replay
import Signals
import TraceLog
import Recording

/// Replay throughput (recorded events re-driven and re-recorded per second) and diff
/// throughput, on a search-like pipeline recorded in virtual time.
enum ReplayBenchmarks {
    static func run() {
        print("== Replay and diff (the benchmark thread's CPU time, best of 3)")
        for queries in [2_000, 20_000] {
            measure(queries: queries)
        }
        print("")
    }

    /// Inputs every 1 ms, each starting a call answered 3 ms later, flatMap(.latest), a hop to
    /// `ui`: the shape of the tutorials' searches, scaled up.
    static func pipeline(_ environment: Environment) -> Disposable {
        let disposable = environment.input("query", of: Int.self)
            .map { $0 * 2 }
            .flatMap(.latest) { query in
                environment.call("search") { () -> SignalProducer<Int, Never> in
                    let network = environment.scheduler("network")
                    return SignalProducer { observer, lifetime in
                        lifetime += network.schedule(after: network.currentDate.addingTimeInterval(0.003)) {
                            observer.send(value: query + 1)
                            observer.sendCompleted()
                        }
                    }
                }
            }
            .observe(on: environment.scheduler("ui"))
            .observeValues { TraceLogBenchmarks.blackHole($0) }
        return AnyDisposable { disposable?.dispose() }
    }

    static func measure(queries: Int) {
        let scheduler = TestScheduler()
        let environment = VirtualEnvironment(scheduler: scheduler)
        let bytes = Recorder.record(virtual: scheduler) {
            let teardown = pipeline(environment)
            let script = scheduler.lane("script")
            for query in 0..<queries {
                script.schedule(after: Date(timeIntervalSinceReferenceDate: Double(query) / 1000)) {
                    environment.send(query, to: "query")
                }
            }
            scheduler.run()
            teardown.dispose()
        }
        guard let recorded = try? Trace(bytes: bytes) else { return print("  the recording did not read back") }
        let replayer = Replayer(trace: recorded)
        var result: ReplayResult?
        let replayTime = TraceLogBenchmarks.best(3) { result = try? replayer.replay(pipeline) }
        guard let result else { return print("  the replay failed") }
        let events = result.trace.events.count
        var diff: TraceDiff?
        let diffTime = TraceLogBenchmarks.best(3) { diff = TraceDiff(recorded, result.trace) }
        let same = diff?.isSame == true ? "same" : "DIFFERENT"
        print("  \(queries) queries: \(events) events replayed at "
              + "\(TraceLogBenchmarks.fixed(Double(events) / (Double(replayTime) / 1e9), 0)) events/s "
              + "(\(TraceLogBenchmarks.fixed(Double(replayTime) / 1e6)) ms, trace \(result.bytes.count / 1024) KiB); "
              + "diff \(TraceLogBenchmarks.fixed(Double(recorded.events.count + events) / (Double(diffTime) / 1e9), 0)) "
              + "events/s (\(same))")
    }
}
