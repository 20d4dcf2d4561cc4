import Signals
import XCTest

final class ThrottleWhileTests: XCTestCase {
    func testValuesPassWhileResumedAndTheLatestIsHeldWhileThrottled() {
        let scheduler = TestScheduler()
        let throttling = MutableProperty(false)
        let (signal, input) = Signal<Int, Never>.pipe()
        var values: [Int] = []
        signal.throttle(while: throttling, on: scheduler).observeValues { values.append($0) }
        input.send(value: 1)
        scheduler.advance()
        throttling.value = true
        input.send(value: 2)
        input.send(value: 3)
        scheduler.advance()
        XCTAssertEqual(values, [1])
        throttling.value = false
        scheduler.advance()
        XCTAssertEqual(values, [1, 3])
        input.send(value: 4)
        scheduler.advance()
        XCTAssertEqual(values, [1, 3, 4])
    }

    func testResumingWithNothingHeldSendsNothing() {
        let scheduler = TestScheduler()
        let throttling = MutableProperty(true)
        var values: [Int] = []
        SignalProducer<Int, Never>.never.throttle(while: throttling, on: scheduler).startWithValues { values.append($0) }
        throttling.value = false
        scheduler.run()
        XCTAssertEqual(values, [])
    }

    func testTheTerminalEventGoesOnTheSchedulerAndEndsIt() {
        let scheduler = TestScheduler()
        let throttling = MutableProperty(true)
        let (signal, input) = Signal<Int, Never>.pipe()
        var events: [String] = []
        signal.throttle(while: throttling, on: scheduler).observe { events.append("\($0)") }
        input.send(value: 1)
        input.sendCompleted()
        XCTAssertEqual(events, [])
        throttling.value = false
        scheduler.run()
        XCTAssertEqual(events, ["COMPLETED"], "the held value is not sent after the end")
    }
}
