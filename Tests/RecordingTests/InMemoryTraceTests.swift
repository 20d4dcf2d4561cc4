import Foundation
import Signals
import TraceLog
import Recording
import XCTest

/// An in-memory recorder places its events in a trace's columns as it records them, apart
/// from its other lines (`StoredEvents`, with run entries and event-line markers in the buffer
/// keeping their order): its bytes must be a file recording's of the same run, and the `Trace`
/// it builds from its columns the `Trace` its bytes read as.
final class InMemoryTraceTests: XCTestCase {
    /// Integer events between lines of every kind the run writes mid-way: subscriptions and
    /// nodes of observers added late, their disposals, string values (formatted as lines),
    /// marks; `peek` is called at some virtual times (reading the bytes mid-recording).
    private func run(_ scheduler: TestScheduler, peek: @escaping (Int) -> Void) {
        let (numbers, input) = Signal<Int, Never>.pipe(named: "numbers")
        let (words, wordInput) = Signal<String, Never>.pipe(named: "words")
        Signal.combineLatest(numbers.map { $0 * 3 }, words).observeValues { _ in }
        numbers.scan(0) { $0 + $1 }.filter { $0 % 2 == 0 }.observeValues { _ in }
        var late: [Disposable] = []
        for value in 0..<4_000 {
            scheduler.schedule(atNanoseconds: Int64(value) * 1_000) {
                input.send(value: value % 50 == 0 ? value : value / 3)
                if value % 7 == 0 { wordInput.send(value: "w\(value)") }
                if value % 500 == 250, let disposable = numbers.map({ $0 + value }).observeValues({ _ in }) {
                    late.append(disposable)
                }
                if value % 500 == 400, !late.isEmpty { late.removeFirst().dispose() }
                if value % 900 == 3 { Recorder.mark("at \(value)") }
                peek(value)
            }
        }
        scheduler.schedule(atNanoseconds: 5_000_000) { input.sendCompleted() }
        scheduler.run()
    }

    func testAnInMemoryRecordingIsTheFileRecordingAndItsTraceTheTraceOfItsBytes() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("marbles-in-memory-\(getpid()).trace")
        defer { try? FileManager.default.removeItem(at: url) }
        let fileScheduler = TestScheduler()
        let file = try Recorder(to: url, clock: .virtual(fileScheduler), bufferCapacity: 4096)
        file.start()
        var filePeeks: [[UInt8]] = []
        run(fileScheduler) { value in
            if value == 1_001 || value == 2_222 {
                file.synchronize()
                filePeeks.append((try? [UInt8](Data(contentsOf: url))) ?? [])
            }
        }
        try file.stop()
        let written = try [UInt8](Data(contentsOf: url))

        let scheduler = TestScheduler()
        // A small buffer: the lines fill many buffers, so run entries lie in several chunks.
        let memory = Recorder(clock: .virtual(scheduler), bufferCapacity: 4096)
        memory.start()
        var peeks: [[UInt8]] = []
        // Twice in a row (nothing recorded between), and where the last records are events.
        run(scheduler) { value in
            if value == 1_001 || value == 2_222 { peeks.append(memory.bytes) }
            if value == 1_001 { peeks.append(memory.bytes) }
        }
        try memory.stop()
        let bytes = memory.bytes
        XCTAssertGreaterThan(bytes.count, 200_000)
        // (Compared as Booleans: a failure would print megabytes.)
        XCTAssertTrue(bytes == written, "the in-memory bytes differ from the file's")
        // A read mid-recording has every record so far, the events after the last line too.
        XCTAssertEqual(peeks.count, 3)
        XCTAssertEqual(filePeeks.count, 2)
        guard peeks.count == 3, filePeeks.count == 2 else { return }
        XCTAssertGreaterThan(filePeeks[0].count, 50_000)
        XCTAssertTrue(peeks[0] == filePeeks[0], "the bytes read at 1001 differ from the file's then")
        XCTAssertTrue(peeks[1] == filePeeks[0], "a second read with nothing recorded between differs")
        XCTAssertTrue(peeks[2] == filePeeks[1], "the bytes read at 2222 differ from the file's then")

        // Built from the columns placed while recording, not read back from the bytes.
        XCTAssertNotNil(try memory.placedTrace(name: "memory"))
        let built = try memory.trace(name: "memory")
        let read = try Trace(bytes: bytes, name: "memory")
        XCTAssertEqual(built.header, read.header)
        XCTAssertEqual(built.nodes, read.nodes)
        XCTAssertEqual(built.subscriptions, read.subscriptions)
        XCTAssertEqual(built.disposals, read.disposals)
        XCTAssertEqual(built.threads, read.threads)
        XCTAssertEqual(built.marks, read.marks)
        XCTAssertEqual(built.summary, read.summary)
        XCTAssertEqual(built.events.count, read.events.count)
        XCTAssertGreaterThan(built.events.count, 10_000)
        guard built.events.count == read.events.count else { return }
        for position in built.events.indices {
            XCTAssertEqual(built.events[position], read.events[position], "position \(position)")
            XCTAssertEqual(built.events.payload(at: position), read.events.payload(at: position), "position \(position)")
            XCTAssertEqual(built.events.payloadNumber(at: position), read.events.payloadNumber(at: position),
                           "position \(position)")
            XCTAssertEqual(built.events.jsonInteger(at: position), read.events.jsonInteger(at: position),
                           "position \(position)")
        }
        for node in read.nodes {
            XCTAssertEqual(built.eventPositions(of: node.id), read.eventPositions(of: node.id), "node \(node.id)")
        }
    }

    /// A virtual in-memory recording takes a spin lock: streams made in its scope may still
    /// send from other threads at once (each pipe its own, so nothing else serialises them),
    /// and every event must be kept whole, numbered once, its node's and subscription's
    /// records before it.
    func testThreadsSendingAtOnceIntoAVirtualInMemoryRecordingLoseNothing() throws {
        let scheduler = TestScheduler()
        let recorder = Recorder(clock: .virtual(scheduler), bufferCapacity: 4096)
        recorder.start()
        let pipes = (0..<4).map { _ in Signal<Int, Never>.pipe() }
        for pipe in pipes { pipe.output.map { $0 + 1 }.observeValues { _ in } }
        DispatchQueue.concurrentPerform(iterations: pipes.count) { worker in
            for value in 0..<20_000 { pipes[worker].input.send(value: worker * 100_000 + value) }
        }
        let summary = try recorder.stop()
        XCTAssertEqual(summary.events, 160_000)
        let read = try Trace(bytes: recorder.bytes, name: "threads")
        XCTAssertEqual(read.events.count, 160_000)
        XCTAssertEqual(Set(read.events.indices.map { read.events.sequence(at: $0) }), Set(1...160_000))
        XCTAssertNotNil(try recorder.placedTrace(name: "threads"))
        let built = try recorder.trace(name: "threads")
        XCTAssertEqual(built.events.count, 160_000)
        for position in built.events.indices where position % 97 == 0 {
            XCTAssertEqual(built.events[position], read.events[position], "position \(position)")
        }
    }
}
