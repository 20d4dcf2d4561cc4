import Diagrams
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Recording
import Replay
import Signals
import Spec
import TraceLog
import Tutorials
import XCTest
import TestSupport

/// Corrupt traces and specs, made from the committed tutorial recordings and operator specs
/// by a seeded generator, run through every reading API: read, stats, Perfetto export, diff
/// both ways, replay, marble and pipeline figures to SVG (checked to be well-formed XML), and
/// spec parse, run and figure.
///
/// The cases run in a child process (this test bundle, re-run with `testWorker` selected) so
/// a trap kills the child, not the suite; the parent names the case that was running when the
/// child died, stalled past the time limit or grew past the memory limit, then goes on with
/// the next case in a new child. `MARBLES_FUZZ_CASES` sets the number of cases (default 2500),
/// `MARBLES_FUZZ_SEED` the seed.
final class FuzzTests: XCTestCase {
    static let defaultCases = 2500
    static let caseTimeLimit: TimeInterval = 30
    static let memoryLimitBytes = 2 << 30

    func testCorruptTracesAndSpecsNeverTrapHangOrBlowUp() throws {
        guard ProcessInfo.processInfo.environment["MARBLES_FUZZ_WORKER"] == nil else { return }
        let environment = ProcessInfo.processInfo.environment
        let count = environment["MARBLES_FUZZ_CASES"].flatMap(Int.init) ?? Self.defaultCases
        let seed = environment["MARBLES_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x6D61_7262_6C65_7321
        let corpus = try FuzzCorpus.load()
        var failures: [String] = []
        var next = 0
        let started = Date()
        while next < count {
            let outcome = try runWorker(from: next, to: count, seed: seed)
            failures += outcome.failures
            guard let stopped = outcome.stoppedAt else { break }
            let mutant = corpus.mutant(index: stopped, seed: seed)
            let saved = FileManager.default.temporaryDirectory
                .appendingPathComponent("marbles-fuzz-\(seed)-\(stopped).\(mutant.isSpec ? "marbles" : "trace")")
            try? Data(mutant.bytes).write(to: saved)
            failures.append("case \(stopped) (\(mutant.description)): \(outcome.reason ?? "stopped"); input saved at \(saved.path)")
            next = stopped + 1
        }
        let seconds = Date().timeIntervalSince(started)
        print("fuzz: \(count) cases, seed \(seed), \(String(format: "%.1f", seconds)) s, \(failures.count) failures")
        for failure in failures { XCTFail(failure) }
    }

    /// Runs cases in-process when this bundle was started as the fuzz worker; does nothing in
    /// an ordinary run.
    func testWorker() throws {
        guard let range = ProcessInfo.processInfo.environment["MARBLES_FUZZ_WORKER"] else { return }
        let parts = range.split(separator: ":").compactMap { UInt64($0) }
        guard parts.count == 3 else { return }
        let corpus = try FuzzCorpus.load()
        for index in Int(parts[0])..<Int(parts[1]) {
            FuzzWorker.say("START \(index)")
            let mutant = corpus.mutant(index: index, seed: parts[2])
            for problem in FuzzWorker.run(mutant, corpus: corpus) {
                FuzzWorker.say("FAIL \(index) \(mutant.description): \(problem)")
            }
            FuzzWorker.say("DONE \(index)")
        }
    }

    private struct WorkerOutcome {
        var failures: [String] = []
        /// The case running when the worker died or was stopped; nil when it finished.
        var stoppedAt: Int?
        var reason: String?
    }

    /// Runs cases `from..<to` in a child until it finishes, dies, stalls or grows too large.
    private func runWorker(from: Int, to: Int, seed: UInt64) throws -> WorkerOutcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["FuzzTests.FuzzTests/testWorker"]
        var environment = ProcessInfo.processInfo.environment
        environment["MARBLES_FUZZ_WORKER"] = "\(from):\(to):\(seed)"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let progress = WorkerProgress()
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            progress.append(data)
        }
        try process.run()
        var outcome = WorkerOutcome()
        var lastChange = Date()
        var lastSeen = -1
        while process.isRunning {
            Thread.sleep(forTimeInterval: 0.05)
            let started = progress.started
            if started != lastSeen {
                lastSeen = started
                lastChange = Date()
            }
            if Date().timeIntervalSince(lastChange) > Self.caseTimeLimit {
                outcome.reason = "hang: no progress for \(Int(Self.caseTimeLimit)) s"
                process.terminate()
                kill(process.processIdentifier, SIGKILL)
                break
            }
            if let resident = Self.residentBytes(of: process.processIdentifier), resident > Self.memoryLimitBytes {
                outcome.reason = "memory: \(resident >> 20) MiB resident, above the \(Self.memoryLimitBytes >> 20) MiB limit"
                kill(process.processIdentifier, SIGKILL)
                break
            }
        }
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        progress.append(output.fileHandleForReading.readDataToEndOfFile())
        let (running, failures) = progress.state
        outcome.failures = failures
        if let running {
            outcome.stoppedAt = running
            if outcome.reason == nil {
                outcome.reason = process.terminationReason == .uncaughtSignal
                    ? "trap: killed by signal \(process.terminationStatus)" : "exited \(process.terminationStatus) mid-case"
            }
        } else if process.terminationReason == .uncaughtSignal || process.terminationStatus != 0 {
            outcome.failures.append("the worker for cases \(from)..<\(to) ended with status \(process.terminationStatus) between cases")
        }
        return outcome
    }

    private static func residentBytes(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
    }
}

/// What the worker has said: the case it started and not finished, and the failures it found.
private final class WorkerProgress: @unchecked Sendable {  // every access holds the lock
    private let lock = NSLock()
    private var buffer = Data()
    private var running: Int?
    private var lastStarted = -1
    private var failures: [String] = []

    func append(_ data: Data) {
        lock.lock()
        defer { lock.unlock() }
        buffer.append(data)
        while let newline = buffer.firstIndex(of: 0x0A) {
            let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
            buffer.removeSubrange(buffer.startIndex...newline)
            if line.hasPrefix("START "), let index = Int(line.dropFirst(6)) {
                running = index
                lastStarted = index
            } else if line.hasPrefix("DONE ") {
                running = nil
            } else if line.hasPrefix("FAIL ") {
                failures.append("case " + line.dropFirst(5))
            }
        }
    }

    /// The last case started: it changes whenever a case starts, so the parent sees progress.
    var started: Int {
        lock.lock()
        defer { lock.unlock() }
        return lastStarted
    }

    /// The case running (nil between cases) and the failures so far.
    var state: (Int?, [String]) {
        lock.lock()
        defer { lock.unlock() }
        return (running, failures)
    }
}

/// The committed inputs the mutants are made from.
struct FuzzCorpus {
    struct Source {
        let name: String
        let bytes: [UInt8]
        let isSpec: Bool
    }

    struct Mutant {
        let source: Int
        let bytes: [UInt8]
        let isSpec: Bool
        let description: String
    }

    let sources: [Source]

    static func load() throws -> FuzzCorpus {
        let top = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        var sources: [Source] = []
        for (folder, ext) in [("traces", "trace"), ("diagrams/operators", "marbles")] {
            let names = try FileManager.default.contentsOfDirectory(atPath: top.appendingPathComponent(folder).path)
                .filter { $0.hasSuffix("." + ext) }.sorted()
            for name in names {
                let data = try Data(contentsOf: top.appendingPathComponent(folder).appendingPathComponent(name))
                sources.append(Source(name: name, bytes: [UInt8](data), isSpec: ext == "marbles"))
            }
        }
        return FuzzCorpus(sources: sources)
    }

    /// Case `index`: a source and one to three mutations, all from a generator seeded by the
    /// seed and the index, so a case is made again from its number alone.
    func mutant(index: Int, seed: UInt64) -> Mutant {
        var random = SplitMix(seed: seed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15))
        let source = Int(random.next() % UInt64(sources.count))
        var bytes = sources[source].bytes
        var done: [String] = []
        for _ in 0..<(1 + Int(random.next() % 3)) {
            done.append(Mutation.apply(&bytes, isSpec: sources[source].isSpec, random: &random))
        }
        return Mutant(source: source, bytes: bytes, isSpec: sources[source].isSpec,
                      description: "\(sources[source].name): \(done.joined(separator: ", "))")
    }
}


/// The ways a case corrupts its input.
enum Mutation {
    static let extremeNumbers = ["9223372036854775807", "-9223372036854775808", "9223372036854775000",
                                 "-9223372036854775000", "0", "-1", "9223372036854775808", "1e308", "100000000"]
    static let hostileStrings = ["&#x1b;]0;title&#7;", "\u{1B}[31mred\u{1B}[0m", "\u{202E}evil\u{202C}", "<svg>&amp;</svg>",
                                 "\\\\N\\\\G\\\\n", String(repeating: "w", count: 20_000), "", "\\u0000\\u0007",
                                 "out\") .map(x => stream(\"out", "stream(\"out\")", "'; ]]> --> <!--", "日本🙂\u{0301}"]

    /// Applies one random mutation; returns what it did.
    static func apply(_ bytes: inout [UInt8], isSpec: Bool, random: inout SplitMix) -> String {
        switch random.below(isSpec ? 9 : 7) {
        case 0:
            guard !bytes.isEmpty else { return "nothing to flip" }
            let flips = 1 + random.below(4)
            for _ in 0..<flips {
                bytes[random.below(bytes.count)] ^= UInt8(truncatingIfNeeded: 1 + random.below(255))
            }
            return "flipped \(flips) bytes"
        case 1:
            let at = random.below(bytes.count + 1)
            bytes = Array(bytes.prefix(at))
            return "truncated at byte \(at)"
        case 2:
            var lines = split(bytes)
            guard !lines.isEmpty else { return "no line to duplicate" }
            let at = random.below(lines.count)
            lines.insert(lines[at], at: random.below(lines.count + 1))
            bytes = join(lines)
            return "duplicated line \(at + 1)"
        case 3:
            var lines = split(bytes)
            guard lines.count > 1 else { return "no line to delete" }
            let at = random.below(lines.count)
            lines.remove(at: at)
            bytes = join(lines)
            return "deleted line \(at + 1)"
        case 4:
            return replaceNumber(&bytes, with: extremeNumbers[random.below(extremeNumbers.count)], random: &random)
        case 5:
            return replaceString(&bytes, with: hostileStrings[random.below(hostileStrings.count)], random: &random)
        case 6:
            return swapIds(&bytes, random: &random)
        case 7:
            return renameStream(&bytes, random: &random)
        default:
            return resubscribe(&bytes, random: &random)
        }
    }

    /// Operators that start their input again, some for ever: the probe's first crash (issue
    /// 31 item 1) was one of these over an input that fails.
    static let resubscribers = [".retry()", ".retry(3)", ".catchError((e, c) => c)", ".catchError((e, c) => c.take(2))",
                                ".catchError(e => throwError(e)).retry()", ".concat(throwError('x')).catchError((e, c) => c)"]

    /// Appends a resubscribing operator to one stream definition of a spec (a line that is
    /// not an input, an error table or a setting).
    private static func resubscribe(_ bytes: inout [UInt8], random: inout SplitMix) -> String {
        var lines = split(bytes)
        let definitions = lines.indices.filter { index in
            let line = String(decoding: lines[index], as: UTF8.self)
            return line.contains("=") && !line.hasPrefix("#")
                && !["hot ", "cold ", "error ", "frame ", "unsubscribe "].contains { line.hasPrefix($0) }
        }
        guard !definitions.isEmpty else { return "no definition to resubscribe" }
        let at = definitions[random.below(definitions.count)]
        let suffix = resubscribers[random.below(resubscribers.count)]
        lines[at] = ArraySlice(Array(lines[at]) + Array(suffix.utf8))
        bytes = join(lines)
        return "line \(at + 1) + \(suffix)"
    }

    private static func split(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
    }

    private static func join(_ lines: [ArraySlice<UInt8>]) -> [UInt8] {
        Array(lines.joined(separator: [0x0A]))
    }

    /// The ranges of maximal runs of bytes matching `belongs`, starting where `starts` allows.
    private static func runs(_ bytes: [UInt8], starts: (UInt8) -> Bool, belongs: (UInt8) -> Bool) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var index = 0
        while index < bytes.count {
            if starts(bytes[index]) {
                var end = index + 1
                while end < bytes.count, belongs(bytes[end]) { end += 1 }
                found.append(index..<end)
                index = end
            } else {
                index += 1
            }
        }
        return found
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func replaceNumber(_ bytes: inout [UInt8], with text: String, random: inout SplitMix) -> String {
        let numbers = runs(bytes, starts: isDigit, belongs: isDigit)
        guard !numbers.isEmpty else { return "no number to replace" }
        let range = numbers[random.below(numbers.count)]
        bytes.replaceSubrange(range, with: Array(text.utf8))
        return "number at byte \(range.lowerBound) → \(text)"
    }

    private static func replaceString(_ bytes: inout [UInt8], with text: String, random: inout SplitMix) -> String {
        // The inside of a double-quoted run without escapes (a JSON string, or a spec string).
        var quoted: [Range<Int>] = []
        var open: Int?
        for (index, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: "\"") {
                if let start = open {
                    quoted.append(start + 1..<index)
                    open = nil
                } else {
                    open = index
                }
            } else if byte == 0x0A || byte == UInt8(ascii: "\\") {
                open = nil
            }
        }
        guard !quoted.isEmpty else { return "no string to replace" }
        let range = quoted[random.below(quoted.count)]
        bytes.replaceSubrange(range, with: Array(text.utf8))
        return "string at byte \(range.lowerBound) → \(text.count > 40 ? "\(text.count) characters" : text.debugDescription)"
    }

    /// Puts the value of one `"key":N` where another id key's value was.
    private static func swapIds(_ bytes: inout [UInt8], random: inout SplitMix) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        let keys = ["\"node\":", "\"sub\":", "\"thread\":", "\"id\":", "\"seq\":", "\"parent\":", "\"causes\":["]
        var places: [(range: Range<Int>, value: String)] = []
        let utf8 = Array(text.utf8)
        for key in keys {
            let pattern = Array(key.utf8)
            var index = 0
            while index + pattern.count < utf8.count {
                if utf8[index..<index + pattern.count].elementsEqual(pattern) {
                    var end = index + pattern.count
                    while end < utf8.count, isDigit(utf8[end]) { end += 1 }
                    if end > index + pattern.count {
                        let range = index + pattern.count..<end
                        places.append((range, String(decoding: utf8[range], as: UTF8.self)))
                    }
                    index = end
                } else {
                    index += 1
                }
            }
        }
        guard places.count > 1 else { return "no ids to swap" }
        let target = places[random.below(places.count)]
        let value = places[random.below(places.count)].value
        bytes.replaceSubrange(target.range, with: Array(value.utf8))
        return "id at byte \(target.range.lowerBound) → \(value)"
    }

    /// Replaces one name in a spec with another name of it: references to itself, to later
    /// streams, two definitions of one name.
    private static func renameStream(_ bytes: inout [UInt8], random: inout SplitMix) -> String {
        func isNameByte(_ byte: UInt8) -> Bool {
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || isDigit(byte) || byte == 0x5F
        }
        let names = runs(bytes, starts: { isNameByte($0) && !isDigit($0) }, belongs: isNameByte)
        guard names.count > 1 else { return "no names to swap" }
        let target = names[random.below(names.count)]
        let source = names[random.below(names.count)]
        let value = Array(bytes[source])
        bytes.replaceSubrange(target, with: value)
        return "name at byte \(target.lowerBound) → \(String(decoding: value, as: UTF8.self))"
    }
}

/// Runs one case in-process; what it returns are failures that are not traps (an SVG that is
/// not well-formed XML).
enum FuzzWorker {
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func run(_ mutant: FuzzCorpus.Mutant, corpus: FuzzCorpus) -> [String] {
        mutant.isSpec ? runSpec(mutant) : runTrace(mutant, corpus: corpus)
    }

    private static func runTrace(_ mutant: FuzzCorpus.Mutant, corpus: FuzzCorpus) -> [String] {
        var problems: [String] = []
        let name = "fuzz.trace"
        let stats = try? TraceStats.compute(TraceReader(bytes: mutant.bytes, name: name))
        _ = stats?.text
        _ = stats?.json
        _ = try? PerfettoExport.export(TraceReader(bytes: mutant.bytes, name: name)) { _ in }
        guard let trace = try? Trace(bytes: mutant.bytes, name: name) else { return problems }
        let source = corpus.sources[mutant.source]
        if let original = try? Trace(bytes: source.bytes, name: source.name) {
            _ = TraceDiff(original, trace).text
            _ = TraceDiff(trace, original).text
        }
        if let figure = try? MarbleFigure(trace: trace, options: MarbleOptions(selection: .all, causes: true)),
           let svg = try? MarbleRenderer.render(figure, format: .svg) {
            problems += wellFormed(svg, "marble SVG")
        }
        var latencies: [UInt64: Int64] = [:]
        for line in stats?.nodes ?? [] { latencies[line.node.id] = line.stageLatency?.p95 }
        if let svg = try? PipelineRenderer.render(PipelineGraph(trace: trace, latencies: latencies), format: .svg) {
            problems += wellFormed(svg, "pipeline SVG")
        }
        let scenarioName = source.name.replacingOccurrences(of: ".replay.trace", with: "")
            .replacingOccurrences(of: ".trace", with: "")
        if let scenario = Scenarios.named(scenarioName) {
            for latency in [ReplayEnvironment.HopLatency.zero, .asRecorded] {
                _ = try? Replayer(trace: trace, name: name, hopLatency: latency).replay { scenario.build(in: $0) }
            }
        }
        return problems
    }

    private static func runSpec(_ mutant: FuzzCorpus.Mutant) -> [String] {
        guard let document = try? SpecDocument.parse(String(decoding: mutant.bytes, as: UTF8.self), file: "fuzz.marbles") else {
            return []
        }
        let scheduler = TestScheduler(name: "main")
        guard let bytes = try? Recorder.record(virtual: scheduler, { _ = try document.run(on: scheduler) }),
              let trace = try? Trace(bytes: bytes, name: "fuzz.marbles"),
              let figure = try? MarbleFigure(trace: trace),
              let svg = try? MarbleRenderer.render(figure, format: .svg) else { return [] }
        return wellFormed(svg, "spec marble SVG")
    }

    private static func wellFormed(_ data: Data, _ what: String) -> [String] {
        do {
            _ = try XMLDocument(data: data, options: [])
            return []
        } catch {
            return ["\(what) is not well-formed XML: \(error)"]
        }
    }
}
