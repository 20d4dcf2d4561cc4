import Foundation
import XCTest

/// One edited time field near ±2⁶³ in a committed recording: every verb that reads it gives a
/// result or a located error, never a trap (run as the built executable, so a trap fails the
/// test instead of killing the test process).
final class HostileTraceCommandLineTests: XCTestCase {
    private let top = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs the `marbles` built next to this test bundle; returns how it ended.
    private func marbles(_ arguments: [String]) throws -> (status: Int32, reason: Process.TerminationReason, err: String) {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("marbles")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            XCTFail("no marbles executable at \(executable.path); build with `swift build --build-tests`")
            return (-1, .exit, "")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let err = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        try process.run()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason, String(decoding: errData.prefix(2000), as: UTF8.self))
    }

    /// The committed pixels recording with the `key` field of its first `type` record on
    /// `line` set to `value`.
    private func edited(line number: Int, key: String, value: Int64) throws -> String {
        let original = try String(contentsOf: top.appendingPathComponent("traces/pixels.trace"), encoding: .utf8)
        var lines = original.components(separatedBy: "\n")
        let line = lines[number - 1]
        let pattern = try NSRegularExpression(pattern: "\"\(key)\":-?[0-9]+")
        let range = try XCTUnwrap(pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line))?.range)
        lines[number - 1] = (line as NSString).replacingCharacters(in: range, with: "\"\(key)\":\(value)")
        let path = directory.appendingPathComponent("pixels-\(number)-\(key)-\(value).trace").path
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func expectNoTrap(_ trace: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let recording = top.appendingPathComponent("traces/pixels.trace").path
        let out = directory.path
        let runs: [[String]] = [
            ["stats", trace],
            ["export", "--perfetto", trace, "-o", out + "/export.json"],
            ["diff", recording, trace],
            ["diff", trace, recording],
            ["replay", trace, "--scenario", "pixels", "-o", out + "/replay.trace"],
            ["replay", trace, "--scenario", "pixels", "--hop-latency", "recorded", "-o", out + "/replay.trace"],
            ["draw", trace, "--pipeline", "--heat", "-o", out + "/heat.svg"],
        ]
        for arguments in runs {
            let result = try marbles(arguments)
            XCTAssertEqual(result.reason, .exit, "\(arguments.joined(separator: " ")) was killed by signal \(result.status): \(result.err)",
                           file: file, line: line)
            XCTAssertTrue([0, 1, 2].contains(result.status), "\(arguments.joined(separator: " ")) exited \(result.status): \(result.err)",
                          file: file, line: line)
        }
    }

    func testAnEventTimeAtEitherEndOfInt64TrapsNoVerb() throws {
        // Line 49 is a call's first value: replay re-delivers it at an offset from its start,
        // stats and heat take its latency, diff its shift.
        try expectNoTrap(edited(line: 49, key: "time", value: .min))
        try expectNoTrap(edited(line: 50, key: "time", value: .max))
    }

    func testAHopEnqueuedAtTheStartOfInt64TrapsNoVerb() throws {
        // Line 53 is the first hop: its queue wait is started − enqueued.
        try expectNoTrap(edited(line: 53, key: "enqueued", value: .min))
    }
}
