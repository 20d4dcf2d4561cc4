import Foundation
import TestSupport
import Signals
import XCTest
@testable import Recording

/// A stopped recorder's core may stay referenced for a while by the probe set it was in (a
/// thread racing the detachment may still read it), so `stop()` must let go of everything the
/// core holds but its result. The writer's hand-off buffers were kept: a quarter of a megabyte
/// per recording, which a server recording a window now and then, with producer threads that
/// live on, leaked (issue 31 item 4: 270 KB a recording). And the sets were kept for the
/// process, with every core: about 2 KB a recording more. Now a core is freed once no thread
/// reads its set.
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

    /// Issue 31 item 4's stress case, on outcomes: recordings to a file start and stop while
    /// threads that live on send all along. Every recording's core is freed by the end.
    func testEveryRecordingsCoreIsFreedWhileThreadsSendAllAlong() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("marbles-cycles-\(getpid()).trace")
        defer { try? FileManager.default.removeItem(at: url) }
        let (signal, input) = Signal<Int, Never>.pipe(named: "load")
        let observation = signal.map { $0 + 1 }.observeValues { _ in }
        let threads = SendingThreads(count: 4) { _ in { input.send(value: $0) } }
        var cores: [() -> RecorderCore?] = []
        for _ in 0..<200 {
            let recorder = try Recorder(to: url, flushInterval: .milliseconds(1))
            let core = recorder.core
            cores.append { [weak core] in core }
            recorder.start()
            input.send(value: -1)
            try recorder.stop()
        }
        threads.stop()
        observation?.dispose()
        // A set read by a thread when it was replaced waits for the next change.
        let last = Recorder(clock: .real)
        last.start()
        _ = try last.stop()
        XCTAssertEqual(cores.filter { $0() != nil }.count, 0, "recorders' cores still alive")
    }

    /// Issue 33 item 6: 10,000 start/stop cycles with no events left 3-4.5 KB each for the
    /// process (RSS 19 -> 65 MB). Every cycle's core is freed now, so nothing is left.
    func testTenThousandRecorderCyclesLeaveNoCoreBehind() throws {
        var alive = 0
        for _ in 0..<10_000 {
            weak var core: RecorderCore?
            do {
                let recorder = Recorder(clock: .real)
                core = recorder.core
                recorder.start()
                _ = try recorder.stop()
            }
            if core != nil { alive += 1 }
        }
        XCTAssertEqual(alive, 0, "cores kept after their recorder stopped and was released")
    }
}
