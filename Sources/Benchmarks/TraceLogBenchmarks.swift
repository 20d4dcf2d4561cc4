import Foundation
import Signals
import TraceLog
import Recording

/// Recording overhead per event per operator, trace write and read throughput, and the
/// memory a streaming summary of a large trace needs.
enum TraceLogBenchmarks {
    static func run() {
        print("== Trace log (times are the benchmark thread's CPU time, best of several rounds)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("marbles-bench-\(getpid())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        recordingOverhead(in: directory)
        writerThroughput(in: directory)
        readThroughput(in: directory)
        print("")
    }

    /// This thread's CPU time: on a machine shared with other work it varies far less than
    /// the wall clock (every measured section runs on the calling thread).
    static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    /// Best of `rounds` timings of `body`, in nanoseconds.
    static func best(_ rounds: Int = 5, _ body: () -> Void) -> Int64 {
        var best = Int64.max
        for _ in 0..<rounds {
            let start = now()
            body()
            best = min(best, now() - start)
        }
        return best
    }

    static func fixed(_ value: Double, _ digits: Int = 1) -> String {
        String(format: "%.\(digits)f", value)
    }

    /// A pipe followed by `operators` maps, observed; `events` values sent.
    static func pipeline(operators: Int, events: Int) -> () -> Void {
        {
            let (signal, input) = Signal<Int, Never>.pipe()
            var tail = signal
            for _ in 0..<operators { tail = tail.map { $0 &+ 1 } }
            var sum = 0
            tail.observeValues { sum &+= $0 }
            for value in 0..<events { input.send(value: value) }
            input.sendCompleted()
            blackHole(sum)
        }
    }

    static func recordingOverhead(in directory: URL) {
        let events = 200_000
        print("recording overhead (pipe + N × map, \(events) values; each stage sends one event per value)")
        print("  stages  off ns/event  on ns/event  overhead ns per event per stage  trace MB  write MB/s")
        for operators in [1, 5] {
            let stages = operators + 1
            let run = pipeline(operators: operators, events: events)
            let off = best { run() }
            let url = directory.appendingPathComponent("overhead-\(operators).trace")
            var size: Int64 = 0
            let on = best {
                guard let recorder = try? Recorder(to: url) else { return }
                recorder.start()
                run()
                _ = try? recorder.stop()
            }
            size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64) ?? 0
            let offPerEvent = Double(off) / Double(events)
            let onPerEvent = Double(on) / Double(events)
            let overhead = (Double(on) - Double(off)) / Double(events * stages)
            let megabytes = Double(size) / 1e6
            print("  \(stages)       \(fixed(offPerEvent))         \(fixed(onPerEvent))        \(fixed(overhead))"
                  + "                              \(fixed(megabytes))      \(fixed(megabytes / (Double(on) / 1e9)))")
        }
    }

    static func writerThroughput(in directory: URL) {
        let count = 500_000
        let record = TraceRecord.event(EventRecord(sequence: 123_456, time: 987_654_321, node: 12, subscription: 345,
                                                   kind: .value, thread: 2, causes: [123_455], text: "hello world",
                                                   json: "\"hello world\""))
        var bytes = 0
        let elapsed = best(3) {
            var line = JSONLine(capacity: 1 << 20)
            bytes = 0
            for _ in 0..<count {
                record.write(to: &line)
                if line.bytes.count > 1 << 20 {
                    bytes += line.bytes.count
                    line = JSONLine(capacity: 1 << 20)
                }
            }
            bytes += line.bytes.count
        }
        print("hand-written formatter: \(fixed(Double(elapsed) / Double(count))) ns/record, "
              + "\(fixed(Double(bytes) / 1e6 / (Double(elapsed) / 1e9))) MB/s (in memory)")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        struct Event: Encodable { let type = "event", seq = 123_456, time = 987_654_321, node = 12, sub = 345,
                                  kind = "value", thread = 2, causes = [123_455], text = "hello world" }
        let sample = 50_000
        let encoded = best(3) { for _ in 0..<sample { _ = try? encoder.encode(Event()) } }
        print("JSONEncoder (for comparison): \(fixed(Double(encoded) / Double(sample))) ns/record")
    }

    static func readThroughput(in directory: URL) {
        let url = directory.appendingPathComponent("large.trace")
        let events = 1_000_000
        guard let recorder = try? Recorder(to: url) else { return }
        recorder.start()
        pipeline(operators: 4, events: events / 5)()
        _ = try? recorder.stop()
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64) ?? 0
        let megabytes = Double(size) / 1e6
        var records = 0
        let read = best(3) {
            records = 0
            guard let reader = try? TraceReader(url: url) else { return }
            while (try? reader.next()) != nil { records += 1 }
        }
        print("streaming read: \(fixed(megabytes)) MB, \(records) records, \(fixed(megabytes / (Double(read) / 1e9))) MB/s")
        let before = peakResidentMegabytes()
        let statsTime = best(1) {
            guard let reader = try? TraceReader(url: url) else { return }
            _ = try? TraceStats.compute(reader)
        }
        print("stats: \(fixed(megabytes / (Double(statsTime) / 1e9))) MB/s; peak RSS \(fixed(before)) MB before, "
              + "\(fixed(peakResidentMegabytes())) MB after (the trace is \(fixed(megabytes)) MB)")
        let exportTime = best(1) {
            guard let reader = try? TraceReader(url: url) else { return }
            _ = try? PerfettoExport.export(reader, to: directory.appendingPathComponent("large.json"))
        }
        print("perfetto export: \(fixed(megabytes / (Double(exportTime) / 1e9))) MB/s of trace")
    }

    /// Keeps a result alive so the optimiser cannot drop the work that made it.
    @inline(never)
    static func blackHole(_ value: Int) {
        withExtendedLifetime(value) {}
    }

    static func peakResidentMegabytes() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024
    }
}
