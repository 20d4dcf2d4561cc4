import Signals
import XCTest

final class BagTests: XCTestCase {
    func testATokenRemovesOnlyItsOwnInsertion() {
        var bag = Bag(["x"])
        let first = bag.insert("y")
        let second = bag.insert("y")
        bag.insert("z")
        XCTAssertEqual(bag.remove(using: second), "y")
        XCTAssertEqual(Array(bag), ["x", "y", "z"])
        XCTAssertNil(bag.remove(using: second), "already removed")
        XCTAssertEqual(bag.remove(using: first), "y")
        XCTAssertEqual(Array(bag), ["x", "z"])
    }

    func testTokensStayValidAcrossManyRemovals() {
        var bag = Bag<Int>()
        let tokens = (0..<100).map { bag.insert($0) }
        for index in stride(from: 0, to: 100, by: 2) { bag.remove(using: tokens[index]) }
        XCTAssertEqual(Array(bag), Array(stride(from: 1, to: 100, by: 2)))
        XCTAssertEqual(bag.remove(using: tokens[99]), 99)
        XCTAssertEqual(bag.count, 49)
    }
}
