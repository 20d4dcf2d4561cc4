import Foundation
import Signals
import TraceLog

/// Writes synthetic traces shaped like a recording of the core pipeline (a pipe, map,
/// filter, map, scan; every event caused by the one before it in the chain), through the
/// trace log's JSON Lines writer.
enum TraceGenerator {
    /// What the events' values are, as a recorder writes them: integers, strings (a search
    /// text), or a struct's description and JSON (a sensor reading).
    enum Values: String, CaseIterable {
        case integers = "Int", strings = "String", structs = "struct"

        /// The text and JSON of the value made from `value`.
        func written(_ value: Int) -> (text: String, json: String) {
            switch self {
            case .integers:
                let text = String(value)
                return (text, text)
            case .strings:
                let text = "query \(value % 1000)"
                return (text, "\"\(text)\"")
            case .structs:
                let celsius = Double(value % 400) / 10
                return ("Reading(sensor: \"s\(value % 7)\", celsius: \(celsius), tags: [\"lab\"])",
                        "{\"celsius\":\(celsius),\"sensor\":\"s\(value % 7)\",\"tags\":[\"lab\"]}")
            }
        }
    }

    /// Writes records to `url` until `events` events have been written or the file holds
    /// `minimumBytes`, whichever comes first. Returns the records and bytes written.
    static func write(to url: URL, events limit: Int, minimumBytes: Int64 = .max,
                      values: Values = .integers) throws -> (records: Int, bytes: Int64) {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw BenchError("cannot create \(url.path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let chunk = 1 << 20
        var line = JSONLine(capacity: chunk + 4096)
        var bytes: Int64 = 0
        var records = 0
        func emit(_ record: TraceRecord) throws {
            record.write(to: &line)
            records += 1
            if line.bytes.count >= chunk { try flush() }
        }
        func flush() throws {
            try line.bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = Foundation.write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw BenchError("cannot write \(url.path): \(String(cString: strerror(errno)))")
                    }
                    offset += written
                }
            }
            bytes += Int64(line.bytes.count)
            line = JSONLine(capacity: chunk + 4096)
        }

        try emit(.header(TraceHeader(clock: .real)))
        try emit(.thread(ThreadRecord(id: 1, name: "main", os: 1)))
        let names = ["pipe", "map", "filter", "map", "scan"]
        for (index, name) in names.enumerated() {
            let id = UInt64(index + 1)
            try emit(.node(NodeRecord(id: id, kind: index == 0 ? .source : .operator, name: name,
                                      file: "MarblesBench/Core.swift", line: UInt64(12 + index),
                                      upstream: index == 0 ? [] : [.init(node: id - 1, role: .data)])))
            try emit(.subscribe(SubscriptionRecord(id: id, node: id, parent: 0, time: 0, thread: 1)))
        }
        var sequence: UInt64 = 0
        var time: Int64 = 0
        var sum = 0
        var events = 0
        var input = 0
        func event(_ node: UInt64, _ value: Int, cause: UInt64) throws {
            sequence += 1
            time += 40
            events += 1
            let (text, json) = values.written(value)
            try emit(.event(EventRecord(sequence: sequence, time: time, node: node, subscription: node, kind: .value,
                                        thread: 1, causes: cause == 0 ? [] : [cause], text: text, json: json)))
        }
        while events < limit && bytes + Int64(line.bytes.count) < minimumBytes {
            try event(1, input, cause: 0)
            let incremented = input &+ 1
            try event(2, incremented, cause: sequence)
            if incremented & 1 == 0 {
                try event(3, incremented, cause: sequence)
                try event(4, incremented &* 3, cause: sequence)
                sum &+= incremented &* 3
                try event(5, sum, cause: sequence)
            }
            input += 1
        }
        try emit(.summary(SummaryRecord(events: sequence, nodes: 5, subscriptions: 5, threads: 1, duration: time)))
        try flush()
        return (records, bytes)
    }
}

/// Writing and reading JSON Lines and the binary encoding.
enum TraceIO {
    static func measure(events: Int, runs: Int, directory: URL, table: inout Table) throws {
        let url = directory.appendingPathComponent("marbles-bench-io.trace")
        let exported = directory.appendingPathComponent("marbles-bench-io.json")
        let binaryURL = directory.appendingPathComponent("marbles-bench-io.mtrace")
        defer {
            try? FileManager.default.removeItem(at: url)
            try? FileManager.default.removeItem(at: exported)
            try? FileManager.default.removeItem(at: binaryURL)
        }
        var writeRates: [Double] = [], writeMBs: [Double] = [], readRates: [Double] = [], readMBs: [Double] = []
        var exportMBs: [Double] = []
        var binaryReadRates: [Double] = [], loadRates: [Double] = [], binaryLoadRates: [Double] = []
        var binaryBytes: Int64 = 0
        for _ in 0..<runs {
            var written = (records: 0, bytes: Int64(0))
            let writeTime = try seconds { written = try TraceGenerator.write(to: url, events: events) }
            var read = 0
            let readTime = try seconds {
                let reader = try TraceReader(url: url)
                read = 1
                // As a reader's user writes it. (`reader.next() != nil` took Optional's `!=` for
                // Equatable values: a pair of optional records built and destroyed per record.)
                while let _ = try reader.next() { read += 1 }
            }
            guard read == written.records else {
                throw BenchError("trace I/O: wrote \(written.records) records, read back \(read)")
            }
            writeRates.append(Double(written.records) / writeTime)
            writeMBs.append(Double(written.bytes) / writeTime / 1e6)
            readRates.append(Double(read) / readTime)
            readMBs.append(Double(written.bytes) / readTime / 1e6)
            let exportTime = try seconds { _ = try PerfettoExport.export(TraceReader(url: url), to: exported) }
            exportMBs.append(Double(written.bytes) / exportTime / 1e6)

            // The same trace in the binary encoding, read record by record and loaded whole.
            _ = FileManager.default.createFile(atPath: binaryURL.path, contents: nil)
            let handle = try FileHandle(forWritingTo: binaryURL)
            try TraceConversion.convert(TraceReader(url: url), to: .binary) { handle.write(Data($0)) }
            try handle.close()
            binaryBytes = Int64((try FileManager.default.attributesOfItem(atPath: binaryURL.path)[.size] as? Int) ?? 0)
            var binaryRead = 0
            let binaryReadTime = try seconds {
                let reader = try TraceReader(url: binaryURL)
                binaryRead = 1
                while let _ = try reader.next() { binaryRead += 1 }
            }
            guard binaryRead == written.records else {
                throw BenchError("trace I/O: wrote \(written.records) records, read back \(binaryRead) from the binary encoding")
            }
            binaryReadRates.append(Double(binaryRead) / binaryReadTime)
            let rates = try Self.loadRates(json: url, binary: binaryURL)
            loadRates.append(rates.json)
            binaryLoadRates.append(rates.binary)
        }
        let section = "trace I/O"
        table.add(Row(section: section, figure: "write JSON Lines, \(millions(Double(events))) events (TraceRecord.write)",
                      value: "\(millions(median(writeRates))) records/s, \(decimal(median(writeMBs))) MB/s"))
        let readRate = median(readRates)
        table.add(Row(section: section, figure: "read JSON Lines (TraceReader.next)",
                      value: "\(millions(readRate)) records/s, \(decimal(median(readMBs))) MB/s",
                      target: "≥ 3 M records/s", met: readRate >= 3e6))
        table.add(Row(section: section, figure: "Perfetto export of that trace (PerfettoExport.export)",
                      value: "\(decimal(median(exportMBs))) MB/s of trace"))
        let binaryRate = median(binaryReadRates)
        let sizes = "\(decimal(Double(binaryBytes) / 1e6)) MB binary"
        table.add(Row(section: section, figure: "read the binary encoding of that trace (TraceReader.next; \(sizes))",
                      value: "\(millions(binaryRate)) records/s, \(decimal(binaryRate / readRate, 2))x JSON Lines"))
        addLoadRows("", json: median(loadRates), binary: median(binaryLoadRates), table: &table)
        for values in [TraceGenerator.Values.strings, .structs] {
            try measureLoads(values: values, events: events, runs: runs, json: url, binary: binaryURL, table: &table)
        }
    }

    /// Loads the trace at `url` and its binary encoding at `binaryURL` into memory, once each:
    /// the events per second of each.
    private static func loadRates(json url: URL, binary binaryURL: URL) throws -> (json: Double, binary: Double) {
        var loaded = 0, binaryLoaded = 0
        let loadTime = try seconds { loaded = try Trace(contentsOf: url).events.count }
        let binaryLoadTime = try seconds { binaryLoaded = try Trace(contentsOf: binaryURL).events.count }
        guard loaded == binaryLoaded, loaded > 0 else {
            throw BenchError("trace I/O: loaded \(loaded) events from JSON Lines, \(binaryLoaded) from binary")
        }
        return (Double(loaded) / loadTime, Double(binaryLoaded) / binaryLoadTime)
    }

    /// Loading a trace of `values` into memory from each encoding: the same trace as above
    /// with the values a user's pipeline sends.
    private static func measureLoads(values: TraceGenerator.Values, events: Int, runs: Int, json url: URL, binary binaryURL: URL,
                                     table: inout Table) throws {
        _ = try TraceGenerator.write(to: url, events: events, values: values)
        _ = FileManager.default.createFile(atPath: binaryURL.path, contents: nil)
        let handle = try FileHandle(forWritingTo: binaryURL)
        try TraceConversion.convert(TraceReader(url: url), to: .binary) { handle.write(Data($0)) }
        try handle.close()
        var loadRates: [Double] = [], binaryLoadRates: [Double] = []
        for _ in 0..<runs {
            let rates = try Self.loadRates(json: url, binary: binaryURL)
            loadRates.append(rates.json)
            binaryLoadRates.append(rates.binary)
        }
        addLoadRows("\(values.rawValue) values: ", json: median(loadRates), binary: median(binaryLoadRates), table: &table)
    }

    /// The two rows of a load comparison, their figures named after `prefix`: the JSON Lines
    /// rate, and the binary rate with its ratio and the target.
    private static func addLoadRows(_ prefix: String, json loadRate: Double, binary binaryLoadRate: Double, table: inout Table) {
        let section = "trace I/O"
        table.add(Row(section: section, figure: "\(prefix)load JSON Lines into memory (Trace(contentsOf:))",
                      value: "\(millions(loadRate)) events/s"))
        table.add(Row(section: section, figure: "\(prefix)load the binary encoding into memory (Trace(contentsOf:))",
                      value: "\(millions(binaryLoadRate)) events/s, \(decimal(binaryLoadRate / loadRate, 2))x JSON Lines",
                      target: "≥ 10x JSON Lines, ≥ 20 M events/s",
                      met: binaryLoadRate >= 10 * loadRate && binaryLoadRate >= 20e6))
    }
}

/// `TraceStats` streaming over a trace larger than the reader's buffers by orders of
/// magnitude, in a child process so that its peak resident memory is its own.
enum StatsBench {
    /// The child's half: computes the statistics of `path` and prints
    /// `seconds events peak-KiB` on one line.
    static func child(path: String) throws {
        var events = 0
        let elapsed = try seconds {
            let stats = try TraceStats.compute(TraceReader(url: URL(fileURLWithPath: path)))
            events = stats.events
        }
        print("\(elapsed) \(events) \(peakResidentKiB() ?? -1)")
    }

    static func measure(minimumBytes: Int64, runs: Int, directory: URL, table: inout Table) throws {
        let url = directory.appendingPathComponent("marbles-bench-stats.trace")
        defer { try? FileManager.default.removeItem(at: url) }
        let written = try TraceGenerator.write(to: url, events: .max, minimumBytes: minimumBytes)
        var times: [Double] = [], peaks: [Double] = []
        var events = 0
        for _ in 0..<runs {
            let output = try runThisBenchmark(["--stats-child", url.path], section: "stats")
            let fields = output.split(separator: " ").map(String.init)
            guard fields.count == 3, let time = Double(fields[0]), let count = Int(fields[1]),
                  let peak = Double(fields[2]), peak >= 0 else {
                throw BenchError("stats: the child process printed \"\(output)\", expected \"seconds events KiB\"")
            }
            times.append(time)
            peaks.append(peak)
            events = count
        }
        let section = "stats"
        let gigabytes = Double(written.bytes) / 1e9
        let peakMB = median(peaks) * 1024 / 1e6
        table.add(Row(section: section,
                      figure: "TraceStats over a \(decimal(gigabytes, 2)) GB trace, \(millions(Double(events))) events",
                      value: "\(decimal(median(times), 1)) s, \(millions(Double(written.records) / median(times))) records/s, "
                          + "\(decimal(Double(written.bytes) / median(times) / 1e6)) MB/s"))
        table.add(Row(section: section, figure: "peak resident memory of that stats process (VmHWM)",
                      value: "\(decimal(peakMB)) MB", target: "< 100 MB", met: peakMB < 100))
    }

}

/// The hand-written JSON Lines formatter against Foundation's `JSONEncoder` on the same
/// record, in memory.
enum Formatting {
    static func measure(count: Int, runs: Int, table: inout Table) throws {
        let record = TraceRecord.event(EventRecord(sequence: 123_456, time: 987_654_321, node: 12, subscription: 345,
                                                   kind: .value, thread: 2, causes: [123_455], text: "hello world",
                                                   json: "\"hello world\""))
        struct Encoded: Encodable {
            let type = "event", seq = 123_456, time = 987_654_321, node = 12, sub = 345
            let kind = "value", thread = 2, causes = [123_455], text = "hello world"
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoderCount = max(count / 10, 1)
        var formatterTimes: [Double] = [], formatterMBs: [Double] = [], encoderTimes: [Double] = []
        for _ in 0..<runs {
            var bytes = 0
            let formatter = seconds {
                var line = JSONLine(capacity: 1 << 20)
                for _ in 0..<count {
                    record.write(to: &line)
                    if line.bytes.count > 1 << 20 {
                        bytes += line.bytes.count
                        line = JSONLine(capacity: 1 << 20)
                    }
                }
                bytes += line.bytes.count
            }
            var encodedBytes = 0
            let encoding = try seconds {
                for _ in 0..<encoderCount { encodedBytes &+= try encoder.encode(Encoded()).count }
            }
            guard encodedBytes > 0, bytes > 0 else { throw BenchError("formatting: nothing was written") }
            formatterTimes.append(formatter / Double(count))
            formatterMBs.append(Double(bytes) / formatter / 1e6)
            encoderTimes.append(encoding / Double(encoderCount))
        }
        table.add(Row(section: "trace I/O", figure: "hand-written formatter, one event record (in memory)",
                      value: "\(decimal(median(formatterTimes) * 1e9)) ns/record, \(decimal(median(formatterMBs))) MB/s"))
        table.add(Row(section: "trace I/O", figure: "JSONEncoder, the same record (for comparison)",
                      value: "\(decimal(median(encoderTimes) * 1e9)) ns/record"))
    }
}
