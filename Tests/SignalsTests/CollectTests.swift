import MarbleNotation
import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class CollectTests: XCTestCase {
    func testCollectSendsAllValuesAsOneArrayOnCompletion() {
        let scheduler = TestScheduler()
        let collector = Collector<[String], MarbleError>(scheduler)
        scheduler.hot("-a-b-c|").collect().observe(collector.observer)
        scheduler.run()
        XCTAssertEqual(collector.values, [["a", "b", "c"]])
        XCTAssertEqual(collector.events.map(\.time), [6 * MarbleNotation.millisecond, 6 * MarbleNotation.millisecond])
        XCTAssertEqual(collector.events.last?.event.isTerminating, true)
    }

    func testCollectOfNoValuesSendsAnEmptyArray() {
        var values: [[Int]] = []
        SignalProducer<Int, Never>.empty.collect().startWithValues { values.append($0) }
        XCTAssertEqual(values, [[]])
    }

    func testCollectCountSendsFullArraysThenTheRest() {
        let scheduler = TestScheduler()
        let collector = Collector<[String], MarbleError>(scheduler)
        scheduler.cold("-a-b-c|").collect(count: 2).start(collector.observer)
        scheduler.run()
        XCTAssertEqual(collector.values, [["a", "b"], ["c"]])
        XCTAssertEqual(collector.events.map(\.time), [3, 6, 6].map { $0 * MarbleNotation.millisecond })
    }

    func testCollectCountSendsNoEmptyRestAfterFullArrays() {
        var values: [[Int]] = []
        SignalProducer([1, 2, 3, 4]).collect(count: 2).startWithValues { values.append($0) }
        XCTAssertEqual(values, [[1, 2], [3, 4]])
    }

    func testCollectCountOfNoValuesSendsAnEmptyArray() {
        var values: [[Int]] = []
        SignalProducer<Int, Never>.empty.collect(count: 3).startWithValues { values.append($0) }
        XCTAssertEqual(values, [[]])
    }

    func testCollectDropsItsValuesOnFailureAndInterruption() {
        expectMarbles("---#") { scheduler in scheduler.hot("-a-#").collect() }
        expectMarbles("---‖") { scheduler in scheduler.hot("-a-‖").collect(count: 5) }
    }

    func testCollectCountNodeCarriesTheCount() {
        let (signal, _) = Signal<Int, Never>.pipe()
        XCTAssertEqual(signal.collect(count: 4).node.parameters, "count: 4")
        XCTAssertEqual(signal.collect().node.name, "collect")
    }
}

final class CollectPredicateTests: XCTestCase {
    func testCollectWhenTheArraySatisfiesThePredicate() {
        var arrays: [[Int]] = []
        SignalProducer(1...7).collect { $0.reduce(0, +) >= 5 }.startWithValues { arrays.append($0) }
        XCTAssertEqual(arrays, [[1, 2, 3], [4, 5], [6], [7]])
    }

    func testCollectBeforeTheValueThatStartsTheNextArray() {
        let (signal, input) = Signal<Int, Never>.pipe()
        var arrays: [[Int]] = []
        signal.collect { collected, latest in collected.count == 2 || latest == 0 }.observeValues { arrays.append($0) }
        for value in [1, 2, 3, 0, 4] { input.send(value: value) }
        input.sendCompleted()
        XCTAssertEqual(arrays, [[1, 2], [3], [0, 4]])
    }

    func testCollectPredicateSendsAnEmptyArrayWhenNothingCame() {
        var arrays: [[Int]] = []
        SignalProducer<Int, Never>.empty.collect { _ in true }.startWithValues { arrays.append($0) }
        XCTAssertEqual(arrays, [[]])
    }
}
