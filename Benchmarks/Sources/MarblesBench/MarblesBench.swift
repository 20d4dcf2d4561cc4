import ArgumentParser
import Foundation

/// The sections of the benchmark, in the order they run.
enum Section: String, CaseIterable, ExpressibleByArgument {
    case core, recording, hops, async, live, io, stats, replay, drawing, memory
}

/// The figures of BENCHMARKS.md (`make bench`): one Markdown table of Marbles' performance
/// against the targets. Each figure is the median of several runs; each comparison is the
/// median of ratios taken within one run.
@main
struct MarblesBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "marbles-bench",
        abstract: "Measures Marbles against its targets and prints one Markdown table.",
        discussion: """
            Build it in release mode, as a user's app would be: `make bench` builds this package \
            (which depends on Marbles by path) with `swift build -c release` and runs it. It \
            measures; it never asserts a time. Temporary traces are deleted afterwards.
            """
    )

    @Flag(help: "A tenth of the sizes (a 256 MB stats trace): a fast check, not the figures.")
    var quick = false

    @Option(help: "Runs per figure, 1 to 99 (the stats and replay figures take at most 3).")
    var runs = 5

    @Option(help: "Only this section, for profiling it: \(Section.allCases.map(\.rawValue).joined(separator: ", ")).")
    var only: Section?

    @Option(help: "Only this payload in the core and recording sections (repeatable): \(PayloadChoice.allCases.map(\.rawValue).joined(separator: ", ")).")
    var payload: [PayloadChoice] = []

    @Option(help: "Where temporary traces go: a private folder made in it for this run, removed at the end.")
    var directory = "/tmp"

    @Option(help: "The marbles tool whose verbs the memory section measures (built with swift build -c release --product marbles).")
    var marbles = ".build/release/marbles"

    @Option(help: "The recording the memory section repeats into a big trace.")
    var memoryTemplate = "traces/twitter-instant.replay.trace"

    /// The child process of the stats section: summarises the trace at this path and prints
    /// `seconds events peak-KiB`, so that the peak resident memory is the summary's own.
    @Option(help: .hidden)
    var statsChild: String?

    /// The loop `instructions.sh` counts under callgrind: `PAYLOAD:off` or `PAYLOAD:file`, and
    /// `--instruction-values` values (see `InstructionLoop`).
    @Option(help: .hidden)
    var instructionLoop: String?

    @Option(help: .hidden)
    var instructionValues = 20_000

    /// The launcher of the memory section: runs the tool with these arguments and prints
    /// `status peak-KiB cpu-seconds` (see `MemoryBench.launch`).
    @Option(parsing: .remaining, help: .hidden)
    var measureChild: [String] = []

    func validate() throws {
        guard (1...99).contains(runs) else {
            throw ValidationError("--runs expects a whole number from 1 to 99, not \(runs)")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("--directory: \(directory) is not a directory")
        }
    }

    func run() throws {
        if let statsChild {
            try StatsBench.child(path: statsChild)
            return
        }
        if !measureChild.isEmpty {
            try MemoryBench.launch(measureChild)
            return
        }
        if let instructionLoop {
            let parts = instructionLoop.split(separator: ":").map(String.init)
            if parts.count == 2, parts[0] == "async-map", let taps = AsyncTaps.Loop(rawValue: parts[1]) {
                AsyncTaps.instructionLoop(taps, count: instructionValues)
                return
            }
            guard parts.count == 2, let choice = PayloadChoice(rawValue: parts[0]),
                  ["off", "file", "binary"].contains(parts[1]) else {
                throw ValidationError("--instruction-loop expects PAYLOAD:off, PAYLOAD:file, PAYLOAD:binary, async-map:bare, "
                                      + "async-map:off or async-map:forwarded, not \(instructionLoop)")
            }
            try InstructionLoop.run(choice, recording: parts[1] != "off", binary: parts[1] == "binary",
                                    count: instructionValues, directory: URL(fileURLWithPath: directory))
            return
        }
        let scale = quick ? 10 : 1
        // A folder of this run's own, so two runs at once (two engineers on one machine) never
        // write, read or delete each other's traces.
        var template = Array(URL(fileURLWithPath: directory).appendingPathComponent("marbles-bench.XXXXXX").path.utf8CString)
        guard let made = mkdtemp(&template) else {
            throw ValidationError("--directory: cannot make a folder in \(directory): \(String(cString: strerror(errno)))")
        }
        let folder = URL(fileURLWithPath: String(cString: made), isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let includes = { (section: Section) in only == nil || only == section }
        print("marbles-bench: \(machineDescription()); \(runs) runs per figure\(quick ? ", quick sizes" : "")\n")
        var table = Table()
        if includes(.core) {
            try Core.measure(count: 5_000_000 / scale, runs: runs, payloads: payload, table: &table)
        }
        if includes(.recording) {
            try Recording.measure(count: 1_000_000 / scale, runs: runs, directory: folder, payloads: payload, table: &table)
            try Recording.measurePerStage(count: 200_000 / scale, runs: runs, directory: folder, table: &table)
        }
        if includes(.hops) {
            try Hops.measure(count: 1_000_000 / scale, runs: runs, table: &table)
        }
        if includes(.async) {
            try AsyncTaps.measure(count: 1_000_000 / scale, runs: runs, directory: folder, table: &table)
        }
        if includes(.live) {
            try LiveSearch.measure(quick: quick, directory: folder, table: &table)
        }
        if includes(.io) {
            try TraceIO.measure(events: 3_000_000 / scale, runs: runs, directory: folder, table: &table)
            try Formatting.measure(count: 500_000 / scale, runs: runs, table: &table)
        }
        if includes(.stats) {
            try StatsBench.measure(minimumBytes: quick ? 256 << 20 : 2 << 30, runs: min(runs, 3),
                                   directory: folder, table: &table)
        }
        if includes(.replay) {
            try ReplayBench.measure(events: 1_000_000 / scale, runs: min(runs, 3), directory: folder, table: &table)
            try ShapedLoad.measure(events: 1_000_000 / scale, template: URL(fileURLWithPath: memoryTemplate),
                                   runs: min(runs, 3), directory: folder, table: &table)
            try SearchReplay.measure(queries: 20_000 / scale, runs: min(runs, 3), table: &table)
        }
        if includes(.drawing) {
            try Drawing.measure(events: 10_000, runs: runs, table: &table)
        }
        if includes(.memory) {
            try MemoryBench.measure(events: 2_000_000 / scale, template: URL(fileURLWithPath: memoryTemplate),
                                    tool: URL(fileURLWithPath: marbles), directory: folder, table: &table)
        }
        print(table.markdown, terminator: "")
    }
}

/// What the machine is, for the table's heading.
func machineDescription() -> String {
    let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
        .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown"
    let memory = Double(ProcessInfo.processInfo.physicalMemory) / Double(1 << 30)
    return "\(ProcessInfo.processInfo.activeProcessorCount) cores (\(model)), \(decimal(memory)) GiB memory"
}
