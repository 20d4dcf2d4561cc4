import Foundation
import XCTest

/// `marbles convert` between JSON Lines and the binary encoding, and every verb reading the
/// binary encoding as it reads the JSON Lines.
final class ConvertCommandLineTests: CommandLineTestCase {
    private func contents(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path(name))) }

    func testConvertTurnsATraceIntoTheOtherEncodingAndBackToTheSameBytes() throws {
        let trace = top.appendingPathComponent("traces/twitter-instant.trace").path
        let toBinary = try marbles(["convert", trace, "-o", "t.mtrace"])
        XCTAssertEqual(toBinary.status, 0, toBinary.err)
        XCTAssertTrue(toBinary.out.hasPrefix("wrote t.mtrace: "), toBinary.out)
        XCTAssertTrue(toBinary.out.hasSuffix(" records, binary from JSON Lines\n"), toBinary.out)
        XCTAssertEqual(Array(try contents("t.mtrace").prefix(4)), [0x89, 0x4D, 0x52, 0x42])
        // The default is the other encoding; --to names one; -o - is standard output.
        let back = try marbles(["convert", "t.mtrace", "-o", "back.trace"])
        XCTAssertEqual(back.status, 0, back.err)
        XCTAssertEqual(try contents("back.trace"), try Data(contentsOf: URL(fileURLWithPath: trace)))
        let same = try marbles(["convert", trace, "--to", "jsonl", "-o", "same.trace"])
        XCTAssertEqual(same.status, 0, same.err)
        XCTAssertEqual(try contents("same.trace"), try contents("back.trace"))
        let standardOutput = try marbles(["convert", "t.mtrace", "-o", "-"])
        XCTAssertEqual(standardOutput.status, 0, standardOutput.err)
        XCTAssertEqual(Data(standardOutput.out.utf8), try contents("back.trace"))
        let unknown = try marbles(["convert", trace, "--to", "xml", "-o", "x"])
        XCTAssertEqual(unknown.status, 2)
    }

    func testEveryVerbGivesTheSameOutputFromEitherEncoding() throws {
        let trace = top.appendingPathComponent("traces/signin.trace").path
        let replay = top.appendingPathComponent("traces/signin.replay.trace").path
        try FileManager.default.copyItem(atPath: trace, toPath: path("a"))
        try FileManager.default.copyItem(atPath: replay, toPath: path("b"))
        XCTAssertEqual(try marbles(["convert", trace, "-o", "a.bin"]).status, 0)
        XCTAssertEqual(try marbles(["convert", replay, "-o", "b.bin"]).status, 0)
        // Each verb's output, with the binary files' names put back to the JSON files'.
        func run(_ arguments: [String]) throws -> Run {
            var result = try marbles(arguments)
            result.out = result.out.replacingOccurrences(of: ".bin", with: "")
            result.err = result.err.replacingOccurrences(of: ".bin", with: "")
            return result
        }
        let runs: [[String]] = [
            ["stats", "A"], ["stats", "--json", "A"], ["diff", "A", "B"], ["diff", "--json", "A", "B"],
            ["draw", "A", "-o", "-", "--format", "txt"], ["draw", "A", "--pipeline", "-o", "-", "--format", "dot"],
            ["export", "A", "-o", "-"],
        ]
        for arguments in runs {
            let fromJSON = try run(arguments.map { $0 == "A" ? "a" : $0 == "B" ? "b" : $0 })
            let fromBinary = try run(arguments.map { $0 == "A" ? "a.bin" : $0 == "B" ? "b.bin" : $0 })
            XCTAssertEqual(fromBinary.status, fromJSON.status, "\(arguments)")
            XCTAssertFalse(fromJSON.out.isEmpty, "\(arguments)")
            XCTAssertEqual(fromBinary.out, fromJSON.out, "\(arguments)")
            XCTAssertEqual(fromBinary.err, fromJSON.err, "\(arguments)")
        }
        let view = try marbles(["view", "a.bin", "b.bin", "-o", "v.html"])
        XCTAssertEqual(view.status, 0, view.err)
        XCTAssertEqual(try marbles(["view", "a", "b", "-o", "w.html"]).status, 0)
        XCTAssertEqual(try String(contentsOfFile: path("v.html"), encoding: .utf8).replacingOccurrences(of: ".bin", with: ""),
                       try String(contentsOfFile: path("w.html"), encoding: .utf8))
    }

    func testACorruptedBinaryTraceIsAnErrorAtItsByteOffset() throws {
        let trace = top.appendingPathComponent("traces/swift-search.trace").path
        XCTAssertEqual(try marbles(["convert", trace, "-o", "t.mtrace"]).status, 0)
        var data = try contents("t.mtrace")
        data[data.count - 30] ^= 0x10
        try data.write(to: URL(fileURLWithPath: path("bad.mtrace")))
        let run = try marbles(["stats", "bad.mtrace"])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.err.hasPrefix("bad.mtrace: byte "), run.err)
        XCTAssertTrue(run.err.contains("error: expected the checksum 0x"), run.err)
        // Cut short, it is read up to its last complete chunk, with a warning.
        try data.prefix(data.count - 30).write(to: URL(fileURLWithPath: path("cut.mtrace")))
        let cut = try marbles(["stats", "cut.mtrace"])
        XCTAssertEqual(cut.status, 0, cut.err)
        XCTAssertTrue(cut.err.contains("warning: the trace is cut at byte \(data.count - 30) (the end of the file)"), cut.err)
    }
}
