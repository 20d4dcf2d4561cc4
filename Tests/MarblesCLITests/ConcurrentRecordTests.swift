import Foundation
import XCTest

/// Two runs writing one file (issue 31 item 7: two `record`s to one new `-o` both exited 0,
/// and the first run's trace was lost: it kept writing into a file the second one's rename had
/// replaced). The second is refused while the first writes; the first's trace is whole.
final class ConcurrentRecordTests: CommandLineTestCase {
    func testASecondRunToTheFileARecordingWritesIsRefused() throws {
        let first = try start(["record", "--scenario", "signin", "-o", "t.trace"])
        // The first script step is printed once the run has begun, its file made and locked.
        let output = try XCTUnwrap(first.standardOutput as? Pipe).fileHandleForReading
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("\n") {
            let chunk = output.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        try copy("traces/signin.trace", to: "in.trace")
        for arguments in [["record", "--scenario", "signin", "-o", "t.trace"], ["export", "in.trace", "-o", "t.trace"],
                          ["record", "-o", "t.trace", "--", "/bin/true"]] {
            let second = try marbles(arguments)
            XCTAssertEqual(second.status, 2, "\(arguments): \(second.err)")
            XCTAssertTrue(second.err.contains("t.trace: error: cannot write: another run is writing this file now"), second.err)
        }
        _ = output.readDataToEndOfFile()
        first.waitUntilExit()
        XCTAssertEqual(first.terminationStatus, 0)
        let stats = try marbles(["stats", "t.trace"])
        XCTAssertEqual(stats.status, 0, stats.err)
        XCTAssertFalse(stats.err.contains("cut off"), stats.err)
        XCTAssertEqual(try names().filter { $0.hasPrefix(".") }, [])
        // Once it has finished, the file is replaced as any output is.
        XCTAssertEqual(try marbles(["record", "--scenario", "signin", "--quiet", "-o", "t.trace"]).status, 0)
    }
}
