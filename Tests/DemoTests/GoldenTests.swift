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
            for file in try Figures.files(of: scenario, replay: replay) {
                let committed = try? Data(contentsOf: top.appendingPathComponent(file.path))
                XCTAssertNotNil(committed, "\(file.path) is missing; run `make figures` to regenerate it")
                guard let committed else { continue }
                XCTAssertTrue(Array(committed) == file.bytes,
                              "\(file.path) differs from what \(recordingPath) gives now "
                                  + "(\(committed.count) bytes committed, \(file.bytes.count) regenerated); "
                                  + "run `make figures` to refresh it and review the change")
            }
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
