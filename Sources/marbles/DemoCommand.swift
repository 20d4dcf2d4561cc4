import ArgumentParser
import Diagrams
import Foundation
import Replay
import TraceLog
import Tutorials
import Demo

/// `marbles demo`: record, replay and draw the tutorial scenarios, and sum them up.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Record the tutorial scenarios live, replay, diff and draw them, and print a summary table.",
        discussion: """
        For each scenario (or the one named by --scenario): runs it live on real threads with \
        its simulated user and fake services and records traces/<name>.trace (real clock); \
        replays that recording in virtual time into traces/<name>.replay.trace \
        (deterministic: the same recording always gives the same bytes); diffs the replay \
        with the recording (values, terminal events and threads must agree; the fake \
        services' own nodes exist only live, and real times are not judged against virtual \
        ones); draws diagrams/<name>-marbles.{svg,png} and diagrams/<name>-pipeline.{svg,png} \
        and writes the replay's 'marbles view' page, diagrams/<name>.html, \
        from the replay. Then prints one table: nodes, events and thread hops of the live run, \
        the end-to-end latency (p50/p95) of its slowest path from a user input to a sink, its \
        slowest stage, and whether the replay agrees.

        With --from-recordings nothing runs live: the committed recordings are replayed again, \
        which regenerates the deterministic outputs byte for byte (this is `make figures`).

        The last scenario, \(AsyncSearchScenario.name), is TwitterInstant written with \
        AsyncSequence and swift-async-algorithms: it is recorded in virtual time (under a \
        VirtualTimeDriver, so its recording is the same bytes every run), then replayed, diffed \
        and drawn as the others are.

        Scenarios: \(DemoChoice.names.joined(separator: ", ")).

        Each file is written to a temporary file beside it and renamed over the old one only \
        once complete: a recording replaces traces/<name>.trace only when it has finished, so \
        an interrupted or failed run leaves the committed recording as it was.

        Exit status: 0 on success, 1 when a replay does not agree with its recording (the \
        differences are listed), 2 for an unknown scenario, a missing or malformed \
        recording, a recording that does not fit its pipeline, or a file that cannot be written.

        Example:
          marbles demo
          marbles demo --scenario twitter-instant
          marbles demo --from-recordings
        """
    )

    @Option(name: .long, help: ArgumentHelp("Run only this scenario.", valueName: "name"))
    var scenario: DemoChoice?

    @Flag(name: .long, help: "Do not run live: replay the recordings already under traces/ (what `make figures` does).")
    var fromRecordings = false

    @Option(name: .long, help: ArgumentHelp("The folder holding traces/ (and diagrams/); the current folder by default.",
                                            valueName: "dir"))
    var root = PathName(".")

    func run() throws {
        let scenarios = scenario.map { $0.scenario.map { [$0] } ?? [] } ?? Scenarios.all
        let runsAsync = scenario.map { $0.scenario == nil } ?? true
        let total = scenarios.count + (runsAsync ? 1 : 0)
        let top = root
        if !fromRecordings { try Self.makeFolders(top.appending(PathName("traces"))) }
        var rows: [DemoRow] = []
        for (index, scenario) in scenarios.enumerated() {
            let counter = "[\(index + 1)/\(total)] \(scenario.name)"
            rows.append(try run(scenario, counter: counter, top: top))
        }
        if runsAsync {
            rows.append(try runAsyncSearch(counter: "[\(total)/\(total)] \(AsyncSearchScenario.name)", top: top))
        }
        var report = "\n" + DemoRow.table(rows)
        for row in rows where !row.agreement.isSame {
            report += "\n\(row.name): the replay does not agree with the recording:\n"
            for difference in row.agreement.differences.prefix(5) {
                report += "  \(difference.kind.rawValue): \(difference.node)\n"
            }
            report += "  full report: marbles diff traces/\(row.name).trace traces/\(row.name).replay.trace\n"
        }
        try Console.print(report)
        if rows.contains(where: { !$0.agreement.isSame }) {
            throw CLIError.disagreement
        }
    }

    private func run(_ scenario: Scenario, counter: String, top: PathName) throws -> DemoRow {
        let recordingPath = Figures.recordingPath(scenario)
        let recordingFile = top.appending(PathName(recordingPath))
        if !fromRecordings {
            // The recording replaces the committed one only once it has finished.
            let pending = try OutputFile(recordingFile, option: "the recording").begin()
            try Console.print("\(counter): recording live for \(String(format: "%.1f", scenario.duration)) s → \(recordingPath)\n")
            do {
                try LiveRunner.record(scenario, into: pending.recorder())
            } catch let error as TraceError {
                throw pending.failure(error.message)
            }
            try pending.commit()
        } else if recordingFile.withCString({ access($0, F_OK) }) != 0 {
            throw Self.failure("\(recordingFile.shown): no recording of \(scenario.name); run `marbles demo` "
                + "(or `marbles record --scenario \(scenario.name) -o \(recordingPath)`) first")
        }
        let input = try InputFile(recordingFile)
        do {
            let recording = try Trace(reader: input.traceReader())
            let stats = try TraceStats.compute(input.traceReader())
            try Console.print("\(counter): replaying in virtual time\n")
            let replay = try Figures.replay(scenario, from: recording, name: recordingPath)
            let agreement = Figures.agreement(of: recording, and: replay.trace, recordingName: recordingPath,
                                              replayName: "traces/\(scenario.name).replay.trace")
            try Console.print("\(counter): diffing the replay with the recording: "
                + (agreement.isSame ? "values agree" : "\(agreement.differences.count) differences") + "\n")
            for file in try Figures.files(of: scenario, replay: replay) {
                try Console.print("\(counter): writing \(file.path)\n")
                let path = top.appending(PathName(file.path))
                try Self.makeFolders(path.folder)
                try OutputFile(path, option: "the demo's output", inputs: [input]).write(file.bytes)
            }
            return DemoRow(name: scenario.name, recording: recording, stats: stats, agreement: agreement)
        } catch let error as TraceError {
            throw Self.failure("\(error)")
        } catch let error as ReplayError {
            throw Self.failure("\(error)")
        } catch let error as DiagramError {
            throw Self.failure("\(scenario.name): cannot draw: \(error)")
        } catch let error as CLIError {
            throw error
        } catch {
            throw Self.failure("\(scenario.name): \(error.localizedDescription)")
        }
    }

    /// The async search (`AsyncSearchScenario`): recorded in virtual time (unless
    /// `--from-recordings`), replayed, diffed and drawn as a `Signals` scenario is.
    private func runAsyncSearch(counter: String, top: PathName) throws -> DemoRow {
        let recordingPath = AsyncSearchScenario.recordingPath
        let recordingFile = top.appending(PathName(recordingPath))
        do {
            if !fromRecordings {
                try Console.print("\(counter): recording in virtual time → \(recordingPath)\n")
                try OutputFile(recordingFile, option: "the recording").write(try AsyncSearchScenario.record())
            } else if recordingFile.withCString({ access($0, F_OK) }) != 0 {
                throw Self.failure("\(recordingFile.shown): no recording of \(AsyncSearchScenario.name); run `marbles demo` first")
            }
            let input = try InputFile(recordingFile)
            let bytes = try input.contents()
            let recording = try Trace(bytes: bytes, name: recordingPath)
            let stats = try TraceStats.compute(TraceReader(bytes: bytes, name: recordingPath))
            try Console.print("\(counter): replaying in virtual time\n")
            let replayBytes = try AsyncSearchScenario.replay(bytes)
            let replayPath = "traces/\(AsyncSearchScenario.name).replay.trace"
            let agreement = Figures.agreement(of: recording, and: try Trace(bytes: replayBytes, name: replayPath),
                                              recordingName: recordingPath, replayName: replayPath)
            try Console.print("\(counter): diffing the replay with the recording: "
                + (agreement.isSame ? "values agree" : "\(agreement.differences.count) differences") + "\n")
            for file in try Figures.asyncSearchFiles(replay: replayBytes) {
                try Console.print("\(counter): writing \(file.path)\n")
                let path = top.appending(PathName(file.path))
                try Self.makeFolders(path.folder)
                try OutputFile(path, option: "the demo's output", inputs: [input]).write(file.bytes)
            }
            return DemoRow(name: AsyncSearchScenario.name, recording: recording, stats: stats, agreement: agreement)
        } catch let error as TraceError {
            throw Self.failure("\(error)")
        } catch let error as ReplayError {
            throw Self.failure("\(error)")
        } catch let error as DiagramError {
            throw Self.failure("\(AsyncSearchScenario.name): cannot draw: \(error)")
        } catch let error as CLIError {
            throw error
        } catch {
            throw Self.failure("\(AsyncSearchScenario.name): \(error.localizedDescription)")
        }
    }

    /// Makes the folder `path` and any missing folder above it, as `mkdir -p` does, by its
    /// bytes as given.
    private static func makeFolders(_ path: PathName) throws {
        var status = stat()
        if path.withCString({ stat($0, &status) }) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else {
                throw failure("cannot create the folder \(path.shown): it is \(kindName(status))")
            }
            return
        }
        let parent = path.folder
        if parent != path { try makeFolders(parent) }
        guard path.withCString({ mkdir($0, 0o777) }) == 0 || errno == EEXIST else {
            throw failure("cannot create the folder \(path.shown): \(errnoReason())")
        }
    }
}

/// `marbles demo --scenario NAME`: a `Signals` tutorial scenario, or the async search.
struct DemoChoice: ExpressibleByArgument {
    /// The `Signals` scenario, or nil for the async search.
    let scenario: Scenario?

    init?(argument: String) {
        if argument == AsyncSearchScenario.name {
            scenario = nil
        } else if let scenario = Scenarios.named(argument) {
            self.scenario = scenario
        } else {
            return nil
        }
    }

    /// Every name, in the order the demo runs them.
    static var names: [String] { Scenarios.names + [AsyncSearchScenario.name] }
    static var allValueStrings: [String] { names }
}

/// One line of the demo's table, computed from a live recording.
struct DemoRow {
    var name: String
    var nodes: Int
    var events: Int
    var hops: Int
    /// The slowest path from a user input to a sink, by p95.
    var endToEnd: TraceStats.PathStats?
    var slowestStage: String
    var agreement: TraceDiff
    let recording: Trace

    init(name: String, recording: Trace, stats: TraceStats, agreement: TraceDiff) {
        self.agreement = agreement
        self.recording = recording
        self.name = name
        nodes = recording.nodes.count
        // Events sent, as `stats` counts them: an async scenario's pulls are demand, not events.
        events = stats.events
        hops = recording.hops.count
        endToEnd = stats.paths
            .filter { $0.source.name == "input" && $0.latency != nil }
            .max { ($0.latency?.p95 ?? 0, $1.sink.id) < ($1.latency?.p95 ?? 0, $0.sink.id) }
        slowestStage = stats.slowestStage.map { node in
            Self.operatorName(node) + (node.label.map { " \"\($0)\"" } ?? "")
        } ?? "-"
    }

    /// What a sink observes, by label or name: a path reads `searchText → observe(on:)`.
    func observed(_ sink: NodeRecord) -> String {
        guard let id = sink.upstream.first?.node, let node = recording.node(id) else { return sink.name }
        return node.label ?? Self.operatorName(node)
    }

    /// `take(until:)`, `throttle(0.5s, on: main)`, `observe(on:)`: the name with the
    /// parameters, unless the name already ends in its argument labels.
    static func operatorName(_ node: NodeRecord) -> String {
        node.parameters.isEmpty || node.name.hasSuffix(")") ? node.name : "\(node.name)(\(node.parameters))"
    }

    static func table(_ rows: [DemoRow]) -> String {
        var lines = [["scenario", "nodes", "events", "hops", "end-to-end p50", "p95", "path", "slowest stage",
                      "replay agrees"]]
        for row in rows {
            let path = row.endToEnd.map { "\($0.source.label ?? $0.source.name) → \(row.observed($0.sink))" } ?? "-"
            lines.append([
                row.name, String(row.nodes), String(row.events), String(row.hops),
                row.endToEnd?.latency.map { formatDuration($0.p50) } ?? "-",
                row.endToEnd?.latency.map { formatDuration($0.p95) } ?? "-",
                path, row.slowestStage,
                row.agreement.isSame ? "yes" : "no (\(row.agreement.differences.count))",
            ])
        }
        let widths = (0..<lines[0].count).map { column in lines.map { $0[column].count }.max() ?? 0 }
        return lines.map { line in
            line.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return (1...5).contains(column) ? pad + cell : cell + pad
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }.joined(separator: "\n") + "\n"
    }
}
