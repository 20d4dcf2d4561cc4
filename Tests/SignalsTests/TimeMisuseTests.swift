import Foundation
import MarbleStreams
import MarblesTesting
import Signals
import XCTest

/// Bad use of the time-based operators gets defined behaviour, and finished pipelines let go
/// of everything they held.
final class TimeMisuseTests: XCTestCase {
    private typealias Operator = (Signal<Int, Never>, TestScheduler) -> Signal<Int, Never>

    private let operators: [(String, Operator)] = [
        ("debounce", { $0.debounce(0.001, on: $1, discardWhenCompleted: false) }),
        ("throttle", { $0.throttle(0.001, on: $1) }),
        ("throttle(quietPeriod:)", { $0.throttle(quietPeriod: 0.001, on: $1) }),
        ("delay", { $0.delay(0.001, on: $1) }),
        ("timeout", { $0.timeout(after: 1, switchingTo: SignalProducer(value: 0), on: $1) }),
        ("observe(on:)", { $0.observe(on: $1) }),
    ]

    private func summary(_ events: [Event<Int, Never>]) -> [String] {
        events.map { $0.value.map(String.init) ?? $0.kind.rawValue }
    }

    func testSendingAfterCompletionIsIgnored() {
        for (name, apply) in operators {
            let scheduler = TestScheduler()
            let (signal, input) = Signal<Int, Never>.pipe()
            var events: [Event<Int, Never>] = []
            apply(signal, scheduler).observe { events.append($0) }
            input.send(value: 1)
            scheduler.advance(by: 0.005)
            input.sendCompleted()
            input.send(value: 2)
            input.sendInterrupted()
            scheduler.run()
            input.send(value: 3)
            scheduler.run()
            XCTAssertEqual(summary(events), ["1", "completed"], name)
        }
    }

    func testDisposingTwiceInterruptsOnce() {
        for (name, apply) in operators {
            let scheduler = TestScheduler()
            var events: [Event<Int, Never>] = []
            let producer = SignalProducer<Int, Never>.never
            let disposable = producer.lift(Node.make(.operator, name, file: #fileID, line: #line)) { apply($0, scheduler) }
                .start { events.append($0) }
            disposable.dispose()
            disposable.dispose()
            scheduler.run()
            XCTAssertTrue(disposable.isDisposed, name)
            XCTAssertEqual(summary(events), ["interrupted"], name)
        }
    }

    func testOperatorsOnALaneWhoseSchedulerIsGoneNeverRunTheirTimers() {
        var owner: TestScheduler? = TestScheduler()
        let lane = owner!.lane("ui")
        owner = nil
        XCTAssertNil(lane.scheduler)

        let (signal, input) = Signal<Int, Never>.pipe()
        var debounced: [String] = []
        var hopped: [String] = []
        signal.debounce(0.001, on: lane).observe { debounced.append($0.value.map(String.init) ?? $0.kind.rawValue) }
        signal.observe(on: lane).observe { hopped.append($0.kind.rawValue) }
        input.send(value: 1)
        input.sendCompleted()
        // Time stands still on an orphaned lane: nothing scheduled on it ever runs, so neither
        // the pending value nor the completion (delivered on the scheduler) comes.
        XCTAssertEqual(debounced, [])
        XCTAssertEqual(hopped, [])

        var ticks = 0
        let timer = SignalProducer.timer(interval: .milliseconds(1), on: lane).startWithValues { _ in ticks += 1 }
        timer.dispose()
        XCTAssertEqual(ticks, 0)
    }

    private final class Token {}

    func testACompletedPipelineReleasesItsClosuresAndScheduledActions() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, Never>.pipe()
        weak var observerToken: Token?
        weak var operatorToken: Token?
        weak var fallbackToken: Token?
        var received: [Int] = []
        var completed = false
        do {
            let inObserver = Token(), inOperator = Token(), inFallback = Token()
            (observerToken, operatorToken, fallbackToken) = (inObserver, inOperator, inFallback)
            let fallback = SignalProducer<Int, Never> { observer, _ in
                withExtendedLifetime(inFallback) { observer.sendCompleted() }
            }
            signal
                .map { value in withExtendedLifetime(inOperator) { value } }
                .throttle(0.003, on: scheduler)
                .debounce(0.002, on: scheduler)
                .delay(0.001, on: scheduler)
                .timeout(after: 1, switchingTo: fallback, on: scheduler)
                .observe(on: scheduler)
                .observe { event in
                    withExtendedLifetime(inObserver) {
                        if let value = event.value { received.append(value) }
                        if event.isCompleting { completed = true }
                    }
                }
        }
        input.send(value: 1)
        scheduler.advance(by: 0.010)
        input.sendCompleted()
        scheduler.run()
        XCTAssertEqual(received, [1])
        XCTAssertTrue(completed)
        XCTAssertNil(observerToken)
        XCTAssertNil(operatorToken)
        XCTAssertNil(fallbackToken)
        XCTAssertTrue(scheduler.isEmpty)
    }

    func testADisposedPipelineReleasesItsClosuresAndCancelsItsTimers() {
        let scheduler = TestScheduler()
        weak var observerToken: Token?
        weak var operatorToken: Token?
        let disposable: Disposable
        var ticks = 0
        do {
            let inObserver = Token(), inOperator = Token()
            (observerToken, operatorToken) = (inObserver, inOperator)
            disposable = SignalProducer.timer(interval: .milliseconds(1), on: scheduler)
                .map { _ in withExtendedLifetime(inOperator) { 1 } }
                .debounce(0.005, on: scheduler)
                .delay(0.001, on: scheduler)
                .promoteError(MarbleError.self)
                .timeout(after: 1, raising: MarbleError(), on: scheduler)
                .observe(on: scheduler)
                .start(on: scheduler)
                .startWithValues { _ in withExtendedLifetime(inObserver) { ticks += 1 } }
        }
        scheduler.advance(by: 0.0035)
        disposable.dispose()
        XCTAssertEqual(ticks, 0)
        XCTAssertNil(observerToken)
        XCTAssertNil(operatorToken)
        // Only observe(on:)'s hop of the interruption is left, due now; the timer, the
        // debounce and the deadline (all due later) are cancelled.
        scheduler.advance()
        XCTAssertEqual(scheduler.now, 3_500_000)
        XCTAssertTrue(scheduler.isEmpty)
    }
}

final class TestSchedulerCancellationTests: XCTestCase {
    private final class Token {}

    func testACancelledActionReleasesWhatItCapturedAtOnce() {
        let scheduler = TestScheduler()
        weak var weakToken: Token?
        var ran = false
        let disposable: Disposable?
        do {
            let token = Token()
            weakToken = token
            disposable = scheduler.schedule(after: 1) { withExtendedLifetime(token) { ran = true } }
        }
        XCTAssertNotNil(weakToken)
        disposable?.dispose()
        XCTAssertNil(weakToken)
        XCTAssertTrue(scheduler.isEmpty)
        scheduler.run()
        XCTAssertFalse(ran)
    }
}
