import MarbleNotation
import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class RetryTests: XCTestCase {
    func testRetryRestartsUntilTheAttemptsAreExhausted() {
        var starts = 0
        expectMarbles("-a-a-a#") { s in
            s.cold("-a#").on(starting: { starts += 1 }).retry(upTo: 2)
        }
        XCTAssertEqual(starts, 3)
    }

    func testRetryStopsAtTheFirstSuccess() {
        expectMarbles("-a-b|") { s in
            var attempt = 0
            let lines = ["-a#", "-b|", "-c|"]
            return SignalProducer<String, MarbleError> { observer, lifetime in
                lifetime += s.cold(lines[attempt]).start(observer)
                attempt += 1
            }.retry(upTo: 5)
        }
    }

    func testRetryUpToZeroPassesTheFailure() {
        expectMarbles("-a#") { s in s.cold("-a#").retry(upTo: 0) }
    }

    func testRetryWithIntervalWaitsBeforeEachNewAttemptButNotBeforeTheLastFailure() {
        expectMarbles("-a----a#") { s in s.cold("-a#").retry(upTo: 1, interval: 0.003, on: s) }
    }

    func testSynchronousFailuresRetryInOrder() {
        var starts = 0
        var events: [String] = []
        SignalProducer<Int, MarbleError> { observer, _ in
            starts += 1
            observer.send(value: starts)
            observer.send(error: MarbleError())
        }.retry(upTo: 2).start { events.append("\($0)") }
        XCTAssertEqual(events, ["VALUE 1", "VALUE 2", "VALUE 3", "FAILED error"])
    }

    func testDisposingDuringTheWaitCancelsTheNextAttempt() {
        let scheduler = TestScheduler()
        let collector = Collector<String, MarbleError>(scheduler)
        var starts = 0
        let disposable = scheduler.cold("-a#").on(starting: { starts += 1 })
            .retry(upTo: 3, interval: 0.005, on: scheduler).start(collector.observer)
        scheduler.schedule(atNanoseconds: 4 * MarbleNotation.millisecond) { disposable.dispose() }
        scheduler.run()
        assertMarbles(collector.events, "-a--‖")
        XCTAssertEqual(starts, 1)
        XCTAssertTrue(scheduler.isEmpty)
    }

    func testEachAttemptIsAChildOfTheRetrySubscription() {
        let probe = TestProbe()
        probe.attached {
            SignalProducer<Int, MarbleError>(error: MarbleError()).named("flaky").retry(upTo: 2).start()
        }
        let retry = probe.subscriptions.filter { $0.node.name == "retry" }
        let attempts = probe.subscriptions.filter { $0.node.label == "flaky" }
        XCTAssertEqual(retry.count, 1)
        XCTAssertEqual(attempts.count, 3)
        XCTAssertEqual(Set(attempts.map(\.parent)), [retry[0].subscription])
        XCTAssertEqual(retry[0].node.parameters, "upTo: 2")
    }
}

/// RxJS's retry options: a notifier as the delay, and a count reset by a value.
final class RetryWhenTests: XCTestCase {
    func testTheNotifiersFirstValueStartsTheNextAttempt() {
        var retries: [Int] = []
        expectMarbles("-a---a---a#") { s in
            s.cold("-a#").retry(upTo: 2) { _, retry in
                retries.append(retry)
                return s.cold("--x-y|")
            }
        }
        XCTAssertEqual(retries, [1, 2], "the notifier gets the retry's number, from 1")
    }

    func testANotifierThatCompletesWithoutAValueCompletesTheResult() {
        expectMarbles("-a--|") { s in s.cold("-a#").retry(upTo: 2) { _, _ in s.cold("--|") } }
    }

    func testANotifierThatFailsFailsTheResult() {
        expectMarbles("-a--#") { s in s.cold("-a#").retry(upTo: 2) { _, _ in s.cold("--#") } }
    }

    func testResettingOnValueRestartsTheCount() {
        expectMarbles("-a-a-a-a-(a|)") { s in s.cold("-a#").retry(upTo: 1, resettingOnValue: true).take(first: 5) }
        expectMarbles("---#") { s in s.cold("-#").retry(upTo: 2, resettingOnValue: true) }
    }
}
