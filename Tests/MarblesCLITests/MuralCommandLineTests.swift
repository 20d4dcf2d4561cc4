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
        XCTAssertTrue(run.err.contains("--nodes") && run.err.contains("--split"), run.err)
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

    /// The PNG's width and height, from its header.
    private func size(_ name: String) throws -> (Int, Int) {
        let header = [UInt8](try bytes(name).prefix(24))
        func number(_ at: Int) -> Int { header[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (number(16), number(20))
    }

    func testSplitWritesATallMarbleDiagramInPartsOfWholeLanes() throws {
        let lanes = (1...40).map { "t\($0) = s.map(x => x)" }.joined(separator: "\n")
        try write("hot s = -a-b-|\n\(lanes)\n", to: "tall.marbles")
        let run = try marbles(["draw", "tall.marbles", "-o", "tall.png", "--split"])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertEqual(run.err, "marbles: tall.png drawn in 2 parts: tall-1.png, tall-2.png\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("tall.png").path))
        for part in ["tall-1.png", "tall-2.png"] {
            let (_, height) = try size(part)
            XCTAssertLessThanOrEqual(height, 6_000, part)
        }
        XCTAssertEqual(try marbles(["draw", "tall.marbles", "-o", "tall.svg", "--split"]).status, 0)
        let svgs = try ["tall-1.svg", "tall-2.svg"].map { String(decoding: try bytes($0), as: UTF8.self) }
        XCTAssertTrue(svgs[0].contains("tall.marbles (part 1 of 2)"))
        XCTAssertTrue(svgs[1].contains("tall.marbles (part 2 of 2)"))
        // Every lane once, in order, across the parts.
        let titles = svgs.flatMap { $0.matches(of: /<text[^>]*font-weight="bold"[^>]*>(t\d+)<\/text>/).map { String($0.1) } }
        XCTAssertEqual(titles, (1...40).map { "t\($0)" })
        XCTAssertEqual(try marbles(["draw", "tall.marbles", "-o", "again.svg", "--split"]).status, 0)
        XCTAssertEqual(try bytes("again-1.svg"), try bytes("tall-1.svg"))

        // A figure that fits is written whole, under its own name.
        try write("hot s = -a-b-|\nt = s.map(x => x)\n", to: "small.marbles")
        let small = try marbles(["draw", "small.marbles", "-o", "small.png", "--split"])
        XCTAssertEqual(small.status, 0, small.err)
        XCTAssertEqual(small.err, "")
        XCTAssertGreaterThan(try bytes("small.png").count, 0)
    }

    func testSplitWithoutAMarbleImageIsAUsageError() throws {
        try write("hot s = -a-b-|\n", to: "s.marbles")
        for arguments in [["-o", "s.txt", "--split"], ["--split"], ["--pipeline", "-o", "p.svg", "--split"]] {
            let run = try marbles(["draw", "s.marbles"] + arguments)
            XCTAssertEqual(run.status, 2, "\(arguments)")
            XCTAssertTrue(run.err.contains("--split goes with a marble diagram written to -o FILE.svg, .png or .pdf"), run.err)
        }
    }
}
