import Foundation
import TraceLog
import Tutorials
import XCTest

/// The committed replays (and figures) are what the committed recordings give: regenerating
/// them must not change a byte.
final class GoldenTests: XCTestCase {
    /// The repository's top: this file is Tests/TutorialsTests/GoldenTests.swift.
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

    func testTheReplaysAgreeWithTheRecordingsOnEveryOutput() throws {
        for scenario in Scenarios.all {
            let recordingPath = Figures.recordingPath(scenario)
            let recording = try Trace(contentsOf: top.appendingPathComponent(recordingPath))
            let replay = try Figures.replay(scenario, from: recording, name: recordingPath).trace
            XCTAssertEqual(recording.header.clock, .real, recordingPath)
            XCTAssertEqual(replay.header.clock, .virtual, recordingPath)
            // Every node a sink observes sends the same values in the replay as in the live run.
            var compared = 0
            for sink in recording.sinks {
                guard let upstream = sink.upstream.first?.node else { continue }
                let identity = recording.identity(of: upstream)
                let live = recording.values(ofNodesWith: identity)
                compared += live.count
                XCTAssertEqual(replay.values(ofNodesWith: identity), live, "\(scenario.name): \(identity)")
            }
            XCTAssertGreaterThan(compared, 3, "\(scenario.name): the sinks saw values")
        }
    }
}

extension Trace {
    /// A node's identity independent of numbering: its name, parameters, label and call site,
    /// and those of its upstream nodes.
    func identity(of id: UInt64) -> String {
        guard let node = node(id) else { return "?" }
        let upstream = node.upstream.map { identity(of: $0.node) }.joined(separator: ", ")
        return "\(node.name)(\(node.parameters))\(node.label.map { " \"\($0)\"" } ?? "")@\(node.file):\(node.line)[\(upstream)]"
    }

    /// The display texts of the values sent by every node of that identity, in order.
    func values(ofNodesWith identity: String) -> [String] {
        let ids = Set(nodes.map(\.id).filter { self.identity(of: $0) == identity })
        return events.filter { ids.contains($0.node) && $0.kind == .value }.compactMap(\.text)
    }
}
