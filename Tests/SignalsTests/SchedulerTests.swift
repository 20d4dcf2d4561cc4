import Foundation
import Signals
import XCTest
import TestSupport

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

    /// Actions scheduled in time order and out of it, some cancelled, some scheduling more as
    /// they run, run in (due time, order scheduled) order, each in the advance it falls due in.
    func testMixedSchedulesRunInDueThenScheduledOrder() {
        let scheduler = TestScheduler()
        var generator = SplitMix(seed: 14)
        var expected: [(due: Int64, order: Int)] = []
        var ran: [Int] = []
        var order = 0
        func schedule(at due: Int64, spawning: Bool) {
            order += 1
            let mine = order
            let disposable = scheduler.schedule(atNanoseconds: due) {
                ran.append(mine)
                if spawning {
                    // Later, now, or (clamped to now) in the past.
                    schedule(at: scheduler.now + Int64(generator.next() % 40) - 10, spawning: false)
                }
            }
            if generator.next() % 7 == 0 {
                disposable?.dispose()
                XCTAssertEqual(disposable?.isDisposed, true)
            } else {
                expected.append((max(due, scheduler.now), mine))
            }
        }
        var time: Int64 = 0
        for index in 0..<2_000 {
            // Mostly ascending, as a replay's inputs; every fifth out of order.
            time += Int64(generator.next() % 5)
            schedule(at: index % 5 == 0 ? Int64(generator.next() % 3_000) : time, spawning: index % 3 == 0)
        }
        scheduler.advance(toNanoseconds: 1_500)
        XCTAssertEqual(Set(ran).count, ran.count)
        XCTAssertTrue(ran.allSatisfy { mine in expected.first { $0.order == mine }.map { $0.due <= 1_500 } ?? false })
        scheduler.run()
        XCTAssertTrue(scheduler.isEmpty)
        let sorted = expected.sorted { ($0.due, $0.order) < ($1.due, $1.order) }.map(\.order)
        XCTAssertEqual(ran, sorted)
    }

    /// A series (`schedule(series:)`) runs exactly as the same actions scheduled one by one:
    /// dues in order and out of it, some in the past, actions scheduled before, after and while
    /// it runs (for now, the past and later) interleave the same way, across advances.
    func testSeriesRunsAsItsActionsScheduledOneByOne() {
        func script(asSeries: Bool) -> [String] {
            let scheduler = TestScheduler()
            var generator = SplitMix(seed: 7)
            var ran: [String] = []
            for index in 0..<50 {
                scheduler.schedule(atNanoseconds: Int64(generator.next() % 400)) { ran.append("before \(index)") }
            }
            scheduler.advance(toNanoseconds: 100)
            var dues: [Int64] = []
            var time: Int64 = 50
            for index in 0..<500 {
                time += Int64(generator.next() % 3)
                dues.append(index % 9 == 0 ? Int64(generator.next() % 600) : time)
            }
            var spawned = 0
            let action = { (index: Int) in
                ran.append("series \(index)")
                guard index % 4 == 0 else { return }
                spawned += 1
                let mine = spawned
                scheduler.schedule(atNanoseconds: scheduler.now + Int64(index % 3) * 5 - 5) { ran.append("spawned \(mine)") }
            }
            if asSeries {
                scheduler.schedule(series: dues, lanes: Array(repeating: 0, count: dues.count), names: ["lane"], action: action)
            } else {
                for (index, due) in dues.enumerated() { scheduler.schedule(atNanoseconds: due) { action(index) } }
            }
            for index in 0..<50 {
                scheduler.schedule(atNanoseconds: Int64(generator.next() % 800)) { ran.append("after \(index)") }
            }
            scheduler.advance(toNanoseconds: 300)
            ran.append("advanced")
            XCTAssertEqual(scheduler.run(limit: 100), 100)
            ran.append("limit")
            scheduler.run()
            XCTAssertTrue(scheduler.isEmpty)
            return ran
        }
        let separate = script(asSeries: false)
        XCTAssertEqual(separate.filter { $0.hasPrefix("series") }.count, 500)
        XCTAssertEqual(script(asSeries: true), separate)
    }

    /// Disposing a series cancels the actions it has not run; it is empty then.
    func testDisposedSeriesRunsNoMore() {
        let scheduler = TestScheduler()
        var ran: [Int] = []
        let series = scheduler.schedule(series: [10, 20, 30, 40], lanes: [0, 0, 1, 1], names: ["a", "b"]) { ran.append($0) }
        scheduler.advance(toNanoseconds: 25)
        series?.dispose()
        XCTAssertTrue(scheduler.isEmpty)
        scheduler.run()
        XCTAssertEqual(ran, [0, 1])
        XCTAssertEqual(scheduler.now, 25)
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

    func testQueueSchedulerRepeatsWhenNothingHoldsTheDisposable() {
        let scheduler = QueueScheduler(name: "ticker")
        let done = expectation(description: "ran three times")
        var count = 0
        func scheduleAndDropTheDisposable() {
            _ = scheduler.schedule(after: Date(), interval: .milliseconds(10), leeway: .seconds(0)) {
                count += 1
                if count == 3 { done.fulfill() }
            }
        }
        scheduleAndDropTheDisposable()
        wait(for: [done], timeout: 10)
    }

    func testQueueSchedulerQueueHasNoQoSOfItsOwnByDefault() {
        XCTAssertEqual(QueueScheduler(name: "worker").queue.qos, .unspecified)
        XCTAssertEqual(QueueScheduler(qos: .utility, name: "io").queue.qos, .utility)
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

