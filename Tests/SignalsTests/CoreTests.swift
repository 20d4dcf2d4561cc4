import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class CoreTests: XCTestCase {
    func testPipeDeliversToEveryObserverInOrder() {
        let (signal, input) = Signal<Int, Never>.pipe()
        var first: [Int] = [], second: [Int] = []
        signal.observeValues { first.append($0) }
        input.send(value: 1)
        signal.observeValues { second.append($0) }
        input.send(value: 2)
        XCTAssertEqual(first, [1, 2])
        XCTAssertEqual(second, [2])
    }

    func testNothingFollowsATerminalEvent() {
        let (signal, input) = Signal<Int, MarbleError>.pipe()
        var events: [String] = []
        signal.observe { events.append("\($0)") }
        input.send(value: 1)
        input.sendCompleted()
        input.send(value: 2)
        input.send(error: MarbleError())
        XCTAssertEqual(events, ["VALUE 1", "COMPLETED"])
    }

    func testObservingATerminatedSignalInterruptsAtOnce() {
        let (signal, input) = Signal<Int, Never>.pipe()
        input.sendCompleted()
        var events: [String] = []
        let disposable = signal.observe { events.append("\($0)") }
        XCTAssertNil(disposable)
        XCTAssertEqual(events, ["INTERRUPTED"])
    }

    func testDisposedObservationReceivesNothing() {
        let (signal, input) = Signal<Int, Never>.pipe()
        var values: [Int] = []
        let disposable = signal.observeValues { values.append($0) }
        input.send(value: 1)
        disposable?.dispose()
        input.send(value: 2)
        XCTAssertEqual(values, [1])
    }

    func testProducerRunsItsWorkAnewOnEachStart() {
        var starts = 0
        let producer = SignalProducer<Int, Never> { observer, _ in
            starts += 1
            observer.send(value: starts)
            observer.sendCompleted()
        }
        var values: [Int] = []
        producer.startWithValues { values.append($0) }
        producer.startWithValues { values.append($0) }
        XCTAssertEqual(values, [1, 2])
    }

    func testDisposingAStartInterruptsAndEndsItsLifetime() {
        var ended = false
        let producer = SignalProducer<Int, Never> { _, lifetime in
            lifetime.observeEnded { ended = true }
        }
        var events: [String] = []
        let disposable = producer.map { $0 + 1 }.start { events.append("\($0)") }
        XCTAssertFalse(ended)
        disposable.dispose()
        XCTAssertTrue(ended)
        XCTAssertEqual(events, ["INTERRUPTED"])
    }

    func testDisposingAStartBeforeItsWorkBeginsRunsNothingOfTheProducer() {
        var starts = 0
        let producer = SignalProducer<Int, Never> { observer, _ in
            starts += 1
            observer.send(value: 1)
        }
        var events: [String] = []
        producer.map { $0 + 1 }.startWithSignal { signal, disposable in
            signal.observe { events.append("\($0)") }
            disposable.dispose()
        }
        XCTAssertEqual(starts, 0)
        XCTAssertEqual(events, ["INTERRUPTED"])
    }

    func testAStartNothingObservesOrHoldsEndsWhenItsSetupReturns() {
        var ended = false
        let producer = SignalProducer<Int, Never> { _, lifetime in
            lifetime.observeEnded { ended = true }
        }
        producer.map { $0 + 1 }.startWithSignal { _, _ in }
        XCTAssertTrue(ended)

        // Held or observed, it runs on.
        ended = false
        var held: Signal<Int, Never>?
        producer.startWithSignal { signal, _ in held = signal }
        XCTAssertFalse(ended)
        var events: [String] = []
        held?.observe { events.append("\($0)") }
        producer.startWithSignal { signal, _ in signal.observe { events.append("\($0)") } }
        XCTAssertFalse(ended)
        XCTAssertEqual(events, [])
    }

    func testASignalNothingObservesOrHoldsIsDisposed() {
        let (source, input) = Signal<Int, Never>.pipe()
        var mapped = 0
        var ended = false
        func makeAndDrop() {
            _ = Signal<Int, Never> { _, lifetime in lifetime.observeEnded { ended = true } }
            _ = source.map { value -> Int in
                mapped += 1
                return value
            }
        }
        makeAndDrop()
        XCTAssertTrue(ended)
        input.send(value: 1)
        XCTAssertEqual(mapped, 0)

        // Held, or observed, a signal lives on.
        let held = source.map { value -> Int in
            mapped += 1
            return value
        }
        source.map { value -> Int in
            mapped += 1
            return value
        }.observeValues { _ in }
        input.send(value: 2)
        XCTAssertEqual(mapped, 2)
        withExtendedLifetime(held) {}
    }

    func testMapFilterOnAProducer() {
        var values: [Int] = []
        SignalProducer([1, 2, 3, 4, 5])
            .map { $0 * 10 }
            .filter { $0 > 20 }
            .startWithValues { values.append($0) }
        XCTAssertEqual(values, [30, 40, 50])
    }

    func testSkipNilAndCompactMap() {
        expectMarbles("-a---c|") { scheduler in
            scheduler.hot("-a-b-c|").map { $0 == "b" ? nil : $0 }.skipNil()
        }
        expectMarbles("-x--|") { scheduler in
            scheduler.cold("-a-b|").compactMap { $0 == "a" ? "x" : nil }
        }
    }

    func testFailurePassesThroughMap() {
        expectMarbles("-a-#") { scheduler in scheduler.hot("-a-#").map { $0 } }
    }

    func testMapErrorTransformsTheError() {
        let (signal, input) = Signal<Int, MarbleError>.pipe()
        var error: String?
        signal.mapError { "wrapped \($0)" as String }.observeFailed { error = $0 }
        input.send(error: MarbleError("boom"))
        XCTAssertEqual(error, "wrapped boom")
    }
}

extension String: @retroactive Error {}
