import Foundation
import Replay
import TraceLog
import XCTest

/// Asserts that a trace matches the golden trace `path` (under the package's `traces/`
/// directory, or absolute), printing the diff report on failure. With `MARBLES_RECORD=1` in
/// the environment, (re)writes the golden instead and passes.
///
/// ```swift
/// func doubling(in environment: Environment) -> Disposable {
///     environment.input("count", of: Int.self).map { $0 * 2 }.observeValues { _ in } ?? AnyDisposable()
/// }
/// let replay = try Replayer(contentsOf: URL(fileURLWithPath: "traces/count.trace")).replay(doubling)
/// assertTrace(replay.bytes, matchesGolden: "golden/count.trace")   // traces/golden/count.trace
/// ```
///
/// Nodes are aligned by the pipeline's structure (sources by kind and label, then operator
/// name, label and edge role under aligned upstream nodes), events compared by value, kind,
/// thread and time (within `timeTolerance` nanoseconds; 0 for virtual traces). A changed
/// parameter is a difference (`node-changed`); code moved, to other lines of its file or to
/// another file, is not, unless `comparingLines` is true.
public func assertTrace(_ bytes: [UInt8], matchesGolden path: String, timeTolerance: Int64? = nil,
                        comparingLines: Bool = false, file: StaticString = #filePath, line: UInt = #line) {
    guard let url = GoldenTrace.url(forGolden: path, sourceFile: "\(file)") else {
        XCTFail("assertTrace: no Package.swift above \(file) to find traces/\(path) from", file: file, line: line)
        return
    }
    switch GoldenTrace.check(bytes, golden: url, timeTolerance: timeTolerance, comparingLines: comparingLines) {
    case .matched:
        break
    case let .recorded(path):
        print("assertTrace: recorded the golden trace \(path)")
    case let .missing(path):
        XCTFail("assertTrace: no golden trace at \(path); run the test with \(GoldenTrace.recordVariable)=1 to record it",
                file: file, line: line)
    case let .differs(report):
        XCTFail("assertTrace: the trace differs from the golden \(path) "
                + "(run with \(GoldenTrace.recordVariable)=1 to accept it):\n\(report)", file: file, line: line)
    case let .unreadable(message):
        XCTFail("assertTrace: \(message)", file: file, line: line)
    }
}

/// Asserts that a replay's trace matches the golden trace `path`; see
/// `assertTrace(_:matchesGolden:timeTolerance:comparingLines:file:line:)`.
public func assertTrace(_ replay: ReplayResult, matchesGolden path: String, timeTolerance: Int64? = nil,
                        comparingLines: Bool = false, file: StaticString = #filePath, line: UInt = #line) {
    assertTrace(replay.bytes, matchesGolden: path, timeTolerance: timeTolerance, comparingLines: comparingLines,
                file: file, line: line)
}
