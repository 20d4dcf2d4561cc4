import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class DebounceTests: XCTestCase {
    func testOnlyTheLastValueOfABurstPassesAfterTheQuietPeriod() {
        expectMarbles("-----b----c|") { $0.hot("a-b----c---|").debounce(0.003, on: $0) }
    }

    func testCompletionWhilePendingDropsTheValueByDefault() {
        expectMarbles("--|") { $0.hot("a-|").debounce(0.003, on: $0) }
    }

    func testCompletionWhilePendingWaitsForTheValueWhenNotDiscarding() {
        expectMarbles("---(a|)") { $0.hot("a-|").debounce(0.003, on: $0, discardWhenCompleted: false) }
    }

    func testCompletionWithNothingPendingIsImmediateWhenNotDiscarding() {
        expectMarbles("---a-|") { $0.hot("a----|").debounce(0.003, on: $0, discardWhenCompleted: false) }
    }

    func testFailureWhilePendingIsForwardedAtOnce() {
        expectMarbles("--#") { $0.hot("a-#").debounce(0.003, on: $0) }
    }

    func testInterruptionWhilePendingIsForwardedAtOnce() {
        expectMarbles("--‖") { $0.hot("a-‖").debounce(0.003, on: $0) }
    }

    func testAValueArrivingWhenTheTimerIsDueSupersedesIt() {
        // b's upstream action was scheduled before a's timer, so at frame 3 it runs first.
        expectMarbles("------b") { $0.hot("a--b").debounce(0.003, on: $0) }
    }

    func testProducerDebouncesEachStart() {
        expectMarbles("----(b|)") { $0.cold("ab--|").debounce(0.003, on: $0, discardWhenCompleted: false) }
    }

    func testInterruptingAProducerCancelsThePendingValue() {
        let scheduler = TestScheduler()
        let collector = Collector<String, MarbleError>(scheduler)
        let disposable = scheduler.cold("a----|").debounce(0.003, on: scheduler).start(collector.observer)
        scheduler.advance(by: 0.001)
        disposable.dispose()
        scheduler.run()
        assertMarbles(collector.events, "-‖")
        XCTAssertTrue(scheduler.isEmpty)
    }

    func testTerminalEventsArriveOnTheSchedulerNotAtOnce() {
        // ReactiveSwift's debounce sends completion on its scheduler, a pending value dropped.
        for discardWhenCompleted in [true, false] {
            let scheduler = TestScheduler()
            let (signal, input) = Signal<Int, Never>.pipe()
            var events: [String] = []
            signal.debounce(1, on: scheduler, discardWhenCompleted: discardWhenCompleted)
                .observe { events.append($0.value.map(String.init) ?? $0.kind.rawValue) }
            if discardWhenCompleted { input.send(value: 1) }
            input.sendCompleted()
            XCTAssertEqual(events, [])
            scheduler.advance()
            XCTAssertEqual(events, ["completed"])
            scheduler.run()
            XCTAssertEqual(events, ["completed"])
        }
    }

    func testInterruptingAProducerDeliversTheInterruptionOnTheScheduler() {
        let scheduler = TestScheduler()
        var events: [String] = []
        let disposable = SignalProducer<Int, Never>.never.debounce(1, on: scheduler)
            .start { events.append($0.kind.rawValue) }
        disposable.dispose()
        XCTAssertEqual(events, [])
        scheduler.advance()
        XCTAssertEqual(events, ["interrupted"])
    }

    func testRAC2ThrottleIsADebounce() {
        expectMarbles("-----b----c|") { $0.hot("a-b----c---|").throttle(quietPeriod: 0.003, on: $0) }
        let scheduler = TestScheduler()
        let (signal, _) = Signal<Int, Never>.pipe()
        let throttled = signal.throttle(quietPeriod: 0.5, on: scheduler)
        XCTAssertEqual(throttled.node.name, "throttle(quietPeriod:)")
        XCTAssertEqual(throttled.node.parameters, "0.5s, on: test")
        XCTAssertEqual(signal.debounce(0.5, on: scheduler, discardWhenCompleted: false).node.parameters,
                       "0.5s, on: test, discardWhenCompleted: false")
    }
}

final class ThrottleTests: XCTestCase {
    func testThrottleEmitsLatestAtTheEndOfEachInterval() {
        expectMarbles("a--c--d--e--f-|") { $0.hot("abc---d-e-f---|").throttle(0.003, on: $0) }
    }

    func testABusyInputYieldsOneValuePerInterval() {
        expectMarbles("a--d--g--j") { $0.hot("abcdefghij").throttle(0.003, on: $0) }
    }

    func testCompletionWhilePendingDropsTheValue() {
        expectMarbles("a-|") { $0.hot("ab|").throttle(0.003, on: $0) }
    }

    func testFailureWhilePendingIsForwardedAtOnce() {
        expectMarbles("a-#") { $0.hot("ab#").throttle(0.003, on: $0) }
    }

    func testInterruptionWhilePendingIsForwardedAtOnce() {
        expectMarbles("a-‖") { $0.hot("ab‖").throttle(0.003, on: $0) }
    }

    func testAValueArrivingWhenTheIntervalEndsIsTheOneSent() {
        expectMarbles("a--c") { $0.hot("ab-c").throttle(0.003, on: $0) }
    }

    func testProducerThrottlesEachStart() {
        expectMarbles("a--c|") { $0.cold("abc-|").throttle(0.003, on: $0) }
    }

    func testTerminalEventsArriveOnTheSchedulerNotAtOnce() {
        // ReactiveSwift's throttle sends completion on its scheduler, a waiting value dropped.
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, Never>.pipe()
        var events: [String] = []
        signal.throttle(1, on: scheduler).observe { events.append($0.value.map(String.init) ?? $0.kind.rawValue) }
        input.send(value: 0)
        scheduler.advance()
        input.send(value: 1)
        input.sendCompleted()
        XCTAssertEqual(events, ["0"])
        scheduler.advance()
        XCTAssertEqual(events, ["0", "completed"])
        scheduler.run()
        XCTAssertEqual(events, ["0", "completed"])
    }

    func testNodeCarriesIntervalAndScheduler() {
        let scheduler = TestScheduler(name: "clock")
        let (signal, _) = Signal<Int, Never>.pipe()
        let throttled = signal.throttle(0.25, on: scheduler)
        XCTAssertEqual(throttled.node.name, "throttle")
        XCTAssertEqual(throttled.node.parameters, "0.25s, on: clock")
    }
}
