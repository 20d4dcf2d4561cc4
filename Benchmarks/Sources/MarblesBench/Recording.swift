import Foundation
import Signals
import TraceLog
import Recording
import CBenchClock

/// The core pipeline with the recorder attached, for each payload (`Payload`): writing a
/// trace file (and, for integers, in memory), against the floor of what recording an event
/// on its thread can cost.
enum Recording {
    /// What one recorded run took.
    struct Run {
        /// CPU seconds of the producing thread from `start()` to the end of `stop()`.
        var seconds: Double
        /// CPU seconds of the whole process meanwhile (the recorder's writer thread included).
        var allThreads: Double
        /// Wall seconds from `start()` to the end of `stop()` (back-pressure included).
        var wall: Double
        /// The events recorded.
        var events: UInt64
    }

    /// Sends `count` values of `P` through the core pipeline while `recorder` records, from
    /// `start()` to the end of `stop()` (which flushes), the scanned keys into `sink`.
    static func recorded<P: Payload>(_ count: Int, _: P.Type, by recorder: Recorder, into sink: Sink) throws -> Run {
        let input = Core.marblesPipeline(P.self, into: sink)
        var summary = SummaryRecord()
        var elapsed = 0.0, wall = 0.0
        let allThreads = try processSeconds {
            elapsed = try seconds {
                let start = nanoseconds(CLOCK_MONOTONIC)
                recorder.start()
                for index in 0..<count { input.send(value: P.make(index)) }
                summary = try recorder.stop()
                wall = Double(nanoseconds(CLOCK_MONOTONIC) - start) / 1e9
            }
        }
        input.sendCompleted()
        return Run(seconds: elapsed, allThreads: allThreads, wall: wall, events: summary.events)
    }

    /// One slot of the floor's ring: a time, a sequence number and the bits of a value, 64
    /// bytes as a recorded event on a thread's ring needs at least.
    struct FloorSlot {
        var time: UInt64 = 0
        var sequence: UInt64 = 0
        var value: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
    }

    /// The floor of recording an event on its thread: for each of `events` events, one clock
    /// read (the time-stamp counter when `counter`, else `clock_gettime(CLOCK_MONOTONIC)`) and
    /// one 64-byte store into a ring of 4096 slots, the slot holding the time, a sequence
    /// number and the bits of one of 16 values of `P` (a bitwise copy: no retain). Returns the
    /// thread's CPU seconds and a checksum of the ring, read back so the stores stay.
    @inline(never)
    static func floor<P: Payload>(events: Int, _: P.Type, counter: Bool) -> (seconds: Double, checksum: UInt64) {
        precondition(MemoryLayout<P>.size <= 48, "a payload the floor's slot cannot hold")
        let slots = 4096, mask = slots - 1
        let ring = UnsafeMutablePointer<FloorSlot>.allocate(capacity: slots)
        ring.initialize(repeating: FloorSlot(), count: slots)
        defer { ring.deallocate() }
        let values = (0..<16).map { P.make($0) }
        var bits = [FloorSlot](repeating: FloorSlot(), count: 16)
        for (index, value) in values.enumerated() {
            withUnsafeBytes(of: value) { source in
                withUnsafeMutableBytes(of: &bits[index].value) { $0.copyMemory(from: source) }
            }
        }
        let elapsed = bits.withUnsafeBufferPointer { bits in
            seconds {
                if counter {
                    for event in 0..<events {
                        ring[event & mask] = FloorSlot(time: bench_timestamp_counter(), sequence: UInt64(truncatingIfNeeded: event),
                                                       value: bits[event & 15].value)
                    }
                } else {
                    for event in 0..<events {
                        ring[event & mask] = FloorSlot(time: nanoseconds(CLOCK_MONOTONIC), sequence: UInt64(truncatingIfNeeded: event),
                                                       value: bits[event & 15].value)
                    }
                }
            }
        }
        var checksum: UInt64 = 0
        for slot in 0..<slots {
            checksum &+= ring[slot].time &+ ring[slot].sequence &+ ring[slot].value.0 &+ ring[slot].value.5
        }
        withExtendedLifetime(values) {}
        return (elapsed, checksum)
    }

    /// Whether the recorder stamps ring events with the time-stamp counter here, as
    /// `TickClock.isUsable` tells it: an x86-64 counter of constant rate that the kernel keeps
    /// time by.
    static let recorderCountsTicks: Bool = {
        guard bench_timestamp_counter_exists() != 0,
              let source = try? String(contentsOfFile: "/sys/devices/system/clocksource/clocksource0/current_clocksource",
                                       encoding: .utf8),
              source.trimmingCharacters(in: .whitespacesAndNewlines) == "tsc",
              let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let flags = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return false }
        let words = Set(flags.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == ":" }))
        return words.contains("constant_tsc") && words.contains("nonstop_tsc")
    }()

    /// Where the floor's checksums go, so that its stores are not optimised away.
    static let floorSink = Sink()

    /// Runs the recording figures for each payload in `payloads` (all when empty).
    static func measure(count: Int, runs: Int, directory: URL, payloads: [PayloadChoice], table: inout Table) throws {
        try measure(Int.self, count: count, runs: runs, directory: directory, payloads: payloads, table: &table)
        try measure(String.self, count: count, runs: runs, directory: directory, payloads: payloads, table: &table)
        try measure(Reading.self, count: count, runs: runs, directory: directory, payloads: payloads, table: &table)
        try measure(Message.self, count: count, runs: runs, directory: directory, payloads: payloads, table: &table)
        try measure(Int?.self, count: count, runs: runs, directory: directory, payloads: payloads, table: &table)
    }

    static func measure<P: Payload>(_: P.Type, count: Int, runs: Int, directory: URL, payloads: [PayloadChoice],
                                    table: inout Table) throws {
        guard payloads.isEmpty || payloads.contains(P.choice) else { return }
        // In memory for integers only: the figure the in-memory target was set for.
        let inMemory = P.self == Int.self
        var plainTimes: [Double] = [], memoryTimes: [Double] = [], overheads: [Double] = []
        var fileRates: [Double] = [], fileMBs: [Double] = [], walls: [Double] = []
        var fileProducerOverheads: [Double] = [], fileTotalOverheads: [Double] = []
        var floors: [Double] = [], clockFloors: [Double] = [], versusFloor: [Double] = []
        var recordedEvents: UInt64 = 0, floorChecksum: UInt64 = 0
        var binaryProducerOverheads: [Double] = [], binaryRates: [Double] = [], binaryMBs: [Double] = []
        var binaryWalls: [Double] = []
        let url = directory.appendingPathComponent("marbles-bench-recording.trace")
        let binaryURL = directory.appendingPathComponent("marbles-bench-recording.mtrace")
        defer { for file in [url, binaryURL] { try? FileManager.default.removeItem(at: file) } }
        for _ in 0..<runs {
            var plain = 0.0
            let plainSink = Sink()
            let plainAllThreads = processSeconds { plain = Core.marbles(count, P.self, into: plainSink) }
            var sinks = [("to a file", Sink())]
            if inMemory {
                sinks.append(("in memory", Sink()))
                let memory = try recorded(count, P.self, by: Recorder(clock: .real), into: sinks[1].1)
                memoryTimes.append(memory.seconds)
                overheads.append((memory.seconds - plain) / Double(memory.events) * 1e9)
            }
            // A fresh file, as in the first run: over an earlier trace a recorder writes beside
            // it and renames at `stop()`, which would time deleting the earlier one.
            try? FileManager.default.removeItem(at: url)
            let file = try recorded(count, P.self, by: Recorder(to: url), into: sinks[0].1)
            // The same to a file in the binary encoding (by its name, `.mtrace`).
            try? FileManager.default.removeItem(at: binaryURL)
            sinks.append(("to a binary file", Sink()))
            let encoded = try recorded(count, P.self, by: Recorder(to: binaryURL), into: sinks[sinks.count - 1].1)
            let binaryBytes = (try FileManager.default.attributesOfItem(atPath: binaryURL.path)[.size] as? NSNumber)?
                .doubleValue ?? 0
            binaryProducerOverheads.append((encoded.seconds - plain) / Double(encoded.events) * 1e9)
            binaryRates.append(Double(encoded.events) / encoded.allThreads)
            binaryMBs.append(binaryBytes / encoded.allThreads / 1e6)
            binaryWalls.append(encoded.wall)
            for (name, sink) in sinks where sink.checksum != plainSink.checksum || sink.count != plainSink.count {
                throw BenchError("recording, \(P.label): recorded \(name), the chain computed \(sink.count) values "
                    + "summing to \(sink.checksum), unrecorded \(plainSink.count) summing to \(plainSink.checksum)")
            }
            let bytes = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.doubleValue ?? 0
            let events = Double(file.events)
            let recorderFloor = floor(events: Int(file.events), P.self, counter: recorderCountsTicks)
            let clockFloor = floor(events: Int(file.events), P.self, counter: false)
            floorChecksum &+= recorderFloor.checksum &+ clockFloor.checksum
            recordedEvents = file.events
            plainTimes.append(plain)
            let producer = (file.seconds - plain) / events * 1e9
            fileProducerOverheads.append(producer)
            fileTotalOverheads.append((file.allThreads - plainAllThreads) / events * 1e9)
            fileRates.append(events / file.allThreads)
            fileMBs.append(bytes / file.allThreads / 1e6)
            walls.append(file.wall)
            floors.append(recorderFloor.seconds / events * 1e9)
            clockFloors.append(clockFloor.seconds / events * 1e9)
            versusFloor.append(producer / (recorderFloor.seconds / events * 1e9))
        }
        floorSink.receive(Int(truncatingIfNeeded: floorChecksum))
        let section = "recording"
        let payload = P.label
        let perInput = Double(recordedEvents) / Double(count)
        table.add(Row(section: section,
                      figure: "\(millions(Double(count))) \(payload) through the core chain: \(recordedEvents) events recorded "
                          + "(\(decimal(perInput, 1)) per value)",
                      value: "\(decimal(median(plainTimes) / Double(count) * 1e9)) ns/value without recorder"))
        if inMemory {
            table.add(Row(section: section, figure: "\(payload): recorder on, in memory",
                          value: "\(decimal(median(memoryTimes) / Double(count) * 1e9)) ns/value"))
            let overhead = median(overheads)
            table.add(Row(section: section, figure: "\(payload): added per recorded event, in memory (same run)",
                          value: "\(decimal(overhead)) ns", target: "≤ 25 ns", met: overhead <= 25))
        }
        let producer = median(fileProducerOverheads)
        table.add(Row(section: section, figure: "\(payload): added per recorded event to a file, on the producing thread",
                      value: "\(decimal(producer)) ns", target: "≤ 25 ns", met: producer <= 25))
        table.add(Row(section: section, figure: "\(payload): added per recorded event to a file, all threads (writer included)",
                      value: "\(decimal(median(fileTotalOverheads))) ns"))
        let rate = median(fileRates)
        table.add(Row(section: section, figure: "\(payload): recorder on, writing JSON Lines to a file (CPU of all threads)",
                      value: "\(millions(rate)) records/s, \(decimal(median(fileMBs))) MB/s",
                      target: "≥ 3 M records/s", met: rate >= 3e6))
        table.add(Row(section: section, figure: "\(payload): added per recorded event to a binary file (.mtrace), on the producing thread",
                      value: "\(decimal(median(binaryProducerOverheads))) ns"))
        table.add(Row(section: section, figure: "\(payload): recorder on, writing the binary encoding to a file (CPU of all threads)",
                      value: "\(millions(median(binaryRates))) records/s, \(decimal(median(binaryMBs))) MB/s"))
        table.add(Row(section: section,
                      figure: "\(payload): \(millions(Double(count)))-value burst, recorded to a binary file: wall time start() → end of stop()",
                      value: "\(decimal(median(binaryWalls) * 1e3)) ms (\(decimal(median(binaryWalls) / Double(count) * 1e9)) ns/value)"))
        let clock = recorderCountsTicks ? "rdtsc" : "clock_gettime"
        table.add(Row(section: section,
                      figure: "\(payload): floor, one \(clock) + one 64-byte store into a 4096-slot ring, per event",
                      value: "\(decimal(median(floors), 2)) ns (clock_gettime: \(decimal(median(clockFloors), 2)) ns)"))
        let ratio = median(versusFloor)
        table.add(Row(section: section, figure: "\(payload): added on the producing thread ÷ floor (same run)",
                      value: "\(decimal(ratio, 2))×", target: "≤ 2.5×", met: ratio <= 2.5))
        table.add(Row(section: section,
                      figure: "\(payload): \(millions(Double(count)))-value burst, recorded to a file: wall time start() → end of stop()",
                      value: "\(decimal(median(walls) * 1e3)) ms (\(decimal(median(walls) / Double(count) * 1e9)) ns/value)"))
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
