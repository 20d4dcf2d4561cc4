import Foundation
import TraceLog

/// The peak resident memory of each verb of the `marbles` command-line tool on a big trace:
/// a recording repeated, each copy with its subscriptions, sequence numbers, hops and times
/// moved past the ones before, so the trace is one long run of the same pipeline.
///
/// Each verb runs as a child process of its own; its peak is the kernel's high-water mark
/// of its resident set (`VmHWM`), which `wait4` hands back as `ru_maxrss` when it exits.
/// The verb is started by a small launcher (this benchmark run again with `--measure-child`),
/// not by the benchmark itself: Linux carries the high-water mark of the address space a
/// process had before `execve` into its `ru_maxrss`, and `posix_spawn` runs the child in
/// its parent's address space until the `execve`, so a verb spawned by a benchmark holding a
/// gigabyte reported a gigabyte (every verb measured 1,026.8 MB, `stats` included).
enum MemoryBench {
    /// The verbs measured, as arguments after the tool's name; `TRACE` and `OUT` are the
    /// trace and an output file in the temporary folder.
    static let verbs: [(name: String, arguments: [String], output: String?)] = [
        ("draw --marble", ["draw", "TRACE", "--marble", "-o", "OUT"], "svg"),
        ("draw --pipeline", ["draw", "TRACE", "--pipeline", "-o", "OUT"], "svg"),
        ("diff T T", ["diff", "TRACE", "TRACE"], nil),
        ("export --perfetto", ["export", "--perfetto", "TRACE", "-o", "OUT"], "json"),
        ("stats", ["stats", "TRACE"], nil),
        ("view", ["view", "TRACE", "-o", "OUT"], "html"),
    ]

    static func measure(events: Int, template: URL, tool: URL, directory: URL, table: inout Table) throws {
        let section = "memory"
        guard FileManager.default.isExecutableFile(atPath: tool.path) else {
            table.add(Row(section: section, figure: "peak resident memory per verb",
                          value: "not measured: no \(tool.path) (build it: swift build -c release --product marbles)"))
            return
        }
        let url = directory.appendingPathComponent("marbles-bench-memory.trace")
        defer { try? FileManager.default.removeItem(at: url) }
        let written = try repeatTrace(template, to: url, events: events)
        let size = "\(millions(Double(written.events))) events, \(decimal(Double(written.bytes) / 1e6, 0)) MB"
        for verb in verbs {
            let output = verb.output.map { directory.appendingPathComponent("marbles-bench-memory.\($0)") }
            defer { if let output { try? FileManager.default.removeItem(at: output) } }
            let arguments = verb.arguments.map { $0 == "TRACE" ? url.path : ($0 == "OUT" ? output?.path ?? $0 : $0) }
            let run = try runThroughLauncher(tool, arguments)
            guard run.status == 0 else {
                throw BenchError("memory: marbles \(verb.name) exited with status \(run.status)")
            }
            let megabytes = Double(run.peakKiB) * 1024 / 1e6
            // Issue 14's bounds: stats as it was, the four verbs it names under 250 MB; the
            // page of `view` embeds every event, so it is measured without a target.
            let target: Double? = verb.name == "stats" ? 100 : (verb.name == "view" ? nil : 250)
            let page = verb.name == "view" ? output.flatMap { try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int } : nil
            table.add(Row(section: section, figure: "marbles \(verb.name), \(size): peak resident memory (VmHWM)",
                          value: "\(decimal(megabytes)) MB, \(decimal(run.seconds, 1)) s CPU"
                              + (page.map { ", page \(decimal(Double($0) / 1e6)) MB" } ?? ""),
                          target: target.map { "< \(Int($0)) MB" } ?? "", met: target.map { megabytes < $0 }))
        }
    }

    /// Writes `template` over and over to `url` until at least `events` events are written.
    static func repeatTrace(_ template: URL, to url: URL, events limit: Int) throws -> (events: Int, bytes: Int64) {
        let reader = try TraceReader(url: template)
        var head: [TraceRecord] = [], body: [TraceRecord] = []
        var duration: Int64 = 0
        while let record = try reader.next() {
            switch record {
            case .thread, .node, .label: head.append(record)
            case .subscribe, .dispose, .event, .hop, .mark: body.append(record)
            case let .summary(summary): duration = summary.duration
            case .header: break
            }
        }
        var maxSubscription: UInt64 = 0, maxSequence: UInt64 = 0, maxHop: UInt64 = 0, perCopy = 0
        for record in body {
            switch record {
            case let .subscribe(subscription): maxSubscription = max(maxSubscription, subscription.id)
            case let .event(event): maxSequence = max(maxSequence, event.sequence); perCopy += 1
            case let .hop(hop): maxHop = max(maxHop, hop.id)
            default: break
            }
            if case let .event(event) = record { duration = max(duration, event.time) }
        }
        guard perCopy > 0 else { throw BenchError("memory: \(template.path) has no events to repeat") }
        let period = duration + 1_000
        let copies = (limit + perCopy - 1) / perCopy

        guard let file = fopen(url.path, "wb") else { throw BenchError("memory: cannot create \(url.path)") }
        defer { fclose(file) }
        var line = JSONLine(capacity: 1 << 20)
        var bytes: Int64 = 0
        func emit(_ record: TraceRecord) throws {
            record.write(to: &line)
            if line.bytes.count >= 1 << 20 { try flush() }
        }
        func flush() throws {
            let count = line.bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            guard count == line.bytes.count else { throw BenchError("memory: cannot write \(url.path)") }
            bytes += Int64(count)
            line = JSONLine(capacity: 1 << 20)
        }
        try emit(.header(reader.header))
        for record in head { try emit(record) }
        for copy in 0..<copies {
            let subscriptions = UInt64(copy) * maxSubscription, sequences = UInt64(copy) * maxSequence
            let hops = UInt64(copy) * maxHop, shift = Int64(copy) * period
            func moved(_ subscription: UInt64) -> UInt64 { subscription == 0 ? 0 : subscription + subscriptions }
            for record in body {
                switch record {
                case var .subscribe(subscription):
                    subscription.id += subscriptions
                    subscription.parent = moved(subscription.parent)
                    subscription.observes = subscription.observes?.map(moved)
                    subscription.observedBy = subscription.observedBy?.map(moved)
                    subscription.time += shift
                    try emit(.subscribe(subscription))
                case var .dispose(dispose):
                    dispose.subscription += subscriptions
                    dispose.time += shift
                    try emit(.dispose(dispose))
                case var .event(event):
                    event.sequence += sequences
                    event.subscription += subscriptions
                    event.time += shift
                    event.causes = event.causes.map { $0 + sequences }
                    try emit(.event(event))
                case var .hop(hop):
                    hop.id += hops
                    hop.subscription = moved(hop.subscription)
                    hop.enqueued += shift
                    hop.started = hop.started.map { $0 + shift }
                    try emit(.hop(hop))
                case var .mark(mark):
                    mark.time += shift
                    try emit(.mark(mark))
                default:
                    break
                }
            }
        }
        let summary = SummaryRecord(events: UInt64(copies * perCopy), nodes: UInt64(head.count { if case .node = $0 { true } else { false } }),
                                    subscriptions: UInt64(copies) * maxSubscription,
                                    threads: UInt64(head.count { if case .thread = $0 { true } else { false } }),
                                    hops: UInt64(copies) * maxHop, duration: Int64(copies) * period)
        try emit(.summary(summary))
        try flush()
        return (copies * perCopy, bytes)
    }

    /// Runs `tool` with `arguments` from a fresh, small launcher process (see the type's
    /// comment) and returns what the launcher measured.
    static func runThroughLauncher(_ tool: URL, _ arguments: [String]) throws -> (status: Int32, peakKiB: Int, seconds: Double) {
        let output = try runThisBenchmark(["--measure-child", tool.path] + arguments, section: "memory")
        let fields = output.split(separator: " ")
        guard fields.count == 3, let status = Int32(fields[0]), let peak = Int(fields[1]), let seconds = Double(fields[2]) else {
            throw BenchError("memory: the launcher printed \"\(output)\", expected \"status KiB seconds\"")
        }
        return (status, peak, seconds)
    }

    /// The launcher's half: runs `command` (a tool and its arguments) and prints its exit
    /// status, peak resident set in KiB and CPU seconds. The launcher itself holds a few
    /// megabytes, so the peak it hands down through `execve` is below any verb's own.
    static func launch(_ command: [String]) throws {
        let run = try runMeasured(URL(fileURLWithPath: command[0]), Array(command.dropFirst()))
        print("\(run.status) \(run.peakKiB) \(run.seconds)")
    }

    /// Runs `tool` with `arguments` (output to /dev/null) and returns its exit status, peak
    /// resident set in KiB and CPU seconds, from `wait4`.
    static func runMeasured(_ tool: URL, _ arguments: [String]) throws -> (status: Int32, peakKiB: Int, seconds: Double) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv = ([tool.path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, tool.path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw BenchError("memory: cannot run \(tool.path): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchError("memory: wait4 failed: \(String(cString: strerror(errno)))") }
        }
        let exited = (status & 0x7f) == 0
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        return (exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), usage.ru_maxrss, cpu)
    }
}
