import Foundation
import XCTest

/// The options every verb shares the rules of: checked before anything runs, out-of-range
/// numbers refused with the allowed range, inputs refused with the reason they cannot be read.
final class CommandLineOptionTests: CommandLineTestCase {
    func testHugeOrTinyStatsWindowsAreRefusedWithTheRange() throws {
        try copy("traces/signin.trace", to: "in.trace")
        for window in ["1000000000", "9223372036854775807", "15", "0", "4194305"] {
            let run = try marbles(["stats", "--window", window, "in.trace"])
            XCTAssertEqual(run.status, 2, window)
            XCTAssertTrue(run.err.contains("--window must be between 16 and 4194304 events; found \(window)"), run.err)
        }
        XCTAssertEqual(try marbles(["stats", "--window", "9223372036854775808", "in.trace"]).status, 2)
        XCTAssertEqual(try marbles(["stats", "--window", "4194304", "in.trace"]).status, 0)
    }

    func testOtherRangesAndCombinationsAreUsageErrors() throws {
        try copy("traces/signin.trace", to: "in.trace")
        let cases: [([String], String)] = [
            (["draw", "in.trace", "--width", "10"], "--width must be between 400 and 16000 pixels"),
            (["draw", "in.trace", "--width", "nan"], "--width must be between 400 and 16000 pixels"),
            (["draw", "in.trace", "--nodes", "a", "--all"], "--nodes and --all choose lanes in two ways; give one"),
            (["draw", "in.trace", "--marble", "--pipeline", "-o", "x.svg"], "--marble and --pipeline draw two different figures; give one"),
            (["draw", "in.trace", "--pipeline"], "a pipeline diagram needs -o FILE.svg, .png, .pdf or .dot"),
            (["draw", "in.trace", "--pipeline", "-o", "x.txt"], "x.txt: expected a file name ending in .svg, .png, .pdf, .dot"),
            (["record", "--scenario", "swift-search", "--seed", "-3", "-o", "x.trace"], "--seed"),
            (["play", "in.trace", "--draw", "x.gif"], "--draw needs a file ending in .svg, .png, .pdf or .txt; found x.gif"),
            (["export", "--format", "csv", "in.trace", "-o", "x.json"], "Please provide one of 'perfetto'"),
            (["demo", "--scenario", "nope"], "Please provide one of the following:\n  - signin\n  - twitter-instant\n"
                + "  - registration\n  - pixels\n  - swift-search\n  - async-search"),
        ]
        for (arguments, message) in cases {
            let run = try marbles(arguments)
            XCTAssertEqual(run.status, 2, arguments.joined(separator: " "))
            XCTAssertTrue(run.err.contains(message), "\(arguments): \(run.err)")
        }
        XCTAssertEqual(try names(), ["in.trace"])
    }

    func testExportWritesPerfettoByDefaultAndStillAcceptsTheOldFlag() throws {
        try copy("traces/signin.trace", to: "in.trace")
        for (arguments, name) in [([String](), "default.json"), (["--perfetto"], "flag.json"), (["--format", "perfetto"], "format.json")] {
            let run = try marbles(["export"] + arguments + ["in.trace", "-o", name])
            XCTAssertEqual(run.status, 0, run.err)
            XCTAssertTrue(run.out.hasPrefix("wrote \(name): "), run.out)
        }
        XCTAssertEqual(try bytes("default.json"), try bytes("flag.json"))
        XCTAssertEqual(try bytes("default.json"), try bytes("format.json"))
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: bytes("default.json")))
    }

    func testAnInputThatCannotBeReadIsReportedWithTheReason() throws {
        try FileManager.default.createDirectory(atPath: path("folder"), withIntermediateDirectories: false)
        let cases: [([String], String)] = [
            (["stats", "missing.trace"], "missing.trace: error: cannot read: no such file"),
            (["stats", "folder"], "folder: error: cannot read: it is a directory, not a file"),
            (["draw", "/dev/zero"], "/dev/zero: error: cannot read: it is a character device, not a file"),
            (["play", "folder"], "folder: error: cannot read: it is a directory, not a file"),
            (["diff", "missing.trace", "folder"], "missing.trace: error: cannot read: no such file"),
            (["export", "folder", "-o", "x.json"], "folder: error: cannot read: it is a directory, not a file"),
            (["replay", "folder", "--scenario", "signin", "-o", "x.trace"], "folder: error: cannot read: it is a directory"),
        ]
        for (arguments, message) in cases {
            let run = try marbles(arguments)
            XCTAssertEqual(run.status, 2, arguments.joined(separator: " "))
            XCTAssertTrue(run.err.contains(message), "\(arguments): \(run.err)")
        }
        try copy("traces/signin.trace", to: "secret.trace")
        XCTAssertEqual(chmod(path("secret.trace"), 0o000), 0)
        let asNobody = geteuid() == 0
        if !asNobody || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") {
            let run = try marbles(["stats", "secret.trace"], asNobody: asNobody)
            XCTAssertEqual(run.status, 2)
            XCTAssertTrue(run.err.contains("secret.trace: error: cannot read: Permission denied"), run.err)
        }
    }

    /// Every verb names a malformed trace as it was given (relative here), with its line and
    /// column: `stats`, `export`, `view`, `diff` and `replay` printed the absolute path where
    /// `draw` printed the name given.
    func testAMalformedTraceIsNamedAsGivenByEveryVerb() throws {
        try copy("traces/signin.trace", to: "good.trace")
        var lines = try String(contentsOfFile: path("good.trace"), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        lines[4] = lines[4].dropLast() + ",}"
        try lines.joined(separator: "\n").write(toFile: path("bad.trace"), atomically: true, encoding: .utf8)
        let runs: [[String]] = [
            ["stats", "bad.trace"], ["draw", "bad.trace"], ["draw", "bad.trace", "--pipeline", "-o", "x.svg"],
            ["export", "bad.trace", "-o", "x.json"], ["view", "bad.trace", "-o", "x.html"],
            ["view", "good.trace", "bad.trace", "-o", "x.html"], ["diff", "good.trace", "bad.trace"],
            ["diff", "bad.trace", "good.trace", "--draw", "x.svg"], ["replay", "bad.trace", "--scenario", "signin", "-o", "x.trace"],
        ]
        for arguments in runs {
            let run = try marbles(arguments)
            XCTAssertEqual(run.status, 2, arguments.joined(separator: " "))
            XCTAssertTrue(run.err.hasPrefix("bad.trace:5:"), "\(arguments): \(run.err)")
        }
        XCTAssertEqual(try names(), ["bad.trace", "good.trace"])
    }
}

/// `marbles demo` runs the async search (issue 30) as its sixth scenario.
final class AsyncDemoCommandLineTests: CommandLineTestCase {
    func testTheDemoRecordsReplaysAndDrawsTheAsyncSearch() throws {
        let run = try marbles(["demo", "--scenario", "async-search", "--root", "."])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.out.contains("[1/1] async-search: diffing the replay with the recording: values agree"), run.out)
        let row = try XCTUnwrap(run.out.split(separator: "\n").first { $0.hasPrefix("async-search ") })
        XCTAssertTrue(row.hasSuffix("yes"), String(row))
        // The recording in virtual time is the committed one, byte for byte, and so is its replay.
        for path in ["traces/async-search.trace", "traces/async-search.replay.trace", "diagrams/async-search-marbles.png",
                     "diagrams/async-search-pipeline.svg", "diagrams/async-search.html"] {
            let written = try Data(contentsOf: directory.appendingPathComponent(path))
            XCTAssertEqual(written, try Data(contentsOf: top.appendingPathComponent(path)), path)
        }
    }
}
