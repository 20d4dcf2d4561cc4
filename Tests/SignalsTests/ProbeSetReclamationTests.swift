@testable import Signals
import Foundation
import TestSupport
import XCTest

/// Issue 31 item 4, issue 33 item 6: every attachment and detachment makes a new probe set,
/// and every set used to be kept for the process, with the recorder core it held: memory grew
/// with every recording. A replaced set is now freed once no thread can still be reading it.
final class ProbeSetReclamationTests: XCTestCase {
    /// A probe held strongly by the sets, as a recorder's core is.
    private final class HeldProbe: Probe, @unchecked Sendable {
        func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64) {}
        func willSend(_ node: Node, subscription: UInt64, kind: EventKind, value: Any?, causes: Causes) -> UInt64 { 1 }
        func didDispose(_ node: Node, subscription: UInt64) {}
        func hopEnqueued(_ node: Node?, subscription: UInt64, scheduler: String) -> UInt64 { 0 }
        func hopStarted(_ hop: UInt64) {}
        func mark(_ label: String) {}
    }

    func testADetachedRetainedProbeIsFreedWhenNoThreadBorrowsItsSet() {
        weak var freed: HeldProbe?
        do {
            let probe = HeldProbe()
            freed = probe
            Instrumentation.attach(probe, retained: true)
            let (signal, input) = Signal<Int, Never>.pipe()
            signal.map { $0 + 1 }.observeValues { _ in }
            input.send(value: 1)
            Instrumentation.detach(probe)
        }
        XCTAssertNil(freed, "the set that held it was kept")
        XCTAssertEqual(Instrumentation.setsAwaitingReclamation, 0)
    }

    /// A set replaced while a thread is inside a borrow of it waits; the next change after the
    /// borrow ends frees it.
    func testASetBorrowedWhenReplacedIsFreedAtTheNextChangeAfterTheBorrow() {
        weak var freed: HeldProbe?
        let context = ProbeContext.current
        do {
            let probe = HeldProbe()
            freed = probe
            Instrumentation.attach(probe, retained: true)
            context.beginBorrow()
            Instrumentation.detach(probe)
        }
        XCTAssertNotNil(freed, "freed while borrowed")
        XCTAssertEqual(Instrumentation.setsAwaitingReclamation, 1)
        context.endBorrow()
        XCTAssertNotNil(freed, "nothing changed since")
        let other = HeldProbe()
        Instrumentation.attach(other, retained: true)
        Instrumentation.detach(other)
        XCTAssertNil(freed)
        XCTAssertEqual(Instrumentation.setsAwaitingReclamation, 0)
    }

    /// Threads sending all along while probes come and go (a server recording a window now and
    /// then): every probe detached is freed by the end. A stress test on outcomes
    /// (ThreadSanitizer checks the borrows).
    func testProbesAttachedAndDetachedWhileThreadsSendAreAllFreed() {
        let threads = SendingThreads(count: 4) { _ in
            let (signal, input) = Signal<Int, Never>.pipe()
            signal.map { $0 * 2 }.filter { $0 >= 0 }.observeValues { _ in }
            return { input.send(value: $0) }
        }
        var probes: [() -> HeldProbe?] = []
        for _ in 0..<2_000 {
            let probe = HeldProbe()
            probes.append { [weak probe] in probe }
            Instrumentation.attach(probe, retained: true)
            Instrumentation.detach(probe)
        }
        threads.stop()
        let last = HeldProbe()
        Instrumentation.attach(last, retained: true)
        Instrumentation.detach(last)
        XCTAssertEqual(probes.filter { $0() != nil }.count, 0)
        XCTAssertEqual(Instrumentation.setsAwaitingReclamation, 0)
    }
}
