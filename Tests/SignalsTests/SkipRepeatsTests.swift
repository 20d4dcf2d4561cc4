import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class SkipRepeatsTests: XCTestCase {
    func testSkipRepeatsDropsValuesEqualToThePreviousOne() {
        expectMarbles("-a---b---a|") { scheduler in scheduler.hot("-a-a-b-b-a|").skipRepeats() }
    }

    func testSkipRepeatsWithACustomComparator() {
        let scheduler = TestScheduler()
        let collector = Collector<String, MarbleError>(scheduler)
        scheduler.hot("-a-A-b-B-a|").skipRepeats { $0.lowercased() == $1.lowercased() }.observe(collector.observer)
        scheduler.run()
        XCTAssertEqual(collector.values, ["a", "b", "a"])
        assertMarbles(collector.events, "-a---b---a|")
    }

    func testAComparatorComparesWithTheLastValueSent() {
        // "within 1 of the last value sent": 1 passes, 2 is a repeat of 1, 3 is not (it is
        // compared with 1, the last value sent, not with the dropped 2).
        var values: [Int] = []
        SignalProducer([1, 2, 3, 4, 6]).skipRepeats { abs($0 - $1) <= 1 }.startWithValues { values.append($0) }
        XCTAssertEqual(values, [1, 3, 6])
    }

    func testDistinctUntilChangedIsSkipRepeats() {
        expectMarbles("-a---b|") { scheduler in scheduler.cold("-a-a-b|").distinctUntilChanged() }
        expectMarbles("-a---b|") { scheduler in scheduler.hot("-a-A-b|").distinctUntilChanged { $0.lowercased() == $1.lowercased() } }
        let (signal, _) = Signal<Int, Never>.pipe()
        XCTAssertEqual(signal.distinctUntilChanged().node.name, "skipRepeats")
    }

    func testEachStartRemembersNothingFromTheLastOne() {
        let producer = SignalProducer([1, 1, 2]).skipRepeats()
        var values: [Int] = []
        producer.startWithValues { values.append($0) }
        producer.startWithValues { values.append($0) }
        XCTAssertEqual(values, [1, 2, 1, 2])
    }

    func testSkipRepeatsPassesFailure() {
        expectMarbles("-a---#") { scheduler in scheduler.hot("-a-a-#").skipRepeats() }
    }
}
