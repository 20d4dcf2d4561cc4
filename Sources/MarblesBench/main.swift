import Foundation

// MarblesBench: the figures of BENCHMARKS.md (`make bench`). Each figure is the median of
// several runs; each comparison is the median of ratios taken within one run.

let usage = """
    usage: MarblesBench [--quick] [--runs N] [--only SECTION] [--directory DIR]

    Prints one Markdown table of Marbles' performance figures against the targets of
    BENCHMARKS.md. Build it in release mode: `make bench`.

      --quick          a tenth of the sizes (a 256 MB stats trace): a fast check, not the figures
      --runs N         runs per figure, 1 to 99 (default 5; 3 for the stats figure)
      --only SECTION   one section: core, recording, hops, io, stats, replay or drawing
                       (for profiling one of them)
      --directory DIR  where temporary traces go (default /tmp); they are deleted afterwards
    """

struct Options {
    var quick = false
    var runs = 5
    var directory = URL(fileURLWithPath: "/tmp")
    var statsChild: String?
    var only: String?
    static let sections = ["core", "recording", "hops", "io", "stats", "replay", "drawing"]

    /// Whether `section` is to run.
    func includes(_ section: String) -> Bool { only == nil || only == section }

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--runs":
                guard let text = rest.popFirst(), let count = Int(text), (1...99).contains(count) else {
                    throw BenchError("--runs expects a whole number from 1 to 99")
                }
                runs = count
            case "--directory":
                guard let path = rest.popFirst() else { throw BenchError("--directory expects a path") }
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                    throw BenchError("--directory: \(path) is not a directory")
                }
                directory = URL(fileURLWithPath: path)
            case "--only":
                guard let section = rest.popFirst(), Self.sections.contains(section) else {
                    throw BenchError("--only expects one of \(Self.sections.joined(separator: ", "))")
                }
                only = section
            case "--stats-child":
                guard let path = rest.popFirst() else { throw BenchError("--stats-child expects a path") }
                statsChild = path
            case "--help", "-h":
                print(usage)
                exit(0)
            default:
                throw BenchError("unknown argument \(argument)")
            }
        }
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

func runBenchmarks(_ options: Options) throws {
    let scale = options.quick ? 10 : 1
    let runs = options.runs
    print("MarblesBench: \(machineDescription()); \(runs) runs per figure\(options.quick ? ", quick sizes" : "")\n")
    var table = Table()
    if options.includes("core") {
        try Core.measure(count: 10_000_000 / scale, runs: runs, table: &table)
    }
    if options.includes("recording") {
        try Recording.measure(count: 1_000_000 / scale, runs: runs, directory: options.directory, table: &table)
    }
    if options.includes("hops") {
        try Hops.measure(count: 1_000_000 / scale, runs: runs, table: &table)
    }
    if options.includes("io") {
        try TraceIO.measure(events: 3_000_000 / scale, runs: runs, directory: options.directory, table: &table)
    }
    if options.includes("stats") {
        try StatsBench.measure(minimumBytes: options.quick ? 256 << 20 : 2 << 30, runs: min(runs, 3),
                               directory: options.directory, table: &table)
    }
    if options.includes("replay") {
        try ReplayBench.measure(events: 1_000_000 / scale, runs: min(runs, 3), directory: options.directory, table: &table)
    }
    if options.includes("drawing") {
        try Drawing.measure(events: 10_000, runs: runs, table: &table)
    }
    print(table.markdown, terminator: "")
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    if let path = options.statsChild {
        try StatsBench.child(path: path)
    } else {
        try runBenchmarks(options)
    }
} catch {
    FileHandle.standardError.write(Data("MarblesBench: \(error)\n".utf8))
    exit(2)
}
