import MarbleNotation
import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class FlatMapErrorTests: XCTestCase {
    func testFailureIsReplacedByTheFallback() {
        expectMarbles("-ax|") { s in s.cold("-a#").flatMapError { _ in s.cold("x|") } }
    }

    func testFallbackGetsTheError() {
        var values: [String] = []
        SignalProducer<Int, MarbleError>(error: MarbleError("boom"))
            .flatMapError { error in SignalProducer<Int, Never>(value: error.message.count) }
            .startWithValues { values.append("\($0)") }
        XCTAssertEqual(values, ["4"])
    }

    func testHotSignalFallback() {
        expectMarbles("-a--y|") { s in s.hot("-a-#").flatMapError { _ in s.cold("-y|") } }
    }

    func testValuesAndCompletionPassThrough() {
        var fallbackStarted = false
        expectMarbles("-a-b|") { s in
            s.cold("-a-b|").flatMapError { _ in
                SignalProducer<String, Never> { _, _ in fallbackStarted = true }
            }
        }
        XCTAssertFalse(fallbackStarted)
    }

    func testFallbackFailurePasses() {
        expectMarbles("-a-#") { s in s.cold("-a#").flatMapError { _ in s.cold("-#") } }
    }

    func testCatchToEmptyTurnsAFailureIntoCompletion() {
        expectMarbles("-a|") { s in s.cold("-a#").catchTo(SignalProducer<String, Never>.empty) }
    }

    func testCatchToNodeHasAFallbackEdge() {
        let fallback = SignalProducer<Int, Never>(value: 0)
        let producer = SignalProducer<Int, MarbleError>(error: MarbleError()).catchTo(fallback)
        XCTAssertEqual(producer.node.name, "catchTo")
        XCTAssertEqual(producer.node.upstream.map(\.role), [.data, .fallback])
        XCTAssertEqual(producer.node.upstream.last?.node, fallback.node)
        var values: [Int] = []
        producer.startWithValues { values.append($0) }
        XCTAssertEqual(values, [0])
    }

    func testCatchIsTheReactiveCocoa2Name() {
        let (signal, input) = Signal<Int, MarbleError>.pipe()
        var events: [String] = []
        let caught = signal.catch { _ in SignalProducer<Int, Never>(value: -1) }
        caught.observe { events.append("\($0)") }
        input.send(value: 1)
        input.send(error: MarbleError())
        XCTAssertEqual(events, ["VALUE 1", "VALUE -1", "COMPLETED"])
        XCTAssertEqual(caught.node.name, "flatMapError")
    }

    func testDisposingInterruptsTheFallback() {
        let scheduler = TestScheduler()
        let collector = Collector<String, MarbleError>(scheduler)
        let disposable = scheduler.cold("#").flatMapError { _ in scheduler.cold("--x|") }.start(collector.observer)
        scheduler.schedule(atNanoseconds: 1 * MarbleNotation.millisecond) { disposable.dispose() }
        scheduler.run()
        assertMarbles(collector.events, "-‖")
    }
}
