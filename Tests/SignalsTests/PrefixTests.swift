import MarbleNotation
import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class PrefixTests: XCTestCase {
    func testPrefixSendsTheValueBeforeTheProducersOwn() {
        expectMarbles("z-a|") { s in s.cold("--a|").prefix(value: "z") }
    }

    func testPrefixIsSentOnEveryStart() {
        let producer = SignalProducer([1, 2]).prefix(value: 0)
        var values: [Int] = []
        producer.startWithValues { values.append($0) }
        producer.startWithValues { values.append($0) }
        XCTAssertEqual(values, [0, 1, 2, 0, 1, 2])
    }

    func testPrefixBeforeAFailure() {
        expectMarbles("z#") { s in s.cold("-#").prefix(value: "z") }
    }

    func testTakingOnlyThePrefixNeverRunsTheUpstreamWork() {
        var sentByUpstream = 0
        let upstream = SignalProducer<Int, Never> { observer, lifetime in
            if lifetime.hasEnded { return }
            sentByUpstream += 1
            observer.send(value: 1)
        }
        var events: [String] = []
        upstream.prefix(value: 0).take(first: 1).start { events.append("\($0)") }
        XCTAssertEqual(events, ["VALUE 0", "COMPLETED"])
        XCTAssertEqual(sentByUpstream, 0)
    }

    func testStartWithIsTheReactiveCocoa2Name() {
        let producer = SignalProducer([2]).startWith(1)
        var values: [Int] = []
        producer.startWithValues { values.append($0) }
        XCTAssertEqual(values, [1, 2])
        XCTAssertEqual(producer.node.name, "prefix")
        XCTAssertEqual(producer.node.parameters, "value: 1")
    }

    func testDisposingAfterThePrefixInterruptsTheUpstream() {
        let scheduler = TestScheduler()
        let collector = Collector<String, MarbleError>(scheduler)
        var upstreamEnded = false
        let disposable = scheduler.cold("---a|").on(disposed: { upstreamEnded = true })
            .prefix(value: "z").start(collector.observer)
        scheduler.schedule(atNanoseconds: 2 * MarbleNotation.millisecond) { disposable.dispose() }
        scheduler.run()
        assertMarbles(collector.events, "z-‖")
        XCTAssertTrue(upstreamEnded)
    }
}
