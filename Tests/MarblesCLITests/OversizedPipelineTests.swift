import Foundation
import XCTest

/// Issue 31 item 8: a pipeline PNG over cairo's bitmap limit came out as Graphviz's raw
/// "(null): graph is too large for cairo-renderer bitmaps" on standard error. It is now laid
/// out at a dpi that fits, and only Marbles' own warnings are printed.
final class OversizedPipelineTests: CommandLineTestCase {
    func testAPipelineTooLongForOnePNGIsScaledWithOurWarningOnly() throws {
        let inputs = 3_000
        let spec = (0..<inputs).map { "hot e\($0) = a|" }
            + ["out = merge(\((0..<inputs).map { "e\($0)" }.joined(separator: ", ")))"]
        try write(spec.joined(separator: "\n") + "\n", to: "wide.marbles")
        let played = try marbles(["play", "wide.marbles", "--trace", "wide.trace"])
        XCTAssertEqual(played.status, 0, played.err)
        let drawn = try marbles(["draw", "wide.trace", "--pipeline", "-o", "wide.png"])
        XCTAssertEqual(drawn.status, 0, drawn.err)
        XCTAssertFalse(drawn.err.contains("cairo-renderer"), drawn.err)
        XCTAssertTrue(drawn.err.split(separator: "\n").allSatisfy { $0.hasPrefix("marbles: warning: ") }, drawn.err)
        XCTAssertTrue(drawn.err.contains("too tall to read as one image"), drawn.err)
        let png = try bytes("wide.png")
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
        XCTAssertLessThanOrEqual(height, 32_767)
        XCTAssertGreaterThan(height, 30_000, "scaled more than needed")
    }
}
