import Foundation
import XCTest

/// A read-only target is refused, as cp refuses it (issue 31 item 8: it was replaced without a
/// word, through a rename only the folder's permission governs), and a file name holding a
/// newline stays on its error's line (it was printed raw, splitting the message in two).
final class TargetAndNameTests: CommandLineTestCase {
    func testAReadOnlyTargetIsRefusedAndKept() throws {
        try copy("traces/signin.replay.trace", to: "in.trace")
        try write("the old bytes\n", to: "ro.json")
        XCTAssertEqual(chmod(path("ro.json"), 0o444), 0)
        let run = try marbles(["export", "in.trace", "-o", "ro.json"])
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertTrue(run.err.contains("ro.json: error: cannot write: the file is read-only (mode 0444); "
            + "make it writable (chmod u+w) to replace it; nothing was written"), run.err)
        XCTAssertEqual(try bytes("ro.json"), Data("the old bytes\n".utf8))
        XCTAssertEqual(try names().filter { $0.hasPrefix(".") }, [])
        // Writable again, it is replaced as any target is.
        XCTAssertEqual(chmod(path("ro.json"), 0o644), 0)
        XCTAssertEqual(try marbles(["export", "in.trace", "-o", "ro.json"]).status, 0)
    }

    func testANewlineInAFileNameStaysOnTheErrorsLine() throws {
        try write("not a trace\n", to: "bad\nname.trace")
        try write("hot a = -a-|\nout = a.frob()\n", to: "s\nx.marbles")
        let runs: [([String], String)] = [
            (["stats", "no\nsuch.trace"], "no\u{23CE}such.trace: error: cannot read: no such file"),
            (["stats", "bad\nname.trace"], "bad\u{23CE}name.trace:1:1: error:"),
            (["play", "s\nx.marbles"], "s\u{23CE}x.marbles:2:9: error:"),
        ]
        for (arguments, expected) in runs {
            let run = try marbles(arguments)
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.err)")
            XCTAssertTrue(run.err.hasPrefix(expected), "\(arguments): \(run.err)")
        }
    }
}
