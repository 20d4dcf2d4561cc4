import Signals
import XCTest

/// Resubscription and concatenation that go round synchronously run in constant stack: each
/// round returns before the next begins. At 100,000 rounds each of these overflowed the
/// stack (SIGSEGV) before, a frame chain per round.
final class ConstantStackTests: XCTestCase {
    struct Failure: Error, Equatable {}

    func testRetryingAProducerThatFailsAtOnceRunsInConstantStack() {
        var starts = 0
        var events: [String] = []
        SignalProducer<Int, Failure> { observer, _ in
            starts += 1
            observer.send(error: Failure())
        }.retry(upTo: 100_000).start { event in
            if case .failed = event { events.append("failed") } else { events.append("\(event)") }
        }
        XCTAssertEqual(starts, 100_001)
        XCTAssertEqual(events, ["failed"])
    }

    func testRetryingUntilTheLastAttemptSucceedsSendsItsValues() {
        var starts = 0
        var values: [Int] = []
        var completed = false
        SignalProducer<Int, Failure> { observer, _ in
            starts += 1
            if starts <= 100_000 {
                observer.send(error: Failure())
            } else {
                observer.send(value: starts)
                observer.sendCompleted()
            }
        }.retry(upTo: 100_000).start { event in
            switch event {
            case let .value(value): values.append(value)
            case .completed: completed = true
            default: XCTFail("unexpected \(event)")
            }
        }
        XCTAssertEqual(values, [100_001])
        XCTAssertTrue(completed)
    }

    /// Issue 31 item 1: `flatMapError` into another failure, retried 50,000 times.
    func testRetryingAFallbackThatFailsAtOnceRunsInConstantStack() {
        var starts = 0
        var failures = 0
        SignalProducer<Int, Failure> { observer, _ in
            starts += 1
            observer.send(error: Failure())
        }
        .flatMapError { error in SignalProducer<Int, Failure>(error: error) }
        .retry(upTo: 50_000)
        .start { event in if case .failed = event { failures += 1 } }
        XCTAssertEqual(starts, 50_001)
        XCTAssertEqual(failures, 1)
    }

    func testConcatOfInnerStreamsThatCompleteAtOnceRunsInConstantStack() {
        let (gate, open) = Signal<Int, Never>.pipe()
        let (outer, outerInput) = Signal<SignalProducer<Int, Never>, Never>.pipe()
        var values: [Int] = []
        var completed = false
        outer.flatten(.concat).observe { event in
            switch event {
            case let .value(value): values.append(value)
            case .completed: completed = true
            default: XCTFail("unexpected \(event)")
            }
        }
        // The first inner stream waits, so the next 100,000 queue behind it; each of those
        // completes as it starts, which starts the next.
        outerInput.send(value: SignalProducer(gate).take(first: 1))
        for value in 1...100_000 { outerInput.send(value: SignalProducer(value: value)) }
        outerInput.sendCompleted()
        open.send(value: 0)
        XCTAssertEqual(values.count, 100_001)
        XCTAssertEqual(values.prefix(3), [0, 1, 2])
        XCTAssertEqual(values.last, 100_000)
        XCTAssertTrue(completed)
    }

    /// Issue 31 item 1: RxJS's `catchError((e, caught) => caught)` over a producer that fails
    /// at once. Each `caught` was a new operator nested in the last, so the 20,000th
    /// generation overflowed the stack, and its values passed every earlier generation.
    func testCatchingByRestartingAProducerThatFailsAtOnceRunsInConstantStack() {
        var starts = 0
        var values: [Int] = []
        var completed = false
        var fallbacks = 0
        SignalProducer<Int, Failure> { observer, _ in
            starts += 1
            if starts <= 100_000 {
                observer.send(error: Failure())
            } else {
                observer.send(value: starts)
                observer.sendCompleted()
            }
        }
        .flatMapError(restartingOnNil: { _ -> SignalProducer<Int, Never>? in
            fallbacks += 1
            return nil
        })
        .start { event in
            switch event {
            case let .value(value): values.append(value)
            case .completed: completed = true
            default: XCTFail("unexpected \(event)")
            }
        }
        XCTAssertEqual(starts, 100_001)
        XCTAssertEqual(fallbacks, 100_000)
        XCTAssertEqual(values, [100_001])
        XCTAssertTrue(completed)
    }

    /// A fallback that is not the caught producer is started as `flatMapError` starts it, and
    /// its failure is the result's.
    func testCatchingWithAFallbackStartsItAndSendsItsEvents() {
        var events: [String] = []
        SignalProducer<Int, Failure>(error: Failure())
            .flatMapError(restartingOnNil: { _ in SignalProducer<Int, Failure>([1, 2]) })
            .start { events.append("\($0)") }
        XCTAssertEqual(events, ["VALUE 1", "VALUE 2", "COMPLETED"])
    }
}
