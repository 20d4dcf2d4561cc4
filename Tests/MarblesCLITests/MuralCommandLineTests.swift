import Foundation
import XCTest

/// Issue 34: a sensor trace's marble PNG was 8,288 pixels tall and pipeline PNGs 6,713 wide,
/// written without a word. A PNG over 6000 pixels a side is written with a warning naming
/// what to draw instead.
final class MuralCommandLineTests: CommandLineTestCase {
    func testAMarbleDiagramTooTallForAPNGIsWrittenWithAWarningNamingNodes() throws {
        let lanes = (1...40).map { "t\($0) = s.map(x => x)" }.joined(separator: "\n")
        try write("hot s = -a-b-|\n\(lanes)\n", to: "tall.marbles")
        let run = try marbles(["draw", "tall.marbles", "-o", "tall.png"])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertGreaterThan(try bytes("tall.png").count, 0, "the figure is still written")
        XCTAssertTrue(run.err.contains("tall.png is "), run.err)
        XCTAssertTrue(run.err.contains("too tall to read as one image"), run.err)
        XCTAssertTrue(run.err.contains("--nodes"), run.err)
        let play = try marbles(["play", "tall.marbles", "--draw", "play.png"])
        XCTAssertEqual(play.status, 0, play.err)
        XCTAssertTrue(play.err.contains("play.png is ") && play.err.contains("too tall"), play.err)
        // SVG zooms: no warning.
        let svg = try marbles(["draw", "tall.marbles", "-o", "tall.svg"])
        XCTAssertEqual(svg.status, 0, svg.err)
        XCTAssertEqual(svg.err, "")
    }

    func testAPipelineTooWideForAPNGIsWrittenWithAWarning() throws {
        let chain = String(repeating: ".map(x => x)", count: 40)
        try write("hot s = -a-b-|\nt = s\(chain)\n", to: "wide.marbles")
        let run = try marbles(["draw", "wide.marbles", "--pipeline", "-o", "wide.png"])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.err.contains("wide.png is ") && run.err.contains("too wide to read as one image"), run.err)
        XCTAssertTrue(run.err.contains("marbles view"), run.err)
        XCTAssertFalse(run.err.contains("--nodes"), "a pipeline diagram has no --nodes: \(run.err)")
    }

    func testATutorialFigureIsNoMural() throws {
        let trace = top.appendingPathComponent("traces/twitter-instant.trace").path
        for kind in ["--marble", "--pipeline"] {
            let run = try marbles(["draw", trace, kind, "-o", "t\(kind).png"])
            XCTAssertEqual(run.status, 0, run.err)
            XCTAssertEqual(run.err, "", kind)
        }
    }
}
