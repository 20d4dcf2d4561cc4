import MarblesTesting
import Signals
import XCTest

final class ObserveOnTests: XCTestCase {
    func testEventsArriveOnTheSchedulerInOrder() {
        expectMarbles("a-b(c|)") { $0.hot("a-b(c|)").observe(on: $0.lane("ui")) }
    }

    func testNothingArrivesBeforeTheSchedulerRuns() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, Never>.pipe()
        var received: [Int] = []
        signal.observe(on: scheduler).observeValues { received.append($0) }
        input.send(value: 1)
        input.send(value: 2)
        XCTAssertEqual(received, [])
        scheduler.advance()
        XCTAssertEqual(received, [1, 2])
    }

    func testHopsAreReportedWithTheSchedulerNameAndCarryTheCause() {
        let probe = TestProbe()
        let scheduler = TestScheduler()
        probe.attached {
            let (signal, input) = Signal<Int, Never>.pipe()
            signal.observe(on: scheduler.lane("ui")).observeValues { _ in }
            input.send(value: 7)
            XCTAssertEqual(probe.hops.map(\.started), [false])
            scheduler.advance()
        }
        XCTAssertEqual(probe.hops.count, 1)
        XCTAssertEqual(probe.hops.first?.node, "observe(on:)")
        XCTAssertEqual(probe.hops.first?.scheduler, "ui")
        XCTAssertEqual(probe.hops.first?.started, true)
        let source = probe.sent.first { $0.node == "pipe" }
        let hopped = probe.sent.first { $0.node == "observe(on:)" }
        XCTAssertEqual(hopped?.value, "7")
        XCTAssertEqual(hopped?.causes, source.map { [$0.sequence] })
    }

    func testNoHopIsReportedWithoutAProbe() {
        let probe = TestProbe()
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, Never>.pipe()
        signal.observe(on: scheduler).observeValues { _ in }
        input.send(value: 1)
        scheduler.advance()
        XCTAssertTrue(probe.hops.isEmpty)
    }

    func testProducerObservesEachStartOnTheScheduler() {
        expectMarbles("a-b|") { $0.cold("a-b|").observe(on: $0.lane("ui")) }
    }

    func testOrderIsKeptOnAQueueScheduler() {
        let scheduler = QueueScheduler(name: "ordered")
        let (signal, input) = Signal<Int, Never>.pipe()
        let done = DispatchSemaphore(value: 0)
        var received: [Int] = []
        signal.observe(on: scheduler).observe { event in
            switch event {
            case let .value(value): received.append(value)
            default: done.signal()
            }
        }
        let count = 10_000
        DispatchQueue.concurrentPerform(iterations: 1) { _ in
            for value in 0..<count { input.send(value: value) }
            input.sendCompleted()
        }
        done.wait()
        XCTAssertEqual(received, Array(0..<count))
    }
}

final class StartOnTests: XCTestCase {
    func testTheStartHandlerRunsWhenTheSchedulerRuns() {
        let scheduler = TestScheduler()
        var starts = 0
        let producer = SignalProducer<Int, Never> { observer, _ in
            starts += 1
            observer.send(value: starts)
            observer.sendCompleted()
        }
        var values: [Int] = []
        producer.start(on: scheduler.lane("worker")).startWithValues { values.append($0) }
        XCTAssertEqual(starts, 0)
        scheduler.advance()
        XCTAssertEqual(starts, 1)
        XCTAssertEqual(values, [1])
    }

    func testInterruptingBeforeTheHopRunsMeansTheUpstreamNeverStarts() {
        let scheduler = TestScheduler()
        var starts = 0
        let producer = SignalProducer<Int, Never> { _, _ in starts += 1 }
        var events: [String] = []
        let disposable = producer.start(on: scheduler).start { events.append($0.kind.rawValue) }
        disposable.dispose()
        scheduler.run()
        XCTAssertEqual(starts, 0)
        XCTAssertEqual(events, ["interrupted"])
    }

    func testInterruptingAfterTheStartInterruptsTheUpstream() {
        let scheduler = TestScheduler()
        var upstreamEnded = false
        let producer = SignalProducer<Int, Never> { _, lifetime in
            lifetime.observeEnded { upstreamEnded = true }
        }
        let disposable = producer.start(on: scheduler).start()
        scheduler.advance()
        XCTAssertFalse(upstreamEnded)
        disposable.dispose()
        XCTAssertTrue(upstreamEnded)
    }

    func testInterruptingAProducerDeliversTheInterruptionOnTheScheduler() {
        let scheduler = TestScheduler()
        var events: [String] = []
        let disposable = SignalProducer<Int, Never>.never.observe(on: scheduler).start { events.append($0.kind.rawValue) }
        disposable.dispose()
        XCTAssertEqual(events, [])
        scheduler.advance()
        XCTAssertEqual(events, ["interrupted"])
    }

    func testAnInterruptionReplacesWhatIsStillOnItsWay() {
        // The values and completion the upstream sent at once are still queued on the
        // scheduler when the start is interrupted: only the interruption arrives.
        let scheduler = TestScheduler()
        var events: [String] = []
        let disposable = SignalProducer<Int, Never>([1, 2]).observe(on: scheduler)
            .start { events.append($0.value.map(String.init) ?? $0.kind.rawValue) }
        disposable.dispose()
        scheduler.run()
        XCTAssertEqual(events, ["interrupted"])
    }

    func testStartIsReportedAsAHop() {
        let probe = TestProbe()
        let scheduler = TestScheduler()
        probe.attached {
            SignalProducer(value: 1).start(on: scheduler.lane("worker")).startWithValues { _ in }
            scheduler.advance()
        }
        XCTAssertEqual(probe.hops.map(\.node), ["start(on:)"])
        XCTAssertEqual(probe.hops.map(\.scheduler), ["worker"])
        XCTAssertEqual(probe.hops.map(\.started), [true])
    }

    func testMarblesPassThroughUnchanged() {
        expectMarbles("a-b|") { $0.cold("a-b|").start(on: $0.lane("worker")) }
    }
}
