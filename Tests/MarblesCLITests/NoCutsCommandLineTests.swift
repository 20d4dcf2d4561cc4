import Foundation
import XCTest

/// Issue 34: idle-time cuts squashed a 50/100/200 ms backoff into equal breaks, with no way
/// to turn them off. `--no-cuts` draws every wait at its true length, on each verb that draws
/// a marble diagram.
final class NoCutsCommandLineTests: CommandLineTestCase {
    /// Eight quick values, then a backoff: waits of 50, 100 and 200 ms (frames of 1 ms).
    private var spec: String {
        func wait(_ ms: Int) -> String { String(repeating: "-", count: ms - 1) }
        return "hot s = abcdefgh\(wait(50))i\(wait(100))j\(wait(200))k|\nt = s.map(x => x)\n"
    }

    /// Whether a lane's line holds a cut: idle time written as a time progression, ` 190ms `.
    private func cut(_ text: String) -> Bool {
        text.split(separator: "\n").contains { line in
            // Lane `s`, or its A and B lines in a diff figure.
            line.range(of: #"^([AB]: )?s .* [0-9.]+m?s "#, options: .regularExpression) != nil
        }
    }

    /// The columns of `i`, `j` and `k` on the line of lane `s`.
    private func backoff(_ text: String) throws -> [Int] {
        let line = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("s ") }, text)
        return try ["i", "j", "k"].map { key in try XCTUnwrap(Array(line).firstIndex(of: Character(key)), "\(key) in \(line)") }
    }

    func testDrawWithNoCutsKeepsTheBackoffsProportions() throws {
        try write(spec, to: "s.marbles")
        let cut = try marbles(["draw", "s.marbles"])
        XCTAssertEqual(cut.status, 0, cut.err)
        XCTAssertTrue(self.cut(cut.out), "the long waits are cut by default:\n\(cut.out)")
        let linear = try marbles(["draw", "s.marbles", "--no-cuts"])
        XCTAssertEqual(linear.status, 0, linear.err)
        XCTAssertFalse(self.cut(linear.out), linear.out)
        let columns = try backoff(linear.out)
        let (first, second) = (Double(columns[1] - columns[0]), Double(columns[2] - columns[1]))
        XCTAssertEqual(second / first, 2, accuracy: 0.2, "100 ms then 200 ms: \(columns)\n\(linear.out)")

        XCTAssertEqual(try marbles(["draw", "s.marbles", "--no-cuts", "-o", "s.svg"]).status, 0)
        XCTAssertEqual(try marbles(["draw", "s.marbles", "-o", "cut.svg"]).status, 0)
        let svg = String(decoding: try bytes("s.svg"), as: UTF8.self)
        XCTAssertTrue(String(decoding: try bytes("cut.svg"), as: UTF8.self).contains(#"class="gap""#))
        XCTAssertFalse(svg.contains(#"class="gap""#), "no break mark on the axis")
        XCTAssertEqual(try marbles(["draw", "s.marbles", "--no-cuts", "-o", "again.svg"]).status, 0)
        XCTAssertEqual(try bytes("again.svg"), try bytes("s.svg"))
    }

    func testPlayAndDiffDrawWithNoCuts() throws {
        try write(spec, to: "s.marbles")
        let play = try marbles(["play", "s.marbles", "--draw", "s.txt", "--no-cuts", "--trace", "s.trace"])
        XCTAssertEqual(play.status, 0, play.err)
        let text = String(decoding: try bytes("s.txt"), as: UTF8.self)
        XCTAssertFalse(cut(text), text)
        XCTAssertEqual(try marbles(["play", "s.marbles", "--draw", "cut.txt"]).status, 0)
        XCTAssertTrue(cut(String(decoding: try bytes("cut.txt"), as: UTF8.self)))

        let diff = try marbles(["diff", "s.trace", "s.trace", "--draw", "d.txt", "--no-cuts"])
        XCTAssertEqual(diff.status, 0, diff.err)
        XCTAssertFalse(cut(String(decoding: try bytes("d.txt"), as: UTF8.self)))
        XCTAssertEqual(try marbles(["diff", "s.trace", "s.trace", "--draw", "dcut.txt"]).status, 0)
        XCTAssertTrue(cut(String(decoding: try bytes("dcut.txt"), as: UTF8.self)))
    }

    func testNoCutsWithoutAMarbleDiagramIsAUsageError() throws {
        try write(spec, to: "s.marbles")
        let play = try marbles(["play", "s.marbles", "--no-cuts"])
        XCTAssertEqual(play.status, 2)
        XCTAssertTrue(play.err.contains("--no-cuts go with --draw FILE"), play.err)
        XCTAssertEqual(try marbles(["play", "s.marbles", "--trace", "s.trace"]).status, 0)
        let diff = try marbles(["diff", "s.trace", "s.trace", "--no-cuts"])
        XCTAssertEqual(diff.status, 2)
        XCTAssertTrue(diff.err.contains("--no-cuts goes with --draw FILE"), diff.err)
        let pipeline = try marbles(["draw", "s.trace", "--pipeline", "--no-cuts", "-o", "p.svg"])
        XCTAssertEqual(pipeline.status, 2)
        XCTAssertTrue(pipeline.err.contains("--no-cuts goes with a marble diagram"), pipeline.err)
    }
}
