import Foundation
import XCTest

/// Any name a user may type is an output name (issue 33 item 1): a one-character name crashed
/// every writing verb (a trap in Foundation's path helpers, exit 132) before anything was
/// written; `-` is standard output. (A name that is not UTF-8: `ByteNameTests`.)
final class OutputNameTests: CommandLineTestCase {
    /// Each writing verb with the output option it takes, writing to `name`.
    private func writingRuns(to name: String) -> [[String]] {
        [
            ["export", "in.trace", "-o", name],
            ["view", "in.trace", "-o", name],
            ["replay", "in.trace", "--scenario", "signin", "-o", name],
            ["play", "s.marbles", "--trace", name],
            ["draw", "in.trace", "--format", "svg", "-o", name],
            ["record", "--scenario", "signin", "--quiet", "-o", name],
        ]
    }

    private func prepare() throws {
        try copy("traces/signin.replay.trace", to: "in.trace")
        try write("hot a = -a-b-|\nout = a.map(x => x)\n", to: "s.marbles")
    }

    func testAOneCharacterNameIsWrittenByEveryVerb() throws {
        try prepare()
        for name in ["a", "Z", "1", "é"] {
            for arguments in writingRuns(to: name) {
                let run = try marbles(arguments)
                XCTAssertEqual(run.status, 0, "\(arguments): \(run.err)")
                XCTAssertGreaterThan(try bytes(name).count, 0, "\(arguments)")
                XCTAssertEqual(try names().filter { $0.hasPrefix(".") }, [], "\(arguments)")
                try FileManager.default.removeItem(atPath: path(name))
            }
        }
    }

    func testDashIsStandardOutputAndTheVerbsOwnLinesGoToStandardError() throws {
        try prepare()
        for arguments in writingRuns(to: "-") {
            let run = try marbles(arguments)
            XCTAssertEqual(run.status, 0, "\(arguments): \(run.err)")
            XCTAssertFalse(run.out.isEmpty, "\(arguments)")
            XCTAssertEqual(try names().sorted(), ["in.trace", "s.marbles"], "\(arguments): no file named -")
            switch arguments[0] {
            case "export":
                XCTAssertTrue(run.out.hasPrefix("{\"displayTimeUnit\""), run.out)
                XCTAssertTrue(run.err.hasPrefix("wrote -:"), run.err)
            case "view":
                XCTAssertTrue(run.out.hasPrefix("<!DOCTYPE html>"), String(run.out.prefix(80)))
            case "draw":
                XCTAssertTrue(run.out.hasPrefix("<?xml") || run.out.hasPrefix("<svg"), String(run.out.prefix(80)))
            default:
                // A trace: its first line is the header, and every line is a JSON object.
                XCTAssertTrue(run.out.hasPrefix("{\"type\":\"header\",\"format\":\"marbles-trace"), String(run.out.prefix(80)))
                XCTAssertTrue(run.out.split(separator: "\n").allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") })
            }
        }
        // What goes to standard output is the same bytes as the file would be.
        XCTAssertEqual(try marbles(["export", "in.trace", "-o", "x.json"]).status, 0)
        XCTAssertEqual(try marbles(["export", "in.trace", "-o", "-"]).out, String(decoding: try bytes("x.json"), as: UTF8.self))
        // A pipeline to standard output is DOT unless --format names another format.
        let dot = try marbles(["draw", "in.trace", "--pipeline", "-o", "-"])
        XCTAssertEqual(dot.status, 0, dot.err)
        XCTAssertTrue(dot.out.hasPrefix("digraph"), String(dot.out.prefix(40)))
        let text = try marbles(["draw", "in.trace", "-o", "-"])
        XCTAssertEqual(text.out, try marbles(["draw", "in.trace"]).out)
        // Two outputs cannot both be standard output.
        let both = try marbles(["play", "s.marbles", "--trace", "-", "--draw", "-"])
        XCTAssertEqual(both.status, 2, both.err)
    }
}
