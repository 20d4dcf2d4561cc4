import Foundation
import XCTest

/// A verb whose standard output is a pipe nobody reads any more (`marbles stats T | head -1`
/// once `head` has exited) stops with exit 2 and says so, and leaves no temporary file behind;
/// SIGPIPE used to end it at once (exit 141, no word, temporaries left).
final class ClosedPipeTests: CommandLineTestCase {
    /// Runs `marbles arguments` with standard output on a pipe whose reading end is closed
    /// before the child starts: its first write fails.
    private func marblesIntoClosedPipe(_ arguments: [String]) throws -> (status: Int32, reason: Process.TerminationReason,
                                                                          err: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: path(""))
        let out = Pipe(), err = Pipe()
        try out.fileHandleForReading.close()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        try out.fileHandleForWriting.close()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason, String(decoding: errData, as: UTF8.self))
    }

    func testVerbsWritingToAClosedPipeExitTwoWithAMessageAndLeaveNothingBehind() throws {
        try copy("traces/twitter-instant.replay.trace", to: "t.trace")
        try write("hot a = -a-b-|\nout = a.map(x => x)\n", to: "s.marbles")
        let runs: [[String]] = [
            ["stats", "t.trace"],
            ["stats", "--json", "t.trace"],
            ["diff", "t.trace", "t.trace"],
            ["play", "s.marbles"],
            ["play", "s.marbles", "--trace", "s.trace"],
        ]
        for arguments in runs {
            let run = try marblesIntoClosedPipe(arguments)
            XCTAssertEqual(run.reason, .exit, "\(arguments): ended by a signal")
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.err)")
            XCTAssertTrue(run.err.contains("cannot write to standard output"), "\(arguments): \(run.err)")
            let left = try names().filter { $0.hasPrefix(".") }
            XCTAssertEqual(left, [], "\(arguments)")
        }
    }
}
