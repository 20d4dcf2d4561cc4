import MarbleNotation
import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class ReplayLazilyTests: XCTestCase {
    /// A cold line whose starts and endings are counted.
    private final class Source {
        var starts = 0
        var ended = 0
        func producer(_ scheduler: TestScheduler, _ line: String) -> SignalProducer<String, MarbleError> {
            scheduler.cold(line).on(starting: { self.starts += 1 }, disposed: { self.ended += 1 })
        }
    }

    func testNothingStartsBeforeTheFirstConsumer() {
        let scheduler = TestScheduler()
        let source = Source()
        _ = source.producer(scheduler, "-a|").replayLazily(upTo: 1)
        scheduler.run()
        XCTAssertEqual(source.starts, 0)
    }

    func testLateConsumerGetsTheLastValuesThenTheLiveOnes() {
        let scheduler = TestScheduler()
        let source = Source()
        let replayed = source.producer(scheduler, "-a-b-c-|").replayLazily(upTo: 1)
        let early = Collector<String, MarbleError>(scheduler)
        let late = Collector<String, MarbleError>(scheduler)
        replayed.start(early.observer)
        scheduler.schedule(atNanoseconds: 4 * MarbleNotation.millisecond) { replayed.start(late.observer) }
        scheduler.run()
        assertMarbles(early.events, "-a-b-c-|")
        assertMarbles(late.events, "----bc-|")
        XCTAssertEqual(source.starts, 1)
    }

    func testConsumerAfterCompletionGetsTheBufferAndTheTerminalEvent() {
        let scheduler = TestScheduler()
        let replayed = scheduler.cold("-a-b-c#").replayLazily(upTo: 2)
        let first = Collector<String, MarbleError>(scheduler)
        replayed.start(first.observer)
        scheduler.run()
        var events: [String] = []
        replayed.start { events.append("\($0)") }
        assertMarbles(first.events, "-a-b-c#")
        XCTAssertEqual(events, ["VALUE b", "VALUE c", "FAILED error"])
    }

    func testCapacityZeroReplaysOnlyTheTerminalEvent() {
        let replayed = SignalProducer([1, 2, 3]).replayLazily(upTo: 0)
        var first: [Int] = []
        replayed.startWithValues { first.append($0) }
        var later: [String] = []
        replayed.start { later.append("\($0)") }
        XCTAssertEqual(first, [1, 2, 3])
        XCTAssertEqual(later, ["COMPLETED"])
    }

    func testUpstreamKeepsRunningWhileTheProducerIsHeldEvenWithNoConsumer() {
        let scheduler = TestScheduler()
        let source = Source()
        let replayed = source.producer(scheduler, "-a-b-c|").replayLazily(upTo: 1)
        let first = Collector<String, MarbleError>(scheduler)
        let second = Collector<String, MarbleError>(scheduler)
        let disposable = replayed.start(first.observer)
        scheduler.schedule(atNanoseconds: 2 * MarbleNotation.millisecond) { disposable.dispose() }
        scheduler.schedule(atNanoseconds: 4 * MarbleNotation.millisecond) { replayed.start(second.observer) }
        scheduler.run()
        assertMarbles(first.events, "-a‖")
        assertMarbles(second.events, "----bc|")
        XCTAssertEqual(source.starts, 1)
    }

    func testUpstreamIsInterruptedWhenTheProducerAndAllConsumersAreGone() {
        let scheduler = TestScheduler()
        let source = Source()
        var replayed: SignalProducer<String, MarbleError>? = source.producer(scheduler, "-a-b-c|").replayLazily(upTo: 1)
        var values: [String] = []
        let first = replayed?.startWithValues { values.append($0) }
        let second = replayed?.startWithValues { values.append($0) }
        scheduler.advance(toNanoseconds: 1 * MarbleNotation.millisecond)
        replayed = nil
        first?.dispose()
        XCTAssertEqual(source.ended, 0, "one consumer is still attached")
        second?.dispose()
        XCTAssertEqual(source.ended, 1)
        scheduler.run()
        XCTAssertEqual(values, ["a", "a"])
        XCTAssertTrue(scheduler.isEmpty)
    }

    func testReplayedValuesAreCausedByTheUpstreamEvents() {
        let probe = TestProbe()
        probe.attached {
            let (signal, input) = Signal<Int, Never>.pipe(named: "input")
            let replayed = SignalProducer(signal).replayLazily(upTo: 1)
            replayed.start()
            input.send(value: 1)
            replayed.start()
        }
        let upstream = probe.sent.filter { $0.node == "SignalProducer(signal)" }
        let replays = probe.sent.filter { $0.node == "replayLazily" }
        XCTAssertEqual(upstream.count, 1)
        XCTAssertEqual(replays.count, 2)
        XCTAssertEqual(replays.map(\.causes), [[upstream[0].sequence], [upstream[0].sequence]])
        XCTAssertNotEqual(replays[0].subscription, replays[1].subscription)
    }
}
