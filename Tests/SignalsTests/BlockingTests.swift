import Signals
import XCTest

final class BlockingTests: XCTestCase {
    private struct Broken: Error, Equatable {}

    func testFirstGivesTheFirstValueAndInterruptsTheStart() {
        var ended = false
        let producer = SignalProducer<Int, Never> { observer, lifetime in
            lifetime.observeEnded { ended = true }
            observer.send(value: 1)
            observer.send(value: 2)
        }
        XCTAssertEqual(producer.first()?.get(), 1)
        XCTAssertTrue(ended)
        XCTAssertNil(SignalProducer<Int, Never>.empty.first())
    }

    func testSingleIsNilForMoreThanOneValue() {
        XCTAssertEqual(SignalProducer<Int, Never>(value: 7).single()?.get(), 7)
        XCTAssertNil(SignalProducer([1, 2, 3]).single())
        XCTAssertNil(SignalProducer<Int, Never>.empty.single())
    }

    func testLastGivesTheLastValueOrTheFailure() {
        XCTAssertEqual(SignalProducer([1, 2, 3]).last()?.get(), 3)
        let failing = SignalProducer<Int, Broken>(values: 1, 2).concat(error: Broken())
        guard case .failure(Broken())? = failing.last() else { return XCTFail("expected the failure") }
    }

    func testWaitBlocksUntilTheEndAndGivesTheOutcome() {
        var sent = 0
        let producer = SignalProducer<Int, Broken> { observer, _ in
            sent += 1
            observer.send(value: 1)
            observer.sendCompleted()
        }
        guard case .success = producer.wait() else { return XCTFail("expected success") }
        XCTAssertEqual(sent, 1)
        guard case .failure(Broken()) = SignalProducer<Int, Broken>(error: Broken()).wait() else {
            return XCTFail("expected the failure")
        }
    }

    func testAValueSentFromAnotherThreadEndsTheWait() {
        let producer = SignalProducer<Int, Never> { observer, _ in
            Thread.detachNewThread {
                observer.send(value: 42)
                observer.sendCompleted()
            }
        }
        XCTAssertEqual(producer.first()?.get(), 42)
    }
}
