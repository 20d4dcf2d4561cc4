import Foundation
import TraceLog
import Demo
import Tutorials
import XCTest

/// The committed replays (and figures) are what the committed recordings give: regenerating
/// them must not change a byte.
final class GoldenTests: XCTestCase {
    /// The repository's top: this file is Tests/DemoTests/GoldenTests.swift.
    private let top = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func testRegeneratingFromTheCommittedRecordingsChangesNoByte() throws {
        for scenario in Scenarios.all {
            let recordingPath = Figures.recordingPath(scenario)
            let recording = try Trace(contentsOf: top.appendingPathComponent(recordingPath))
            let replay = try Figures.replay(scenario, from: recording, name: recordingPath)
            try checkCommitted(try Figures.files(of: scenario, replay: replay), from: recordingPath)
        }
    }

    /// The async search's replay and figures too (the demo's sixth scenario), from its
    /// committed recording.
    func testRegeneratingTheAsyncSearchFromItsCommittedRecordingChangesNoByte() throws {
        let recordingPath = AsyncSearchScenario.recordingPath
        let recording = try Data(contentsOf: top.appendingPathComponent(recordingPath))
        let files = try Figures.asyncSearchFiles(replay: try AsyncSearchScenario.replay(Array(recording)))
        XCTAssertEqual(files.map(\.path), ["traces/async-search.replay.trace", "diagrams/async-search-marbles.svg",
                                           "diagrams/async-search-marbles.png", "diagrams/async-search-pipeline.svg",
                                           "diagrams/async-search-pipeline.png", "diagrams/async-search.html"])
        try checkCommitted(files, from: recordingPath)
    }

    private func checkCommitted(_ files: [GoldenFile], from recordingPath: String) throws {
        for file in files {
            let committed = try? Data(contentsOf: top.appendingPathComponent(file.path))
            XCTAssertNotNil(committed, "\(file.path) is missing; run `make figures` to regenerate it")
            guard let committed else { continue }
            XCTAssertTrue(Array(committed) == file.bytes,
                          "\(file.path) differs from what \(recordingPath) gives now "
                              + "(\(committed.count) bytes committed, \(file.bytes.count) regenerated); "
                              + "run `make figures` to refresh it and review the change")
        }
    }

    /// A replay's trace is built from the recorder's records, not read from its bytes: it must
    /// be what reading the bytes gives, record for record and lookup for lookup.
    func testEachReplaysTraceIsWhatItsBytesRead() throws {
        for scenario in Scenarios.all {
            let recordingPath = Figures.recordingPath(scenario)
            let recording = try Trace(contentsOf: top.appendingPathComponent(recordingPath))
            let replay = try Figures.replay(scenario, from: recording, name: recordingPath)
            let direct = replay.trace
            let read = try Trace(bytes: replay.bytes, name: "replay of \(recordingPath)")
            XCTAssertEqual(direct.header, read.header, recordingPath)
            XCTAssertEqual(direct.nodes, read.nodes, recordingPath)
            XCTAssertEqual(direct.subscriptions, read.subscriptions, recordingPath)
            XCTAssertEqual(direct.disposals, read.disposals, recordingPath)
            XCTAssertEqual(direct.threads, read.threads, recordingPath)
            XCTAssertEqual(Array(direct.events), Array(read.events), recordingPath)
            XCTAssertEqual(direct.hops, read.hops, recordingPath)
            XCTAssertEqual(direct.marks, read.marks, recordingPath)
            XCTAssertEqual(direct.summary, read.summary, recordingPath)
            XCTAssertEqual(direct.warnings, read.warnings, recordingPath)
            for position in read.events.indices {
                XCTAssertEqual(direct.events.payloadNumber(at: position), read.events.payloadNumber(at: position))
                XCTAssertEqual(direct.eventPosition(sequence: read.events.sequence(at: position)), position)
            }
            for node in read.nodes {
                XCTAssertEqual(direct.eventPositions(of: node.id), read.eventPositions(of: node.id), recordingPath)
            }
            XCTAssertGreaterThan(read.events.count, 0, recordingPath)
        }
    }

    func testTheReplaysAgreeWithTheRecordings() throws {
        for scenario in Scenarios.all {
            let recordingPath = Figures.recordingPath(scenario)
            let recording = try Trace(contentsOf: top.appendingPathComponent(recordingPath))
            let replay = try Figures.replay(scenario, from: recording, name: recordingPath).trace
            XCTAssertEqual(recording.header.clock, .real, recordingPath)
            XCTAssertEqual(replay.header.clock, .virtual, recordingPath)
            XCTAssertGreaterThan(replay.events.filter { $0.kind == .value }.count, 10, recordingPath)
            let agreement = Figures.agreement(of: recording, and: replay, recordingName: recordingPath, replayName: "replay")
            XCTAssertTrue(agreement.isSame, """
                the replay of \(recordingPath) differs from it; if \(scenario.name)'s pipeline changed, record it \
                again with `make demo`:
                \(agreement.text)
                """)
        }
    }
}
