import Foundation
import XCTest

/// A file name that is not UTF-8 is used as given (issue 31 item 5, issue 33 "output names are
/// names"): `export T -o $'\xff.json'` wrote `\u{FFFD}.json`, replacing an unrelated file of
/// that name, and an input named with such a byte was "no such file". Every verb writes and
/// reads exactly the bytes it was given, touches no other file, and shows the byte as `\xFF`.
final class ByteNameTests: CommandLineTestCase {
    /// The names tried: a lone 0xFF, and an invalid sequence in the middle (0xC3 needs a
    /// continuation byte; `(` is not one).
    private let stems: [[UInt8]] = [[0xFF], Array("a".utf8) + [0xC3] + Array("(b".utf8)]

    /// How a stem is shown in messages.
    private func shown(_ stem: [UInt8]) -> String {
        stem == [0xFF] ? "\\xFF" : "a\\xC3(b"
    }

    private func text(_ argument: String) -> [UInt8] { Array(argument.utf8) }

    /// The file a verb given `stem + suffix` would have used had it decoded the name as text:
    /// each invalid byte replaced by U+FFFD.
    private func textName(_ name: [UInt8]) -> [UInt8] {
        Array(String(decoding: name, as: UTF8.self).utf8)
    }

    private let decoy = Array("an unrelated file\n".utf8)

    /// Puts a decoy where the U+FFFD-named file of `name` would be.
    private func plantDecoy(for name: [UInt8]) throws {
        try write(String(decoding: decoy, as: UTF8.self), to: String(decoding: name, as: UTF8.self))
        XCTAssertEqual(contents(ofByteName: textName(name)), decoy)
    }

    /// The writing verbs, each writing a file named `stem` and the suffix (a trace `in.trace`
    /// and a spec `s.marbles` are the inputs).
    private func writingRuns(stem: [UInt8]) -> [(verb: String, arguments: [[UInt8]], output: [UInt8])] {
        let runs: [(String, [String], String)] = [
            ("export", ["export", "in.trace", "-o"], ".json"),
            ("view", ["view", "in.trace", "-o"], ".html"),
            ("replay", ["replay", "in.trace", "--scenario", "signin", "-o"], ".trace"),
            ("play --trace", ["play", "s.marbles", "--trace"], ".trace"),
            ("play --draw", ["play", "s.marbles", "--draw"], ".svg"),
            ("record", ["record", "--scenario", "signin", "--quiet", "-o"], ".trace"),
            ("convert", ["convert", "in.trace", "-o"], ".mtrace"),
            ("draw", ["draw", "in.trace", "-o"], ".svg"),
            ("draw --pipeline", ["draw", "in.trace", "--pipeline", "-o"], ".dot"),
            ("diff --draw", ["diff", "in.trace", "in.trace", "--draw"], ".txt"),
        ]
        return runs.map { verb, arguments, suffix in
            (verb, arguments.map(text) + [stem + text(suffix)], stem + text(suffix))
        }
    }

    private func prepare() throws {
        try copy("traces/signin.replay.trace", to: "in.trace")
        try write("hot a = -a-b-|\nout = a.map(x => x)\n", to: "s.marbles")
    }

    func testEveryWritingVerbWritesExactlyTheNameGiven() throws {
        try prepare()
        for stem in stems {
            for suffix in [".json", ".html", ".trace", ".svg", ".mtrace", ".dot", ".txt"] {
                try plantDecoy(for: stem + text(suffix))
            }
            let before = try byteNames()
            for (verb, arguments, output) in writingRuns(stem: stem) {
                let run = try marbles(bytes: arguments)
                let label = "\(verb) \(String(decoding: output, as: UTF8.self))"
                XCTAssertEqual(run.status, 0, "\(label): \(run.err)")
                // The file named by those bytes was written, and nothing else was made or replaced.
                XCTAssertGreaterThan(contents(ofByteName: output)?.count ?? 0, 0, label)
                XCTAssertEqual(try byteNames(), before.union([output]), label)
                XCTAssertEqual(contents(ofByteName: textName(output)), decoy, "\(label): the U+FFFD-named file was replaced")
                // Messages name the file with the byte escaped.
                XCTAssertFalse((run.out + run.err).contains("\u{FFFD}"), "\(label): \(run.out)\(run.err)")
                if verb == "export" { XCTAssertTrue(run.out.hasPrefix("wrote \(shown(stem)).json: "), run.out) }
                try remove(output)
            }
        }
    }

    func testEveryReadingVerbReadsTheNameGiven() throws {
        try prepare()
        for stem in stems {
            let trace = stem + text(".trace"), spec = stem + text(".marbles")
            try copy(byteName: text("in.trace"), to: trace)
            try copy(byteName: text("s.marbles"), to: spec)
            // The name as text holds something else: a reader that used it would fail or differ.
            try plantDecoy(for: trace)
            try plantDecoy(for: spec)
            let runs: [(String, [[UInt8]])] = [
                ("stats", [text("stats"), trace]),
                ("stats --json", [text("stats"), text("--json"), trace]),
                ("diff", [text("diff"), trace, text("in.trace")]),
                ("diff --draw", [text("diff"), trace, trace, text("--draw"), text("d.txt")]),
                ("draw", [text("draw"), trace]),
                ("draw --pipeline", [text("draw"), trace, text("--pipeline"), text("-o"), text("p.dot")]),
                ("draw spec", [text("draw"), spec]),
                ("export", [text("export"), trace, text("-o"), text("e.json")]),
                ("view", [text("view"), trace, text("-o"), text("v.html")]),
                ("view two", [text("view"), trace, text("in.trace"), text("-o"), text("v2.html")]),
                ("replay", [text("replay"), trace, text("--scenario"), text("signin"), text("-o"), text("r.trace")]),
                ("convert", [text("convert"), trace, text("-o"), text("c.mtrace")]),
                ("play", [text("play"), spec]),
            ]
            for (verb, arguments) in runs {
                let run = try marbles(bytes: arguments)
                XCTAssertEqual(run.status, 0, "\(verb) \(shown(stem)): \(run.err)")
                XCTAssertFalse((run.out + run.err).contains("\u{FFFD}"), "\(verb): \(run.out)\(run.err)")
            }
            // What was read is the trace itself: the same output as from its UTF-8 name (which
            // the JSON names, its byte escaped).
            let named = "\"trace\":\"" + shown(stem).replacingOccurrences(of: "\\", with: "\\\\") + ".trace\""
            let json = try marbles(bytes: [text("stats"), text("--json"), trace]).out
            XCTAssertTrue(json.hasPrefix("{" + named + ","), String(json.prefix(40)))
            XCTAssertEqual(json.replacingOccurrences(of: named, with: "\"trace\":\"in.trace\""),
                           try marbles(["stats", "--json", "in.trace"]).out)
            XCTAssertEqual(try marbles(bytes: [text("export"), trace, text("-o"), text("-")]).out,
                           try marbles(["export", "in.trace", "-o", "-"]).out)
            // The name is shown with the byte escaped.
            let stats = try marbles(bytes: [text("stats"), trace])
            XCTAssertTrue(stats.out.hasPrefix("\(shown(stem)).trace: "), stats.out)
            XCTAssertEqual(contents(ofByteName: textName(trace)), decoy)
            try remove(trace)
            try remove(spec)
        }
    }

    func testANameIsShownWithItsByteEscapedOnOneLine() throws {
        let run = try marbles(bytes: [text("stats"), [0xFF] + text("\n.trace")])
        XCTAssertEqual(run.status, 2)
        XCTAssertEqual(run.err, "\\xFF\u{23CE}.trace: error: cannot read: no such file\n")
        try write("x", to: "in.trace")
        let folder = try marbles(bytes: [text("view"), text("in.trace"), text("-o"), [0xFF] + text("/x.html")])
        XCTAssertEqual(folder.err, "\\xFF/x.html: error: cannot write: the folder \\xFF does not exist\n")
        // A success line names the file on one line too.
        try copy("traces/signin.replay.trace", to: "t.trace")
        let wrote = try marbles(bytes: [text("export"), text("t.trace"), text("-o"), [0xFF] + text("\n.json")])
        XCTAssertEqual(wrote.status, 0, wrote.err)
        XCTAssertTrue(wrote.out.hasPrefix("wrote \\xFF\u{23CE}.json: "), wrote.out)
        XCTAssertNotNil(contents(ofByteName: [0xFF] + text("\n.json")))
        // The argument parser quotes the argument with its byte escaped too.
        let usage = try marbles(bytes: [text("stats"), text("a.trace"), [0xFF]])
        XCTAssertEqual(usage.status, 2)
        XCTAssertTrue(usage.err.hasPrefix("Error: Unexpected argument '\\xFF'"), usage.err)
    }

    func testTextThatIsNotUTF8IsRefusedWhereItMustBeText() throws {
        try write("hot a = -a-b-|\nout = a.map(x => x)\n", to: "s.marbles")
        let run = try marbles(bytes: [text("play"), text("s.marbles"), text("--draw"), text("d.svg"), text("--title"), [0xFF]])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.err.hasPrefix("Error: The value '\\xFF' is invalid for '--title <title>': expected UTF-8 text, "
            + "which is shown as text, not used as a file name\n"), run.err)
        XCTAssertEqual(try names(), ["s.marbles"])
        // Text that is valid UTF-8 is taken as it is, a private-use character too.
        let titled = try marbles(bytes: [text("play"), text("s.marbles"), text("--draw"), text("d.svg"), text("--title"),
                                         text("T\u{10FF80}")])
        XCTAssertEqual(titled.status, 0, titled.err)
        XCTAssertTrue(String(decoding: contents(ofByteName: text("d.svg")) ?? [], as: UTF8.self).contains(">T\u{10FF80}</text>"))
    }

    func testAProgramRecordedGetsItsArgumentsAndTraceNameAsGiven() throws {
        try write("hot a = -a-b-|\nout = a.map(x => x)\n", to: "s.marbles")
        let spec = [0xFF] + text(".marbles"), trace = [0xFF] + text(".trace")
        try copy(byteName: text("s.marbles"), to: spec)
        try plantDecoy(for: trace)
        // The program is `marbles play`, which links Recording: it is handed the spec's name and
        // MARBLES_TRACE byte for byte.
        let run = try marbles(bytes: [text("record"), text("-o"), trace, text("--"), text(executable.path), text("play"), spec])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.err.hasSuffix("→ \\xFF.trace\n"), run.err)
        XCTAssertGreaterThan(contents(ofByteName: trace)?.count ?? 0, 0)
        XCTAssertEqual(contents(ofByteName: textName(trace)), decoy)
    }

    /// Removes the file named by the bytes `name` in the test's folder.
    private func remove(_ name: [UInt8]) throws {
        let path = Array(directory.path.utf8) + text("/") + name + [0]
        let removed = path.withUnsafeBufferPointer { buffer in buffer.withMemoryRebound(to: CChar.self) { unlink($0.baseAddress!) } }
        XCTAssertEqual(removed, 0)
    }
}
