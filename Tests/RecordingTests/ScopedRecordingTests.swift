import Foundation
import Signals
import Synchronization
import TraceLog
import Recording
import XCTest

/// A probe that counts what it hears, for tests that attach it beside a recorder.
final class CountingProbe: Probe, Sendable {
    private let counts = Mutex<(subscriptions: Int, events: Int, hops: Int)>((0, 0, 0))
    var events: Int { counts.withLock { $0.events } }
    var subscriptions: Int { counts.withLock { $0.subscriptions } }

    func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64) { counts.withLock { $0.subscriptions += 1 } }
    func willSend(_ node: Node, subscription: UInt64, kind: EventKind, value: Any?, causes: Causes) -> UInt64 {
        counts.withLock {
            $0.events += 1
            return UInt64($0.events)
        }
    }
    func didDispose(_ node: Node, subscription: UInt64) {}
    func hopEnqueued(_ node: Node?, subscription: UInt64, scheduler: String) -> UInt64 {
        counts.withLock {
            $0.hops += 1
            return UInt64($0.hops)
        }
    }
    func hopStarted(_ hop: UInt64) {}
    func mark(_ label: String) {}
}

final class ScopedRecordingTests: XCTestCase {
    /// A small pipeline on `scheduler`: `count` values (offset by `base`) sent 10 ms apart
    /// through map, filter and a delay on a lane, into a sink. Built on the calling thread;
    /// the values are sent by the scheduler's actions, whichever thread advances it.
    private static func pipeline(on scheduler: TestScheduler, base: Int, count: Int = 20) -> Disposable {
        // Unlabelled: a label would be set on the node every run of this line shares.
        let (values, input) = Signal<Int, Never>.pipe()
        let sink = values
            .map { $0 * 2 }
            .filter { $0 % 3 != 0 }
            .delay(0.005, on: scheduler.lane("worker"))
            .observeValues { _ in }
        for index in 0..<count {
            scheduler.schedule(atNanoseconds: Int64(index) * 10_000_000) { input.send(value: base + index) }
        }
        scheduler.schedule(atNanoseconds: Int64(count) * 10_000_000) { input.sendCompleted() }
        return AnyDisposable { sink?.dispose() }
    }

    /// The pipeline recorded alone, on this thread.
    private static func alone(base: Int) -> [UInt8] {
        let scheduler = TestScheduler()
        return Recorder.record(virtual: scheduler) {
            let running = Self.pipeline(on: scheduler, base: base)
            scheduler.advance(by: 1)
            running.dispose()
        }
    }

    /// Runs `body` on a new thread named `recording`; the semaphore is signalled when it ends.
    private static func onAnotherThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.name = "recording"
        thread.start()
        return done
    }

    /// The pipeline recorded alone, on a thread named `recording`.
    private static func aloneOnAThread(base: Int) -> [UInt8] {
        let result = Mutex<[UInt8]>([])
        onAnotherThread { result.withLock { $0 = alone(base: base) } }.wait()
        return result.withLock { $0 }
    }

    /// The traces each thread recorded, behind an `NSLock` (a pthread mutex, which the thread
    /// sanitizer sees; it does not see `Synchronization.Mutex`'s futex on Linux and reported
    /// the two threads' appends as a race).
    private final class Recorded: @unchecked Sendable {
        private let lock = NSLock()
        private var traces: [Int: [[UInt8]]] = [:]
        func append(_ bytes: [UInt8], base: Int) { lock.withLock { traces[base, default: []].append(bytes) } }
        var all: [Int: [[UInt8]]] { lock.withLock { traces } }
    }

    func testTwoRecordingsOnTwoThreadsAtOnceEachHoldExactlyTheirOwnEvents() throws {
        let expected = [Self.aloneOnAThread(base: 100), Self.aloneOnAThread(base: 500)]
        let results = Recorded()
        // Many rounds on each thread at once, so that the two recordings overlap often.
        let threads = [100, 500].map { base in
            Self.onAnotherThread {
                for _ in 0..<30 { results.append(Self.alone(base: base), base: base) }
            }
        }
        threads.forEach { $0.wait() }
        let recorded = results.all
        XCTAssertEqual(recorded[100]?.count, 30)
        XCTAssertEqual(recorded[500]?.count, 30)
        for bytes in recorded[100] ?? [] { XCTAssertEqual(bytes, expected[0]) }
        for bytes in recorded[500] ?? [] { XCTAssertEqual(bytes, expected[1]) }
        XCTAssertNil(Instrumentation.probe)
    }

    func testAVirtualRecordingFollowsItsTestSchedulerDrivenFromAnotherThread() throws {
        let expected = Self.alone(base: 100)
        let scheduler = TestScheduler()
        let recorder = Recorder(clock: .virtual(scheduler))
        recorder.start()
        let running = Self.pipeline(on: scheduler, base: 100)
        // Another thread drives the recording's clock while a third runs an unrecorded
        // pipeline of its own: the first is in the recording, the third is not.
        let noise = Self.onAnotherThread {
            for _ in 0..<20 {
                let other = TestScheduler()
                let disposable = Self.pipeline(on: other, base: 900)
                other.advance(by: 1)
                disposable.dispose()
            }
        }
        let drive = UncheckedBox(scheduler)
        Self.onAnotherThread { drive.value.advance(by: 1) }.wait()
        noise.wait()
        running.dispose()
        try recorder.stop()
        XCTAssertEqual(String(decoding: recorder.bytes, as: UTF8.self), String(decoding: expected, as: UTF8.self))
        XCTAssertEqual(scheduler.recordingScope, 0, "a stopped recording lets go of its scheduler")
    }

    func testARecorderAndATestProbeAttachedAtOnceEachHearEverything() throws {
        let expected = Self.alone(base: 100)
        let probe = CountingProbe()
        Instrumentation.attach(probe)
        defer { Instrumentation.detach(probe) }
        let bytes = Self.alone(base: 100)
        XCTAssertEqual(bytes, expected, "the recorder's events, causes included, are as when it is alone")
        let trace = try Trace(bytes: bytes)
        XCTAssertEqual(probe.events, trace.events.count)
        XCTAssertEqual(probe.subscriptions, trace.subscriptions.count)
        XCTAssertEqual(Instrumentation.attached.count, 1, "the stopped recorder is detached, the probe stays")
        XCTAssertTrue(Instrumentation.attached.first === probe)
    }

    func testTwoRecordersAttachedAtOnceKeepTheirOwnCauses() throws {
        // A real recorder and a virtual one on one thread: the virtual one claims the thread,
        // so the real one hears none of its events; each trace's causes are its own.
        let expected = Self.alone(base: 100)
        let live = Recorder(clock: .real)
        live.start()
        let bytes = Self.alone(base: 100)
        try live.stop()
        XCTAssertEqual(bytes, expected)
        XCTAssertEqual(try Trace(bytes: live.bytes).events.count, 0)
    }

    func testAThreadClaimedByARecordingStoppedElsewhereIsRecordedAgain() throws {
        let recorder = Recorder(clock: .virtual(TestScheduler()))
        recorder.start()
        let stopping = UncheckedBox(recorder)
        Self.onAnotherThread { _ = try? stopping.value.stop() }.wait()
        let live = Recorder(clock: .real)
        live.start()
        let (values, input) = Signal<Int, Never>.pipe()
        let sink = values.observeValues { _ in }
        input.send(value: 1)
        sink?.dispose()
        try live.stop()
        XCTAssertEqual(try Trace(bytes: live.bytes).events.map(\.text), ["1"])
    }

    func testAStoppedRecorderIsReleased() throws {
        weak var released: Recorder?
        try {
            let scheduler = TestScheduler()
            let recorder = Recorder(clock: .virtual(scheduler))
            released = recorder
            recorder.start()
            let running = Self.pipeline(on: scheduler, base: 1)
            scheduler.advance(by: 1)
            running.dispose()
            try recorder.stop()
        }()
        XCTAssertNil(released)
        XCTAssertNil(Instrumentation.probe)
    }
}

/// Hands a non-Sendable value to another thread in a test that waits for it.
final class UncheckedBox<Value>: @unchecked Sendable {  // used by one thread at a time
    let value: Value
    init(_ value: Value) { self.value = value }
}
