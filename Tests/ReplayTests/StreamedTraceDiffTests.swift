import Foundation
@testable import Replay
import TraceLog
import XCTest

/// `TraceDiff(contentsOf:_:)` reads two files as streams, its events by node (in a temporary
/// file when many), comparing agreeing events a window at a time: its report must be the very
/// one of two `Trace`s held in memory, for every kind of difference, with the events in memory
/// or written out one at a time and compared two at a time.
final class StreamedTraceDiffTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("streamed-diff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: directory)
    }

    private static let traces = ["twitter-instant", "pixels", "signin", "swift-search", "registration"]

    private static func committed(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("traces/\(name)")
    }

    /// Edits of a trace's lines, each giving other kinds of difference.
    private static let mutations: [(name: String, edit: @Sendable ([String]) -> [String])] = [
        ("events dropped", { lines in editEvents(lines) { $1 % 5 == 3 ? nil : $0 } }),
        ("values changed", { lines in
            editEvents(lines) { line, index in
                guard index % 4 == 1, line.hasSuffix("}"), line.contains(#","json":"#) else { return line }
                return String(line.dropLast()).replacingOccurrences(of: #","json":"#, with: #","json":[0,"#) + "]}"
            }
        }),
        ("times shifted", { lines in
            editEvents(lines) { line, index in index % 3 == 0 ? shifted(line, by: 7_000 * Int64(index % 7)) : line }
        }),
        ("threads changed", { lines in
            // Events after thread 2 is defined move from thread 1 to it.
            guard let defined = lines.firstIndex(where: { $0.hasPrefix(#"{"type":"thread","id":2,"#) }) else { return lines }
            let head = Array(lines[...defined])
            return head + editEvents(Array(lines[(defined + 1)...])) { line, index in
                index % 6 == 2 ? line.replacingOccurrences(of: #""thread":1,"#, with: #""thread":2,"#) : line
            }
        }),
        ("inputs raced", { lines in
            // Events after thread 2 is defined carry another value from another thread: at an
            // operator with several inputs, the inputs met in another order.
            guard let defined = lines.firstIndex(where: { $0.hasPrefix(#"{"type":"thread","id":2,"#) }) else { return lines }
            let head = Array(lines[...defined])
            return head + editEvents(Array(lines[(defined + 1)...])) { line, index in
                guard index % 5 == 1, line.hasSuffix("}"), line.contains(#","json":"#), line.contains(#""thread":1,"#) else { return line }
                return String(line.dropLast()).replacingOccurrences(of: #","json":"#, with: #","json":[0,"#)
                    .replacingOccurrences(of: #""thread":1,"#, with: #""thread":2,"#) + "]}"
            }
        }),
        ("requests changed", { lines in
            // Every third start made with a request asks for another one: the request (the
            // line's last field but for its observation links) wrapped in an array.
            var starts = 0
            return lines.map { line in
                guard line.hasPrefix(#"{"type":"subscribe","#), line.contains(#","request":"#), line.hasSuffix("}") else { return line }
                starts += 1
                guard starts % 3 == 1 else { return line }
                let links = [#","observes":"#, #","observedBy":"#].compactMap { line.range(of: $0)?.lowerBound }.min()
                let request = links.map { String(line[..<$0]) } ?? String(line.dropLast())
                let rest = links.map { String(line[$0...]) } ?? "}"
                return request.replacingOccurrences(of: #","request":"#, with: #","request":["#) + "]" + rest
            }
        }),
        ("a call started once more", { lines in
            // The second start made with a request is made twice: a copy of its line under a
            // new subscription id, with no events (a call only in the trace that has it).
            var starts = 0
            return lines.flatMap { line -> [String] in
                guard line.hasPrefix(#"{"type":"subscribe","id":"#), line.contains(#","request":"#) else { return [line] }
                starts += 1
                guard starts == 2 else { return [line] }
                return [line, line.replacingOccurrences(of: #"{"type":"subscribe","id":"#, with: #"{"type":"subscribe","id":9000"#)]
            }
        }),
        ("terminals changed", { lines in
            editEvents(lines) { line, index in
                index % 2 == 0 ? line.replacingOccurrences(of: #""kind":"completed""#, with: #""kind":"interrupted""#) : line
            }
        }),
        ("nodes edited", { lines in
            var nodes = 0
            return lines.map { line in
                guard line.contains(#""type":"node""#) else { return line }
                nodes += 1
                switch nodes {
                case 3: return line.replacingOccurrences(of: #""parameters":""#, with: #""parameters":"changed "#)
                case 4: return line.replacingOccurrences(of: #","line":"#, with: #","line":9"#)
                case 6: return line.replacingOccurrences(of: #""name":""#, with: #""name":"renamed"#)
                default: return line
                }
            }
        }),
        ("events out of sequence order", { lines in
            var result = lines
            let events = lines.indices.filter { lines[$0].contains(#""type":"event""#) }
            for k in stride(from: 4, to: events.count - 1, by: 9) where events[k + 1] == events[k] + 1 {
                result.swapAt(events[k], events[k + 1])
            }
            return result
        }),
    ]

    /// Applies `edit` to each event line with its number among the events; nil drops the line.
    private static func editEvents(_ lines: [String], _ edit: (String, Int) -> String?) -> [String] {
        var index = 0
        return lines.compactMap { line in
            guard line.contains(#""type":"event""#) else { return line }
            defer { index += 1 }
            return edit(line, index)
        }
    }

    private static func shifted(_ line: String, by shift: Int64) -> String {
        guard let range = line.range(of: #""time":"#) else { return line }
        let digits = line[range.upperBound...].prefix { $0.isNumber }
        guard let time = Int64(digits) else { return line }
        return line.replacingCharacters(in: range.upperBound..<digits.endIndex, with: String(time + shift))
    }

    private func write(_ lines: [String], _ name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @discardableResult
    private func assertSame(_ urlA: URL, _ urlB: URL, tolerance: Int64? = nil, ignoringLineShifts: Bool = false,
                            file: StaticString = #filePath, line: UInt = #line) throws -> TraceDiff {
        let inMemory = TraceDiff(try Trace(contentsOf: urlA), try Trace(contentsOf: urlB), nameA: "a", nameB: "b",
                                 timeTolerance: tolerance, ignoringLineShifts: ignoringLineShifts)
        for (limit, window) in [(1, 2), (EventSpill.limit, TraceDiff.window)] {
            let streamed = try TraceDiff(path: PathName(urlA.path), PathName(urlB.path), fileNames: (urlA.path, urlB.path),
                                         nameA: "a", nameB: "b", timeTolerance: tolerance,
                                         ignoringLineShifts: ignoringLineShifts, spillLimit: limit, window: window)
            XCTAssertEqual(streamed.text, inMemory.text, "\(urlA.lastPathComponent) vs \(urlB.lastPathComponent), limit \(limit)",
                           file: file, line: line)
            XCTAssertEqual(streamed.json, inMemory.json, file: file, line: line)
            XCTAssertEqual(streamed.alignment.pairs, inMemory.alignment.pairs, file: file, line: line)
        }
        return inMemory
    }

    func testEveryKindOfDifferenceIsReportedAsForTracesInMemory() throws {
        var kinds = Set<TraceDiff.Kind>()
        for name in ["twitter-instant", "pixels"] {
            for suffix in [".trace", ".replay.trace"] {
                let original = Self.committed(name + suffix)
                let lines = try String(contentsOf: original, encoding: .utf8).split(separator: "\n").map(String.init)
                for (index, mutation) in Self.mutations.enumerated() {
                    let mutant = try write(mutation.edit(lines), "\(name)\(suffix).\(index)")
                    kinds.formUnion(try assertSame(original, mutant).differences.map(\.kind))
                    kinds.formUnion(try assertSame(mutant, original).differences.map(\.kind))
                }
            }
        }
        XCTAssertEqual(kinds, Set(TraceDiff.Kind.allCases))
    }

    func testOptionsRecordingsAgainstReplaysAndOtherPipelines() throws {
        for name in Self.traces {
            let recording = Self.committed(name + ".trace"), replay = Self.committed(name + ".replay.trace")
            try assertSame(recording, replay)
            try assertSame(replay, recording)
            try assertSame(recording, replay, tolerance: 100_000)
            try assertSame(Self.committed("twitter-instant.replay.trace"), replay)
        }
        let lines = try String(contentsOf: Self.committed("twitter-instant.trace"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let edited = try write(Self.mutations[5].edit(lines), "edited.trace")
        try assertSame(Self.committed("twitter-instant.trace"), edited, ignoringLineShifts: true)
        try assertSame(Self.committed("twitter-instant.trace"), edited, tolerance: 0, ignoringLineShifts: true)
        let diff = try TraceDiff(contentsOf: Self.committed("twitter-instant.trace"), Self.committed("twitter-instant.replay.trace"))
        XCTAssertEqual(diff.insideCalls.count, 1, diff.text)
    }

    func testAMalformedTraceIsTheErrorReadingItIntoMemoryGives() throws {
        let lines = try String(contentsOf: Self.committed("swift-search.trace"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let good = Self.committed("swift-search.trace")
        var broken = lines
        broken[7] = String(broken[7].dropLast(3))
        var undefined = lines
        let event = try XCTUnwrap(undefined.firstIndex { $0.contains(#""type":"event""#) })
        undefined[event] = undefined[event].replacingOccurrences(of: #""node":"#, with: #""node":99"#)
        for (index, mutant) in [broken, undefined].enumerated() {
            let url = try write(mutant, "malformed-\(index).trace")
            var expected: TraceError?
            XCTAssertThrowsError(try Trace(contentsOf: url)) { expected = $0 as? TraceError }
            XCTAssertNotNil(expected)
            XCTAssertThrowsError(try TraceDiff(contentsOf: good, url)) { XCTAssertEqual($0 as? TraceError, expected) }
            XCTAssertThrowsError(try TraceDiff(contentsOf: url, good)) { XCTAssertEqual($0 as? TraceError, expected) }
        }
    }

    func testSequencePositionsInRunsAndOutOfOrder() {
        for sequences: [UInt64] in [[], [1, 2, 3, 4], [5, 6, 9, 10, 11, 40], [3, 4, 1, 2, 7, 5], [.max - 2, .max - 1, .max],
                                    [.max, 0, 1], [10, 20, 30, 31, 32, 33, 2]] {
            var positions = SequencePositions()
            for sequence in sequences { positions.append(sequence) }
            XCTAssertEqual(positions.count, sequences.count)
            for (position, sequence) in sequences.enumerated() {
                XCTAssertEqual(positions.sequence(at: position), sequence, "\(sequences)")
                XCTAssertEqual(positions.position(of: sequence), position, "\(sequences)")
            }
            for missing: UInt64 in [8, 12, 41, 100] where !sequences.contains(missing) {
                XCTAssertNil(positions.position(of: missing), "\(sequences)")
            }
        }
    }

    func testWarningsAreTheReadersOwn() throws {
        var lines = try String(contentsOf: Self.committed("signin.trace"), encoding: .utf8).split(separator: "\n").map(String.init)
        lines.removeLast()
        let cut = try write(lines, "cut.trace")
        let diff = try TraceDiff(contentsOf: Self.committed("signin.trace"), cut)
        XCTAssertEqual(diff.warnings, try Trace(contentsOf: cut).warnings)
        XCTAssertFalse(diff.warnings.isEmpty)
    }
}
