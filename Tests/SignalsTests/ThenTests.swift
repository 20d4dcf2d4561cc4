import MarbleNotation
import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class ThenTests: XCTestCase {
    func testReplacementStartsWhenTheProducerCompletesAndItsValuesAreIgnored() {
        expectMarbles("----x-y|") { s in s.cold("-a-b|").then(s.cold("x-y|")) }
    }

    func testHotSignalThenStartsTheReplacementAtCompletion() {
        expectMarbles("----x|") { s in s.hot("-a-|").then(s.cold("-x|")) }
    }

    func testFailureSkipsTheReplacement() {
        var started = false
        expectMarbles("--#") { s in
            s.cold("-a#").then(SignalProducer<String, MarbleError> { _, _ in started = true })
        }
        XCTAssertFalse(started)
    }

    func testReplacementFailurePassesThrough() {
        expectMarbles("--x#") { s in s.cold("-a|").then(s.cold("x#")) }
    }

    func testDisposingInterruptsTheRunningReplacement() {
        let scheduler = TestScheduler()
        let collector = Collector<String, MarbleError>(scheduler)
        var replacementEnded = false
        let replacement = SignalProducer<String, MarbleError> { observer, lifetime in
            observer.send(value: "x")
            lifetime.observeEnded { replacementEnded = true }
        }
        let disposable = scheduler.cold("-a|").then(replacement).start(collector.observer)
        scheduler.schedule(atNanoseconds: 4 * MarbleNotation.millisecond) { disposable.dispose() }
        scheduler.run()
        assertMarbles(collector.events, "--x-‖")
        XCTAssertTrue(replacementEnded)
    }

    func testNodeHasTheUpstreamAsTriggerAndTheReplacementAsData() {
        let access = SignalProducer<Int, MarbleError>.empty
        let text = SignalProducer<String, MarbleError>(value: "magic")
        let pipeline = access.then(text)
        XCTAssertEqual(pipeline.node.name, "then")
        XCTAssertEqual(pipeline.node.upstream.map(\.role), [.trigger, .data])
        XCTAssertEqual(pipeline.node.upstream.map(\.node), [access.node, text.node])
    }

    func testTheReplacementStartIsAChildOfTheThenSubscription() {
        let probe = TestProbe()
        probe.attached {
            let replacement = SignalProducer<String, Never>(value: "x").named("replacement")
            SignalProducer<Int, Never>(value: 1).then(replacement).start()
        }
        let then = probe.subscriptions.first { $0.node.name == "then" }
        let replacement = probe.subscriptions.first { $0.node.label == "replacement" }
        XCTAssertNotNil(then)
        XCTAssertEqual(replacement?.parent, then?.subscription)
    }
}

final class PromotingThenTests: XCTestCase {
    private struct Broken: Error, Equatable {}

    func testThenFromAFailingProducerIntoOneThatCannotFail() {
        var events: [String] = []
        let first = SignalProducer<Int, Broken>(value: 1)
        first.then(SignalProducer<String, Never>(value: "next")).start { events.append("\($0)") }
        XCTAssertEqual(events, ["VALUE next", "COMPLETED"])
    }

    func testThenFromAProducerThatCannotFailIntoAFailingOne() {
        var events: [String] = []
        SignalProducer<Int, Never>(value: 1).then(SignalProducer<String, Broken>(error: Broken()))
            .start { events.append("\($0)") }
        XCTAssertEqual(events, ["FAILED Broken()"])
    }
}

final class InferredInnerProducerTests: XCTestCase {
    private struct Broken: Error {}

    func testInnerProducersWrittenAsInitTakeTheOuterTypes() {
        var values: [Int] = []
        SignalProducer<Int, Broken>([1, 2]).flatMap(.concat) { .init(value: $0 * 10) }.startWithValues { values.append($0) }
        let (signal, input) = Signal<Int, Never>.pipe()
        signal.flatMap(.latest) { .init(value: $0 + 1) }.observeValues { values.append($0) }
        input.send(value: 4)
        XCTAssertEqual(values, [10, 20, 5])
    }

    func testThenEmptyTakesTheProducersTypes() {
        var events: [String] = []
        SignalProducer<Int, Broken>(value: 1).then(.empty).start { events.append("\($0)") }
        SignalProducer<Int, Broken>(value: 1).then(.init(value: 2)).start { events.append("\($0)") }
        XCTAssertEqual(events, ["COMPLETED", "VALUE 2", "COMPLETED"])
    }
}
