import Foundation
import Signals
import XCTest

/// The time-based operators' decisions, tested without any scheduler.
final class TimeStateMachineTests: XCTestCase {
    private func at(_ seconds: TimeInterval) -> Date { Date(timeIntervalSinceReferenceDate: seconds) }

    func testDebounceSendsOnlyTheLatestTimersValue() {
        var state = DebounceState<String>(interval: 1)
        let first = state.receive("a", now: at(0))
        let second = state.receive("b", now: at(0.5))
        XCTAssertEqual(first?.date, at(1))
        XCTAssertEqual(second?.date, at(1.5))
        guard case .none = state.fire(first!.token) else { return XCTFail("a superseded timer must send nothing") }
        guard case .send("b") = state.fire(second!.token) else { return XCTFail("the current timer sends b") }
        guard case .none = state.fire(second!.token) else { return XCTFail("a value is sent once") }
        XCTAssertFalse(state.hasPendingValue)
    }

    func testDebounceCompletionDiscardsOrWaits() {
        var discarding = DebounceState<String>(interval: 1)
        _ = discarding.receive("a", now: at(0))
        XCTAssertEqual(discarding.complete(), .completeNow)
        XCTAssertFalse(discarding.hasPendingValue)
        XCTAssertNil(discarding.receive("late", now: at(2)))

        var waiting = DebounceState<String>(interval: 1, discardWhenCompleted: false)
        let request = waiting.receive("a", now: at(0))!
        XCTAssertEqual(waiting.complete(), .awaitPendingValue)
        XCTAssertEqual(waiting.complete(), .none)
        guard case .sendThenComplete("a") = waiting.fire(request.token) else { return XCTFail("a, then completion") }
        XCTAssertFalse(waiting.terminate())
    }

    func testDebounceTerminationDropsThePendingValue() {
        var state = DebounceState<String>(interval: 1, discardWhenCompleted: false)
        let request = state.receive("a", now: at(0))!
        XCTAssertTrue(state.terminate())
        guard case .none = state.fire(request.token) else { return XCTFail("nothing after termination") }
        XCTAssertFalse(state.terminate())
        XCTAssertEqual(state.complete(), .none)
    }

    func testThrottleLeadsThenWaitsForTheIntervalEnd() {
        var state = ThrottleState<String>(interval: 1)
        let leading = state.receive("a", now: at(0))!
        XCTAssertEqual(leading.date, at(0))
        XCTAssertEqual(state.fire(leading), "a")
        let b = state.receive("b", now: at(0.2))!
        let c = state.receive("c", now: at(0.4))!
        XCTAssertEqual(b.date, at(1))
        XCTAssertEqual(c.date, at(1))
        XCTAssertNil(state.fire(b))
        XCTAssertEqual(state.fire(c), "c")
        // The next interval is measured from when c was due, not from a late run.
        XCTAssertEqual(state.receive("d", now: at(1.5))?.date, at(2))
        XCTAssertEqual(state.receive("e", now: at(5))?.date, at(5))
    }

    func testThrottleSendsAtOnceWhenTheClockWentBackwards() {
        var state = ThrottleState<String>(interval: 1)
        let a = state.receive("a", now: at(10))!
        XCTAssertEqual(state.fire(a), "a")
        XCTAssertEqual(state.receive("b", now: at(3))?.date, at(3))
    }

    func testThrottleTerminationDropsThePendingValue() {
        var state = ThrottleState<String>(interval: 1)
        _ = state.fire(state.receive("a", now: at(0))!)
        let b = state.receive("b", now: at(0.5))!
        XCTAssertTrue(state.hasPendingValue)
        XCTAssertTrue(state.terminate())
        XCTAssertNil(state.fire(b))
        XCTAssertNil(state.receive("c", now: at(3)))
        XCTAssertFalse(state.terminate())
    }

    func testDelayShiftsValuesAndCompletionButNotFailure() {
        var state = DelayState(interval: 2)
        XCTAssertEqual(state.receive(.value, now: at(1)), .at(at(3)))
        XCTAssertEqual(state.receive(.failed, now: at(1.5)), .now)
        XCTAssertEqual(state.receive(.value, now: at(2)), .drop)

        var completing = DelayState(interval: 2)
        XCTAssertEqual(completing.receive(.completed, now: at(1)), .at(at(3)))
        XCTAssertEqual(completing.receive(.interrupted, now: at(1)), .drop)
    }

    func testTimeoutIsARaceBetweenTerminationAndTheDeadline() {
        var ended = TimeoutState()
        XCTAssertTrue(ended.receive(isTerminating: false))
        XCTAssertTrue(ended.receive(isTerminating: true))
        XCTAssertEqual(ended.phase, .finished)
        XCTAssertFalse(ended.deadlinePassed())

        var late = TimeoutState()
        XCTAssertTrue(late.deadlinePassed())
        XCTAssertEqual(late.phase, .timedOut)
        XCTAssertFalse(late.receive(isTerminating: false))
        XCTAssertFalse(late.deadlinePassed())
    }

    func testTimerIgnoresTicksAfterStopping() {
        var state = TimerState()
        XCTAssertTrue(state.tick())
        XCTAssertTrue(state.tick())
        state.stop()
        XCTAssertFalse(state.tick())
        XCTAssertEqual(state.ticks, 2)
    }
}
