@testable import Diagrams
import Foundation
import TraceLog
import XCTest

/// A marble figure drawn from a trace file (`MarbleFigure(file:)`, which never holds the
/// trace's events) is the figure of the trace loaded whole, for every way of choosing lanes,
/// with and without causal arrows; a broken file gives the same located error.
final class StreamedFigureTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("streamed-figure-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: directory)
    }

    /// The committed traces, the test fixture and the long session of `BigFigureTests`.
    private func traceFiles() throws -> [URL] {
        let traces = Self.root.appendingPathComponent("traces")
        var files = try FileManager.default.contentsOfDirectory(at: traces, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "trace" }.sorted { $0.path < $1.path }
        files.append(Self.root.appendingPathComponent("Tests/DiagramsTests/Support/autocomplete.trace"))
        let session = directory.appendingPathComponent("long-session.trace")
        try Data(BigFigureTests.longSession().bytesForTest()).write(to: session)
        files.append(session)
        XCTAssertGreaterThan(files.count, 10)
        return files
    }

    private func assertSameFigures(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let trace = try Trace(contentsOf: url)
        let streamed = try MarbleTraceFile(url: url, name: url.lastPathComponent)
        // The same warnings at the same lines (each names the file as it was given).
        XCTAssertEqual(streamed.warnings.map { "\($0.line): \($0.message)" }, trace.warnings.map { "\($0.line): \($0.message)" },
                       file: file, line: line)
        var selections: [MarbleOptions.Selection] = [.paths, .all]
        // Every fifth node alone (a source, an operator, an inner stream), and three together.
        let names = trace.nodes.map { "#\($0.id)" }
        selections += stride(from: 0, to: names.count, by: max(5, names.count / 3)).map { .nodes([names[$0]]) }
        selections.append(.nodes(Array(names.prefix(3))))
        for selection in selections {
            for causes in [false, true] {
                let options = MarbleOptions(selection: selection, causes: causes, title: "t")
                let whole = Result { try MarbleFigure(trace: trace, options: options) }
                let read = Result { try MarbleFigure(file: streamed, options: options) }
                switch (whole, read) {
                case let (.success(a), .success(b)):
                    XCTAssertEqual(a, b, "\(url.lastPathComponent) \(selection) causes \(causes)", file: file, line: line)
                case let (.failure(a), .failure(b)):
                    XCTAssertEqual("\(a)", "\(b)", file: file, line: line)
                default:
                    XCTFail("\(url.lastPathComponent) \(selection): \(whole) vs \(read)", file: file, line: line)
                }
            }
        }
    }

    func testEveryTraceDrawsTheSameFromItsFile() throws {
        for url in try traceFiles().dropLast() { try assertSameFigures(url) }
    }

    /// The long session: hundreds of inner streams merged into one lane, hundreds of marks.
    func testALongSessionDrawsTheSameFromItsFile() throws {
        let url = try XCTUnwrap(traceFiles().last)
        let trace = try Trace(contentsOf: url)
        let streamed = try MarbleTraceFile(url: url, name: url.lastPathComponent)
        XCTAssertEqual(try MarbleFigure(file: streamed), try MarbleFigure(trace: trace))
    }

    /// Events written out of sequence order (a hand-edited trace): causes and lanes are found
    /// through the dictionary the positions switch to.
    func testEventsOutOfSequenceOrderDrawTheSame() throws {
        var drawn = 0
        for url in try traceFiles().dropLast() {
            var lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            let events = lines.indices.filter { lines[$0].contains("\"type\":\"event\"") }
            // Swap neighbouring events of one subscription's lifetime: the later one first.
            var swapped = 0
            for (first, second) in zip(events, events.dropFirst()) where second == first + 1 && swapped < 50 && first % 3 == 0 {
                lines.swapAt(first, second)
                swapped += 1
            }
            guard swapped > 0 else { continue }
            let edited = directory.appendingPathComponent("swapped-" + url.lastPathComponent)
            try lines.joined(separator: "\n").write(to: edited, atomically: true, encoding: .utf8)
            // A swap that puts an event before what it needs is an error: the same one both ways.
            do {
                _ = try Trace(contentsOf: edited)
            } catch {
                XCTAssertThrowsError(try MarbleTraceFile(url: edited, name: edited.path)) { XCTAssertEqual("\($0)", "\(error)") }
                continue
            }
            try assertSameFigures(edited)
            drawn += 1
        }
        // Some edited trace loads, so the out-of-order positions are drawn, not only rejected.
        XCTAssertGreaterThan(drawn, 0)
    }

    func testABrokenFileGivesTheErrorLoadingItGives() throws {
        let url = Self.root.appendingPathComponent("traces/twitter-instant.trace")
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
        let broken: [(String, [String])] = [
            ("a record cut short", Array(lines.prefix(40)) + [String(lines[40].prefix(30))] + Array(lines.dropFirst(41))),
            ("an undefined subscription", lines.map { $0.replacingOccurrences(of: "\"sub\":3,", with: "\"sub\":99999,") }),
            ("a repeated sequence number", Array(lines.prefix(60)) + [lines[lines.lastIndex { $0.contains("\"type\":\"event\"") }!]]
                + Array(lines.dropFirst(60))),
            ("no header", Array(lines.dropFirst())),
        ]
        for (what, text) in broken {
            let file = directory.appendingPathComponent("broken.trace")
            try text.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
            let loaded = Result { try Trace(contentsOf: file) }
            guard case let .failure(expected) = loaded else { XCTFail("\(what): the trace loaded"); continue }
            XCTAssertThrowsError(try MarbleTraceFile(url: file, name: file.path), what) {
                XCTAssertEqual("\($0)", "\(expected)", what)
            }
        }
    }
}

private extension Trace {
    /// The trace as a file's bytes: its records written back in order.
    func bytesForTest() -> [UInt8] {
        var line = JSONLine(capacity: 1 << 16)
        TraceRecord.header(header).write(to: &line)
        for thread in threads { TraceRecord.thread(thread).write(to: &line) }
        for node in nodes { TraceRecord.node(node).write(to: &line) }
        for subscription in subscriptions { TraceRecord.subscribe(subscription).write(to: &line) }
        for event in events { TraceRecord.event(event).write(to: &line) }
        for disposal in disposals { TraceRecord.dispose(disposal).write(to: &line) }
        if let summary { TraceRecord.summary(summary).write(to: &line) }
        return line.bytes
    }
}
