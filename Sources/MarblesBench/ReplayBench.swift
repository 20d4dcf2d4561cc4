import Foundation
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
        let recorder = try Recorder(to: url)
        recorder.start()
        let pipeline = pipeline(in: environment, into: sink)
        for value in 0..<inputs { environment.send(value, to: "numbers") }
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
        var loadTimes: [Double] = [], replayTimes: [Double] = [], rates: [Double] = []
        var replayed = 0
        for _ in 0..<runs {
            var replayer: Replayer?
            let load = try seconds { replayer = try Replayer(contentsOf: url) }
            guard let replayer else { throw BenchError("replay: the trace did not load") }
            let sink = Sink()
            var result: ReplayResult?
            let replay = try seconds { result = try replayer.replay { pipeline(in: $0, into: sink) } }
            guard sink.checksum == recorded.sink.checksum, sink.count == recorded.sink.count else {
                throw BenchError("replay: the replayed sink got \(sink.count) values summing to \(sink.checksum), "
                    + "the live one \(recorded.sink.count) summing to \(recorded.sink.checksum)")
            }
            replayed = result?.trace.events.count ?? 0
            loadTimes.append(load)
            replayTimes.append(replay)
            rates.append(Double(replayed) / replay)
        }
        let section = "replay"
        let rate = median(rates)
        table.add(Row(section: section,
                      figure: "Replayer.replay of a \(millions(Double(recorded.events))) event live trace "
                          + "(\(millions(Double(replayed))) events replayed and re-recorded)",
                      value: "\(decimal(median(replayTimes), 2)) s, \(millions(rate)) events/s",
                      target: "≥ 2 M events/s", met: rate >= 2e6))
        table.add(Row(section: section, figure: "loading that trace (Replayer(contentsOf:))",
                      value: "\(decimal(median(loadTimes), 2)) s"))
    }
}
