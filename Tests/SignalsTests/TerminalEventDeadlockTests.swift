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
        // The value 1 waits inside the merge's delivery (its serializer held) until the
        // trigger has ended the take(until:).
        let events = race(value: { aInput.send(value: 1) }, against: { triggerInput.send(value: ()) },
                          deadlock: "the ending waited for the merge, which waited for the take(until:)") { waitInside in
            SignalProducer.merge(SignalProducer(a), SignalProducer(b)).map(waitInside).take(until: trigger)
        }
        // The value reached the take(until:) after it had completed.
        XCTAssertEqual(events?.current, ["COMPLETED"])
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
        let events = race(value: { innerInput.send(value: 1) }, against: { triggerInput.send(value: ()) },
                          deadlock: "the interruption waited for the flatMap, which waited for the take(until:)",
                          before: { outerInput.send(value: 0) }) { waitInside in
            SignalProducer(outer).flatMap(.merge) { _ in SignalProducer(inner) }.map(waitInside).take(until: trigger)
        }
        XCTAssertEqual(events?.current, ["COMPLETED"])
        // The flatMap ended its inner stream once the other thread let go: nothing observes it.
        innerInput.send(value: 2)
        XCTAssertEqual(events?.current, ["COMPLETED"])
    }

    private struct Failure: Error {}

    /// A failable `withLatest(from:)` ending does not hold its lock while its end goes down:
    /// the end's teardown may wait for a lock that a thread delivering into the samplee holds
    /// (live seed 32000229: a `delay` sending under its state machine's lock while the source's
    /// end, going down through a `take(until:)`, waited for that lock).
    func testAFailableWithLatestEndsWithoutHoldingItsLockAgainstASampleeDelivery() {
        raceEnd(deadlock: "withLatest(from:)", end: { $0.sendCompleted() }) { source, samplee in
            source.withLatest(from: samplee).map { $0.0 }
        }
    }

    /// The same for `sampleLatest(on:)`: the source ends while a trigger value is delivered.
    func testSampleLatestEndsWithoutHoldingItsLockAgainstATriggerDelivery() {
        raceEnd(deadlock: "sampleLatest(on:)", end: { $0.sendCompleted() }) { source, trigger in
            source.sampleLatest(on: trigger)
        }
    }

    /// The same for `take(untilValueFrom:)`: the trigger's value ends it while the source
    /// delivers a value.
    func testTakeUntilValueEndsWithoutHoldingItsLockAgainstASourceDelivery() {
        raceEnd(deadlock: "take(untilValueFrom:)", end: { $0.send(value: 0) }) { trigger, source in
            source.take(untilValueFrom: trigger)
        }
    }

    /// Builds an operator of two inputs (`build`), observed by a sink whose end waits for a lock
    /// (an upstream's, as a `delay`'s machine lock); one thread takes that lock and, once the
    /// end is on its way down, delivers a value into the second input while holding it; another
    /// ends the operator through the first (`end`). The operator must not hold its own lock
    /// while its end goes down, else the two threads wait for each other.
    private func raceEnd(deadlock name: String, end: @escaping @Sendable (Signal<Int, Failure>.Observer) -> Void,
                         _ build: (Signal<Int, Failure>, Signal<Int, Failure>) -> Signal<Int, Failure>) {
        let (ender, enderInput) = Signal<Int, Failure>.pipe()
        let (other, otherInput) = Signal<Int, Failure>.pipe()
        let upstream = NSLock()
        let ending = DispatchSemaphore(value: 0), held = DispatchSemaphore(value: 0)
        let events = Protected<[String]>([])
        build(ender, other).observe { event in
            events.modify { $0.append("\(event)") }
            if event.isTerminating {
                ending.signal()
                upstream.lock()
                upstream.unlock()
            }
        }
        let done = DispatchGroup()
        done.enter()
        Thread {
            upstream.lock()
            held.signal()
            _ = ending.wait(timeout: .now() + 10)
            otherInput.send(value: 1)
            upstream.unlock()
            done.leave()
        }.start()
        done.enter()
        Thread {
            held.wait()
            end(enderInput)
            done.leave()
        }.start()
        guard done.wait(timeout: .now() + 30) == .success else {
            return XCTFail("deadlocked: \(name)'s end held its lock while waiting for the other input's upstream, "
                           + "which waited for that lock")
        }
        XCTAssertEqual(events.current, ["COMPLETED"], name)
    }

    /// Starts the producer `build` makes from a map step that holds the value 1 until told to
    /// go on, its completion disposing the start; runs `before`; then sends the value (`value`)
    /// on one thread and, once it waits inside, `trigger` on another. Returns the events the
    /// start saw, or nil (and a failure naming `deadlock`) when the threads did not end.
    private func race(value: @escaping @Sendable () -> Void, against trigger: @escaping @Sendable () -> Void,
                      deadlock: String, before: () -> Void = {},
                      _ build: (@escaping (Int) -> Int) -> SignalProducer<Int, Never>) -> Protected<[String]>? {
        let inside = DispatchSemaphore(value: 0), proceed = DispatchSemaphore(value: 0)
        let events = Protected<[String]>([])
        let producer = build { value in
            if value == 1 {
                inside.signal()
                _ = proceed.wait(timeout: .now() + 10)
            }
            return value
        }
        let start = SerialDisposable()
        start.inner = producer.start { event in
            events.modify { $0.append("\(event)") }
            if case .completed = event { start.dispose() }
        }
        before()
        let done = DispatchGroup()
        done.enter()
        Thread {
            value()
            done.leave()
        }.start()
        done.enter()
        Thread {
            inside.wait()
            trigger()
            proceed.signal()
            done.leave()
        }.start()
        guard done.wait(timeout: .now() + 30) == .success else {
            XCTFail("deadlocked: \(deadlock)")
            return nil
        }
        return events
    }
}
