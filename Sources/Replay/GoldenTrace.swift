import Foundation
import TraceLog

/// Compares a trace with a golden trace file, or records it as the golden: the logic behind
/// `MarblesTesting.assertTrace(_:matchesGolden:)`, usable without XCTest.
///
/// The comparison is `TraceDiff`'s (nodes aligned by the pipeline's structure, events by
/// sequence, times within the tolerance — 0 for virtual traces), so a golden records what a
/// pipeline does, not the byte layout of its files. A node whose code moved, to another line of
/// its file or to another file, is not a difference unless lines are compared; a changed
/// parameter always is.
///
/// ```swift
/// let replay = try Replayer(contentsOf: URL(fileURLWithPath: "traces/count.trace")).replay { environment in
///     environment.input("count", of: Int.self).observeValues { _ in } ?? AnyDisposable()
/// }
/// switch GoldenTrace.check(replay.bytes, golden: URL(fileURLWithPath: "traces/count.golden.trace")) {
/// case .matched, .recorded: break
/// case let .differs(report): print(report)
/// case let .missing(path): print("no golden at", path, "- run with MARBLES_RECORD=1")
/// case let .unreadable(message): print(message)
/// }
/// ```
public enum GoldenTrace {
    /// The environment variable that turns comparing into recording: `MARBLES_RECORD=1`.
    public static let recordVariable = "MARBLES_RECORD"

    /// What a check found.
    ///
    /// ```swift
    /// let outcome = GoldenTrace.check([], golden: URL(fileURLWithPath: "/tmp/none.trace"), record: false)
    /// if case .unreadable = outcome { print("an empty trace is not a trace") }
    /// ```
    public enum Outcome: Equatable, Sendable {
        /// The trace matches the golden.
        case matched
        /// The golden was (re)written with the trace.
        case recorded(path: String)
        /// There is no golden file at `path`.
        case missing(path: String)
        /// The trace differs from the golden; `report` is the diff's text.
        case differs(report: String)
        /// The golden file is unreadable or malformed, or the trace given is.
        case unreadable(message: String)
    }

    /// Whether the environment asks for goldens to be rewritten.
    public static var recordingRequested: Bool {
        ProcessInfo.processInfo.environment[recordVariable] == "1"
    }

    /// The golden file `path` names: absolute as is, else under the `traces/` directory of
    /// the package containing `sourceFile` (found by walking up to its `Package.swift`), or
    /// nil when no package contains it.
    public static func url(forGolden path: String, sourceFile: String) -> URL? {
        if path.hasPrefix("/") { return URL(fileURLWithPath: path) }
        var directory = URL(fileURLWithPath: sourceFile).deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                return directory.appendingPathComponent("traces").appendingPathComponent(path)
            }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// Checks the trace `bytes` against the golden at `url`; with `record`, writes them there
    /// instead (creating directories). `timeTolerance` as in `TraceDiff`; with
    /// `comparingLines`, a node whose call site moved (another line or file) is a difference too.
    public static func check(_ bytes: [UInt8], golden url: URL, record: Bool = recordingRequested,
                             timeTolerance: Int64? = nil, comparingLines: Bool = false) -> Outcome {
        let actual: Trace
        do {
            actual = try Trace(bytes: bytes, name: "the trace under test")
        } catch {
            return .unreadable(message: "\(error)")
        }
        if record {
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(bytes).write(to: url)
                return .recorded(path: url.path)
            } catch {
                return .unreadable(message: "\(url.path): error: cannot write the golden trace: \(error.localizedDescription)")
            }
        }
        guard FileManager.default.fileExists(atPath: url.path) else { return .missing(path: url.path) }
        let golden: Trace
        do {
            golden = try Trace(contentsOf: url)
        } catch {
            return .unreadable(message: "\(error)")
        }
        let diff = TraceDiff(golden, actual, nameA: url.path, nameB: "the trace under test", timeTolerance: timeTolerance,
                             ignoringLineShifts: !comparingLines)
        return diff.isSame ? .matched : .differs(report: diff.text)
    }
}
