import Foundation
import Signals
import XCTest
@testable import Recording

/// A stopped recorder's core stays referenced for the process by the probe sets it was in
/// (a thread racing the detachment may still read one), so `stop()` must let go of
/// everything the core holds but its result. The writer's hand-off buffers were kept: a
/// quarter of a megabyte per recording, which a server recording a window now and then, with
/// producer threads that live on, leaked (issue 31 item 4: 270 KB a recording).
final class StoppedRecorderMemoryTests: XCTestCase {
    func testAStoppedFileRecorderKeepsNoBuffers() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("marbles-stopped-\(getpid()).trace")
        defer { try? FileManager.default.removeItem(at: url) }
        let recorder = try Recorder(to: url, bufferCapacity: 64 << 10, flushInterval: .milliseconds(1))
        recorder.start()
        let (signal, input) = Signal<String, Never>.pipe(named: "load")
        let observation = signal.map { $0 + "!" }.observeValues { _ in }
        let done = DispatchGroup()
        for thread in 0..<4 {
            done.enter()
            Thread {
                for value in 0..<5_000 { input.send(value: "\(thread)-\(value)") }
                done.leave()
            }.start()
        }
        done.wait()
        try recorder.stop()
        observation?.dispose()
        let core = recorder.core
        core.lock()
        defer { core.unlock() }
        XCTAssertEqual(core.spare.capacity, 0, "the writer's spare buffer")
        XCTAssertNil(core.pending, "the hand-off buffer")
        XCTAssertEqual(core.buffer.capacity, 0)
        XCTAssertTrue(core.rings.isEmpty && core.ringList.isEmpty, "the threads' rings")
        XCTAssertTrue(core.pendingMarks.isEmpty)
    }
}
