import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class ScanTests: XCTestCase {
    func testScanSendsTheRunningAccumulation() {
        let scheduler = TestScheduler()
        let collector = Collector<Int, MarbleError>(scheduler)
        scheduler.hot("-1-2-3|").scan(0) { $0 + Int($1)! }.observe(collector.observer)
        scheduler.run()
        XCTAssertEqual(collector.values, [1, 3, 6])
        assertMarbles(collector.events, "-1-3-6|")
    }

    func testScanIntoMutatesTheAccumulatorInPlace() {
        let scheduler = TestScheduler()
        let collector = Collector<[String], MarbleError>(scheduler)
        scheduler.cold("-a-b|").scan(into: [String]()) { $0.append($1) }.start(collector.observer)
        scheduler.run()
        XCTAssertEqual(collector.values, [["a"], ["a", "b"]])
    }

    func testScanPassesFailureAndInterruption() {
        expectMarbles("-a-#") { scheduler in scheduler.hot("-a-#").scan("") { $1 } }
        expectMarbles("-a-‖") { scheduler in scheduler.hot("-a-‖").scan("") { $1 } }
    }

    func testEachProducerStartAccumulatesAnew() {
        let producer = SignalProducer([1, 2, 3]).scan(0, +)
        var first: [Int] = [], second: [Int] = []
        producer.startWithValues { first.append($0) }
        producer.startWithValues { second.append($0) }
        XCTAssertEqual(first, [1, 3, 6])
        XCTAssertEqual(second, [1, 3, 6])
    }

    func testReduceSendsTheResultWhenUpstreamCompletes() {
        let scheduler = TestScheduler()
        let collector = Collector<Int, MarbleError>(scheduler)
        scheduler.hot("-1-2-3|").reduce(0) { $0 + Int($1)! }.observe(collector.observer)
        scheduler.run()
        XCTAssertEqual(collector.values, [6])
        assertMarbles(collector.events, "------(6|)")
    }

    func testReduceOfNoValuesSendsTheInitialValue() {
        var values: [Int] = []
        SignalProducer<Int, Never>.empty.reduce(42, +).startWithValues { values.append($0) }
        XCTAssertEqual(values, [42])
    }

    func testReduceSendsNothingOnFailureOrInterruption() {
        expectMarbles("---#") { scheduler in scheduler.hot("-a-#").reduce("") { $0 + $1 } }
        expectMarbles("---‖") { scheduler in scheduler.cold("-a-‖").reduce("") { $0 + $1 } }
    }

    func testReduceIntoOnAProducer() {
        var values: [[Int]] = []
        SignalProducer([3, 1, 2]).reduce(into: [Int]()) { $0.insert($1, at: 0) }.startWithValues { values.append($0) }
        XCTAssertEqual(values, [[2, 1, 3]])
    }

    func testNodesNameTheOperatorAndItsInitialValue() {
        let (signal, _) = Signal<Int, Never>.pipe()
        let scanned = signal.scan(10, +)
        XCTAssertEqual(scanned.node.name, "scan")
        XCTAssertEqual(scanned.node.parameters, "10")
        XCTAssertEqual(scanned.node.upstream.map(\.role), [.data])
        XCTAssertEqual(SignalProducer([1]).reduce(into: 0) { $0 += $1 }.node.parameters, "into: 0")
    }
}
