import Foundation
import Signals
import TraceLog
import XCTest
@testable import Recording

/// A live recording to a file leaves every record to the writer thread, not only the events'
/// values (issue 26): a subscription, a disposal or a hop waits in the shared buffer as the
/// recorder made it (boxed, or as its fixed fields for a plain subscription or a disposal),
/// and the writer writes its line. Before, each was formatted as a JSON line
/// on the thread that subscribed, disposed or hopped (about 2,500 instructions each, more
/// than the event path's whole cost; TwitterInstant makes about 80 such records a query).
final class RecordsOffTheProducingThreadTests: XCTestCase {
    private func url(_ name: String, _ ext: String = "trace") -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("marbles-\(name)-\(getpid()).\(ext)")
    }

    func testALiveRecordingsSharedBufferHoldsNoLines() throws {
        for ext in ["trace", "mtrace"] {
            let url = url("boxed", ext)
            defer { try? FileManager.default.removeItem(at: url) }
            // A flush interval long enough that the writer takes nothing while the buffer is read.
            let recorder = try Recorder(to: url, flushInterval: .seconds(60))
            recorder.start()
            let (signal, input) = Signal<Int, Never>.pipe(named: "in")
            let producer = SignalProducer(signal).map { $0 + 1 }.filter { $0 > 0 }
            let disposable = producer.startWithValues { _ in }
            input.send(value: 1)
            disposable.dispose()
            let core = recorder.core
            var kinds: [String] = []
            core.lock()
            core.buffer.withUnsafeBytes { raw in
                BufferEntry.forEach(in: raw) { entry in
                    switch entry {
                    case .line: kinds.append("line")
                    case .boxed: kinds.append("boxed")
                    case .plain: kinds.append("plain")
                    case .binary, .deferred: kinds.append("event")
                    }
                }
            }
            core.unlock()
            try recorder.stop()
            // Nodes were boxed; subscriptions and disposals with nothing but their fixed fields
            // were kept as those fields.
            XCTAssertGreaterThan(kinds.filter { $0 == "boxed" }.count, 2, ext)
            XCTAssertGreaterThanOrEqual(kinds.filter { $0 == "plain" }.count, 4, ext)
            XCTAssertFalse(kinds.contains("line"), "\(ext): \(kinds)")
            // And the writer wrote them: the trace has the subscriptions and their disposals.
            let trace = try Trace(contentsOf: url)
            XCTAssertGreaterThanOrEqual(trace.subscriptions.count, 4, ext)
            // Each field came back where it belongs: every subscription and disposal names a
            // thread of the trace and a time within the run, and each disposal a subscription of
            // the trace, once (the started chain was torn down; the pipe itself lives on).
            let threads = Set(trace.threads.map(\.id))
            XCTAssertTrue(trace.subscriptions.allSatisfy { threads.contains($0.thread) && $0.time >= 0 }, ext)
            XCTAssertTrue(trace.disposals.allSatisfy { threads.contains($0.thread) && $0.time >= 0 }, ext)
            let disposed = trace.disposals.map(\.subscription)
            XCTAssertGreaterThanOrEqual(disposed.count, 3, ext)
            XCTAssertEqual(Set(disposed).count, disposed.count, ext)
            XCTAssertTrue(Set(disposed).isSubset(of: Set(trace.subscriptions.map(\.id))), ext)
            XCTAssertEqual((0..<trace.events.count).compactMap { trace.events[$0].text }.filter { $0 == "2" }.count, 2, ext)
        }
    }

    /// The lines the writer makes of boxed records are the lines the producing thread used to
    /// write: a live JSON Lines recording converts to binary and back byte for byte, and reads
    /// as the same records as an in-memory recording of the same pipeline (but for times and
    /// threads, which differ from run to run).
    func testBoxedRecordsAreWrittenAsTheLinesTheyWere() throws {
        let url = url("boxed-lines")
        defer { try? FileManager.default.removeItem(at: url) }
        func run() {
            let (signal, input) = Signal<String, Never>.pipe(named: "words")
            let disposable = SignalProducer(signal).map { $0.uppercased() }.startWithValues { _ in }
            for word in ["a", "bc", "def"] { input.send(value: word) }
            disposable.dispose()
        }
        try Recorder.record(to: url) { run() }
        let bytes = try Data(contentsOf: url)
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertTrue(text.contains("\"type\":\"subscribe\""))
        XCTAssertTrue(text.contains("\"type\":\"dispose\""))
        let binary = try TraceConversion.converted(Array(bytes), to: .binary)
        XCTAssertEqual(try TraceConversion.converted(binary, to: .jsonLines), Array(bytes))
        let live = try Trace(contentsOf: url)
        let recorder = Recorder(clock: .real)
        recorder.start()
        run()
        try recorder.stop()
        let memory = try Trace(bytes: recorder.bytes, name: "in memory")
        XCTAssertEqual(live.nodes.map(\.name), memory.nodes.map(\.name))
        XCTAssertEqual(live.subscriptions.map(\.node), memory.subscriptions.map(\.node))
        XCTAssertEqual(live.subscriptions.map(\.parent), memory.subscriptions.map(\.parent))
        XCTAssertEqual(live.disposals.map(\.subscription), memory.disposals.map(\.subscription))
        XCTAssertEqual((0..<live.events.count).map { live.events[$0].text },
                       (0..<memory.events.count).map { memory.events[$0].text })
    }
}
