import Diagrams
import Foundation
import Replay
import Signals
import TraceLog
import Tutorials
import Viewer

/// A file derived deterministically from a scenario's recording, by its path from the
/// repository's top (`traces/signin.replay.trace`).
public struct GoldenFile: Sendable {
    /// The path from the repository's top.
    public let path: String
    /// The file's bytes: the same for the same recording, every time.
    public let bytes: [UInt8]
}

/// What the demo derives from a scenario's live recording, and `make figures` regenerates
/// from the committed one: the replay in virtual time (`traces/<name>.replay.trace`) and the
/// figures drawn from it (`diagrams/<name>-marbles.{svg,png}`, `diagrams/<name>-pipeline.{svg,png}`)
/// and its `marbles view` page (`diagrams/<name>.html`).
public enum Figures {
    /// The recording of `scenario` under `traces`: `traces/<name>.trace`.
    public static func recordingPath(_ scenario: Scenario) -> String { "traces/\(scenario.name).trace" }

    /// The replay of `scenario` from `recording`: the trace bytes and the trace.
    /// Throws `ReplayError` when the recording does not fit the scenario's pipeline.
    public static func replay(_ scenario: Scenario, from recording: Trace, name: String) throws -> ReplayResult {
        return try Replayer(trace: recording, name: name).replay { scenario.build(in: $0) }
    }

    /// The files derived from a replay of `scenario`: the replay's trace, then its marble
    /// and pipeline figures and the page that explores it in a browser. Throws `DiagramError` when a figure cannot be drawn.
    public static func files(of scenario: Scenario, replay: ReplayResult) throws -> [GoldenFile] {
        try files(name: scenario.name, title: scenario.title, figureNodes: scenario.figureNodes, replay: replay.bytes,
                  trace: replay.trace)
    }

    /// The files derived from a replay of the async search (`AsyncSearchScenario`), the same
    /// files as a `Signals` scenario's: the replay's trace, its figures and its page.
    /// Throws what reading the replay's bytes throws (`TraceError`), or `DiagramError`.
    public static func asyncSearchFiles(replay bytes: [UInt8]) throws -> [GoldenFile] {
        let name = AsyncSearchScenario.name
        return try files(name: name, title: AsyncSearchScenario.title, figureNodes: nil, replay: bytes,
                         trace: Trace(bytes: bytes, name: "traces/\(name).replay.trace"))
    }

    private static func files(name: String, title: String, figureNodes: [String]?, replay bytes: [UInt8],
                              trace: Trace) throws -> [GoldenFile] {
        let marbles = try MarbleFigure(trace: trace, options: MarbleOptions(
            selection: figureNodes.map { .nodes($0) } ?? .paths, title: title))
        let pipeline = PipelineGraph(trace: trace, title: title)
        return [
            GoldenFile(path: "traces/\(name).replay.trace", bytes: bytes),
            GoldenFile(path: "diagrams/\(name)-marbles.svg", bytes: Array(try MarbleRenderer.render(marbles, format: .svg))),
            GoldenFile(path: "diagrams/\(name)-marbles.png", bytes: Array(try MarbleRenderer.render(marbles, format: .png))),
            GoldenFile(path: "diagrams/\(name)-pipeline.svg", bytes: Array(try PipelineRenderer.render(pipeline, format: .svg))),
            GoldenFile(path: "diagrams/\(name)-pipeline.png", bytes: Array(try PipelineRenderer.render(pipeline, format: .png))),
            GoldenFile(path: "diagrams/\(name).html", bytes: Array(try TracePage.html(
                [TracePage.Input(name: "\(name).replay.trace", trace: trace,
                                 stats: TraceStats.compute(TraceReader(bytes: bytes, name: "\(name).replay.trace")))],
                title: title).utf8)),
        ]
    }

    /// Compares a live recording with its replay: they agree when every node and event
    /// matches. The fake services' own nodes run inside the calls' `perform`, so exist in the
    /// live run only; the diff lists them apart (`insideCalls`) rather than as differences.
    /// Times are compared, not judged (real against virtual time).
    public static func agreement(of recording: Trace, and replay: Trace, recordingName: String,
                                 replayName: String) -> TraceDiff {
        TraceDiff(recording, replay, nameA: recordingName, nameB: replayName)
    }
}
