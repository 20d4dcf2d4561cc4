import Foundation
import Locks
import Signals
import XCTest

/// A terminal event sent into a signal another thread is delivering through does not wait
/// for it: it is left for that thread (issue 27's live soak and a helper's full run each hung
/// once on seed 38: a `take(until:)` whose completion disposed the start, on one thread,
/// while an input's value went through the `merge` below it towards the `take(until:)`, on
/// another). Real threads, ordered by semaphores; a deadlock is reported after a bounded
/// wait rather than hanging the suite.
final class TerminalEventDeadlockTests: XCTestCase {
    func testAnEndingThatDisposesTheStartDoesNotWaitForADeliveryOnAnotherThread() {
        let (a, aInput) = Signal<Int, Never>.pipe()
        let (b, _) = Signal<Int, Never>.pipe()
        let (trigger, triggerInput) = Signal<Void, Never>.pipe()
        let inside = DispatchSemaphore(value: 0), proceed = DispatchSemaphore(value: 0)
        let events = Protected<[String]>([])
        // The value 1 waits inside the merge's delivery (its serializer held) until the
        // trigger has ended the take(until:).
        let producer = SignalProducer.merge(SignalProducer(a), SignalProducer(b))
            .map { value -> Int in
                if value == 1 {
                    inside.signal()
                    _ = proceed.wait(timeout: .now() + 10)
                }
                return value
            }
            .take(until: trigger)
        let start = SerialDisposable()
        // The completion is delivered under the take(until:)'s serializer, and disposes the
        // start there: the merge's inputs are interrupted into the merge the other thread holds.
        start.inner = producer.start { event in
            events.modify { $0.append("\(event)") }
            if case .completed = event { start.dispose() }
        }
        let done = DispatchGroup()
        done.enter()
        Thread {
            aInput.send(value: 1)
            done.leave()
        }.start()
        done.enter()
        Thread {
            inside.wait()
            triggerInput.send(value: ())
            proceed.signal()
            done.leave()
        }.start()
        guard done.wait(timeout: .now() + 30) == .success else {
            return XCTFail("deadlocked: the ending waited for the merge, which waited for the take(until:)")
        }
        // The value reached the take(until:) after it had completed.
        XCTAssertEqual(events.current, ["COMPLETED"])
    }

    /// The same with a `flatMap` in place of the merge (issue 27's live soak, seed 25 with an
    /// `Action` applied by a `flatMap`): the inner stream's value waits inside the flatMap's
    /// delivery (its operator lock held) while the take(until:)'s completion disposes the
    /// start, interrupting the flatMap's outer stream. The interruption is left to the thread
    /// holding the lock instead of waiting for it.
    func testAnEndingThatInterruptsAFlatMapDoesNotWaitForItsInnerDeliveryOnAnotherThread() {
        let (outer, outerInput) = Signal<Int, Never>.pipe()
        let (inner, innerInput) = Signal<Int, Never>.pipe()
        let (trigger, triggerInput) = Signal<Void, Never>.pipe()
        let inside = DispatchSemaphore(value: 0), proceed = DispatchSemaphore(value: 0)
        let events = Protected<[String]>([])
        let producer = SignalProducer(outer)
            .flatMap(.merge) { _ in SignalProducer(inner) }
            .map { value -> Int in
                if value == 1 {
                    inside.signal()
                    _ = proceed.wait(timeout: .now() + 10)
                }
                return value
            }
            .take(until: trigger)
        let start = SerialDisposable()
        start.inner = producer.start { event in
            events.modify { $0.append("\(event)") }
            if case .completed = event { start.dispose() }
        }
        outerInput.send(value: 0)
        let done = DispatchGroup()
        done.enter()
        Thread {
            innerInput.send(value: 1)
            done.leave()
        }.start()
        done.enter()
        Thread {
            inside.wait()
            triggerInput.send(value: ())
            proceed.signal()
            done.leave()
        }.start()
        guard done.wait(timeout: .now() + 30) == .success else {
            return XCTFail("deadlocked: the interruption waited for the flatMap, which waited for the take(until:)")
        }
        XCTAssertEqual(events.current, ["COMPLETED"])
        // The flatMap ended its inner stream once the other thread let go: nothing observes it.
        innerInput.send(value: 2)
        XCTAssertEqual(events.current, ["COMPLETED"])
    }
}
