import Dispatch
import Signals
import XCTest

final class AtomicTests: XCTestCase {
    func testTheValueCanBeReadAndReplaced() {
        let atomic = Atomic(1)
        XCTAssertEqual(atomic.value, 1)
        atomic.value = 2
        XCTAssertEqual(atomic.value, 2)
    }

    func testSwapReturnsTheValueItReplaced() {
        let atomic = Atomic("old")
        XCTAssertEqual(atomic.swap("new"), "old")
        XCTAssertEqual(atomic.value, "new")
    }

    func testModifyChangesTheValueInPlaceAndReturnsWhatTheClosureReturns() {
        let atomic = Atomic([1, 2])
        let count = atomic.modify { values -> Int in
            values.append(3)
            return values.count
        }
        XCTAssertEqual(count, 3)
        XCTAssertEqual(atomic.value, [1, 2, 3])
    }

    func testWithValueReadsWithoutChanging() {
        let atomic = Atomic(20)
        XCTAssertEqual(atomic.withValue { $0 + 1 }, 21)
        XCTAssertEqual(atomic.value, 20)
    }

    func testAThrowingClosureLeavesTheLockFree() {
        struct Refused: Error {}
        let atomic = Atomic(0)
        XCTAssertThrowsError(try atomic.modify { value in
            value = 5
            throw Refused()
        })
        XCTAssertThrowsError(try atomic.withValue { _ in throw Refused() })
        // Were the lock still held, this would never return.
        XCTAssertEqual(atomic.swap(6), 5)
    }

    func testModificationsFromManyThreadsAreNotLost() {
        let atomic = Atomic(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1_000 { atomic.modify { $0 += 1 } }
        }
        XCTAssertEqual(atomic.value, 8_000)
    }
}
