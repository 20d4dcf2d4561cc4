import Foundation
import XCTest

/// `marbles record -o FILE -- PROGRAM ARGS` records a user's own program (issue 34 item 5).
/// The program here is `marbles play`, which links Recording as any user's program would.
final class RecordProgramTests: CommandLineTestCase {
    func testAProgramLinkingRecordingIsRecordedWithNoRunnerOfItsOwn() throws {
        try write("hot a = -a-b-c|\nout = a.map(x => x)\n", to: "s.marbles")
        let run = try marbles(["record", "-o", "p.trace", "--", executable.path, "play", "s.marbles"])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.out.contains("out"), "the program's own output is its own: \(run.out)")
        XCTAssertTrue(run.err.hasPrefix("marbles exited 0: "), run.err)
        XCTAssertTrue(run.err.hasSuffix(" → p.trace\n"), run.err)
        let stats = try marbles(["stats", "p.trace"])
        XCTAssertEqual(stats.status, 0, stats.err)
        XCTAssertTrue(stats.out.contains("map"), stats.out)
        XCTAssertEqual(try names().sorted(), ["p.trace", "s.marbles"])
    }

    func testTheProgramsStatusIsKeptAndAProgramWithoutMarblesIsTold() throws {
        // A program that fails still leaves its trace, and its status is marbles' status.
        let failing = try marbles(["record", "-o", "f.trace", "--", executable.path, "play", "missing.marbles"])
        XCTAssertEqual(failing.status, 2, failing.err)
        XCTAssertTrue(failing.err.contains("marbles exited 2: "), failing.err)
        // A program that does not link Recording writes nothing: said, exit 2.
        let plain = try marbles(["record", "-o", "t.trace", "--", "/bin/true"])
        XCTAssertEqual(plain.status, 2, plain.err)
        XCTAssertTrue(plain.err.contains("t.trace: error: true wrote no readable trace"), plain.err)
        XCTAssertTrue(plain.err.contains("links Marbles' Recording module"), plain.err)
        // A program that does not exist.
        let missing = try marbles(["record", "-o", "t.trace", "--", "no-such-program-here"])
        XCTAssertEqual(missing.status, 2, missing.err)
        XCTAssertTrue(missing.err.contains("no-such-program-here: error: cannot run:"), missing.err)
        // Usage: a scenario and a program, neither, or -o -.
        for arguments in [["record", "-o", "x.trace"], ["record", "--scenario", "signin", "-o", "x.trace", "--", "/bin/true"],
                          ["record", "-o", "-", "--", "/bin/true"]] {
            let usage = try marbles(arguments)
            XCTAssertEqual(usage.status, 2, "\(arguments): \(usage.err)")
            XCTAssertTrue(usage.err.lowercased().contains("error: "), usage.err)
        }
    }
}
