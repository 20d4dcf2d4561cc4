import Dispatch
import Foundation
@testable import Signals
import XCTest

/// Issue 29 (ReactiveSwift's semantics): a terminal event sent from one thread while another
/// thread is delivering ends the stream for every value still queued for the lock: nothing is
/// delivered after an interruption, whichever thread the lock goes to next. (Values from
/// ten threads raced the interruption for the lock and were delivered after it.)
final class TerminationRaceTests: XCTestCase {
    func testNoValueIsDeliveredAfterAnInterruptionSentWhileAnotherThreadDelivers() {
        for _ in 0..<20 {
            let (signal, input) = Signal<Int, Never>.pipe()
            let core = signal.core
            let firstStarted = DispatchSemaphore(value: 0)
            let lock = NSLock()
            var events: [String] = []
            var first = true
            signal.observe { event in
                lock.lock()
                let holding = first
                first = false
                lock.unlock()
                if holding {
                    firstStarted.signal()
                    // Hold the delivery until the interruption has been sent (its flag is set
                    // before it waits for the lock).
                    while !core.terminating.load(ordering: .acquiring) { sched_yield() }
                }
                lock.lock()
                events.append(event.isTerminating ? "interrupted" : "value")
                lock.unlock()
            }
            let senders = DispatchGroup()
            DispatchQueue.global().async(group: senders) { input.send(value: 0) }
            firstStarted.wait()
            for value in 1...9 {
                DispatchQueue.global().async(group: senders) { input.send(value: value) }
            }
            input.sendInterrupted()
            senders.wait()
            XCTAssertEqual(events, ["value", "interrupted"])
        }
    }

    func testValuesSentBeforeTheEndStillArrive() {
        let (signal, input) = Signal<Int, Never>.pipe()
        var values: [Int] = []
        signal.observeValues { values.append($0) }
        for value in 1...3 { input.send(value: value) }
        input.sendCompleted()
        input.send(value: 4)
        XCTAssertEqual(values, [1, 2, 3])
    }
}
