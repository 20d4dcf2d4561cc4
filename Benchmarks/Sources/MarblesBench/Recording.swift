import Foundation
import Signals
import TraceLog
import Recording

/// The core pipeline with the recorder attached: in memory, and writing a trace file.
enum Recording {
    /// CPU seconds to send `count` values through the pipeline while `recorder` records, from
    /// `start()` to the end of `stop()` (which flushes): on the producing thread, and in the
    /// whole process (the recorder's writer thread included); and the number of events recorded.
    static func recorded(_ count: Int, by recorder: Recorder) throws -> (seconds: Double, allThreads: Double, events: UInt64) {
        let sink = Sink()
        let input = Core.marblesPipeline(into: sink)
        var summary = SummaryRecord()
        var elapsed = 0.0
        let allThreads = try processSeconds {
            elapsed = try seconds {
                recorder.start()
                for value in 0..<count { input.send(value: value) }
                summary = try recorder.stop()
            }
        }
        input.sendCompleted()
        return (elapsed, allThreads, summary.events)
    }

    static func measure(count: Int, runs: Int, directory: URL, table: inout Table) throws {
        var plainTimes: [Double] = [], memoryTimes: [Double] = [], fileTimes: [Double] = []
        var overheads: [Double] = [], fileRates: [Double] = [], fileMBs: [Double] = []
        var fileProducerOverheads: [Double] = [], fileTotalOverheads: [Double] = []
        var recordedEvents: UInt64 = 0
        let url = directory.appendingPathComponent("marbles-bench-recording.trace")
        defer { try? FileManager.default.removeItem(at: url) }
        for _ in 0..<runs {
            var plain = 0.0
            let plainAllThreads = processSeconds { plain = Core.marbles(count, into: Sink()) }
            let memory = try recorded(count, by: Recorder(clock: .real))
            // A fresh file, as in the first run: over an earlier trace a recorder writes beside
            // it and renames at `stop()`, which would time deleting the earlier one.
            try? FileManager.default.removeItem(at: url)
            let file = try recorded(count, by: Recorder(to: url))
            let bytes = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.doubleValue ?? 0
            recordedEvents = memory.events
            plainTimes.append(plain)
            memoryTimes.append(memory.seconds)
            fileTimes.append(file.seconds)
            overheads.append((memory.seconds - plain) / Double(memory.events) * 1e9)
            fileProducerOverheads.append((file.seconds - plain) / Double(file.events) * 1e9)
            fileTotalOverheads.append((file.allThreads - plainAllThreads) / Double(file.events) * 1e9)
            fileRates.append(Double(file.events) / file.allThreads)
            fileMBs.append(bytes / file.allThreads / 1e6)
        }
        let section = "recording"
        let perInput = Double(recordedEvents) / Double(count)
        table.add(Row(section: section,
                      figure: "\(millions(Double(count))) ints through the core chain: \(recordedEvents) events recorded "
                          + "(\(decimal(perInput, 1)) per value)",
                      value: "\(decimal(median(plainTimes) / Double(count) * 1e9)) ns/value without recorder"))
        table.add(Row(section: section, figure: "recorder on, in memory",
                      value: "\(decimal(median(memoryTimes) / Double(count) * 1e9)) ns/value"))
        let overhead = median(overheads)
        table.add(Row(section: section, figure: "added per recorded event, in memory (same run)",
                      value: "\(decimal(overhead)) ns", target: "≤ 25 ns", met: overhead <= 25))
        let producer = median(fileProducerOverheads)
        table.add(Row(section: section, figure: "added per recorded event to a file, on the producing thread",
                      value: "\(decimal(producer)) ns", target: "≤ 25 ns", met: producer <= 25))
        table.add(Row(section: section, figure: "added per recorded event to a file, all threads (writer included)",
                      value: "\(decimal(median(fileTotalOverheads))) ns"))
        let rate = median(fileRates)
        table.add(Row(section: section, figure: "recorder on, writing JSON Lines to a file (CPU of all threads)",
                      value: "\(millions(rate)) records/s, \(decimal(median(fileMBs))) MB/s",
                      target: "≥ 3 M records/s", met: rate >= 3e6))
    }
}

extension Recording {
    /// A pipe followed by `maps` maps, observed, with `count` values sent: each stage sends
    /// one event per value. Returns the seconds taken.
    static func mapChain(maps: Int, count: Int) -> Double {
        let (signal, input) = Signal<Int, Never>.pipe(named: "chain")
        var tail = signal
        for _ in 0..<maps { tail = tail.map { $0 &+ 1 } }
        let sink = Sink()
        tail.observeValues { sink.receive($0) }
        let elapsed = seconds {
            for value in 0..<count { input.send(value: value) }
        }
        input.sendCompleted()
        return elapsed
    }

    /// What recording adds per event per stage, for a short and a long chain of maps, with
    /// the recorder writing a file (from `start()` to the end of `stop()`).
    static func measurePerStage(count: Int, runs: Int, directory: URL, table: inout Table) throws {
        let url = directory.appendingPathComponent("marbles-bench-stages.trace")
        defer { try? FileManager.default.removeItem(at: url) }
        for maps in [1, 5] {
            let stages = maps + 1
            var offTimes: [Double] = [], onTimes: [Double] = [], overheads: [Double] = []
            var bytes = 0.0
            for _ in 0..<runs {
                let off = mapChain(maps: maps, count: count)
                try? FileManager.default.removeItem(at: url)  // a fresh file each run (see `measure`)
                let recorder = try Recorder(to: url)
                let on = try seconds {
                    recorder.start()
                    _ = mapChain(maps: maps, count: count)
                    _ = try recorder.stop()
                }
                bytes = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.doubleValue ?? 0
                offTimes.append(off)
                onTimes.append(on)
                overheads.append((on - off) / Double(count * stages) * 1e9)
            }
            table.add(Row(section: "recording",
                          figure: "pipe + \(maps) × map, \(millions(Double(count))) values: off → on, writing a file "
                              + "(\(decimal(bytes / 1e6)) MB)",
                          value: "\(decimal(median(offTimes) / Double(count) * 1e9)) → "
                              + "\(decimal(median(onTimes) / Double(count) * 1e9)) ns/value"))
            table.add(Row(section: "recording", figure: "added per event per stage, \(stages) stages (same run)",
                          value: "\(decimal(median(overheads))) ns"))
        }
    }
}
