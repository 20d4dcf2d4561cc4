import Signals
import XCTest

final class PublishTests: XCTestCase {
    func testAutoconnectSharesOneStartWithoutReplay() {
        let scheduler = TestScheduler()
        var starts = 0
        let shared = scheduler.cold("-a-b-c|").on(starting: { starts += 1 }).publish().autoconnect()
        let first = Collector<String, TestError>(scheduler)
        let second = Collector<String, TestError>(scheduler)
        shared.start(first.observer)
        scheduler.schedule(atNanoseconds: 2 * MarbleLine.frame) { shared.start(second.observer) }
        scheduler.run()
        XCTAssertEqual(first.marbles, "-a-b-c|")
        XCTAssertEqual(second.marbles, "---b-c|")
        XCTAssertEqual(starts, 1)
    }

    func testLastConsumerLeavingDisconnectsForGood() {
        let scheduler = TestScheduler()
        var ended = false
        let shared = scheduler.cold("-a-b-c|").on(disposed: { ended = true }).publish().autoconnect()
        let first = shared.start()
        let second = shared.start()
        scheduler.advance(toNanoseconds: 2 * MarbleLine.frame)
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
        let observed = Collector<String, TestError>(scheduler)
        connection.signal.observe(observed.observer)
        scheduler.advance(toNanoseconds: 2 * MarbleLine.frame)
        let disposable = connection.connect()
        XCTAssertTrue(connection.connect() === disposable)
        scheduler.run()
        XCTAssertEqual(observed.marbles, "---a-b|")
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
        let first = Collector<String, TestError>(scheduler)
        let second = Collector<String, TestError>(scheduler)
        shared.start(first.observer)
        shared.start(second.observer)
        scheduler.run()
        XCTAssertEqual(first.marbles, "-a-#")
        XCTAssertEqual(second.marbles, "-a-#")
    }
}
