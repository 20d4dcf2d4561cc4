import Foundation
import MarbleStreams
import Replay
import Signals
import TraceLog
import Recording

/// Replaying a recorded run: the core chain built against an `Environment`, run live with
/// the recorder writing a file, then re-run in virtual time by `Replayer`.
enum ReplayBench {
    /// The core chain on the environment's input "numbers".
    static func pipeline(in environment: Environment, into sink: Sink) -> Disposable {
        environment.input("numbers", of: Int.self)
            .map { $0 &+ 1 }
            .filter { $0 & 1 == 0 }
            .map { $0 &* 3 }
            .scan(0) { $0 &+ $1 }
            .observeValues { sink.receive($0) } ?? AnyDisposable()
    }

    /// Records a live run of `inputs` values into `url`; returns the events recorded and
    /// what the sink received.
    static func recordLive(inputs: Int, to url: URL) throws -> (events: UInt64, sink: Sink) {
        let environment = LiveEnvironment()
        let sink = Sink()
        try? FileManager.default.removeItem(at: url)  // a fresh file, as a first run writes
        let recorder = try Recorder(to: url)
        recorder.start()
        let pipeline = pipeline(in: environment, into: sink)
        for value in 0..<inputs { _ = try? environment.send(value, to: "numbers") }
        environment.completeInputs()
        let summary = try recorder.stop()
        pipeline.dispose()
        return (summary.events, sink)
    }

    static func measure(events target: Int, runs: Int, directory: URL, table: inout Table) throws {
        let url = directory.appendingPathComponent("marbles-bench-replay.trace")
        defer { try? FileManager.default.removeItem(at: url) }
        // The chain records 3.5 events per input value (and one completion per stage).
        let recorded = try recordLive(inputs: target * 2 / 7, to: url)
        var loadTimes: [Double] = [], replayTimes: [Double] = [], totalTimes: [Double] = []
        var replayRates: [Double] = [], totalRates: [Double] = []
        var replayed = 0
        for _ in 0..<runs {
            var replayer: Replayer?
            let load = try seconds { replayer = try Replayer(contentsOf: url) }
            guard let replayer else { throw BenchError("replay: the trace did not load") }
            let sink = Sink()
            var result: ReplayResult?
            // The result is ready when `replay` returns: its `Trace` is built by then (only its
            // bytes are formatted later, when asked for).
            let replay = try seconds { result = try replayer.replay { pipeline(in: $0, into: sink) } }
            guard sink.checksum == recorded.sink.checksum, sink.count == recorded.sink.count else {
                throw BenchError("replay: the replayed sink got \(sink.count) values summing to \(sink.checksum), "
                    + "the live one \(recorded.sink.count) summing to \(recorded.sink.checksum)")
            }
            replayed = result?.trace.events.count ?? 0
            loadTimes.append(load)
            replayTimes.append(replay)
            totalTimes.append(load + replay)
            replayRates.append(Double(replayed) / replay)
            totalRates.append(Double(replayed) / (load + replay))
        }
        let section = "replay"
        let rate = median(totalRates)
        // The verdict is end to end, as a user replaying a file waits: load, re-run,
        // re-record, result ready. The two parts follow as its breakdown.
        table.add(Row(section: section,
                      figure: "replay end to end of a \(millions(Double(recorded.events))) event live trace: load, re-run, "
                          + "re-record, result Trace (\(millions(Double(replayed))) events)",
                      value: "\(decimal(median(totalTimes), 2)) s, \(millions(rate)) events/s",
                      target: "≥ 2 M events/s", met: rate >= 2e6))
        table.add(Row(section: section, figure: "of which loading the trace (Replayer(contentsOf:))",
                      value: "\(decimal(median(loadTimes), 2)) s"))
        table.add(Row(section: section, figure: "of which Replayer.replay (re-run, re-record, result Trace)",
                      value: "\(decimal(median(replayTimes), 2)) s, \(millions(median(replayRates))) events/s"))
    }
}

/// Loading a trace shaped like an app's rather than like the core chain's: the TwitterInstant
/// replay repeated (`MemoryBench.repeatTrace`), about half of its lines subscriptions, their
/// ends and hops, its payloads texts and JSON objects rather than integers.
enum ShapedLoad {
    static func measure(events: Int, template: URL, runs: Int, directory: URL, table: inout Table) throws {
        let url = directory.appendingPathComponent("marbles-bench-shaped-load.trace")
        defer { try? FileManager.default.removeItem(at: url) }
        let written = try MemoryBench.repeatTrace(template, to: url, events: events)
        var times: [Double] = [], rates: [Double] = []
        for _ in 0..<runs {
            var records = 0
            let time = try seconds {
                let trace = try Trace(contentsOf: url)
                records = trace.events.count + trace.subscriptions.count + trace.disposals.count + trace.hops.count
            }
            times.append(time)
            rates.append(Double(records) / time)
        }
        table.add(Row(section: "replay",
                      figure: "loading \(template.lastPathComponent) repeated to \(millions(Double(written.events))) events "
                          + "(Trace(contentsOf:); records/s counts events, subscriptions, disposals and hops)",
                      value: "\(decimal(median(times), 2)) s, \(millions(median(rates))) records/s"))
    }
}

/// A search-shaped pipeline recorded in virtual time, replayed and diffed: inputs every
/// millisecond, each starting a call answered 3 ms later, `flatMap(.latest)`, a hop to `ui`
/// (the shape of the tutorials' searches, scaled up).
enum SearchReplay {
    static func pipeline(_ environment: Environment, into sink: Sink) -> Disposable {
        let disposable = environment.input("query", of: Int.self)
            .map { $0 &* 2 }
            .flatMap(.latest) { query in
                environment.call("search") { () -> SignalProducer<Int, Never> in
                    let network = environment.scheduler("network")
                    return SignalProducer { observer, lifetime in
                        lifetime += network.schedule(after: network.currentDate.addingTimeInterval(0.003)) {
                            observer.send(value: query &+ 1)
                            observer.sendCompleted()
                        }
                    }
                }
            }
            .observe(on: environment.scheduler("ui"))
            .observeValues { sink.receive($0) }
        return AnyDisposable { disposable?.dispose() }
    }

    static func measure(queries: Int, runs: Int, table: inout Table) throws {
        let scheduler = TestScheduler()
        let environment = VirtualEnvironment(scheduler: scheduler)
        let recordedSink = Sink()
        let bytes = Recorder.record(virtual: scheduler) {
            let teardown = pipeline(environment, into: recordedSink)
            let script = scheduler.lane("script")
            for query in 0..<queries {
                script.schedule(after: Date(timeIntervalSinceReferenceDate: Double(query) / 1000)) {
                    _ = try? environment.send(query, to: "query")
                }
            }
            scheduler.run()
            teardown.dispose()
        }
        let recorded = try Trace(bytes: bytes)
        let replayer = Replayer(trace: recorded)
        var replayRates: [Double] = [], diffRates: [Double] = []
        var events = 0
        for _ in 0..<runs {
            let sink = Sink()
            var result: ReplayResult?
            let replayTime = try seconds { result = try replayer.replay { pipeline($0, into: sink) } }
            guard let result, sink.checksum == recordedSink.checksum, sink.count == recordedSink.count else {
                throw BenchError("search replay: the replayed sink got \(sink.count) values summing to \(sink.checksum), "
                    + "the recorded one \(recordedSink.count) summing to \(recordedSink.checksum)")
            }
            var diff: TraceDiff?
            let diffTime = seconds { diff = TraceDiff(recorded, result.trace) }
            guard diff?.isSame == true else { throw BenchError("search replay: the replay's trace differs from the recording") }
            events = result.trace.events.count
            replayRates.append(Double(events) / replayTime)
            diffRates.append(Double(recorded.events.count + events) / diffTime)
        }
        table.add(Row(section: "replay",
                      figure: "Replayer.replay of a virtual search trace, \(queries) queries, flatMap(.latest) "
                          + "(\(millions(Double(events))) events)",
                      value: "\(millions(median(replayRates))) events/s"))
        table.add(Row(section: "replay", figure: "TraceDiff of that recording and its replay (the same)",
                      value: "\(millions(median(diffRates))) events/s"))
    }
}
