import Foundation
import XCTest

/// Labels and values reach the terminal as visible escapes, never as controls a terminal
/// acts on: ESC and CSI sequences, OSC (which retitles the terminal), BEL, NUL, C1 controls
/// and bidi overrides.
final class TerminalSafetyTests: CommandLineTestCase {
    /// A label holding a colour sequence, BEL, NUL, an OSC title sequence, a right-to-left
    /// override and a C1 control (NEL).
    private static let label = "q\u{1B}[31mred\u{07}\u{00}\u{1B}]0;pwned\u{07}\u{202E}gnp.exe\u{85}"
    private static let hostile: [Unicode.Scalar] = ["\u{1B}", "\u{07}", "\u{00}", "\u{202E}", "\u{85}"]

    /// Writes a trace whose input is labelled `label` and whose value is `value`.
    private func writeTrace(_ name: String, value: String) throws {
        func json(_ object: [String: Any]) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }
        let lines = [
            #"{"type":"header","format":"marbles-trace","version":"1.0","unit":"ns","clock":"virtual"}"#,
            #"{"type":"thread","id":1,"name":"main"}"#,
            try json(["type": "node", "id": 1, "kind": "source", "name": "input", "parameters": "q", "file": "App.swift",
                      "line": 3, "label": Self.label, "upstream": [Int]()]),
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
            try json(["type": "event", "seq": 1, "time": 1000, "node": 1, "sub": 1, "kind": "value", "thread": 1,
                      "causes": [Int](), "text": "v\u{1B}]0;t\u{07}\u{202E}", "json": value]),
        ]
        try write(lines.joined(separator: "\n") + "\n", to: name)
    }

    /// Fails when `text` holds a character a terminal would act on.
    private func assertShownAsEscapes(_ text: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        for scalar in Self.hostile {
            XCTAssertFalse(text.unicodeScalars.contains(scalar), "\(what) holds U+\(String(scalar.value, radix: 16))",
                           file: file, line: line)
        }
    }

    func testTablesReportsFiguresAndErrorsShowControlsAsEscapes() throws {
        try writeTrace("a.trace", value: "a")
        try writeTrace("b.trace", value: "b")
        try write("hot e = -a-|\nvalues e = {\"a\": \"x\u{1B}]0;T\u{07}\u{202E}y\u{9B}2J\"}\nout = e.map(v => v)\n", to: "s.marbles")
        let escapedLabel = #"q\u{1B}[31mred\u{7}\u{0}\u{1B}]0;pwned\u{7}\u{202E}gnp.exe\u{85}"#

        let stats = try marbles(["stats", "a.trace"])
        XCTAssertEqual(stats.status, 0, stats.err)
        assertShownAsEscapes(stats.out, "the stats table")
        XCTAssertTrue(stats.out.contains(escapedLabel), stats.out)

        let diff = try marbles(["diff", "a.trace", "b.trace"])
        XCTAssertEqual(diff.status, 1, diff.err)
        assertShownAsEscapes(diff.out, "the diff report")
        XCTAssertTrue(diff.out.contains("input(q) \"\(escapedLabel)\" @App.swift:3, event 1: value differs"), diff.out)

        let marbleText = try marbles(["draw", "a.trace"])
        XCTAssertEqual(marbleText.status, 0, marbleText.err)
        assertShownAsEscapes(marbleText.out, "the text diagram")
        XCTAssertTrue(marbleText.out.contains(#"\u{202E}"#), marbleText.out)
        XCTAssertEqual(try marbles(["draw", "a.trace", "-o", "a.txt"]).status, 0)
        XCTAssertEqual(String(decoding: try bytes("a.txt"), as: UTF8.self), marbleText.out)
        XCTAssertEqual(try marbles(["diff", "a.trace", "b.trace", "--draw", "d.txt"]).status, 1)
        assertShownAsEscapes(String(decoding: try bytes("d.txt"), as: UTF8.self), "the diff's text diagram")

        let nodes = try marbles(["draw", "a.trace", "--nodes", "zzz\u{1B}]0;x\u{07}"])
        XCTAssertEqual(nodes.status, 2)
        assertShownAsEscapes(nodes.err, "the --nodes error")
        XCTAssertTrue(nodes.err.contains("in the trace; its nodes are: #1 " + escapedLabel), nodes.err)

        let play = try marbles(["play", "s.marbles"])
        XCTAssertEqual(play.status, 0, play.err)
        assertShownAsEscapes(play.out, "the play legend")
        XCTAssertTrue(play.out.contains(#"values: b = x\u{1B}]0;T\u{7}\u{202E}y\u{9B}2J"#), play.out)
        XCTAssertEqual(try marbles(["play", "s.marbles", "--draw", "s.txt"]).status, 0)
        assertShownAsEscapes(String(decoding: try bytes("s.txt"), as: UTF8.self), "play's text diagram")
    }

    func testJSONOutputEscapesControlsAndStillDecodesToTheSameText() throws {
        try writeTrace("a.trace", value: "a")
        let stats = try marbles(["stats", "--json", "a.trace"])
        XCTAssertEqual(stats.status, 0, stats.err)
        assertShownAsEscapes(stats.out, "stats --json")
        XCTAssertTrue(stats.out.contains(#"\u202e"#) && stats.out.contains(#"\u0085"#), stats.out)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(stats.out.utf8)) as? [String: Any])
        let nodes = try XCTUnwrap(object["nodes"] as? [[String: Any]])
        XCTAssertEqual(nodes.first?["label"] as? String, Self.label)
    }

    func testOrdinaryTextIsPrintedUnchanged() throws {
        try write("hot e = -a-|\nvalues e = {\"a\": \"tab\\there, ünïcödé → ≠ 😀\"}\nout = e.map(v => v)\n", to: "s.marbles")
        let play = try marbles(["play", "s.marbles"])
        XCTAssertEqual(play.status, 0, play.err)
        XCTAssertTrue(play.out.contains("values: b = tab\there, ünïcödé → ≠ 😀\n"), play.out)
    }
}
