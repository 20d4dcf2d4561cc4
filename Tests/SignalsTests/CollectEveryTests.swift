import MarbleNotation
import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class CollectEveryTests: XCTestCase {
    private func run(_ marbles: String, skipEmpty: Bool = false, discardWhenCompleted: Bool = true) -> [String] {
        let scheduler = TestScheduler()
        var events: [String] = []
        scheduler.hot(marbles)
            .collect(every: .milliseconds(4), on: scheduler, skipEmpty: skipEmpty, discardWhenCompleted: discardWhenCompleted)
            .observe { event in
                let time = scheduler.now / MarbleNotation.millisecond
                switch event {
                case let .value(array): events.append("\(time):\(array.joined())")
                default: events.append("\(time):\(event)")
                }
            }
        scheduler.run()
        return events
    }

    func testEachTickSendsWhatCameSinceTheLastOne() {
        XCTAssertEqual(run("-a-b--c----|"), ["4:ab", "8:c", "11:COMPLETED"])
    }

    func testAnEmptyIntervalSendsAnEmptyArrayUnlessSkipped() {
        XCTAssertEqual(run("-a-------b-|"), ["4:a", "8:", "11:COMPLETED"])
        XCTAssertEqual(run("-a-------b-|", skipEmpty: true), ["4:a", "11:COMPLETED"])
    }

    func testKeepingTheLastValuesOnCompletionSendsThemAtTheNextTick() {
        XCTAssertEqual(run("-a-------b-|", discardWhenCompleted: false), ["4:a", "8:", "12:b", "12:COMPLETED"])
    }

    func testAFailureStopsTheClock() {
        XCTAssertEqual(run("-a---#"), ["4:a", "5:FAILED \(MarbleError())"])
    }
}
