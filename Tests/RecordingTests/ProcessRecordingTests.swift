import Foundation
import Recording
import Signals
import TraceLog
import XCTest

/// MARBLES_TRACE=FILE records a whole program that links Recording, with no code of its own
/// (issue 34 item 5: `marbles record` ran only the five tutorials, so every user wrote a
/// runner). The program here is this test bundle, run again as a child whose worker test
/// builds a pipeline on a real queue and never mentions a recorder.
final class ProcessRecordingTests: XCTestCase {
    private static let workerVariable = "MARBLES_PROCESS_RECORDING_WORKER"

    /// The child's pipeline: 20 values through map and filter, hopping onto a queue. With
    /// `wait`, it then says "ready" on standard output and waits to be ended by a signal.
    func testWorker() throws {
        guard let mode = ProcessInfo.processInfo.environment[Self.workerVariable] else { return }
        XCTAssertTrue(ProcessRecording.isRecording, "started before the test ran")
        XCTAssertNil(getenv(ProcessRecording.variable), "removed, so programs this one starts do not record into the file")
        // In "own" mode the program records the pipeline itself too, as some do.
        let own = mode == "own" ? try Recorder(to: URL(fileURLWithPath: ProcessInfo.processInfo.environment["OWN_TRACE"]!)) : nil
        own?.start()
        defer { _ = try? own?.stop() }
        let queue = QueueScheduler(name: "worker.queue")
        let done = DispatchSemaphore(value: 0)
        let (signal, observer) = Signal<Int, Never>.pipe()
        signal.map { $0 * 3 }.filter { $0 % 2 == 0 }.observe(on: queue).observe { event in
            if event.isTerminating { done.signal() }
        }
        for value in 1...20 { observer.send(value: value) }
        observer.sendCompleted()
        done.wait()
        if mode == "wait" {
            _ = "ready\n".withCString { write(STDOUT_FILENO, $0, 6) }
            DispatchSemaphore(value: 0).wait()
        }
    }

    /// Runs the worker with MARBLES_TRACE=`trace`; `ready` is called once it says "ready".
    private func runWorker(_ mode: String, trace: URL, own: URL? = nil, ready: ((Process) -> Void)? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["RecordingTests.ProcessRecordingTests/testWorker"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.workerVariable] = mode
        environment[ProcessRecording.variable] = trace.path
        if let own { environment["OWN_TRACE"] = own.path }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        if let ready {
            var seen = Data()
            while !String(decoding: seen, as: UTF8.self).contains("ready\n") {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                seen += chunk
            }
            ready(process)
        }
        _ = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process
    }

    private func temporaryTrace() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("process-\(UUID().uuidString).trace")
    }

    /// The recorded pipeline: its nodes, the queue's thread and a whole trace with its summary.
    private func assertThePipelineIsRecorded(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let trace = try Trace(contentsOf: url)
        let names = trace.nodes.map(\.name)
        for name in ["pipe", "map", "filter", "observe(on:)"] {
            XCTAssertTrue(names.contains(name), "\(name) in \(names)", file: file, line: line)
        }
        let filter = try XCTUnwrap(trace.nodes.first { $0.name == "filter" }, file: file, line: line)
        XCTAssertEqual(trace.events(of: filter.id).filter { $0.kind == .value }.count, 10, file: file, line: line)
        let summary = try XCTUnwrap(trace.summary, "the trace was finished with its summary", file: file, line: line)
        XCTAssertEqual(summary.events, UInt64(trace.events.count), file: file, line: line)
        XCTAssertTrue(trace.threads.contains { $0.scheduler == "worker.queue" }, "\(trace.threads)", file: file, line: line)
    }

    func testAProgramStartedWithTheVariableRecordsItsPipelinesUntilItExits() throws {
        guard ProcessInfo.processInfo.environment[Self.workerVariable] == nil else { return }
        let url = temporaryTrace()
        defer { try? FileManager.default.removeItem(at: url) }
        let process = try runWorker("exit", trace: url)
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 0)
        try assertThePipelineIsRecorded(url)
    }

    func testAProgramThatRecordsItselfIsRecordedInBothTraces() throws {
        guard ProcessInfo.processInfo.environment[Self.workerVariable] == nil else { return }
        let url = temporaryTrace(), own = temporaryTrace()
        defer {
            try? FileManager.default.removeItem(at: url)
            try? FileManager.default.removeItem(at: own)
        }
        let process = try runWorker("own", trace: url, own: own)
        XCTAssertEqual(process.terminationStatus, 0)
        try assertThePipelineIsRecorded(url)
        try assertThePipelineIsRecorded(own)
    }

    /// A recorder writing a new file in place holds a lock on it, which `marbles` runs that
    /// would replace the file test before replacing it (issue 31 item 7).
    func testARecorderHoldsALockOnTheFileItCreatesUntilItStops() throws {
        guard ProcessInfo.processInfo.environment[Self.workerVariable] == nil else { return }
        let url = temporaryTrace()
        defer { try? FileManager.default.removeItem(at: url) }
        let recorder = try Recorder(to: url)
        recorder.start()
        let other = open(url.path, O_RDONLY | O_CLOEXEC)
        defer { close(other) }
        XCTAssertNotEqual(flock(other, LOCK_EX | LOCK_NB), 0, "the recording's file is locked")
        XCTAssertEqual(errno, EWOULDBLOCK)
        try recorder.stop()
        XCTAssertEqual(flock(other, LOCK_EX | LOCK_NB), 0, "and free once it stops")
    }

    func testSIGTERMFinishesTheTraceThenEndsTheProgramAsItWould() throws {
        guard ProcessInfo.processInfo.environment[Self.workerVariable] == nil else { return }
        for signal in [SIGTERM, SIGINT] {
            let url = temporaryTrace()
            defer { try? FileManager.default.removeItem(at: url) }
            let process = try runWorker("wait", trace: url) { kill($0.processIdentifier, signal) }
            XCTAssertEqual(process.terminationReason, .uncaughtSignal, "signal \(signal)")
            XCTAssertEqual(process.terminationStatus, signal)
            try assertThePipelineIsRecorded(url)
        }
    }
}
