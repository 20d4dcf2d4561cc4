import Foundation
import TraceLog
import XCTest

/// `kill -9` of a process that is recording: the built `marbles` binary records the live
/// TwitterInstant scenario and is killed at three moments of its run; each partial trace must
/// be whole up to its last flush.
final class RecorderCrashTests: XCTestCase {
    /// The writer thread's default flush interval, plus what a thread woken on a shared, busy
    /// machine may take to run: a script step printed this long before the kill has its mark
    /// in the file.
    private static let lossBound: TimeInterval = 0.1 + 0.3

    /// The `marbles` executable built next to the test bundle.
    private func marblesBinary() throws -> URL {
        #if os(Linux)
        let bundle = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        #else
        let bundle = Bundle(for: Self.self).bundleURL
        #endif
        let binary = bundle.deletingLastPathComponent().appendingPathComponent("marbles")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw XCTSkip("no built marbles binary next to the tests at \(binary.path) (build the package first)")
        }
        return binary
    }

    /// A `marbles record` child whose printed script steps are timed as they arrive.
    private final class RecordingChild: @unchecked Sendable {
        let trace: URL
        let process = Process()
        private let lock = NSLock()
        private var lines: [(text: String, at: TimeInterval)] = []
        private let arrived = DispatchSemaphore(value: 0)

        init(binary: URL, trace: URL) throws {
            self.trace = trace
            process.executableURL = binary
            process.arguments = ["record", "--scenario", "twitter-instant", "-o", trace.path]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let reading = output.fileHandleForReading
            Thread.detachNewThread { [self] in
                var pending = Data()
                while case let chunk = reading.availableData, !chunk.isEmpty {
                    pending.append(chunk)
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                        pending = Data(pending[(newline + 1)...])
                        lock.withLock { lines.append((line, ProcessInfo.processInfo.systemUptime)) }
                        arrived.signal()
                    }
                }
            }
        }

        /// Waits for the child's `count`th printed step.
        func waitForSteps(_ count: Int) throws {
            for _ in 0..<count {
                guard arrived.wait(timeout: .now() + 30) == .success else {
                    process.terminate()
                    throw ChildError(message: "the recording child printed no step for 30 s")
                }
            }
        }

        /// Kills the child with SIGKILL; returns when it was killed.
        func kill() -> TimeInterval {
            let at = ProcessInfo.processInfo.systemUptime
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return at
        }

        /// The descriptions of the steps printed at least `age` seconds before `time`.
        func steps(printedBefore time: TimeInterval, by age: TimeInterval) -> [String] {
            lock.withLock {
                lines.filter { $0.at <= time - age }.map { line in
                    // "   0.25s  searchText = "m"": the description follows the time.
                    let text = line.text.drop { $0 == " " }
                    return String(text.drop { $0 != " " }.drop { $0 == " " })
                }
            }
        }
    }

    private struct ChildError: Error { let message: String }

    private func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("marbles-crash-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder
    }

    func testATraceCutByKillIsWholeUpToTheLastFlush() throws {
        let binary = try marblesBinary()
        let folder = try temporaryFolder()
        // Three moments: in the first burst of typing, in the quiet period after it (the
        // debounce about to let "magi" through), and right after the second burst. The three
        // children run at once.
        let moments: [(steps: Int, thenWait: TimeInterval)] = [(1, 0.45), (4, 0.6), (6, 0)]
        // The last child records in the binary encoding (by its name): a kill leaves every
        // chunk it wrote whole, and its verbs read it as they read the others.
        let children = try moments.indices.map { index in
            try RecordingChild(binary: binary,
                               trace: folder.appendingPathComponent("killed-\(index).\(index == 2 ? "mtrace" : "trace")"))
        }
        let killedAt = try zip(children, moments).map { child, moment in
            try child.waitForSteps(moment.steps)
            if moment.thenWait > 0 { Thread.sleep(forTimeInterval: moment.thenWait) }
            return child.kill()
        }
        for (child, killed) in zip(children, killedAt) {
            XCTAssertEqual(child.process.terminationReason, .uncaughtSignal)
            let flushed = child.steps(printedBefore: killed, by: Self.lossBound)
            try checkPartialTrace(child.trace, flushedMarks: flushed)
        }
        try checkVerbsRead(children[1].trace, binary: binary, folder: folder)
        try checkVerbsRead(children[2].trace, binary: binary, folder: folder)
        XCTAssertEqual(try Array(Data(contentsOf: children[2].trace).prefix(8)), BinaryTraceFormat.magic)
    }

    /// Header present, every whole line valid and every id defined, events a prefix of the
    /// sequence, one warning for the cut, and the marks of `flushedMarks` present.
    private func checkPartialTrace(_ url: URL, flushedMarks: [String]) throws {
        let name = url.lastPathComponent
        // The header is written when the recorder starts, before the script's first step.
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        XCTAssertGreaterThan(size, 0, "\(name): empty, though the recording had started")
        let reader = try TraceReader(url: url)
        XCTAssertEqual(reader.header.clock, .real, name)
        var sequences: [UInt64] = []
        var marks: [String] = []
        var sawSummary = false
        while let record = try reader.next() {
            switch record {
            case let .event(event): sequences.append(event.sequence)
            case let .mark(mark): marks.append(mark.label)
            case .summary: sawSummary = true
            default: break
            }
        }
        XCTAssertFalse(sawSummary, "\(name): a killed recording has no summary")
        XCTAssertEqual(reader.warnings.count, 1, "\(name): \(reader.warnings)")
        // "cut off" (JSON Lines, or binary between chunks), "cut at byte" (binary, in a chunk).
        XCTAssertTrue(reader.warnings.first?.message.contains("cut") ?? false, "\(name): \(reader.warnings)")
        XCTAssertEqual(sequences, sequences.isEmpty ? [] : Array(1...UInt64(sequences.count)), name)
        XCTAssertEqual(Array(marks.prefix(flushedMarks.count)), flushedMarks, name)
        let trace = try Trace(contentsOf: url)
        XCTAssertEqual(trace.events.count, sequences.count, name)
    }

    /// The reading verbs take the cut trace, warn about the cut and succeed.
    private func checkVerbsRead(_ url: URL, binary: URL, folder: URL) throws {
        let verbs: [[String]] = [
            ["stats", url.path],
            ["export", "--perfetto", url.path, "-o", folder.appendingPathComponent("cut.json").path],
            ["draw", url.path, "-o", folder.appendingPathComponent("cut.svg").path],
            ["draw", "--pipeline", url.path, "-o", folder.appendingPathComponent("cut-pipeline.svg").path],
        ]
        for arguments in verbs {
            let process = Process()
            process.executableURL = binary
            process.arguments = arguments
            let errors = Pipe()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            try process.run()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, "marbles \(arguments.joined(separator: " ")): \(message)")
            XCTAssertTrue(message.contains("warning"), "marbles \(arguments.joined(separator: " ")): \(message)")
        }
    }
}
