import Foundation
import Locks
import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class DelayTests: XCTestCase {
    func testValuesAndCompletionAreShifted() {
        expectMarbles("--a-b-|") { $0.hot("a-b-|").delay(0.002, on: $0) }
    }

    func testSameInstantValuesKeepTheirOrder() {
        expectMarbles("--(ab)|") { $0.hot("(ab)|").delay(0.002, on: $0) }
    }

    func testFailureOvertakesDelayedValues() {
        expectMarbles("-#") { $0.hot("a#").delay(0.002, on: $0) }
    }

    func testInterruptionOvertakesDelayedValues() {
        expectMarbles("-‖") { $0.hot("a‖").delay(0.002, on: $0) }
    }

    func testCompletionWhileValuesAreOnTheirWayWaitsForThem() {
        expectMarbles("--ab|") { $0.hot("ab|").delay(0.002, on: $0) }
    }

    func testInterruptingAProducerDeliversTheInterruptionOnTheScheduler() {
        let scheduler = TestScheduler()
        var events: [String] = []
        let disposable = SignalProducer<Int, Never>(value: 1).delay(1, on: scheduler)
            .start { events.append($0.value.map(String.init) ?? $0.kind.rawValue) }
        disposable.dispose()
        XCTAssertEqual(events, [])
        scheduler.run()
        XCTAssertEqual(events, ["interrupted"])
    }

    func testInterruptingAProducerCancelsWhatIsOnItsWay() {
        let scheduler = TestScheduler()
        let collector = Collector<String, MarbleError>(scheduler)
        let disposable = scheduler.cold("ab--|").delay(0.002, on: scheduler).start(collector.observer)
        scheduler.advance(by: 0.002)
        disposable.dispose()
        scheduler.run()
        assertMarbles(collector.events, "--(a‖)")
    }
}

/// `delayValues`, RxJS's `delay`: completion is not shifted, only held for the values on their way.
final class DelayValuesTests: XCTestCase {
    func testCompletionIsNotDelayedWhenNothingIsOnItsWay() {
        expectMarbles("--a-b--|") { $0.hot("a-b----|").delayValues(0.002, on: $0) }
    }

    func testCompletionFollowsTheLastDelayedValue() {
        expectMarbles("-a-(b|)") { $0.hot("a-b|").delayValues(0.001, on: $0) }
    }

    func testAnEmptyStreamCompletesAtOnce() {
        expectMarbles("-|") { $0.hot("-|").delayValues(0.003, on: $0) }
    }

    func testFailureOvertakesDelayedValues() {
        expectMarbles("-#") { $0.hot("a#").delayValues(0.002, on: $0) }
    }

    func testInterruptingAProducerCancelsWhatIsOnItsWay() {
        let scheduler = TestScheduler()
        let collector = Collector<String, MarbleError>(scheduler)
        let disposable = scheduler.cold("ab|").delayValues(0.003, on: scheduler).start(collector.observer)
        scheduler.advance(by: 0.002)
        disposable.dispose()
        scheduler.run()
        assertMarbles(collector.events, "--‖")
    }
}

final class TimeoutTests: XCTestCase {
    func testAStreamThatEndsInTimeIsUntouched() {
        expectMarbles("a-|") { $0.hot("a-|").timeout(after: 0.004, raising: MarbleError(), on: $0) }
    }

    func testAStreamTooSlowFails() {
        expectMarbles("a---#") { $0.hot("a------|").timeout(after: 0.004, raising: MarbleError(), on: $0) }
    }

    func testCompletingAtTheDeadlineWinsWhenItWasScheduledFirst() {
        expectMarbles("a---|") { $0.hot("a---|").timeout(after: 0.004, raising: MarbleError(), on: $0) }
    }

    func testAStreamTooSlowSwitchesToTheFallback() {
        expectMarbles("a---x-y|") { scheduler in
            scheduler.hot("a-----b-|").timeout(after: 0.004, switchingTo: scheduler.cold("x-y|"), on: scheduler)
        }
    }

    /// The error a timeout raises is run-time data: a timeout made per request with an error
    /// naming the request is one node, whichever error it raises (it was one node per error,
    /// kept for the life of the process).
    func testATimeoutRaisingAPerRequestErrorIsOneNode() {
        struct UploadError: Error { let status: Int, file: String }
        let scheduler = TestScheduler()
        let source = SignalProducer<Int, UploadError>(value: 1)
        func upload(_ file: String) -> SignalProducer<Int, UploadError> {
            source.timeout(after: 1, raising: UploadError(status: 408, file: file), on: scheduler)
        }
        let nodes = Set((0..<200).map { upload("file-\($0).jpg").node })
        XCTAssertEqual(nodes.count, 1)
        XCTAssertEqual(nodes.first?.parameters, "1.0s, on: \(scheduler.name)")
        let each = Set((0..<200).map {
            source.timeout(each: 1, raising: UploadError(status: 408, file: "\($0)"), on: scheduler).node
        })
        XCTAssertEqual(each.count, 1)
    }

    func testProducerTimesOutEachStart() {
        expectMarbles("a--#") { $0.cold("a----|").timeout(after: 0.003, raising: MarbleError(), on: $0) }
        expectMarbles("a--x|") { scheduler in
            scheduler.cold("a----|").timeout(after: 0.003, switchingTo: scheduler.cold("x|"), on: scheduler)
        }
    }

    func testTheFallbackIsAChildSubscriptionWithAFallbackEdge() {
        let probe = TestProbe()
        let scheduler = TestScheduler()
        var node: Node?
        probe.attached {
            let fallback = SignalProducer<Int, Never>(value: 9).named("fallback")
            let (signal, _) = Signal<Int, Never>.pipe()
            let timed = signal.timeout(after: 0.001, switchingTo: fallback, on: scheduler)
            node = timed.node
            timed.observeValues { _ in }
            scheduler.run()
            let fallbackStart = probe.subscriptions.first { $0.node === fallback.node }
            XCTAssertEqual(fallbackStart?.parent, timed.subscription)
        }
        XCTAssertEqual(node?.upstream.map(\.role), [.data, .fallback])
        XCTAssertEqual(probe.sent.filter { $0.node == "timeout" }.map(\.value), ["9", nil])
    }

    func testInterruptingTheFallbackInterruptsTheOutput() {
        let scheduler = TestScheduler()
        let collector = Collector<String, MarbleError>(scheduler)
        let disposable = scheduler.cold("a-----|")
            .timeout(after: 0.002, switchingTo: scheduler.cold("x---|"), on: scheduler)
            .start(collector.observer)
        scheduler.advance(by: 0.003)
        disposable.dispose()
        scheduler.run()
        assertMarbles(collector.events, "a-x‖")
    }
}

final class TimerTests: XCTestCase {
    func testTicksEveryIntervalUntilInterrupted() {
        let scheduler = TestScheduler()
        let collector = Collector<Date, Never>(scheduler)
        let disposable = SignalProducer.timer(interval: .milliseconds(2), on: scheduler).start(collector.observer)
        scheduler.advance(by: 0.007)
        disposable.dispose()
        scheduler.run()
        assertMarbles(collector.events, "--a-b-c‖", values: [
            "a": Date(timeIntervalSinceReferenceDate: 0.002), "b": Date(timeIntervalSinceReferenceDate: 0.004),
            "c": Date(timeIntervalSinceReferenceDate: 0.006),
        ])
        XCTAssertEqual(collector.values.map { $0.timeIntervalSinceReferenceDate }, [0.002, 0.004, 0.006])
        XCTAssertTrue(scheduler.isEmpty)
    }

    func testEachStartHasItsOwnTimer() {
        let scheduler = TestScheduler()
        let timer = SignalProducer.timer(interval: .milliseconds(3), on: scheduler)
        var first: [Int64] = [], second: [Int64] = []
        let a = timer.startWithValues { _ in first.append(scheduler.now / 1_000_000) }
        scheduler.advance(by: 0.001)
        let b = timer.startWithValues { _ in second.append(scheduler.now / 1_000_000) }
        scheduler.advance(by: 0.006)
        a.dispose()
        b.dispose()
        XCTAssertEqual(first, [3, 6])
        XCTAssertEqual(second, [4, 7])
    }

    func testATimerDisposedFromInsideItsOwnActionStops() {
        let scheduler = TestScheduler()
        var ticks = 0
        var disposable: Disposable?
        disposable = SignalProducer.timer(interval: .milliseconds(1), on: scheduler).startWithValues { _ in
            ticks += 1
            if ticks == 2 { disposable?.dispose() }
        }
        scheduler.advance(by: 0.010)
        XCTAssertEqual(ticks, 2)
        XCTAssertTrue(scheduler.isEmpty)
    }

    func testATimerOnAQueueSchedulerCanDisposeItselfFromItsOwnAction() {
        let scheduler = QueueScheduler(name: "timer")
        let stopped = DispatchSemaphore(value: 0)
        let ticks = SharedBox(0)
        let holder = SharedBox<Disposable?>(nil)
        let disposedAt = SharedBox<Int?>(nil)
        let disposable = SignalProducer.timer(interval: .milliseconds(1), on: scheduler).start { event in
            switch event {
            case .value:
                // From the third tick on, once the disposable is at hand: a slow start (under
                // ThreadSanitizer) can let three ticks pass before `start` returns it, and a
                // test that waited for exactly the third never ended.
                let count = ticks.modify { $0 += 1; return $0 }
                if count >= 3, disposedAt.current == nil, let own = holder.current {
                    disposedAt.modify { $0 = count }
                    own.dispose()
                }
            case .interrupted:
                stopped.signal()
            default:
                break
            }
        }
        holder.modify { $0 = disposable }
        stopped.wait()
        // Any tick already queued when the timer was disposed finds it stopped.
        scheduler.queue.sync {}
        XCTAssertGreaterThanOrEqual(ticks.current, 3)
        XCTAssertEqual(ticks.current, disposedAt.current, "no tick after the timer disposed itself")
    }
}

/// A value shared between threads in a test.
final class SharedBox<Value>: @unchecked Sendable {
    private let lock = Lock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    var current: Value { lock.withLock { value } }
    @discardableResult
    func modify<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&value) } }
}
