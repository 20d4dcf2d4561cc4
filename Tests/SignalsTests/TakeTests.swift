import MarbleNotation
import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class TakeTests: XCTestCase {
    // MARK: take(first:)

    func testTakeFirstSendsTheFirstValuesThenCompletes() {
        expectMarbles("-a-(b|)") { scheduler in scheduler.hot("-a-b-c|").take(first: 2) }
        expectMarbles("-a-(b|)") { scheduler in scheduler.cold("-a-b-c|").take(first: 2) }
    }

    func testTakeFirstPassesEarlierTermination() {
        expectMarbles("-a-#") { scheduler in scheduler.hot("-a-#").take(first: 5) }
        expectMarbles("-a-|") { scheduler in scheduler.cold("-a-|").take(first: 5) }
        expectMarbles("-a-‖") { scheduler in scheduler.cold("-a-‖").take(first: 5) }
    }

    func testTakeFirstInterruptsTheProducerItTookEnoughFrom() {
        var ended = false
        var values: [Int] = []
        let upstream = SignalProducer<Int, Never> { observer, lifetime in
            lifetime.observeEnded { ended = true }
            observer.send(value: 1)
            observer.send(value: 2)
        }
        upstream.take(first: 1).startWithValues { values.append($0) }
        XCTAssertEqual(values, [1])
        XCTAssertTrue(ended)
    }

    func testTakeFirstZeroOnAProducerInterruptsWithoutStartingUpstream() {
        var started = false
        let upstream = SignalProducer<Int, Never> { _, _ in started = true }
        var events: [String] = []
        upstream.take(first: 0).start { events.append("\($0)") }
        XCTAssertEqual(events, ["INTERRUPTED"])
        XCTAssertFalse(started)
        expectMarbles("‖") { scheduler in scheduler.cold("-a-b|").take(first: 0) }
    }

    func testTakeFirstZeroOnASignalHasEndedBeforeItIsObserved() {
        // A terminated signal interrupts whoever observes it later: the documented rule.
        expectMarbles("‖") { scheduler in scheduler.hot("-a-b|").take(first: 0) }
    }

    // MARK: take(while:)

    func testTakeWhileCompletesAtTheFirstValueThatFails() {
        expectMarbles("-a-b-|") { scheduler in scheduler.hot("-a-b-c-d|").take { $0 != "c" } }
        expectMarbles("-a-b-|") { scheduler in scheduler.cold("-a-b-c-d|").take { $0 != "c" } }
    }

    func testTakeWhilePassesFailure() {
        expectMarbles("-a-#") { scheduler in scheduler.hot("-a-#").take { _ in true } }
    }

    // MARK: take(until:)

    func testTakeUntilCompletesWhenTheTriggerSendsAValue() {
        expectMarbles("-a-b|") { scheduler in
            scheduler.hot("-a-b-c-d|").take(until: scheduler.hotTrigger("----x"))
        }
    }

    func testTakeUntilCompletesWhenTheTriggerCompletes() {
        expectMarbles("-a-b|") { scheduler in
            scheduler.hot("-a-b-c-d|").take(until: scheduler.hotTrigger("----|"))
        }
    }

    func testAnInterruptedTriggerStopsNothing() {
        expectMarbles("-a-b-c|") { scheduler in
            scheduler.hot("-a-b-c|").take(until: scheduler.hotTrigger("--‖"))
        }
    }

    func testTakeUntilPassesTheSourceTermination() {
        expectMarbles("-a-#") { scheduler in
            scheduler.hot("-a-#").take(until: scheduler.hotTrigger("------x"))
        }
    }

    func testTakeUntilOnProducersStartsTheTriggerWithEachStart() {
        let scheduler = TestScheduler()
        let producer = scheduler.cold("-a-b-c-d|").take(until: scheduler.coldTrigger("-----x"))
        let first = Collector<String, MarbleError>(scheduler)
        producer.start(first.observer)
        scheduler.advance(toNanoseconds: 10 * MarbleNotation.millisecond)
        let second = Collector<String, MarbleError>(scheduler)
        producer.start(second.observer)
        scheduler.run()
        assertMarbles(first.events, "-a-b-|")
        XCTAssertEqual(second.values, ["a", "b"])
        XCTAssertEqual(second.events.last?.time, 15 * MarbleNotation.millisecond)
    }

    func testTakeUntilInterruptsBothStartsWhenItCompletes() {
        var sourceEnded = false, triggerEnded = false
        let (triggerSignal, trigger) = Signal<Void, Never>.pipe()
        let source = SignalProducer<Int, Never> { _, lifetime in lifetime.observeEnded { sourceEnded = true } }
        let triggerProducer = SignalProducer<Void, Never> { observer, lifetime in
            lifetime.observeEnded { triggerEnded = true }
            lifetime += triggerSignal.observe(observer)
        }
        var events: [String] = []
        source.take(until: triggerProducer).start { events.append("\($0)") }
        trigger.send()
        XCTAssertEqual(events, ["COMPLETED"])
        XCTAssertTrue(sourceEnded)
        XCTAssertTrue(triggerEnded)
    }

    func testTakeUntilWithAHotTriggerOnAProducer() {
        let (reuse, prepareForReuse) = Signal<Void, Never>.pipe()
        let (loads, load) = Signal<Int, Never>.pipe()
        var events: [String] = []
        SignalProducer(loads).takeUntil(reuse).start { events.append("\($0)") }
        load.send(value: 1)
        prepareForReuse.send()
        load.send(value: 2)
        XCTAssertEqual(events, ["VALUE 1", "COMPLETED"])
    }

    func testTakeUntilReportsTheTriggerEdgeAndTheCauseOfItsCompletion() {
        let probe = TestProbe()
        var node: Node?
        probe.attached {
            let (values, input) = Signal<Int, Never>.pipe(named: "values")
            let (trigger, fire) = Signal<String, Never>.pipe(named: "trigger")
            let taken = values.take(until: trigger)
            node = taken.node
            taken.observeValues { _ in }
            input.send(value: 1)
            fire.send(value: "stop")
            input.send(value: 2)
        }
        XCTAssertEqual(node?.name, "take")
        XCTAssertEqual(node?.parameters, "until:")
        XCTAssertEqual(node?.upstream.map(\.role), [.data, .trigger])
        XCTAssertEqual(node?.upstream.map { $0.node.label }, ["values", "trigger"])
        let summary = probe.sent.map { "\($0.node) \($0.kind) \($0.value ?? "-") #\($0.sequence) <- \($0.causes)" }
        XCTAssertEqual(summary, [
            "pipe value 1 #1 <- []", "take value 1 #2 <- [1]",
            "pipe value stop #3 <- []", "take completed - #4 <- [3]",
            "pipe value 2 #5 <- []",
        ])
    }

    // MARK: take(last:)

    func testTakeLastSendsTheLastValuesOnCompletion() {
        let scheduler = TestScheduler()
        let collector = Collector<String, MarbleError>(scheduler)
        scheduler.hot("-a-b-c|").take(last: 2).observe(collector.observer)
        scheduler.run()
        XCTAssertEqual(collector.values, ["b", "c"])
        assertMarbles(collector.events, "------(bc|)")
    }

    func testTakeLastWithFewerValuesSendsThemAll() {
        var values: [Int] = []
        SignalProducer([1]).take(last: 3).startWithValues { values.append($0) }
        XCTAssertEqual(values, [1])
    }

    func testTakeLastZeroOnlyCompletes() {
        expectMarbles("----|") { scheduler in scheduler.cold("-a-b|").take(last: 0) }
    }

    func testTakeLastSendsNothingOnFailureOrInterruption() {
        expectMarbles("---#") { scheduler in scheduler.hot("-a-#").take(last: 1) }
        expectMarbles("---‖") { scheduler in scheduler.cold("-a-‖").take(last: 1) }
    }

    // MARK: Releasing

    func testACompletedTakePipelineReleasesWhatItHeld() {
        final class Resource {}
        weak var released: Resource?
        let (source, input) = Signal<Int, Never>.pipe()
        let (trigger, fire) = Signal<Void, Never>.pipe()
        var values: [Int] = []
        do {
            let resource = Resource()
            released = resource
            source
                .map { value -> Int in withExtendedLifetime(resource) { value } }
                .take { _ in withExtendedLifetime(resource) { true } }
                .take(until: trigger)
                .observeValues { values.append($0) }
        }
        input.send(value: 1)
        XCTAssertNotNil(released)
        fire.send()
        input.send(value: 2)
        XCTAssertEqual(values, [1])
        XCTAssertNil(released, "the pipeline's closures outlived its completion")
    }

    func testADisposedTakeProducerReleasesWhatItHeld() {
        final class Resource {}
        weak var released: Resource?
        let scheduler = TestScheduler()
        var disposable: Disposable?
        do {
            let resource = Resource()
            released = resource
            disposable = scheduler.cold("-a-b-c-d|")
                .take { _ in withExtendedLifetime(resource) { true } }
                .take(first: 3)
                .take(last: 2)
                .start()
        }
        scheduler.advance(toNanoseconds: 2 * MarbleNotation.millisecond)
        XCTAssertNotNil(released)
        disposable?.dispose()
        XCTAssertNil(released)
    }
}

private extension TestScheduler {
    /// A hot trigger line (it cannot fail, as `take(until:)` requires): values, `|` and `‖` only.
    func hotTrigger(_ line: String, file: StaticString = #filePath, lineNumber: UInt = #line) -> Signal<String, Never> {
        hot(line, symbols: MarbleSymbols(error: nil), file: file, line: lineNumber)
    }

    /// A cold trigger line, its frames counted from each start.
    func coldTrigger(_ line: String, file: StaticString = #filePath, lineNumber: UInt = #line) -> SignalProducer<String, Never> {
        cold(line, symbols: MarbleSymbols(error: nil), file: file, line: lineNumber)
    }
}

final class TakeReactiveSwiftFormsTests: XCTestCase {
    // MARK: take(until:) with a predicate

    func testTakeUntilAPredicateSendsTheValueThatFailsItThenCompletes() {
        expectMarbles("-a-b-(c|)") { scheduler in scheduler.hot("-a-b-c-d|").take(until: { $0 != "c" }) }
        expectMarbles("-a-b-(c|)") { scheduler in scheduler.cold("-a-b-c-d|").take(until: { $0 != "c" }) }
        expectMarbles("-(a|)") { scheduler in scheduler.hot("-a-b|").take(until: { _ in false }) }
    }

    func testATrailingClosureTakeStaysTakeWhile() {
        expectMarbles("-a-b-|") { scheduler in scheduler.hot("-a-b-c-d|").take { $0 != "c" } }
    }

    // MARK: take(during:)

    func testTakeDuringCompletesWhenTheLifetimeEnds() {
        let scheduler = TestScheduler()
        let (lifetime, token) = Lifetime.make()
        let collector = Collector<String, MarbleError>(scheduler)
        scheduler.hot("-a-b-c-d|").take(during: lifetime).observe(collector.observer)
        scheduler.schedule(after: 0.004) { token.end() }
        scheduler.run()
        assertMarbles(collector.events, "-a-b|")
    }

    func testTakeDuringAnEndedLifetimeGivesAnEndedStream() {
        let (lifetime, token) = Lifetime.make()
        token.end()
        var events: [String] = []
        // The stream completed as it was made, before the start observed it: like any
        // stream that ended before it was observed, it interrupts its observer.
        SignalProducer([1, 2]).take(during: lifetime).start { events.append("\($0)") }
        XCTAssertEqual(events, ["INTERRUPTED"])
    }

    // MARK: take(untilReplacement:)

    func testTakeUntilReplacementSwitchesAtTheReplacementsFirstEvent() {
        expectMarbles("-a-b-x-y|") { scheduler in
            scheduler.hot("-a-b--c-d|").take(untilReplacement: scheduler.hot("-----x-y|"))
        }
    }

    func testTakeUntilReplacementIgnoresTheCompletionOfTheStreamItReplaces() {
        expectMarbles("-a----x|") { scheduler in
            scheduler.hot("-a-|").take(untilReplacement: scheduler.hot("------x|"))
        }
    }

    func testTakeUntilReplacementOnProducersStartsBoth() {
        expectMarbles("-a-x|") { scheduler in
            scheduler.cold("-a-b-c|").take(untilReplacement: scheduler.cold("---x|"))
        }
    }
}

final class LifetimeObservationTests: XCTestCase {
    func testDisposingAnEndObservationTakesItsActionBackOut() {
        let (lifetime, token) = Lifetime.make()
        var ran: [String] = []
        let first = lifetime.observeEnded { ran.append("first") }
        lifetime.observeEnded { ran.append("second") }
        first?.dispose()
        XCTAssertEqual(ran, [])
        token.dispose()
        XCTAssertEqual(ran, ["second"])
        XCTAssertNil(lifetime.observeEnded { ran.append("late") }, "an ended lifetime runs the action at once")
        XCTAssertEqual(ran, ["second", "late"])
    }

}
