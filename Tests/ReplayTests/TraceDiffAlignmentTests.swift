import Foundation
import MarblesTesting
@testable import Replay
import Signals
import TraceLog
import TestSupport
import XCTest

/// One autocomplete pipeline, recorded before and after an edit of its code: input → filter
/// (minimum length) → debounce → flatMap(.latest) { call("search") → retry(upTo: 2) →
/// flatMapError } → observe(on: ui) → sink. Call sites are given explicitly, so an edit can
/// move code the way editing a file does.
private struct Autocomplete {
    var debounce: TimeInterval = 0.05
    /// The filter's minimum length, or nil for no filter (the filter removed).
    var minimumLength: Int? = 2
    /// A `map` inserted between the filter and the debounce, upper-casing the text.
    var insertsMap = false
    /// Lines added above the debounce: every call site from the debounce down moves.
    var linesAdded: UInt = 0
    /// The file the operators from the debounce down are written in: another one when the
    /// function holding them was extracted into a file of its own.
    var file: StaticString = #fileID

    /// Typing "s", "sw", "swi", a pause, "swif", "swift"; the service answers in 200 ms, so
    /// a search still running when the next one starts is interrupted by `.latest`.
    var pipeline: TestPipeline {
        TestPipeline(script: [
            .send("s", to: "text", at: 0),
            .send("sw", to: "text", at: 10),
            .send("swi", to: "text", at: 20),
            .send("swif", to: "text", at: 150),
            .send("swift", to: "text", at: 160),
            .complete(at: 500),
        ]) { environment in
            let outcome = Outcome<[String]>()
            let network = environment.scheduler("network"), ui = environment.scheduler("ui")
            var text = environment.input("text", of: String.self, line: 100)
            if let minimumLength = minimumLength {
                text = text.filter(line: 101) { $0.count >= minimumLength }
            }
            if insertsMap {
                text = text.map(line: 102) { $0.uppercased() }
            }
            let moved = linesAdded, file = file
            let disposable = text
                .debounce(debounce, on: ui, file: file, line: 103 + moved)
                .flatMap(.latest, file: file, line: 104 + moved) { query in
                    environment.call("search", file: file, line: 105 + moved) { () -> SignalProducer<[String], ServiceError> in
                        SignalProducer(file: file, line: 106 + moved) { observer, lifetime in
                            lifetime += network.schedule(after: network.currentDate.addingTimeInterval(0.200)) {
                                observer.send(value: [query + "1", query + "2"])
                                observer.sendCompleted()
                            }
                        }
                    }
                    .retry(upTo: 2, file: file, line: 107 + moved)
                    .flatMapError(file: file, line: 108 + moved) { _ in SignalProducer(value: [], file: file, line: 109 + moved) }
                }
                .observe(on: ui, file: file, line: 110 + moved)
                .observe(file: file, line: 111 + moved) { outcome.observe($0) }
            return (AnyDisposable { disposable?.dispose() }, { outcome.waitForEnd() })
        }
    }

    func record() throws -> Trace { try Recording.simulated(pipeline).trace }
}

final class TraceDiffAlignmentTests: XCTestCase {
    private func kinds(_ diff: TraceDiff) -> [TraceDiff.Kind] { diff.differences.map(\.kind) }

    private func nodeDifferences(_ diff: TraceDiff) -> [TraceDiff.Difference] {
        diff.differences.filter { [.nodeChanged, .nodeOnlyInA, .nodeOnlyInB].contains($0.kind) }
    }

    func testTheSamePipelineRecordedTwiceIsTheSame() throws {
        let diff = TraceDiff(try Autocomplete().record(), try Autocomplete().record())
        XCTAssertTrue(diff.isSame, diff.text)
        XCTAssertEqual(diff.alignment.onlyInA, [])
        XCTAssertEqual(diff.alignment.onlyInB, [])
    }

    func testAChangedParameterIsOneChangedNodeAndItsEventsAndDownstreamAreStillCompared() throws {
        let before = try Autocomplete(debounce: 0.05).record()
        let after = try Autocomplete(debounce: 0.2).record()
        let diff = TraceDiff(before, after)
        let nodes = nodeDifferences(diff)
        XCTAssertEqual(nodes.map(\.kind), [.nodeChanged], diff.text)
        XCTAssertEqual(nodes.first?.nodeA, .init(parameters: "0.05s, on: ui", file: "ReplayTests/TraceDiffAlignmentTests.swift", line: 103))
        XCTAssertEqual(nodes.first?.nodeB, .init(parameters: "0.2s, on: ui", file: "ReplayTests/TraceDiffAlignmentTests.swift", line: 103))
        XCTAssertEqual(diff.differences.first?.kind, .nodeChanged, "the debounce is the first divergence:\n\(diff.text)")
        XCTAssertTrue(diff.text.contains(
            #"first divergence: node changed: debounce(0.05s, on: ui) @ReplayTests/TraceDiffAlignmentTests.swift:103: parameters (0.05s, on: ui) in A, (0.2s, on: ui) in B"#),
            diff.text)
        // debounce(0.05) lets "swi" through at 70 ms (its search interrupted by "swift"'s);
        // debounce(0.2) only "swift": the debounce, the call and the retry lose the "swi"
        // search and its interruption, and "swift" comes later through the flatMap and hop.
        let changedNodes = Set(diff.differences.dropFirst().map { $0.node.components(separatedBy: " @").first ?? "" })
        for node in [#"debounce(0.05s, on: ui)"#, #"call "search""#, "retry(upTo: 2)", "flatMap(latest)", "observe(on:)(ui)"] {
            XCTAssertTrue(changedNodes.contains(node), "\(node) not compared:\n\(diff.text)")
        }
        let debounceEvents = diff.differences.filter { $0.node.hasPrefix("debounce") && $0.kind != .nodeChanged }
        XCTAssertEqual(debounceEvents.first?.kind, .missingInB, diff.text)
        XCTAssertEqual(debounceEvents.first?.a?.value, #""swi""#, diff.text)
        XCTAssertEqual(diff.insideCalls, [])

        XCTAssertTrue(diff.differences.contains { $0.node.hasPrefix("retry") && $0.a?.kind == "interrupted" }, diff.text)

        // Swapped: B's debounce lets "swi" through and the retry's interruption is B's only;
        // the debounce still comes first.
        let swapped = TraceDiff(after, before)
        XCTAssertEqual(swapped.differences.first?.kind, .nodeChanged, swapped.text)
        XCTAssertTrue(swapped.differences.contains { $0.node.hasPrefix("retry") && $0.b?.kind == "interrupted" }, swapped.text)
        XCTAssertEqual(nodeDifferences(swapped).map(\.kind), [.nodeChanged], swapped.text)
        XCTAssertEqual(swapped.differences.dropFirst().first?.kind, .extraInB, swapped.text)
        XCTAssertTrue(swapped.differences.dropFirst().first?.node.hasPrefix("debounce(0.2s") == true, swapped.text)
    }

    func testALineShiftIsAChangedNodePerMovedNodeAndNothingElse() throws {
        let before = try Autocomplete().record()
        let after = try Autocomplete(linesAdded: 3).record()
        let diff = TraceDiff(before, after)
        XCTAssertEqual(Set(kinds(diff)), [.nodeChanged], diff.text)
        // The fallback of flatMapError (line 109) never ran, so it is in neither trace.
        XCTAssertEqual(diff.differences.compactMap { $0.nodeA?.line }.sorted(), [103, 104, 105, 106, 107, 108, 110, 111],
                       diff.text)
        XCTAssertTrue(diff.differences.allSatisfy { $0.nodeB?.line == $0.nodeA.map { $0.line + 3 } }, diff.text)
        XCTAssertTrue(diff.differences.allSatisfy { $0.nodeA?.parameters == $0.nodeB?.parameters })
        XCTAssertGreaterThan(diff.timing.matched, 20, "every event was still compared")

        let ignoring = TraceDiff(before, after, ignoringLineShifts: true)
        XCTAssertTrue(ignoring.isSame, ignoring.text)
        XCTAssertEqual(ignoring.linesMoved, 8)
        XCTAssertTrue(ignoring.text.contains("lines: 8 nodes moved to other lines of their files (not differences here)"),
                      ignoring.text)
    }

    /// A function extracted into a file of its own: every operator in it has another file and
    /// line. Without the option each is a changed node and nothing else; with it the traces
    /// are the same, the moves counted apart from line shifts, and a golden still matches.
    func testCodeMovedToAnotherFileIsAChangedNodePerMovedNodeAndSameWhenMovesAreIgnored() throws {
        let before = try Autocomplete().record()
        let after = try Autocomplete(linesAdded: 40, file: "ReplayTests/SearchPipeline.swift").record()
        let diff = TraceDiff(before, after)
        XCTAssertEqual(Set(kinds(diff)), [.nodeChanged], diff.text)
        XCTAssertEqual(diff.differences.count, 8, diff.text)
        XCTAssertTrue(diff.differences.allSatisfy { $0.nodeB?.file == "ReplayTests/SearchPipeline.swift" }, diff.text)
        XCTAssertTrue(diff.differences.allSatisfy { $0.nodeA?.parameters == $0.nodeB?.parameters })

        let ignoring = TraceDiff(before, after, ignoringLineShifts: true)
        XCTAssertTrue(ignoring.isSame, ignoring.text)
        XCTAssertEqual(ignoring.filesMoved, 8)
        XCTAssertEqual(ignoring.linesMoved, 0)
        XCTAssertTrue(ignoring.text.contains("files: 8 nodes moved to other files (not differences here)"), ignoring.text)
        XCTAssertGreaterThan(ignoring.timing.matched, 20, "every event was still compared")

        // Moved and changed: the changed parameter is still the one difference.
        let changed = TraceDiff(before, try Autocomplete(debounce: 0.2, file: "ReplayTests/SearchPipeline.swift").record(),
                                ignoringLineShifts: true)
        XCTAssertEqual(changed.rootCauses.map(\.kind), [.nodeChanged], changed.text)
        XCTAssertTrue(changed.rootCauses.first?.node.hasPrefix("debounce(0.05s") == true, changed.text)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("moved-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("autocomplete.trace")
        _ = GoldenTrace.check(try Recording.simulated(Autocomplete().pipeline).bytes, golden: url, record: true)
        let moved = try Recording.simulated(Autocomplete(file: "ReplayTests/SearchPipeline.swift").pipeline).bytes
        XCTAssertEqual(GoldenTrace.check(moved, golden: url, record: false), .matched)
        guard case .differs = GoldenTrace.check(moved, golden: url, record: false, comparingLines: true) else {
            return XCTFail("expected the moved code to differ when call sites are compared")
        }
    }

    func testALineShiftIsNotADifferenceForAGoldenUnlessLinesAreCompared() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("align-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("autocomplete.trace")
        XCTAssertEqual(GoldenTrace.check(try Recording.simulated(Autocomplete().pipeline).bytes, golden: url, record: true),
                       .recorded(path: url.path))
        let moved = try Recording.simulated(Autocomplete(linesAdded: 3).pipeline).bytes
        XCTAssertEqual(GoldenTrace.check(moved, golden: url, record: false), .matched)
        guard case let .differs(report) = GoldenTrace.check(moved, golden: url, record: false, comparingLines: true) else {
            return XCTFail("expected the moved lines to differ when compared")
        }
        XCTAssertTrue(report.contains("node changed: debounce(0.05s, on: ui) @ReplayTests/TraceDiffAlignmentTests.swift:103: "
                                      + "call site ReplayTests/TraceDiffAlignmentTests.swift:103 in A, "
                                      + "ReplayTests/TraceDiffAlignmentTests.swift:106 in B"), report)
        let changed = try Recording.simulated(Autocomplete(debounce: 0.2, linesAdded: 3).pipeline).bytes
        guard case let .differs(parameters) = GoldenTrace.check(changed, golden: url, record: false) else {
            return XCTFail("expected a changed parameter to differ")
        }
        XCTAssertTrue(parameters.contains("parameters (0.05s, on: ui) in A, (0.2s, on: ui) in B"), parameters)
        XCTAssertEqual(parameters.components(separatedBy: "node changed:").count - 1, 3,
                       "the debounce only, as root cause, first divergence and in the list:\n\(parameters)")
    }

    func testAnInsertedMapIsOnlyInBAndWhatItFeedsStillAligns() throws {
        let before = try Autocomplete().record()
        let after = try Autocomplete(insertsMap: true).record()
        let diff = TraceDiff(before, after)
        let nodes = nodeDifferences(diff)
        XCTAssertEqual(nodes.map(\.kind), [.nodeOnlyInB], diff.text)
        XCTAssertEqual(nodes.first?.node, "map @ReplayTests/TraceDiffAlignmentTests.swift:102")
        XCTAssertEqual(diff.differences.first?.kind, .nodeOnlyInB, "the map is the first divergence:\n\(diff.text)")
        XCTAssertTrue(diff.text.contains("first divergence: node only in B: map @ReplayTests/TraceDiffAlignmentTests.swift:102"),
                      diff.text)
        // Below the map every value is upper-cased: compared, and different, at the debounce.
        let debounce = diff.differences.first { $0.node.hasPrefix("debounce") }
        XCTAssertEqual(debounce?.kind, .valueDiffers, diff.text)
        XCTAssertEqual(debounce?.a?.value, #""swi""#)
        XCTAssertEqual(debounce?.b?.value, #""SWI""#)
        XCTAssertTrue(diff.differences.contains { $0.node.hasPrefix("flatMap(latest)") && $0.kind == .valueDiffers }, diff.text)
    }

    func testARemovedFilterIsOnlyInAAndWhatItFedStillAligns() throws {
        let before = try Autocomplete(minimumLength: 4).record()
        let after = try Autocomplete(minimumLength: nil).record()
        let diff = TraceDiff(before, after)
        let nodes = nodeDifferences(diff)
        XCTAssertEqual(nodes.map(\.kind), [.nodeOnlyInA], diff.text)
        XCTAssertEqual(nodes.first?.node, "filter @ReplayTests/TraceDiffAlignmentTests.swift:101")
        XCTAssertEqual(diff.differences.first?.kind, .nodeOnlyInA, "the filter is the first divergence:\n\(diff.text)")
        // Without the filter "swi" gets through the debounce and is searched for.
        let debounce = diff.differences.first { $0.node.hasPrefix("debounce") }
        XCTAssertEqual(debounce?.kind, .extraInB, diff.text)
        XCTAssertEqual(debounce?.b?.value, #""swi""#)
        XCTAssertTrue(diff.differences.contains { $0.node.hasPrefix(#"call "search""#) && $0.kind == .extraInB }, diff.text)
    }

    func testTheReportsShowBothParameterLists() throws {
        let diff = TraceDiff(try Autocomplete(debounce: 0.05).record(), try Autocomplete(debounce: 0.2).record(),
                             nameA: "a.trace", nameB: "b.trace")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(diff.json.utf8)) as? [String: Any])
        let differences = try XCTUnwrap(object["differences"] as? [[String: Any]])
        let changed = try XCTUnwrap(differences.first)
        XCTAssertEqual(changed["kind"] as? String, "node-changed")
        let a = try XCTUnwrap(changed["a"] as? [String: Any]), b = try XCTUnwrap(changed["b"] as? [String: Any])
        XCTAssertEqual(a["parameters"] as? String, "0.05s, on: ui")
        XCTAssertEqual(b["parameters"] as? String, "0.2s, on: ui")
        XCTAssertEqual(a["file"] as? String, "ReplayTests/TraceDiffAlignmentTests.swift")
        XCTAssertEqual(b["line"] as? Int, 103)
        let decoded = try JSONDecoder().decode(TraceDiff.Difference.self,
                                               from: JSONSerialization.data(withJSONObject: changed))
        XCTAssertEqual(decoded, diff.differences.first)
    }

    func testASourceIsKnownByKindAndLabel() throws {
        let records = [
            #"{"type":"thread","id":1,"name":"main"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"input","parameters":"a","file":"App.swift","line":3,"label":"a","upstream":[]}"#,
            #"{"type":"node","id":2,"kind":"source","name":"input","parameters":"b","file":"App.swift","line":4,"label":"b","upstream":[]}"#,
            #"{"type":"node","id":3,"kind":"operator","name":"merge","parameters":"","file":"App.swift","line":5,"upstream":[{"node":1,"role":"data"},{"node":2,"role":"data"}]}"#,
        ]
        // B made its inputs in the other order and labelled the second one differently.
        let reordered = [
            records[0],
            #"{"type":"node","id":1,"kind":"source","name":"input","parameters":"c","file":"App.swift","line":3,"label":"c","upstream":[]}"#,
            #"{"type":"node","id":2,"kind":"source","name":"input","parameters":"a","file":"App.swift","line":4,"label":"a","upstream":[]}"#,
            #"{"type":"node","id":3,"kind":"operator","name":"merge","parameters":"","file":"App.swift","line":5,"upstream":[{"node":2,"role":"data"},{"node":1,"role":"data"}]}"#,
        ]
        let diff = TraceDiff(try craftedTrace(records), try craftedTrace(reordered))
        XCTAssertEqual(diff.alignment.pairs, [.init(a: 1, b: 2), .init(a: 3, b: 3)])
        // "a" only moved (it explains nothing, so it comes last); "b" and "c" are each a root cause.
        XCTAssertEqual(diff.differences.map(\.node), [#"input "b" @App.swift:4"#, #"input "c" @App.swift:3"#, #"input "a" @App.swift:3"#])
        XCTAssertEqual(kinds(diff), [.nodeOnlyInA, .nodeOnlyInB, .nodeChanged])
        XCTAssertEqual(diff.differences.map(\.consequenceOf), [nil, nil, nil])
        XCTAssertEqual(diff.firstDivergence?.node, #"input "a" @App.swift:3"#)
    }

    func testSwappedOperatorsAlignOneAndReportTheOtherOnEachSide() throws {
        func chain(_ names: [String]) throws -> Trace {
            var records = [#"{"type":"node","id":1,"kind":"source","name":"input","parameters":"q","file":"App.swift","line":1,"label":"q","upstream":[]}"#]
            for (index, name) in names.enumerated() {
                records.append(#"{"type":"node","id":\#(index + 2),"kind":"operator","name":"\#(name)","parameters":"","file":"App.swift","line":\#(index + 2),"upstream":[{"node":\#(index + 1),"role":"data"}]}"#)
            }
            return try craftedTrace(records)
        }
        let diff = TraceDiff(try chain(["skip", "take", "map"]), try chain(["take", "skip", "map"]), ignoringLineShifts: true)
        let aligned = Set(diff.alignment.pairs.map(\.a))
        XCTAssertEqual(aligned.count, 3, diff.text)
        XCTAssertTrue(aligned.isSuperset(of: [1, 4]), "the input and the map below the swap align:\n\(diff.text)")
        XCTAssertEqual(kinds(diff).sorted { $0.rawValue < $1.rawValue }, [.nodeOnlyInA, .nodeOnlyInB], diff.text)
    }

    func testInputsSwappedBetweenRolesEndAsOneNodeOnEachSide() throws {
        let sources = [
            #"{"type":"node","id":1,"kind":"source","name":"input","parameters":"a","file":"App.swift","line":1,"label":"a","upstream":[]}"#,
            #"{"type":"node","id":2,"kind":"source","name":"input","parameters":"b","file":"App.swift","line":2,"label":"b","upstream":[]}"#,
        ]
        func withLatest(data: Int, latest: Int) throws -> Trace {
            try craftedTrace(sources + [
                #"{"type":"node","id":3,"kind":"operator","name":"withLatest(from:)","parameters":"","file":"App.swift","line":3,"upstream":[{"node":\#(data),"role":"data"},{"node":\#(latest),"role":"latest"}]}"#,
                #"{"type":"node","id":4,"kind":"operator","name":"map","parameters":"","file":"App.swift","line":4,"upstream":[{"node":3,"role":"data"}]}"#,
            ])
        }
        let diff = TraceDiff(try withLatest(data: 1, latest: 2), try withLatest(data: 2, latest: 1))
        XCTAssertEqual(diff.alignment.pairs.map(\.a), [1, 2], diff.text)
        XCTAssertEqual(diff.alignment.onlyInA, [3, 4])
        XCTAssertEqual(diff.alignment.onlyInB, [3, 4])
    }

    func testARenamedInputLeavesWhatItFeedsAloneButNotWhatItIsCombinedInto() throws {
        func trace(second: String) throws -> Trace {
            try craftedTrace([
                #"{"type":"node","id":1,"kind":"source","name":"input","parameters":"a","file":"App.swift","line":1,"label":"a","upstream":[]}"#,
                #"{"type":"node","id":2,"kind":"source","name":"input","parameters":"\#(second)","file":"App.swift","line":2,"label":"\#(second)","upstream":[]}"#,
                #"{"type":"node","id":3,"kind":"operator","name":"map","parameters":"","file":"App.swift","line":3,"upstream":[{"node":2,"role":"data"}]}"#,
                #"{"type":"node","id":4,"kind":"operator","name":"combineLatest","parameters":"","file":"App.swift","line":4,"upstream":[{"node":1,"role":"data"},{"node":3,"role":"data"}]}"#,
            ])
        }
        let diff = TraceDiff(try trace(second: "b"), try trace(second: "renamed"))
        XCTAssertEqual(diff.alignment.pairs, [.init(a: 1, b: 1), .init(a: 4, b: 4)], diff.text)
        XCTAssertEqual(diff.alignment.onlyInA, [2, 3])
        XCTAssertEqual(diff.alignment.onlyInB, [2, 3])
    }

    /// A 5,000-node chain with one node removed and one inserted aligns every other node, in
    /// one pass from the sources (the test bounds nothing about time; a quadratic alignment
    /// would make it the slowest test in the suite).
    func testALongChainAlignsAroundAnInsertionAndARemoval() throws {
        func chain(_ names: [String]) throws -> Trace {
            var records = [#"{"type":"node","id":1,"kind":"source","name":"input","parameters":"q","file":"App.swift","line":1,"label":"q","upstream":[]}"#]
            for (index, name) in names.enumerated() {
                records.append(#"{"type":"node","id":\#(index + 2),"kind":"operator","name":"\#(name)","parameters":"","file":"App.swift","line":\#(index + 2),"upstream":[{"node":\#(index + 1),"role":"data"}]}"#)
            }
            return try craftedTrace(records)
        }
        let names = (0..<5_000).map { "op\($0 % 7)" }
        var edited = names
        edited.remove(at: 1_000)
        edited.insert("inserted", at: 3_000)
        let diff = TraceDiff(try chain(names), try chain(edited), ignoringLineShifts: true)
        XCTAssertEqual(diff.alignment.onlyInA, [1_002])
        XCTAssertEqual(diff.alignment.onlyInB, [3_002])
        XCTAssertEqual(diff.alignment.pairs.count, 5_000)
        XCTAssertEqual(kinds(diff), [.nodeOnlyInA, .nodeOnlyInB])
    }
}
