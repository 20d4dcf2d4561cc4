import MarbleNotation
import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class PublishTests: XCTestCase {
    func testAutoconnectSharesOneStartWithoutReplay() {
        let scheduler = TestScheduler()
        var starts = 0
        let shared = scheduler.cold("-a-b-c|").on(starting: { starts += 1 }).publish().autoconnect()
        let first = Collector<String, MarbleError>(scheduler)
        let second = Collector<String, MarbleError>(scheduler)
        shared.start(first.observer)
        scheduler.schedule(atNanoseconds: 2 * MarbleNotation.millisecond) { shared.start(second.observer) }
        scheduler.run()
        assertMarbles(first.events, "-a-b-c|")
        assertMarbles(second.events, "---b-c|")
        XCTAssertEqual(starts, 1)
    }

    func testLastConsumerLeavingDisconnectsForGood() {
        let scheduler = TestScheduler()
        var ended = false
        let shared = scheduler.cold("-a-b-c|").on(disposed: { ended = true }).publish().autoconnect()
        let first = shared.start()
        let second = shared.start()
        scheduler.advance(toNanoseconds: 2 * MarbleNotation.millisecond)
        first.dispose()
        XCTAssertFalse(ended)
        second.dispose()
        XCTAssertTrue(ended)
        var late: [String] = []
        shared.start { late.append("\($0)") }
        XCTAssertEqual(late, ["INTERRUPTED"])
    }

    func testConnectStartsOnceAndFeedsTheSignal() {
        let scheduler = TestScheduler()
        var starts = 0
        let connection = scheduler.cold("-a-b|").on(starting: { starts += 1 }).publish()
        let observed = Collector<String, MarbleError>(scheduler)
        connection.signal.observe(observed.observer)
        scheduler.advance(toNanoseconds: 2 * MarbleNotation.millisecond)
        let disposable = connection.connect()
        XCTAssertTrue(connection.connect() === disposable)
        scheduler.run()
        assertMarbles(observed.events, "---a-b|")
        XCTAssertEqual(starts, 1)
    }

    func testDisposingTheConnectionInterruptsTheSignal() {
        let connection = SignalProducer<Int, Never>.never.publish()
        var events: [String] = []
        connection.signal.observe { events.append("\($0)") }
        connection.connect().dispose()
        XCTAssertEqual(events, ["INTERRUPTED"])
    }

    func testNodesNamePublishAndAutoconnect() {
        let source = SignalProducer<Int, Never>(value: 1)
        let connection = source.publish()
        let shared = connection.autoconnect()
        XCTAssertEqual(connection.signal.node.name, "publish")
        XCTAssertEqual(connection.signal.node.upstream.first?.node, source.node)
        XCTAssertEqual(shared.node.name, "autoconnect")
        XCTAssertEqual(shared.node.upstream.first?.node, connection.signal.node)
    }

    func testAFailureReachesEveryConsumer() {
        let scheduler = TestScheduler()
        let shared = scheduler.cold("-a-#").publish().autoconnect()
        let first = Collector<String, MarbleError>(scheduler)
        let second = Collector<String, MarbleError>(scheduler)
        shared.start(first.observer)
        shared.start(second.observer)
        scheduler.run()
        assertMarbles(first.events, "-a-#")
        assertMarbles(second.events, "-a-#")
    }
}
