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

    /// The RxJS audit table in diagrams/operators/README.md names, for each operator, tests
    /// that exist in this target.
    func testTheRxJSAuditTableNamesRealTests() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let table = try String(contentsOf: root.appendingPathComponent("diagrams/operators/README.md"), encoding: .utf8)
        let directory = root.appendingPathComponent("Tests/SpecTests")
        let sources = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }
            .map { try String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8) }.joined()
        let cited = table.split(separator: "`").filter { $0.hasPrefix("test") || $0.hasPrefix("Spec") && $0.hasSuffix("Tests") }
        XCTAssertGreaterThanOrEqual(cited.count, 30)
        for name in cited {
            let declared = name.hasPrefix("test") ? "func \(name)()" : "class \(name)"
            XCTAssertTrue(sources.contains(declared), "the table cites \(name), which is not a test here")
        }
    }
}
