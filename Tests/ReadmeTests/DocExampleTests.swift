import Foundation
import XCTest

// Issue 32: every public type a user touches has a doc comment with an example. These tests
// read the sources (found from this file's path, as the README's tests find README.md) so the
// audit cannot drift: a new public type in a user-facing module without a ```swift example
// fails here. Whether the examples compile is not checked here: check it as a user would,
// with each block pasted into a function of a package of your own that depends on this one
// by path (`import Marbles`; `import MarblesTesting` in a test target for the test helpers).

/// A public declaration in a source file, with the doc comment above it.
private struct Declaration {
    /// `Signal`, `Signal.Observer`, `TestScheduler.hot` (nested names are qualified by the
    /// types and extensions they are declared in).
    var name: String
    var module: String
    var file: String
    var line: Int
    /// Whether it is declared at the top level of its file.
    var isTopLevel: Bool
    var isFunction: Bool
    /// The doc comment's lines without `///` (empty when there is none).
    var doc: [String]

    var hasSwiftExample: Bool {
        FencedBlocks.blocks(inLines: doc, language: "swift").contains { block in
            block.contains { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        }
    }

    var place: String { "\(file):\(line)" }
}

final class DocExampleTests: XCTestCase {
    private let top = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The modules a pipeline's author imports (through `Marbles` and `MarblesTesting`, or
    /// `MarbleNotation` for marble lines): every public type declared at the top level of one
    /// has an example, but for `exempt`.
    private static let userModules = ["Signals", "Recording", "Replay", "MarbleStreams", "AsyncMarbles",
                                      "MarbleNotation", "MarblesTesting"]

    /// Top-level public types of `userModules` a pipeline never names, and why.
    private static let exempt: [String: String] = {
        let stateMachine = "a time-based operator's decisions, public for its own tests, not named by a pipeline"
        let machines = ["AuditStateMachine", "DebounceStateMachine", "DelayStateMachine", "SampleLatestStateMachine",
                        "SampleStateMachine", "ThrottleEdgesStateMachine", "ThrottleStateMachine",
                        "TimeoutEachStateMachine", "TimeoutStateMachine", "TimerStateMachine", "TimedStateMachine",
                        "TimedAction", "TimerRequest", "DeadlineAction", "DeadlineStateMachine"]
        var exempt = Dictionary(uniqueKeysWithValues: machines.map { ($0, stateMachine) })
        exempt["Causes"] = "an argument of Probe.willSend, shown with Probe"
        exempt["ProbeContext"] = "a thread's instrumentation state, used by the send path and recorders"
        exempt["TimerReplayingScheduler"] = "what a replay's scheduler adopts; a pipeline only gets one from its Environment"
        return exempt
    }()

    /// Nested types, types of other modules and functions a user names, each with an example.
    private static let entryPoints: [(module: String, name: String)] = [
        ("Signals", "Signal.Observer"), ("Signals", "Lifetime.Token"), ("Signals", "TestScheduler.Lane"),
        ("Signals", "InputError.Reason"), ("Recording", "Recorder.Clock"),
        ("Replay", "ReplayEnvironment.HopLatency"), ("Replay", "ReplayEnvironment.UnrecordedRequests"),
        ("Replay", "ReplayError.Kind"), ("Replay", "GoldenTrace.Outcome"), ("Replay", "TraceDiff.Kind"),
        ("Replay", "TraceDiff.Difference"),
        ("MarbleNotation", "MarbleNotation.Kind"), ("MarbleNotation", "MarbleNotation.Event"),
        ("MarbleNotation", "MarbleNotation.Subscription"), ("AsyncMarbles", "MarbledSequence.Iterator"),
        ("TraceLog", "Trace"), ("TraceLog", "TraceStats"), ("TraceLog", "TraceReader"), ("TraceLog", "TraceError"),
        ("MarblesTesting", "expectMarbles"), ("MarblesTesting", "assertMarbles"), ("MarblesTesting", "assertTrace"),
        ("MarblesTesting", "TestScheduler.hot"), ("MarblesTesting", "TestScheduler.cold"),
    ]

    func testEveryPublicTypeOfTheUserModulesHasADocComment() throws {
        let undocumented = try declarations(in: Self.userModules).filter { !$0.isFunction && $0.doc.isEmpty }
        XCTAssertTrue(undocumented.isEmpty, "public types with no doc comment: say what each is for\n"
            + undocumented.map { "  \($0.name) at \($0.place)" }.joined(separator: "\n"))
    }

    func testEveryTopLevelPublicTypeOfTheUserModulesHasASwiftExample() throws {
        let all = try declarations(in: Self.userModules).filter { $0.isTopLevel && !$0.isFunction }
        XCTAssertGreaterThan(all.count, 50, "the sources were not found where this test looks (\(top.path)/Sources)")
        let missing = all.filter { Self.exempt[$0.name] == nil && !$0.hasSwiftExample }
        XCTAssertTrue(missing.isEmpty, "public types whose doc comment has no ```swift example a user would write "
            + "(or, if a pipeline never names it, an entry with the reason in DocExampleTests.exempt):\n"
            + missing.map { "  \($0.name) at \($0.place)" }.joined(separator: "\n"))
        let names = Set(all.map(\.name))
        let stale = Self.exempt.keys.filter { !names.contains($0) }.sorted()
        XCTAssertTrue(stale.isEmpty, "DocExampleTests.exempt names types no user module declares: \(stale)")
    }

    func testTheNestedTypesAndFunctionsUsersNameHaveSwiftExamples() throws {
        let modules = Array(Set(Self.entryPoints.map(\.module)))
        let found = try declarations(in: modules)
        for (module, name) in Self.entryPoints {
            // An overloaded function is documented once, with an example, at its first form.
            guard let declaration = found.first(where: { $0.module == module && $0.name == name }) else {
                XCTFail("\(module) declares no public \(name): update DocExampleTests.entryPoints")
                continue
            }
            XCTAssertTrue(declaration.hasSwiftExample, "\(name) at \(declaration.place) has no ```swift example in its doc comment")
        }
    }

    func testADeclarationWithoutAnExampleIsFound() {
        // The parser the tests above rely on: a doc comment, attributes between it and the
        // declaration, nesting in a type and an extension.
        let source = """
            /// A thing.
            ///
            /// ```swift
            /// let thing = Thing()
            /// ```
            @propertyWrapper
            public final class Thing<Value>: Sendable {
                /// Not an example: ```swift
                public enum Kind { case a }
                public typealias Plain = Int
            }
            extension Thing {
                /// Made so.
                public func make() {}
            }
            """
        let found = Self.parse(source, module: "M", file: "Thing.swift")
        XCTAssertEqual(found.map(\.name), ["Thing", "Thing.Kind", "Thing.Plain", "Thing.make"])
        XCTAssertEqual(found.map(\.hasSwiftExample), [true, false, false, false])
        XCTAssertEqual(found.map(\.isTopLevel), [true, false, false, false])
        XCTAssertEqual(found.map { $0.doc.isEmpty }, [false, false, true, false])
        XCTAssertEqual(found.first?.line, 7)
    }

    // MARK: Reading the sources

    private func declarations(in modules: [String]) throws -> [Declaration] {
        var found: [Declaration] = []
        for module in modules.sorted() {
            let folder = top.appendingPathComponent("Sources/\(module == "Marbles" ? "MarblesImport" : module)")
            guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
                XCTFail("no folder \(folder.path)")
                continue
            }
            for case let url as URL in files where url.pathExtension == "swift" {
                let source = try String(contentsOf: url, encoding: .utf8)
                let file = String(url.path.dropFirst(top.path.count + 1))
                found += Self.parse(source, module: module, file: file)
            }
        }
        return found
    }

    /// The public types, typealiases and functions of a Swift file, each with its doc comment
    /// and the types or extensions it is nested in (known by indentation, as the sources are
    /// formatted).
    private static func parse(_ source: String, module: String, file: String) -> [Declaration] {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let container = /^(\s*)(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:public|open|package|private|fileprivate|internal|final|indirect)\s+)*(?:class|struct|enum|protocol|actor|extension)\s+([\w.]+)/
        let declaration = /^(\s*)(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:(?:final|indirect|static|mutating|nonisolated)\s+)*(class|struct|enum|protocol|actor|typealias|func)\s+([\w.]+)/
        var enclosing: [(indent: Int, name: String)] = []
        var found: [Declaration] = []
        for (index, line) in lines.enumerated() {
            let type = line.firstMatch(of: container)
            let published = line.firstMatch(of: declaration)
            guard let indent = type?.output.1.count ?? published?.output.1.count else { continue }
            enclosing.removeAll { $0.indent >= indent }
            if let published {
                let name = (enclosing.map(\.name) + [String(published.output.3)]).joined(separator: ".")
                found.append(Declaration(name: name, module: module, file: file, line: index + 1,
                                         isTopLevel: indent == 0, isFunction: published.output.2 == "func",
                                         doc: docComment(above: index, in: lines)))
            }
            if let type {
                // What is declared below it is nested in this type, or in the type an extension
                // extends (named without its module: `extension Signals.Observer`).
                enclosing.append((indent, String(type.output.2.split(separator: ".").last ?? "")))
            }
        }
        return found
    }

    /// The `///` lines right above line `index` (past attribute lines), without the slashes.
    private static func docComment(above index: Int, in lines: [String]) -> [String] {
        var position = index - 1
        while position >= 0, lines[position].trimmingCharacters(in: .whitespaces).hasPrefix("@") { position -= 1 }
        var doc: [String] = []
        while position >= 0 {
            let trimmed = lines[position].trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("///") else { break }
            let text = trimmed.dropFirst(3)
            doc.insert(String(text.first == " " ? text.dropFirst() : text), at: 0)
            position -= 1
        }
        return doc
    }
}
