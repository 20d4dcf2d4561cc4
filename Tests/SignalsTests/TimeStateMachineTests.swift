import Foundation
import Signals
import XCTest

/// The time-based operators' decisions, tested as pure transitions without any scheduler:
/// each step feeds one input to a state and checks the action returned and the state left.
final class TimeStateMachineTests: XCTestCase {
    private func at(_ seconds: TimeInterval) -> Date { Date(timeIntervalSinceReferenceDate: seconds) }

    private func request(_ seconds: TimeInterval, _ token: UInt64) -> TimerRequest {
        TimerRequest(date: at(seconds), token: token)
    }

    // MARK: debounce

    func testDebounceSendsOnlyTheLatestTimersValue() {
        var machine = DebounceStateMachine<String>(interval: 1)
        XCTAssertEqual(machine.state, .idle)
        XCTAssertEqual(machine.receive("a", now: at(0)), .schedule(request(1, 1)))
        XCTAssertEqual(machine.state, .waiting("a", token: 1))
        XCTAssertEqual(machine.receive("b", now: at(0.5)), .schedule(request(1.5, 2)))
        XCTAssertEqual(machine.state, .waiting("b", token: 2))
        XCTAssertFalse(machine.isCurrent(request(1, 1)), "superseded: a recording writes it as never run")
        XCTAssertTrue(machine.isCurrent(request(1.5, 2)))
        XCTAssertEqual(machine.fire(request(1, 1), now: at(1)), .none, "a superseded timer sends nothing")
        XCTAssertEqual(machine.state, .waiting("b", token: 2))
        XCTAssertEqual(machine.fire(request(1.5, 2), now: at(1.5)), .emit("b"))
        XCTAssertEqual(machine.state, .idle)
        XCTAssertEqual(machine.fire(request(1.5, 2), now: at(1.5)), .none, "a value is sent once")
    }

    func testDebounceTokensNeverRepeatAfterAValueIsSent() {
        var machine = DebounceStateMachine<String>(interval: 1)
        _ = machine.receive("a", now: at(0))
        _ = machine.fire(request(1, 1), now: at(1))
        XCTAssertEqual(machine.receive("b", now: at(2)), .schedule(request(3, 2)))
        XCTAssertEqual(machine.fire(request(1, 1), now: at(2.5)), .none, "the first timer, late, is stale")
        XCTAssertEqual(machine.state, .waiting("b", token: 2))
    }

    func testDebounceCompletionWhileAValueIsPendingFollowsThePolicy() {
        var discarding = DebounceStateMachine<String>(interval: 1, completion: .discardPending)
        _ = discarding.receive("a", now: at(0))
        XCTAssertEqual(discarding.complete(), .complete(emittingFirst: nil))
        XCTAssertEqual(discarding.state, .finished)
        XCTAssertEqual(discarding.fire(request(1, 1), now: at(1)), .none)

        var waiting = DebounceStateMachine<String>(interval: 1, completion: .sendPendingWhenDue)
        _ = waiting.receive("a", now: at(0))
        XCTAssertEqual(waiting.complete(), .none, "completion waits for the pending value")
        XCTAssertEqual(waiting.state, .completing("a", token: 1))
        XCTAssertEqual(waiting.receive("late", now: at(0.5)), .none)
        XCTAssertEqual(waiting.complete(), .none)
        XCTAssertEqual(waiting.fire(request(1, 1), now: at(1)), .complete(emittingFirst: "a"))
        XCTAssertEqual(waiting.state, .finished)
        XCTAssertEqual(waiting.terminate(), .none)

        var flushing = DebounceStateMachine<String>(interval: 1, completion: .sendPendingAtOnce)
        _ = flushing.receive("a", now: at(0))
        _ = flushing.receive("b", now: at(0.5))
        XCTAssertEqual(flushing.complete(), .complete(emittingFirst: "b"))
        XCTAssertEqual(flushing.state, .finished)
        XCTAssertEqual(flushing.fire(request(1.5, 2), now: at(1.5)), .none, "the flushed value is not sent again")
    }

    func testDebounceCompletionWithNothingPendingCompletesAtOnceWhateverThePolicy() {
        for policy in [DebounceStateMachine<String>.CompletionPolicy.discardPending, .sendPendingWhenDue, .sendPendingAtOnce] {
            var machine = DebounceStateMachine<String>(interval: 1, completion: policy)
            XCTAssertEqual(machine.complete(), .complete(emittingFirst: nil), "\(policy)")
            XCTAssertEqual(machine.state, .finished)
            XCTAssertEqual(machine.complete(), .none)
        }
    }

    func testDebounceTerminationDropsThePendingValueEvenWhileCompleting() {
        var machine = DebounceStateMachine<String>(interval: 1, completion: .sendPendingWhenDue)
        _ = machine.receive("a", now: at(0))
        _ = machine.complete()
        XCTAssertEqual(machine.terminate(), .forwardTermination)
        XCTAssertEqual(machine.state, .finished)
        XCTAssertEqual(machine.fire(request(1, 1), now: at(1)), .none, "a timer on its way sends nothing")
        XCTAssertEqual(machine.terminate(), .none)
    }

    func testDebounceValueSentBackDuringItsEmissionStartsANewWait() {
        // The operator performs `.emit` after the transition has left the state idle; a value
        // sent back by an observer during that emission is a transition from idle.
        var machine = DebounceStateMachine<String>(interval: 1)
        _ = machine.receive("a", now: at(0))
        XCTAssertEqual(machine.fire(request(1, 1), now: at(1)), .emit("a"))
        XCTAssertEqual(machine.receive("b", now: at(1)), .schedule(request(2, 2)))
        XCTAssertEqual(machine.state, .waiting("b", token: 2))
    }

    // MARK: throttle

    func testThrottleLeadsThenWaitsForTheIntervalEnd() {
        var machine = ThrottleStateMachine<String>(interval: 1)
        XCTAssertEqual(machine.receive("a", now: at(0)), .schedule(request(0, 1)))
        XCTAssertEqual(machine.fire(request(0, 1), now: at(0)), .emit("a"))
        XCTAssertEqual(machine.state, .idle(lastSent: at(0)))
        XCTAssertEqual(machine.receive("b", now: at(0.2)), .schedule(request(1, 2)))
        XCTAssertEqual(machine.receive("c", now: at(0.4)), .schedule(request(1, 3)))
        XCTAssertEqual(machine.state, .waiting("c", token: 3, lastSent: at(0)))
        XCTAssertFalse(machine.isCurrent(request(1, 2)))
        XCTAssertTrue(machine.isCurrent(request(1, 3)))
        XCTAssertEqual(machine.fire(request(1, 2), now: at(1)), .none)
        XCTAssertEqual(machine.fire(request(1, 3), now: at(1)), .emit("c"))
        // The next interval is measured from when c was due, not from a late run.
        XCTAssertEqual(machine.receive("d", now: at(1.5)), .schedule(request(2, 4)))
        XCTAssertEqual(machine.fire(request(2, 4), now: at(2.7)), .emit("d"))
        XCTAssertEqual(machine.state, .idle(lastSent: at(2)))
        XCTAssertEqual(machine.receive("e", now: at(5)), .schedule(request(5, 5)))
    }

    func testThrottleSendsAtOnceWhenTheClockWentBackwards() {
        var machine = ThrottleStateMachine<String>(interval: 1)
        _ = machine.receive("a", now: at(10))
        XCTAssertEqual(machine.fire(request(10, 1), now: at(10)), .emit("a"))
        XCTAssertEqual(machine.receive("b", now: at(3)), .schedule(request(3, 2)))
    }

    func testThrottleCompletionAndTerminationDropThePendingValue() {
        var completing = ThrottleStateMachine<String>(interval: 1)
        _ = completing.fire(request(0, 1), now: at(0)) // stale: nothing armed yet
        _ = completing.receive("a", now: at(0))
        XCTAssertEqual(completing.complete(), .complete(emittingFirst: nil))
        XCTAssertEqual(completing.state, .finished)
        XCTAssertEqual(completing.fire(request(0, 1), now: at(0)), .none)
        XCTAssertEqual(completing.receive("b", now: at(3)), .none)

        var failing = ThrottleStateMachine<String>(interval: 1)
        _ = failing.receive("a", now: at(0))
        XCTAssertEqual(failing.terminate(), .forwardTermination)
        XCTAssertEqual(failing.terminate(), .none)
        XCTAssertEqual(failing.complete(), .none)
    }

    // MARK: throttle(_:leading:trailing:on:)

    func testThrottleEdgesLeadingSendsAndOpensAWindow() {
        var machine = ThrottleEdgesStateMachine<String>(interval: 1, leading: true, trailing: false)
        XCTAssertEqual(machine.receive("a", now: at(0)), .scheduleThenEmit(request(1, 1), "a"))
        XCTAssertEqual(machine.state, .open(token: 1, trailing: nil))
        XCTAssertEqual(machine.receive("b", now: at(0.5)), .none)
        XCTAssertEqual(machine.state, .open(token: 1, trailing: nil), "without trailing, nothing is kept")
        XCTAssertEqual(machine.fire(request(1, 1), now: at(1)), .none)
        XCTAssertEqual(machine.state, .idle)
        XCTAssertEqual(machine.complete(), .complete(emittingFirst: nil))
    }

    func testThrottleEdgesTrailingSendsTheLastValueAndOpensTheNextWindow() {
        var machine = ThrottleEdgesStateMachine<String>(interval: 1, leading: false, trailing: true)
        XCTAssertEqual(machine.receive("a", now: at(0)), .schedule(request(1, 1)))
        XCTAssertEqual(machine.receive("b", now: at(0.5)), .none)
        XCTAssertEqual(machine.state, .open(token: 1, trailing: "b"))
        XCTAssertEqual(machine.fire(request(1, 1), now: at(1)), .scheduleThenEmit(request(2, 2), "b"))
        XCTAssertEqual(machine.state, .open(token: 2, trailing: nil))
        XCTAssertFalse(machine.isCurrent(request(1, 1)))
        XCTAssertTrue(machine.isCurrent(request(2, 2)), "an empty window's timer still closes it: it ran")
        XCTAssertEqual(machine.fire(request(2, 2), now: at(2)), .none, "an empty window closes quietly")
        XCTAssertEqual(machine.state, .idle)
    }

    func testThrottleEdgesCompletionWaitsForATrailingValue() {
        var machine = ThrottleEdgesStateMachine<String>(interval: 1, leading: true, trailing: true)
        _ = machine.receive("a", now: at(0))
        _ = machine.receive("b", now: at(0.5))
        XCTAssertEqual(machine.complete(), .none)
        XCTAssertEqual(machine.state, .completing(token: 1, trailing: "b"))
        XCTAssertEqual(machine.fire(request(0.5, 0), now: at(0.5)), .none, "a stale window")
        XCTAssertEqual(machine.fire(request(1, 1), now: at(1)), .complete(emittingFirst: "b"))
        XCTAssertEqual(machine.state, .finished)

        var empty = ThrottleEdgesStateMachine<String>(interval: 1, leading: true, trailing: true)
        _ = empty.receive("a", now: at(0))
        XCTAssertEqual(empty.complete(), .complete(emittingFirst: nil), "an open window with nothing to send")
    }

    func testThrottleEdgesTerminationWhileCompletingDropsTheTrailingValue() {
        var machine = ThrottleEdgesStateMachine<String>(interval: 1, leading: false, trailing: true)
        _ = machine.receive("a", now: at(0))
        _ = machine.complete()
        XCTAssertEqual(machine.terminate(), .forwardTermination)
        XCTAssertEqual(machine.fire(request(1, 1), now: at(1)), .none)
    }

    // MARK: audit

    func testAuditArmsOneTimerPerWindowAndSendsTheLatest() {
        var machine = AuditStateMachine<Int>(interval: 1)
        XCTAssertEqual(machine.receive(1, now: at(0)), .schedule(request(1, 1)))
        XCTAssertEqual(machine.receive(2, now: at(0.5)), .none)
        XCTAssertEqual(machine.state, .armed(latest: 2, token: 1))
        XCTAssertTrue(machine.isCurrent(request(1, 1)), "a value in the window keeps its timer")
        XCTAssertEqual(machine.fire(request(1, 1), now: at(1)), .emit(2))
        XCTAssertEqual(machine.state, .idle)
        XCTAssertEqual(machine.fire(request(1, 1), now: at(1)), .none, "a timer fires once")
        XCTAssertEqual(machine.receive(3, now: at(2)), .schedule(request(3, 2)))
        XCTAssertFalse(machine.isCurrent(request(1, 1)))
    }

    func testAuditCompletionWaitsForTheArmedTimer() {
        var machine = AuditStateMachine<Int>(interval: 1)
        _ = machine.receive(1, now: at(0))
        XCTAssertEqual(machine.complete(), .none)
        XCTAssertEqual(machine.state, .completing(latest: 1, token: 1))
        XCTAssertEqual(machine.fire(request(1, 1), now: at(1)), .complete(emittingFirst: 1))
        XCTAssertEqual(machine.state, .finished)

        var idle = AuditStateMachine<Int>(interval: 1)
        XCTAssertEqual(idle.complete(), .complete(emittingFirst: nil))
        XCTAssertEqual(idle.terminate(), .none)
    }

    func testAuditFailureDropsTheLatestValue() {
        var machine = AuditStateMachine<Int>(interval: 1)
        _ = machine.receive(1, now: at(0))
        XCTAssertEqual(machine.terminate(), .forwardTermination)
        XCTAssertEqual(machine.fire(request(1, 1), now: at(1)), .none)
        XCTAssertEqual(machine.receive(2, now: at(2)), .none)
    }

    // MARK: delay

    func testDelayShiftsValuesAndCompletionButNotFailure() {
        var machine = DelayStateMachine(interval: 2)
        XCTAssertEqual(machine.receive(.value, now: at(1)), .deliver(at: at(3)))
        XCTAssertEqual(machine.state, .forwarding)
        XCTAssertEqual(machine.receive(.failed, now: at(1.5)), .deliverNow)
        XCTAssertEqual(machine.state, .finished)
        XCTAssertEqual(machine.receive(.value, now: at(2)), .drop)

        var completing = DelayStateMachine(interval: 2)
        XCTAssertEqual(completing.receive(.completed, now: at(1)), .deliver(at: at(3)))
        XCTAssertEqual(completing.receive(.interrupted, now: at(1)), .drop)
    }

    func testDelayValuesHoldsCompletionUntilTheValuesOnTheirWayAreSent() {
        var machine = DelayStateMachine(interval: 2, completion: .afterDelayedValues)
        XCTAssertEqual(machine.receive(.value, now: at(1)), .deliver(at: at(3)))
        XCTAssertEqual(machine.receive(.value, now: at(2)), .deliver(at: at(4)))
        XCTAssertEqual(machine.receive(.completed, now: at(2.5)), .holdUntilValuesDelivered)
        XCTAssertEqual(machine.state, .finished)
        XCTAssertFalse(machine.valueDelivered(), "one value is still on its way")
        XCTAssertTrue(machine.valueDelivered(), "the last value sent: complete now")
        XCTAssertFalse(machine.valueDelivered())

        var empty = DelayStateMachine(interval: 2, completion: .afterDelayedValues)
        XCTAssertEqual(empty.receive(.completed, now: at(1)), .deliverNow)

        var failing = DelayStateMachine(interval: 2, completion: .afterDelayedValues)
        _ = failing.receive(.value, now: at(1))
        XCTAssertEqual(failing.receive(.failed, now: at(1.5)), .deliverNow)
        XCTAssertFalse(failing.valueDelivered())
    }

    // MARK: timeout

    func testTimeoutIsARaceBetweenTerminationAndTheDeadline() {
        var ended = TimeoutStateMachine(interval: 2)
        XCTAssertEqual(ended.start(now: at(1)), .schedule(request(3, 0)))
        XCTAssertEqual(ended.receive(isTerminating: false, now: at(1.5)), .forward)
        XCTAssertEqual(ended.state, .running)
        XCTAssertEqual(ended.receive(isTerminating: true, now: at(2)), .cancelDeadlineThenForward)
        XCTAssertEqual(ended.state, .finished)
        XCTAssertEqual(ended.deadlinePassed(request(3, 0)), .none, "a deadline on its way lost the race")

        var late = TimeoutStateMachine(interval: 2)
        _ = late.start(now: at(0))
        XCTAssertEqual(late.deadlinePassed(request(2, 0)), .timeOut)
        XCTAssertEqual(late.state, .timedOut)
        XCTAssertEqual(late.receive(isTerminating: false, now: at(2)), .none)
        XCTAssertEqual(late.receive(isTerminating: true, now: at(2)), .none)
        XCTAssertEqual(late.deadlinePassed(request(2, 0)), .none)
    }

    func testTimeoutEachValueReschedulesTheDeadline() {
        var machine = TimeoutEachStateMachine(interval: 1)
        XCTAssertEqual(machine.start(now: at(0)), .schedule(request(1, 1)))
        XCTAssertEqual(machine.state, .running(token: 1))
        XCTAssertEqual(machine.receive(isTerminating: false, now: at(0.5)), .rescheduleThenForward(request(1.5, 2)))
        XCTAssertEqual(machine.deadlinePassed(request(1, 1)), .none, "the deadline was re-armed by the value")
        XCTAssertEqual(machine.deadlinePassed(request(1.5, 2)), .timeOut)
        XCTAssertEqual(machine.state, .finished)
        XCTAssertEqual(machine.receive(isTerminating: true, now: at(2)), .none)
    }

    func testTimeoutFirstArmsOnlyTheFirstDeadlineWithoutEach() {
        var machine = TimeoutEachStateMachine(first: 2, each: nil)
        XCTAssertEqual(machine.start(now: at(0)), .schedule(request(2, 1)))
        XCTAssertEqual(machine.receive(isTerminating: false, now: at(1)), .cancelDeadlineThenForward)
        XCTAssertEqual(machine.deadlinePassed(request(2, 1)), .none, "the first value came in time; no deadline after it")
        XCTAssertEqual(machine.receive(isTerminating: false, now: at(9)), .cancelDeadlineThenForward)

        var both = TimeoutEachStateMachine(first: 3, each: 1)
        XCTAssertEqual(both.start(now: at(0)), .schedule(request(3, 1)))
        XCTAssertEqual(both.receive(isTerminating: false, now: at(2)), .rescheduleThenForward(request(3, 2)))
    }

    func testTimeoutEachTerminationEndsTheRace() {
        var machine = TimeoutEachStateMachine(interval: 1)
        _ = machine.start(now: at(0))
        XCTAssertEqual(machine.receive(isTerminating: true, now: at(0.5)), .cancelDeadlineThenForward)
        XCTAssertEqual(machine.deadlinePassed(request(1, 1)), .none)
        XCTAssertEqual(machine.start(now: at(1)), .none)
    }

    // MARK: timer

    func testTimerIgnoresATickOnItsWayAfterDisposal() {
        var machine = TimerStateMachine()
        XCTAssertEqual(machine.tick(), .emitTick)
        XCTAssertEqual(machine.tick(), .emitTick)
        XCTAssertEqual(machine.state, .running(ticks: 2))
        XCTAssertEqual(machine.stop(), .cancelTimer)
        XCTAssertEqual(machine.state, .stopped(ticks: 2))
        XCTAssertEqual(machine.tick(), .none, "disposed during a scheduled tick: nothing is sent")
        XCTAssertEqual(machine.stop(), .none)
        XCTAssertEqual(machine.state, .stopped(ticks: 2))
    }

    // MARK: sample and sampleLatest (sampleTime samples on a timer)

    func testSampleSendsTheLatestValueAtEachSamplerValue() {
        var machine = SampleStateMachine<String>()
        XCTAssertEqual(machine.sample(), .none, "nothing before the source's first value")
        machine.receive("a")
        XCTAssertEqual(machine.state, .sampling(latest: "a"))
        XCTAssertEqual(machine.sample(), .emit("a"))
        XCTAssertEqual(machine.sample(), .emit("a"), "a value may be sampled many times")
        machine.receive("b")
        XCTAssertEqual(machine.sample(), .emit("b"))
    }

    func testSampleCompletesWhenBothHaveCompleted() {
        var sourceFirst = SampleStateMachine<String>()
        sourceFirst.receive("a")
        XCTAssertEqual(sourceFirst.sourceCompleted(), .none)
        XCTAssertEqual(sourceFirst.state, .sourceCompleted(latest: "a"))
        XCTAssertEqual(sourceFirst.sample(), .emit("a"), "the last value is still sampled")
        XCTAssertEqual(sourceFirst.samplerCompleted(), .complete)
        XCTAssertEqual(sourceFirst.state, .finished)

        var samplerFirst = SampleStateMachine<String>()
        samplerFirst.receive("a")
        XCTAssertEqual(samplerFirst.samplerCompleted(), .none)
        XCTAssertEqual(samplerFirst.state, .samplerCompleted, "the latest value is no longer kept")
        samplerFirst.receive("b")
        XCTAssertEqual(samplerFirst.state, .samplerCompleted)
        XCTAssertEqual(samplerFirst.sourceCompleted(), .complete)
        XCTAssertEqual(samplerFirst.terminate(), .none)
    }

    func testSampleTerminationEndsTheResultOnce() {
        var machine = SampleStateMachine<String>()
        machine.receive("a")
        _ = machine.sourceCompleted()
        XCTAssertEqual(machine.terminate(), .forwardTermination, "the sampler interrupted while the source had completed")
        XCTAssertEqual(machine.sample(), .none)
        XCTAssertEqual(machine.samplerCompleted(), .none)
    }

    func testSampleLatestSendsEachValueAtMostOnce() {
        var machine = SampleLatestStateMachine<String>()
        XCTAssertEqual(machine.trigger(), .none)
        machine.receive("a")
        machine.receive("b")
        XCTAssertEqual(machine.state, .holding("b"))
        XCTAssertEqual(machine.trigger(), .emit("b"))
        XCTAssertEqual(machine.state, .empty)
        XCTAssertEqual(machine.trigger(), .none, "b was already sampled")
        machine.receive("c")
        XCTAssertEqual(machine.terminate(), .forwardTermination, "the source ends the result, dropping c")
        XCTAssertEqual(machine.trigger(), .none)
        machine.receive("d")
        XCTAssertEqual(machine.state, .finished)
        XCTAssertEqual(machine.terminate(), .none, "a trigger failing after the end changes nothing")
    }

    // MARK: the effects around the machines

    func testDebounceAcceptsAValueSentBackByItsObserverDuringAnEmission() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<String, Never>.pipe()
        var received: [String] = []
        signal.debounce(1, on: scheduler).observeValues { value in
            received.append(value)
            if value == "a" { input.send(value: "b") }
        }
        input.send(value: "a")
        scheduler.advance(by: 1)
        XCTAssertEqual(received, ["a"], "b waits for its own quiet period")
        scheduler.advance(by: 1)
        XCTAssertEqual(received, ["a", "b"])
        XCTAssertTrue(scheduler.isEmpty)
    }

    func testThrottleEdgesCompletionSentDuringATrailingEmissionEndsTheStream() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<String, Never>.pipe()
        var events: [String] = []
        signal.throttle(1, leading: false, trailing: true, on: scheduler).observe { event in
            switch event {
            case let .value(value):
                events.append(value)
                input.sendCompleted()
            case .completed: events.append("|")
            case .failed, .interrupted: events.append("!")
            }
        }
        input.send(value: "a")
        scheduler.run()
        XCTAssertEqual(events, ["a", "|"], "the window opened by a is cancelled by the completion")
        XCTAssertTrue(scheduler.isEmpty)
    }

    func testDisposalDuringAScheduledEmissionSendsNothingMore() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<String, Never>.pipe()
        var received: [String] = []
        var disposable: Disposable?
        disposable = signal.audit(1, on: scheduler).observeValues { value in
            received.append(value)
            disposable?.dispose()
        }
        input.send(value: "a")
        scheduler.advance(by: 1)
        input.send(value: "b")
        scheduler.run()
        XCTAssertEqual(received, ["a"])
        XCTAssertTrue(scheduler.isEmpty)
    }
}
