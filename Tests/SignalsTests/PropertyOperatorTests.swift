import MarbleNotation
import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class PropertyOperatorTests: XCTestCase {
    func testSkipRepeatsPropertyChangesOnlyForANewValue() {
        let source = MutableProperty(1)
        let distinct = source.skipRepeats()
        var seen: [Int] = []
        distinct.producer.startWithValues { seen.append($0) }
        source.value = 1
        source.value = 2
        source.value = 2
        source.value = 1
        XCTAssertEqual(seen, [1, 2, 1])
        XCTAssertEqual(distinct.value, 1)
    }

    func testUniqueValuesPropertyNeverReturnsToAValueItHeld() {
        let source = MutableProperty("a")
        let unique = source.uniqueValues()
        var seen: [String] = []
        unique.signal.observeValues { seen.append($0) }
        for value in ["b", "a", "c", "b"] { source.value = value }
        XCTAssertEqual(seen, ["b", "c"])
        XCTAssertEqual(unique.value, "c")
    }

    func testCombinePreviousPropertyPairsEachValueWithTheOneBefore() {
        let source = MutableProperty(1)
        let pairs = source.combinePrevious(0)
        XCTAssertEqual(pairs.value.0, 0)
        XCTAssertEqual(pairs.value.1, 1)
        source.value = 5
        XCTAssertEqual(pairs.value.0, 1)
        XCTAssertEqual(pairs.value.1, 5)
    }

    func testFilterPropertyKeepsTheLastValueThatPassed() {
        let source = MutableProperty(3)
        let even = source.filter(initial: 0) { $0 % 2 == 0 }
        XCTAssertEqual(even.value, 0)
        source.value = 4
        source.value = 7
        XCTAssertEqual(even.value, 4)
    }

    func testZipPropertyPairsTheNthValuesOfBoth() {
        let a = MutableProperty(1), b = MutableProperty("x")
        let zipped = a.zip(with: b)
        XCTAssertEqual(zipped.value.0, 1)
        XCTAssertEqual(zipped.value.1, "x")
        a.value = 2
        a.value = 3
        XCTAssertEqual(zipped.value.0, 1, "waits for b's second value")
        b.value = "y"
        XCTAssertEqual(zipped.value.0, 2)
        XCTAssertEqual(zipped.value.1, "y")
    }

    func testFlattenLatestFollowsTheInnerPropertyHeldNow() {
        let first = MutableProperty(1), second = MutableProperty(10)
        let outer = MutableProperty<MutableProperty<Int>>(first)
        let flat = outer.flatten(.latest)
        XCTAssertEqual(flat.value, 1)
        first.value = 2
        XCTAssertEqual(flat.value, 2)
        outer.value = second
        XCTAssertEqual(flat.value, 10)
        first.value = 3
        XCTAssertEqual(flat.value, 10, "the replaced inner property no longer counts")
    }

    func testACapturingPropertyKeepsItsSourceAlive() {
        var source: MutableProperty<Int>? = MutableProperty(1)
        weak let weakSource = source
        var captured: Property<Int>? = Property(capturing: source!)
        source = nil
        XCTAssertNotNil(weakSource)
        XCTAssertEqual(captured?.value, 1)
        captured = nil
        XCTAssertNil(weakSource)
    }

    func testAComposedPropertyOutlivesItsSourceAndCompletesWithIt() {
        var source: MutableProperty<Int>? = MutableProperty(1)
        weak let weakSource = source
        let composed = Property(source!)
        let mapped = source!.map { $0 * 10 }
        var events: [String] = []
        mapped.producer.start { events.append("\($0)") }
        source?.value = 2
        source = nil
        XCTAssertNil(weakSource, "a composed property does not retain its source")
        XCTAssertEqual(composed.value, 2)
        XCTAssertEqual(mapped.value, 20)
        XCTAssertEqual(events, ["VALUE 10", "VALUE 20", "COMPLETED"])
    }

    func testAnIntermediatePropertyMayGoWhileTheChainRuns() {
        let source = MutableProperty(1)
        weak var weakMiddle: Property<Int>?
        let last: Property<Int> = {
            let middle = source.map { $0 + 1 }
            weakMiddle = middle
            return middle.map { $0 * 2 }
        }()
        XCTAssertNil(weakMiddle)
        source.value = 5
        XCTAssertEqual(last.value, 12)
    }

    func testDerivedPropertyIsANodeFedByItsOperator() {
        let source = MutableProperty(1)
        let distinct = source.skipRepeats()
        let probe = TestProbe()
        Instrumentation.attach(probe)
        defer { Instrumentation.detach(probe) }
        distinct.producer.startWithValues { _ in }
        let names = probe.subscriptions.map(\.node.name)
        XCTAssertTrue(names.contains("producer"), "\(names)")
        let property = probe.subscriptions.map(\.node).first { $0.name == "producer" }?.upstream.first?.node
        XCTAssertEqual(property?.name, "Property")
        XCTAssertEqual(property?.upstream.first?.node.name, "skipRepeats")
    }
}

final class CombinePreviousAndUniqueValuesTests: XCTestCase {
    func testCombinePreviousWithoutInitialWaitsForTwoValues() {
        let (signal, input) = Signal<Int, Never>.pipe()
        var pairs: [String] = []
        signal.combinePrevious().observeValues { pairs.append("\($0.0)\($0.1)") }
        input.send(value: 1)
        input.send(value: 2)
        input.send(value: 3)
        XCTAssertEqual(pairs, ["12", "23"])
    }

    func testCombinePreviousWithInitialPairsTheFirstValueWithIt() {
        var pairs: [String] = []
        SignalProducer([1, 2]).combinePrevious(0).startWithValues { pairs.append("\($0.0)\($0.1)") }
        XCTAssertEqual(pairs, ["01", "12"])
    }

    func testUniqueValuesDropsAnyValueSeenBefore() {
        expectMarbles("-a-b-----c|") { scheduler in scheduler.hot("-a-b-a-b-c|").uniqueValues() }
        expectMarbles("-a-b------|") { scheduler in scheduler.cold("-a-b-A-B--|").uniqueValues { $0.lowercased() } }
    }
}

final class LazyMapTests: XCTestCase {
    func testLazyMapTransformsOnlyTheLatestValueWhenTheSchedulerRuns() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, Never>.pipe()
        var transformed: [Int] = []
        var events: [String] = []
        signal.lazyMap(on: scheduler) { value -> Int in
            transformed.append(value)
            return value * 10
        }.observe { events.append("\($0)") }
        input.send(value: 1)
        input.send(value: 2)
        XCTAssertEqual(transformed, [])
        scheduler.run()
        XCTAssertEqual(transformed, [2])
        input.send(value: 3)
        input.sendCompleted()
        XCTAssertEqual(events, ["VALUE 20"])
        scheduler.run()
        XCTAssertEqual(events, ["VALUE 20", "VALUE 30", "COMPLETED"])
    }

    func testLazyMapDropsTheWaitingValueOnInterruption() {
        let scheduler = TestScheduler()
        var events: [String] = []
        let disposable = SignalProducer<Int, Never>(value: 1).concat(SignalProducer<Int, Never>.never)
            .lazyMap(on: scheduler) { $0 }
            .start { events.append("\($0)") }
        disposable.dispose()
        scheduler.run()
        XCTAssertEqual(events, ["INTERRUPTED"])
    }
}

final class RepeatAndConcatTests: XCTestCase {
    func testRepeatRunsTheProducerAgainAfterEachCompletion() {
        expectMarbles("-a-b-a-b|") { scheduler in scheduler.cold("-a-b|").repeat(2) }
        var starts = 0
        let counted = SignalProducer<Int, Never> { observer, _ in
            starts += 1
            observer.sendCompleted()
        }
        var events: [String] = []
        counted.repeat(0).start { events.append("\($0)") }
        XCTAssertEqual(starts, 0)
        XCTAssertEqual(events, ["COMPLETED"])
    }

    func testRepeatStopsAtAFailure() {
        expectMarbles("-a-#") { scheduler in scheduler.cold("-a-#").repeat(3) }
    }

    func testRepeatOfAnImmediateProducerRunsInConstantStack() {
        var count = 0
        SignalProducer(value: 1).repeat(100_000).startWithValues { count += $0 }
        XCTAssertEqual(count, 100_000)
    }

    func testConcatStartsTheNextProducerWhenTheFirstCompletes() {
        expectMarbles("-a-b--c|") { scheduler in scheduler.cold("-a-b|").concat(scheduler.cold("--c|")) }
        expectMarbles("-a-#") { scheduler in scheduler.cold("-a-#").concat(scheduler.cold("--c|")) }
    }

    func testConcatValueAndErrorAndPrefix() {
        var events: [String] = []
        SignalProducer<Int, MarbleError>([1]).concat(value: 2).concat(error: MarbleError()).start { events.append("\($0)") }
        XCTAssertEqual(events.prefix(2), ["VALUE 1", "VALUE 2"])
        XCTAssertEqual(events.last?.hasPrefix("FAILED"), true)
        var values: [Int] = []
        SignalProducer([3]).prefix(SignalProducer([1, 2])).startWithValues { values.append($0) }
        XCTAssertEqual(values, [1, 2, 3])
    }
}
