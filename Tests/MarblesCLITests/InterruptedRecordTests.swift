import Foundation
import XCTest

/// Ctrl-C during `marbles record` ends the run early and keeps a whole trace: the recording is
/// stopped as at the end of a run, so the file ends with its summary and reads without a
/// warning (it used to end the process at once, leaving a trace cut at its last flush, or
/// none when it replaced an earlier one). The status says it was stopped: 128 + SIGINT.
final class InterruptedRecordTests: CommandLineTestCase {
    /// Starts `marbles record`, waits for its first script step on standard output (the run
    /// is under way), then sends SIGINT; returns the run's exit status, reason and errors.
    private func recordInterrupted(to name: String) throws -> (status: Int32, reason: Process.TerminationReason, err: String) {
        let process = try start(["record", "--scenario", "twitter-instant", "-o", name])
        let out = try XCTUnwrap(process.standardOutput as? Pipe).fileHandleForReading
        var printed = Data()
        while !printed.contains(UInt8(ascii: "\n")) {
            let chunk = out.availableData
            if chunk.isEmpty { break }
            printed.append(chunk)
        }
        process.interrupt()
        _ = out.readDataToEndOfFile()
        let err = try XCTUnwrap(process.standardError as? Pipe).fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason, String(decoding: err, as: UTF8.self))
    }

    private func lastLine(of name: String) throws -> String {
        let text = String(decoding: try bytes(name), as: UTF8.self)
        return String(text.split(separator: "\n").last ?? "")
    }

    func testCtrlCEndsARecordingEarlyWithAWholeTrace() throws {
        let run = try recordInterrupted(to: "new.trace")
        XCTAssertEqual(run.reason, .exit, run.err)
        XCTAssertEqual(run.status, 130, run.err)
        XCTAssertTrue(run.err.contains("recording stopped early by SIGINT: new.trace holds the run up to then"), run.err)
        XCTAssertTrue(try lastLine(of: "new.trace").hasPrefix(#"{"type":"summary""#))
        let stats = try marbles(["stats", "new.trace"])
        XCTAssertEqual(stats.status, 0, stats.err)
        XCTAssertFalse(stats.err.contains("warning"), stats.err)
    }

    func testCtrlCOverAnEarlierTraceReplacesItWithTheWholeShorterOne() throws {
        try write("the old bytes\n", to: "old.trace")
        let run = try recordInterrupted(to: "old.trace")
        XCTAssertEqual(run.status, 130, run.err)
        XCTAssertTrue(try lastLine(of: "old.trace").hasPrefix(#"{"type":"summary""#))
        XCTAssertEqual(try names().filter { $0.hasPrefix(".") }, [])
    }
}
