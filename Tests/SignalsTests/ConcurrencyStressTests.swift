import Dispatch
import Foundation
import Locks
import MarbleStreams
import MarblesTesting
import Signals
import Synchronization
import XCTest

/// Real threads against the core's guarantees. Outcomes only: nothing here measures time.
final class ConcurrencyStressTests: XCTestCase {
    private final class Flags: @unchecked Sendable {
        let delivering = Synchronization.Atomic<Bool>(false)
        let overlapped = Synchronization.Atomic<Bool>(false)
        let terminated = Synchronization.Atomic<Bool>(false)
        let afterTerminal = Synchronization.Atomic<Int>(0)
        let terminals = Synchronization.Atomic<Int>(0)
        let values = Synchronization.Atomic<Int>(0)
        let disposeReturned = Synchronization.Atomic<Bool>(false)
        let afterDispose = Synchronization.Atomic<Int>(0)
    }

    private let threads = 8

    func testConcurrentSendersAreSerialisedPerObserver() {
        let flags = Flags()
        let (signal, input) = Signal<Int, Never>.pipe()
        let observer: (Event<Int, Never>) -> Void = { event in
            if flags.delivering.exchange(true, ordering: .acquiringAndReleasing) {
                flags.overlapped.store(true, ordering: .relaxed)
            }
            if event.value != nil { flags.values.add(1, ordering: .relaxed) }
            flags.delivering.store(false, ordering: .releasing)
        }
        signal.observe(observer)
        signal.map { $0 + 1 }.observe(observer)
        let perThread = 5_000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for value in 0..<perThread { input.send(value: thread * perThread + value) }
        }
        XCTAssertFalse(flags.overlapped.load(ordering: .relaxed))
        XCTAssertEqual(flags.values.load(ordering: .relaxed), 2 * threads * perThread)
    }

    func testNothingIsDeliveredAfterATerminalEventWhenThreadsRaceToTerminate() {
        for _ in 0..<200 {
            let flags = Flags()
            let (signal, input) = Signal<Int, MarbleError>.pipe()
            signal.map { $0 }.observe { event in
                if flags.terminated.load(ordering: .acquiring) { flags.afterTerminal.add(1, ordering: .relaxed) }
                if event.isTerminating {
                    flags.terminals.add(1, ordering: .relaxed)
                    flags.terminated.store(true, ordering: .releasing)
                }
            }
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                for value in 0..<50 { input.send(value: value) }
                switch thread % 3 {
                case 0: input.sendCompleted()
                case 1: input.send(error: MarbleError())
                default: input.sendInterrupted()
                }
                input.send(value: -1)
            }
            XCTAssertEqual(flags.terminals.load(ordering: .relaxed), 1)
            XCTAssertEqual(flags.afterTerminal.load(ordering: .relaxed), 0)
        }
    }

    func testNothingIsDeliveredAfterDisposeReturns() {
        for round in 0..<200 {
            let flags = Flags()
            let (signal, input) = Signal<Int, Never>.pipe()
            let observed = round % 2 == 0 ? signal : signal.map { $0 }
            let disposable = observed.observeValues { _ in
                if flags.disposeReturned.load(ordering: .acquiring) { flags.afterDispose.add(1, ordering: .relaxed) }
                flags.values.add(1, ordering: .relaxed)
            }
            let sending = Synchronization.Atomic<Bool>(true)
            DispatchQueue.concurrentPerform(iterations: 3) { thread in
                if thread == 0 {
                    while flags.values.load(ordering: .relaxed) < 10 {}
                    disposable?.dispose()
                    flags.disposeReturned.store(true, ordering: .releasing)
                    disposable?.dispose()
                    sending.store(false, ordering: .releasing)
                } else {
                    var value = 0
                    while sending.load(ordering: .acquiring) {
                        input.send(value: value)
                        value += 1
                    }
                }
            }
            XCTAssertEqual(flags.afterDispose.load(ordering: .relaxed), 0, "round \(round)")
        }
    }

    func testObserveOnAQueueSchedulerKeepsEachSendersOrder() {
        let scheduler = QueueScheduler(name: "stress")
        let (signal, input) = Signal<(Int, Int), Never>.pipe()
        let done = DispatchSemaphore(value: 0)
        var lastSeen = Array(repeating: -1, count: threads)
        var outOfOrder = 0
        var count = 0
        signal.observe(on: scheduler).observe { event in
            guard let (thread, sequence) = event.value else {
                done.signal()
                return
            }
            if sequence != lastSeen[thread] + 1 { outOfOrder += 1 }
            lastSeen[thread] = sequence
            count += 1
        }
        let perThread = 2_000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for sequence in 0..<perThread { input.send(value: (thread, sequence)) }
        }
        input.sendCompleted()
        done.wait()
        XCTAssertEqual(outOfOrder, 0)
        XCTAssertEqual(count, threads * perThread)
        XCTAssertEqual(lastSeen, Array(repeating: perThread - 1, count: threads))
    }

    func testTimeOperatorsOnAQueueSchedulerSurviveConcurrentSendersAndDisposal() {
        for _ in 0..<50 {
            let scheduler = QueueScheduler(name: "stress-time")
            let flags = Flags()
            let (signal, input) = Signal<Int, Never>.pipe()
            let disposable = signal
                .throttle(0.0001, on: scheduler)
                .debounce(0.0001, on: scheduler)
                .delay(0.0001, on: scheduler)
                .observe(on: scheduler)
                .observe { event in
                    if flags.disposeReturned.load(ordering: .acquiring) { flags.afterDispose.add(1, ordering: .relaxed) }
                    if flags.delivering.exchange(true, ordering: .acquiringAndReleasing) {
                        flags.overlapped.store(true, ordering: .relaxed)
                    }
                    flags.delivering.store(false, ordering: .releasing)
                }
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for value in 0..<200 { input.send(value: value) }
                if thread == 0 {
                    disposable?.dispose()
                    flags.disposeReturned.store(true, ordering: .releasing)
                }
            }
            scheduler.queue.sync {}
            XCTAssertFalse(flags.overlapped.load(ordering: .relaxed))
            XCTAssertEqual(flags.afterDispose.load(ordering: .relaxed), 0)
        }
    }

    /// Interrupting a start while another thread is inside one of its deliveries does not
    /// wait for that delivery: the interruption is left for the delivering thread, which sends
    /// it once its delivery ends. Waiting instead deadlocked generated pipelines (issue 27)
    /// where the delivering thread was itself waiting for a lock the interrupting thread held
    /// (one input of a `merge` ending it while another delivered into it); here it waits for
    /// the interrupting thread to go on.
    func testAnInterruptionDoesNotWaitForADeliveryOnAnotherThread() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let entered = DispatchSemaphore(value: 0), interrupted = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        let seen = Protected<[String]>([])
        let waitedOut = Synchronization.Atomic<Bool>(false)
        let disposable = SignalProducer(signal).map { $0 * 10 }.start { event in
            seen.modify { $0.append("\(event)") }
            if event.value == 10 {
                entered.signal()
                // Until the other thread's interruption has returned (a safety limit).
                if interrupted.wait(timeout: .now() + 10) == .timedOut { waitedOut.store(true, ordering: .relaxed) }
            }
            if event.isTerminating { ended.signal() }
        }
        DispatchQueue.global().async { input.send(value: 1) }
        entered.wait()
        disposable.dispose()
        interrupted.signal()
        XCTAssertEqual(ended.wait(timeout: .now() + 10), .success, "the interruption was never delivered")
        XCTAssertFalse(waitedOut.load(ordering: .relaxed), "the interruption waited for the delivery")
        XCTAssertEqual(seen.current, ["VALUE 10", "INTERRUPTED"])
    }
}
