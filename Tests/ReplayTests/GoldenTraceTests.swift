import Foundation
import MarblesTesting
import Replay
import TraceLog
import XCTest

final class GoldenTraceTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("golden-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func replay(_ pipeline: TestPipeline) throws -> ReplayResult {
        let recorded = try Recording.simulated(pipeline).trace
        return try Replayer(trace: recorded).replay { pipeline.build($0).0 }
    }

    func testRecordingWritesTheGoldenAndThenTheSameTraceMatches() throws {
        let result = try replay(Pipelines.search())
        let url = directory.appendingPathComponent("nested/search.trace")
        XCTAssertEqual(GoldenTrace.check(result.bytes, golden: url, record: true), .recorded(path: url.path))
        XCTAssertEqual(try Data(contentsOf: url), Data(result.bytes))
        XCTAssertEqual(GoldenTrace.check(result.bytes, golden: url, record: false), .matched)
        XCTAssertEqual(GoldenTrace.check(try replay(Pipelines.search()).bytes, golden: url, record: false), .matched)
    }

    func testAChangedTraceDiffersWithTheDiffReport() throws {
        let url = directory.appendingPathComponent("debounce.trace")
        _ = GoldenTrace.check(try replay(Pipelines.debounce()).bytes, golden: url, record: true)
        var bytes = try replay(Pipelines.debounce()).bytes
        let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: #""json":"hell""#, with: #""json":"help""#)
        bytes = Array(text.utf8)
        guard case let .differs(report) = GoldenTrace.check(bytes, golden: url, record: false) else {
            return XCTFail("expected a difference")
        }
        XCTAssertTrue(report.contains(#"first divergence: input "text" @ReplayTests/Pipelines.swift:"#), report)
        XCTAssertTrue(report.contains(#"value differs: "hell" in A, "help" in B"#), report)
    }

    func testAMissingGoldenSaysWhereItWasLookedFor() throws {
        let url = directory.appendingPathComponent("none.trace")
        XCTAssertEqual(GoldenTrace.check(try replay(Pipelines.debounce()).bytes, golden: url, record: false),
                       .missing(path: url.path))
    }

    func testAMalformedGoldenOrTraceIsUnreadableWithItsPosition() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("bad.trace")
        try Data("{\"type\":\"header\",\"format\":\"marbles-trace\"\n".utf8).write(to: url)
        let good = try replay(Pipelines.debounce()).bytes
        guard case let .unreadable(message) = GoldenTrace.check(good, golden: url, record: false) else {
            return XCTFail("expected the golden to be unreadable")
        }
        XCTAssertTrue(message.hasPrefix("\(url.path):1:"), message)
        guard case let .unreadable(garbage) = GoldenTrace.check(Array("nonsense".utf8), golden: url, record: false) else {
            return XCTFail("expected the trace to be unreadable")
        }
        XCTAssertTrue(garbage.contains("the trace under test:1:"), garbage)
    }

    func testGoldenPathsAreUnderThePackagesTracesDirectory() throws {
        let url = try XCTUnwrap(GoldenTrace.url(forGolden: "golden/x.trace", sourceFile: #filePath))
        let top = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        XCTAssertEqual(url.path, top.appendingPathComponent("traces/golden/x.trace").path)
        XCTAssertEqual(GoldenTrace.url(forGolden: "/tmp/y.trace", sourceFile: #filePath)?.path, "/tmp/y.trace")
        XCTAssertNil(GoldenTrace.url(forGolden: "x.trace", sourceFile: "/no/such/place/File.swift"))
    }

    /// The replay of the search pipeline, recorded in virtual time, is a checked-in golden:
    /// `MARBLES_RECORD=1 swift test --filter GoldenTraceTests` rewrites it.
    func testTheSearchReplayMatchesItsGolden() throws {
        assertTrace(try replay(Pipelines.search()), matchesGolden: "golden/replay-search.trace")
    }
}
