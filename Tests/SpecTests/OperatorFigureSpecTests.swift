import Foundation
import Spec
import XCTest

/// The operator figure specs in diagrams/operators stay valid: each parses, runs, and
/// derives at least one stream that sends something.
final class OperatorFigureSpecTests: XCTestCase {
    func testEveryOperatorFigureSpecRuns() throws {
        let directory = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("diagrams/operators")
        let specs = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".marbles") }.sorted()
        XCTAssertGreaterThanOrEqual(specs.count, 20)
        for name in specs {
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            let result = try SpecDocument.parse(text, file: name).run()
            let derived = result.streams.filter { !$0.isInput }
            XCTAssertFalse(derived.isEmpty, name)
            XCTAssertTrue(derived.allSatisfy { !$0.events.isEmpty }, name)
        }
    }
}
