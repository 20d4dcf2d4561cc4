import Foundation
import Signals
import TraceLog
import Recording
import XCTest

/// Every kind of value a user sends is recorded with the same text and JSON whichever way it
/// is recorded: live to a file (where a thread's ring keeps a copy of the value and the writer
/// formats it), in memory, and on virtual time; and formatting a value never happens on the
/// thread that sent it in a live recording to a file.
final class PayloadRecordingTests: XCTestCase {
    struct Reading: Codable, Equatable {
        var name: String
        var value: Double
        var tags: [String]
    }

    enum Message: Codable, Equatable {
        case text(String)
        case reading(Double, unit: String)
        case ping
    }

    /// Larger than a ring slot keeps in place: copied into memory of its own.
    struct Wide: Codable {
        var a = "first", b = "second", c = "third", d = "fourth"
        var n = (1...8).map { $0 }
    }

    final class Box: CustomStringConvertible {
        var count: Int
        init(_ count: Int) { self.count = count }
        var description: String { "Box(\(count))" }
    }

    struct NotEncodable: CustomStringConvertible {
        var id: Int
        var description: String { "not encodable #\(id)" }
    }

    struct Refusing: Encodable, CustomStringConvertible {
        struct Refused: Error {}
        func encode(to encoder: Encoder) throws { throw Refused() }
        var description: String { "refusing" }
    }

    enum UploadError: Error, Codable, Equatable {
        case timedOut(file: String, status: Int)
    }

    /// Sends one of each payload through a short pipeline each, every value twice so that
    /// the second goes onto a live file recording's ring (the first of a thread's events for
    /// a subscription takes the shared buffer while the ring learns its ids).
    private func sendEveryPayload() {
        func send<Value>(_ values: [Value], _ label: String) {
            let (signal, input) = Signal<Value, Never>.pipe(named: label)
            signal.map { $0 }.observeValues { _ in }
            for value in values {
                input.send(value: value)
                input.send(value: value)
            }
            input.sendCompleted()
        }
        send([1, -42, Int.max], "ints")
        send(["", "sensor-7", "a \"quoted\"\nline", String(repeating: "long ", count: 40)], "strings")
        send([Reading(name: "imu", value: 0.25, tags: ["a", "b"]), Reading(name: "", value: -1e300, tags: [])], "readings")
        send([Message.text("hi"), .reading(9.5, unit: "m/s"), .ping], "messages")
        send([Int?.none, 7], "optionals")
        send([2.5, Double.infinity, -0.0], "doubles")
        send([true, false], "bools")
        send([Wide()], "wide")
        send([NotEncodable(id: 3)], "not encodable")
        send([Refusing()], "refusing")
        send([String(repeating: "é", count: 70_000)], "huge")
        // Events with two causes, each a struct and a string (combineLatest's).
        let (names, nameInput) = Signal<String, Never>.pipe(named: "names")
        let (readings, readingInput) = Signal<Reading, Never>.pipe(named: "latest readings")
        Signal.combineLatest(names, readings).map { "\($0.0): \($0.1.value)" }.observeValues { _ in }
        nameInput.send(value: "imu")
        readingInput.send(value: Reading(name: "imu", value: 1.5, tags: []))
        readingInput.send(value: Reading(name: "imu", value: 2.5, tags: ["x"]))
        nameInput.send(value: "gyro")
        nameInput.sendCompleted()
        readingInput.sendCompleted()
        // Integers with two causes (sample(on:)'s: the tick and the sampled value), which do
        // not take a file recording's ring: captured for the writer as any value is.
        let (counts, countInput) = Signal<Int, Never>.pipe(named: "counts")
        let (ticks, tickInput) = Signal<(), Never>.pipe(named: "ticks")
        counts.sample(on: ticks).observeValues { _ in }
        countInput.send(value: 5)
        tickInput.send(value: ())
        countInput.send(value: -6)
        tickInput.send(value: ())
        countInput.sendCompleted()
        tickInput.sendCompleted()
        let (failing, failingInput) = Signal<Int, UploadError>.pipe(named: "uploads")
        failing.map { $0 }.observe { _ in }
        failingInput.send(value: 1)
        failingInput.send(value: 2)
        failingInput.send(error: .timedOut(file: "a.jpg", status: 408))
    }

    /// What a trace says of each event's value: node label (or name), kind, text, whether it
    /// was cut, JSON and omitted JSON size, in order.
    private func values(of trace: Trace) -> [String] {
        let names = Dictionary(uniqueKeysWithValues: trace.nodes.map { ($0.id, $0.label ?? $0.name) })
        return (0..<trace.events.count).map { index in
            let event = trace.events[index]
            return "\(names[event.node] ?? "?") \(event.kind) \(event.causes.count) \(event.text ?? "-") \(event.truncated) "
                + "\(event.json ?? "-") \(event.omittedJSONBytes)" + (event.jsonError.map { " error: \($0)" } ?? "")
        }
    }

    func testEveryPayloadReadsTheSameLiveToAFileInMemoryAndOnVirtualTime() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("marbles-payloads-\(getpid()).trace")
        defer { try? FileManager.default.removeItem(at: url) }
        try Recorder.record(to: url) { sendEveryPayload() }
        let file = try Trace(contentsOf: url)

        let memory = Recorder(clock: .real)
        memory.start()
        sendEveryPayload()
        try memory.stop()
        let inMemory = try Trace(bytes: memory.bytes)

        let scheduler = TestScheduler()
        let virtual = try Trace(bytes: Recorder.record(virtual: scheduler) { sendEveryPayload() })

        // The binary encoding, live and on virtual time: the writer encodes each value's
        // fields, and nothing else as text.
        let binaryURL = url.deletingPathExtension().appendingPathExtension("mtrace")
        defer { try? FileManager.default.removeItem(at: binaryURL) }
        try Recorder.record(to: binaryURL) { sendEveryPayload() }
        let binaryFile = try Trace(contentsOf: binaryURL)
        XCTAssertEqual(try Array(Data(contentsOf: binaryURL)).prefix(8), BinaryTraceFormat.magic[...])
        let virtualBinary = try recordVirtually(to: binaryURL)

        let expected = values(of: virtual)
        XCTAssertEqual(expected.count, 143)
        XCTAssertEqual(values(of: file), expected)
        XCTAssertEqual(values(of: inMemory), expected)
        XCTAssertEqual(values(of: binaryFile), expected)
        XCTAssertEqual(values(of: try Trace(bytes: virtualBinary)), expected)
        // A few exactly, as FORMAT.md writes them.
        XCTAssert(expected.contains(#"readings value 0 Reading(name: "imu", value: 0.25, tags: ["a", "b"]) false "#
            + #"{"name":"imu","tags":["a","b"],"value":0.25} 0"#))
        XCTAssert(expected.contains(#"messages value 0 reading(9.5, unit: "m/s") false {"reading":{"_0":9.5,"unit":"m/s"}} 0"#))
        XCTAssert(expected.contains("optionals value 0 nil false null 0"))
        XCTAssert(expected.contains("optionals value 0 7 false 7 0"))
        XCTAssert(expected.contains("not encodable value 0 not encodable #3 false - 0"))
        XCTAssert(expected.contains("refusing value 0 refusing false - 0 error: Refused()"))
        XCTAssert(expected.contains(#"uploads failed 0 timedOut(file: "a.jpg", status: 408) false "#
            + #"{"timedOut":{"file":"a.jpg","status":408}} 0"#))
        XCTAssert(expected.contains { $0.hasPrefix("huge value 0 ") && $0.hasSuffix(" true - 140000") })
        XCTAssert(expected.contains("sample(on:) value 2 -6 false -6 0"),
                  expected.filter { $0.hasPrefix("sample") }.joined(separator: "\n"))
        XCTAssert(expected.contains(#"combineLatest value 2 ("imu", RecordingTests.PayloadRecordingTests.Reading(name: "imu", value: 2.5, tags: ["x"])) false - 0"#),
                  expected.filter { $0.hasPrefix("combineLatest") }.joined(separator: "\n"))
    }

    /// Records `sendEveryPayload` on virtual time to `url`: the file's bytes.
    private func recordVirtually(to url: URL) throws -> [UInt8] {
        let scheduler = TestScheduler()
        let recorder = try Recorder(to: url, clock: .virtual(scheduler))
        recorder.start()
        sendEveryPayload()
        try recorder.stop()
        return try Array(Data(contentsOf: url))
    }

    /// The two encodings of one recording are one trace: a virtual recording written in the
    /// binary encoding converts to the bytes its JSON Lines recording has (the header's wall
    /// clock and process aside), and back.
    func testAVirtualRecordingInTheBinaryEncodingConvertsToItsJSONLinesRecording() throws {
        let directory = FileManager.default.temporaryDirectory
        let text = directory.appendingPathComponent("marbles-encodings-\(getpid()).trace")
        let binary = text.deletingPathExtension().appendingPathExtension("mtrace")
        defer { for url in [text, binary] { try? FileManager.default.removeItem(at: url) } }
        let lines = try recordVirtually(to: text)
        let encoded = try recordVirtually(to: binary)
        func withoutHeader(_ bytes: [UInt8]) -> ArraySlice<UInt8> { bytes[(bytes.firstIndex(of: 0x0A) ?? 0)...] }
        XCTAssertEqual(withoutHeader(try TraceConversion.converted(encoded, to: .jsonLines)), withoutHeader(lines))
        XCTAssertEqual(try TraceConversion.converted(try TraceConversion.converted(encoded, to: .jsonLines), to: .binary),
                       encoded)
    }

    /// A value whose description waits for the sender to go on is formatted on the writer
    /// thread: the sender never runs `description`, so nothing it sends waits for one.
    func testALiveFileRecordingFormatsValuesOffTheSendingThread() throws {
        final class Watched: CustomStringConvertible, @unchecked Sendable {
            let formattedOn = LockedThreads()
            var description: String {
                formattedOn.add(pthread_self())
                return "watched"
            }
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("marbles-offthread-\(getpid()).trace")
        defer { try? FileManager.default.removeItem(at: url) }
        let watched = Watched()
        let sender = pthread_self()
        try Recorder.record(to: url) {
            let (signal, input) = Signal<Watched, Never>.pipe(named: "watched")
            signal.observeValues { _ in }
            for _ in 0..<1_000 { input.send(value: watched) }
        }
        let trace = try Trace(contentsOf: url)
        XCTAssertEqual(trace.events.count, 1_000)
        XCTAssertEqual((0..<1_000).filter { trace.events[$0].text == "watched" }.count, 1_000)
        // Every one was formatted by the writer, the first too (which takes the shared buffer
        // while the thread's ring learns its ids).
        let threads = watched.formattedOn.all
        XCTAssertEqual(threads.count, 1_000)
        XCTAssertEqual(threads.filter { pthread_equal($0, sender) != 0 }.count, 0)
    }

    /// An object sent and changed before the writer reaches it shows what it holds when
    /// written (the documented behaviour for reference types), and it is kept alive until
    /// then: the recording holds a reference, never a dangling one.
    func testAnObjectIsKeptAliveUntilWrittenAndReleasedAfter() throws {
        final class Tracked: CustomStringConvertible, @unchecked Sendable {
            let released: LockedThreads
            init(_ released: LockedThreads) { self.released = released }
            deinit { released.add(pthread_self()) }
            var description: String { "tracked" }
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("marbles-alive-\(getpid()).trace")
        defer { try? FileManager.default.removeItem(at: url) }
        let released = LockedThreads()
        try Recorder.record(to: url) {
            let (signal, input) = Signal<Tracked, Never>.pipe(named: "tracked")
            signal.observeValues { _ in }
            for _ in 0..<500 { input.send(value: Tracked(released)) }
        }
        let trace = try Trace(contentsOf: url)
        XCTAssertEqual((0..<trace.events.count).filter { trace.events[$0].text == "tracked" }.count, 500)
        XCTAssertEqual(released.all.count, 500)
    }
}

/// Threads noted from anywhere.
final class LockedThreads: @unchecked Sendable {
    private let lock = NSLock()
    private var threads: [pthread_t] = []
    func add(_ thread: pthread_t) { lock.withLock { threads.append(thread) } }
    var all: [pthread_t] { lock.withLock { threads } }
}
