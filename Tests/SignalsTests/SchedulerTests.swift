import Foundation
import Signals
import XCTest

final class SchedulerTests: XCTestCase {
    func testSameInstantRunsInTheOrderScheduled() {
        let scheduler = TestScheduler()
        var order: [String] = []
        scheduler.schedule(after: 0.002) { order.append("b@2") }
        scheduler.schedule(after: 0.001) { order.append("a@1") }
        scheduler.schedule(after: 0.002) { order.append("c@2") }
        scheduler.schedule { order.append("now") }
        scheduler.run()
        XCTAssertEqual(order, ["now", "a@1", "b@2", "c@2"])
        XCTAssertEqual(scheduler.now, 2_000_000)
    }

    func testAdvanceRunsOnlyWhatFallsDue() {
        let scheduler = TestScheduler()
        var ran: [Int64] = []
        scheduler.schedule(after: 0.010) { ran.append(scheduler.now) }
        scheduler.schedule(after: 0.030) { ran.append(scheduler.now) }
        scheduler.advance(by: .milliseconds(20))
        XCTAssertEqual(ran, [10_000_000])
        XCTAssertEqual(scheduler.now, 20_000_000)
        scheduler.advance(to: Date(timeIntervalSinceReferenceDate: 0.030))
        XCTAssertEqual(ran, [10_000_000, 30_000_000])
    }

    func testActionScheduledForNowDuringAnAdvanceRunsInIt() {
        let scheduler = TestScheduler()
        var order: [String] = []
        scheduler.schedule(after: 0.001) {
            order.append("outer")
            scheduler.schedule { order.append("inner") }
        }
        scheduler.advance(by: 0.001)
        XCTAssertEqual(order, ["outer", "inner"])
    }

    func testCancelledActionDoesNotRun() {
        let scheduler = TestScheduler()
        var ran = false
        scheduler.schedule(after: 0.001) { ran = true }?.dispose()
        scheduler.run()
        XCTAssertFalse(ran)
    }

    func testRepeatingTimerStopsWhenDisposed() {
        let scheduler = TestScheduler()
        var ticks: [Int64] = []
        let timer = scheduler.schedule(after: scheduler.currentDate.addingTimeInterval(0.001),
                                       interval: .milliseconds(2)) { ticks.append(scheduler.now / 1_000_000) }
        scheduler.advance(by: 0.006)
        timer?.dispose()
        scheduler.run()
        XCTAssertEqual(ticks, [1, 3, 5])
    }

    func testLaneOfAReleasedSchedulerDoesNothing() {
        var scheduler: TestScheduler? = TestScheduler()
        let lane = scheduler!.lane("worker")
        scheduler = nil
        var ran = false
        XCTAssertNil(lane.schedule { ran = true })
        XCTAssertFalse(ran)
    }

    func testQueueSchedulerRunsInOrderOnItsQueue() {
        let scheduler = QueueScheduler(name: "worker")
        let done = expectation(description: "ran")
        var order: [Int] = []
        for i in 0..<5 { scheduler.schedule { order.append(i) } }
        scheduler.schedule { done.fulfill() }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(order, [0, 1, 2, 3, 4])
    }
}
