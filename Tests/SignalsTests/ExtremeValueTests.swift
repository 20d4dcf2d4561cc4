import Foundation
import MarblesTesting
import Signals
import XCTest

/// Extreme numbers given to the core get defined behaviour instead of trapping.
final class ExtremeValueTests: XCTestCase {
    func testConcurrentLimitZeroIsConcat() {
        XCTAssertEqual(FlattenStrategy.concurrent(limit: 0), .concat)
        XCTAssertEqual(FlattenStrategy.concurrent(limit: 0).description, "concat")
        let scheduler = TestScheduler()
        var values: [String] = []
        scheduler.hot("-ab------|").flatMap(.concurrent(limit: 0)) { scheduler.cold("\($0)-\($0)|") }
            .observeValues { values.append($0) }
        scheduler.run()
        XCTAssertEqual(values, ["a", "a", "b", "b"])
    }

    func testSchedulingPastTheEndOfVirtualTimeDoesNotTrap() {
        let scheduler = TestScheduler()
        var ran: [Int64] = []
        scheduler.schedule(after: Date(timeIntervalSinceReferenceDate: 1e300)) { ran.append(scheduler.now) }
        scheduler.schedule(after: Date(timeIntervalSinceReferenceDate: .infinity)) { ran.append(scheduler.now) }
        scheduler.advance(by: 1_000)
        XCTAssertEqual(ran, [])
        scheduler.advance(by: 1e300)
        XCTAssertEqual(ran, [Int64.max, Int64.max])
        XCTAssertEqual(scheduler.now, Int64.max)
    }

    func testRepeatingTimerStopsAtTheEndOfVirtualTime() {
        let scheduler = TestScheduler(start: Int64.max - 10)
        var ticks = 0
        scheduler.schedule(after: scheduler.currentDate, interval: .nanoseconds(Int.max), leeway: .nanoseconds(0)) { ticks += 1 }
        XCTAssertEqual(scheduler.run(), 1)
        XCTAssertEqual(ticks, 1)
    }
}
