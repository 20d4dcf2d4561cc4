import MarbleNotation
import MarbleStreams
import MarblesTesting
import Signals
import Synchronization
import XCTest

/// Counts the starts and the ends (completion, failure or disposal) of cold marble producers.
private final class StartCounter {
    var starts: [String] = []
    var ends: [String] = []

    /// A cold producer of `line` that records its starts and ends under `name`.
    func cold(_ scheduler: TestScheduler, _ name: String, _ line: String) -> SignalProducer<String, MarbleError> {
        let producer = scheduler.cold(line)
        return SignalProducer { observer, lifetime in
            self.starts.append(name)
            lifetime.observeEnded { self.ends.append(name) }
            lifetime += producer.start(observer)
        }
    }
}

final class FlattenTests: XCTestCase {
    // MARK: Strategies

    func testMergeRunsInnersConcurrentlyAndWaitsForThemToComplete() {
        expectMarbles("-a--b--a--b|") { scheduler in
            scheduler.hot("-a--b-----|").flatMap(.merge) { scheduler.cold("\($0)-----\($0)|") }
        }
    }

    func testConcatQueuesInnersAndRunsThemOneAfterAnother() {
        expectMarbles("-a-----ab-----b|") { scheduler in
            scheduler.hot("-a--b-----|").flatMap(.concat) { scheduler.cold("\($0)-----\($0)|") }
        }
    }

    func testLatestSwitchesToTheNewestInner() {
        expectMarbles("-a--b-----b|") { scheduler in
            scheduler.hot("-a--b-----|").flatMap(.latest) { scheduler.cold("\($0)-----\($0)|") }
        }
    }

    func testRaceKeepsTheFirstInnerToSendAndDisposesTheOthers() {
        let counter = StartCounter()
        let lines = ["a": "----a|", "b": "-b-b|"]
        expectMarbles("----b-b---|") { scheduler in
            scheduler.hot("-a-b------|").flatMap(.race) { counter.cold(scheduler, $0, lines[$0] ?? "") }
        }
        XCTAssertEqual(counter.starts, ["a", "b"])
        XCTAssertEqual(counter.ends, ["a", "b"], "the loser is disposed when the winner sends")
    }

    func testRaceIgnoresInnersArrivingAfterTheWin() {
        let counter = StartCounter()
        expectMarbles("-a-a--|") { scheduler in
            scheduler.hot("-a-b--|").flatMap(.race) { counter.cold(scheduler, $0, "\($0)-\($0)|") }
        }
        XCTAssertEqual(counter.starts, ["a"])
    }

    func testThrottleIgnoresNewInnersWhileOneRuns() {
        let counter = StartCounter()
        expectMarbles("-a---a---c---c|") { scheduler in
            scheduler.hot("-a-b-----c---|").flatMap(.throttle) { counter.cold(scheduler, $0, "\($0)---\($0)|") }
        }
        XCTAssertEqual(counter.starts, ["a", "c"])
    }

    func testConcurrentLimitRunsAtMostThatManyInners() {
        expectMarbles("-ab----a(bc)--c|") { scheduler in
            scheduler.hot("-abc------|").flatMap(.concurrent(limit: 2)) { scheduler.cold("\($0)-----\($0)|") }
        }
    }

    func testStrategiesDescribeThemselvesForTheNode() {
        XCTAssertEqual([FlattenStrategy.merge, .concat, .latest, .race, .throttle, .concurrent(limit: 3)].map(\.description),
                       ["merge", "concat", "latest", "race", "throttle", "concurrent(limit: 3)"])
        let (signal, _) = Signal<Int, Never>.pipe()
        let result = signal.flatMap(.latest) { SignalProducer<Int, Never>(value: $0) }
        XCTAssertEqual(result.node.name, "flatMap")
        XCTAssertEqual(result.node.parameters, "latest")
        XCTAssertEqual(result.node.upstream.map(\.node), [signal.node])
        XCTAssertEqual(result.node.upstream.map(\.role), [.data])
    }

    // MARK: Ordering

    func testSameFrameInnersKeepTheirOrder() {
        expectMarbles("-(ab)--|") { scheduler in
            scheduler.hot("-(ab)--|").flatMap(.merge) { scheduler.cold("\($0)|") }
        }
    }

    func testSynchronousInnersDeliverInOrderForEveryStrategy() {
        for strategy in [FlattenStrategy.merge, .concat, .latest, .throttle] {
            var values: [String] = []
            var completed = false
            SignalProducer<String, Never>(["a", "b", "c"])
                .flatMap(strategy) { SignalProducer<String, Never>([$0 + "1", $0 + "2"]) }
                .start(Signals.Observer(value: { values.append($0) }, completed: { completed = true }))
            XCTAssertEqual(values, ["a1", "a2", "b1", "b2", "c1", "c2"], "\(strategy)")
            XCTAssertTrue(completed, "\(strategy)")
        }
    }

    func testFlattenJoinsAProducerOfProducers() {
        var values: [Int] = []
        let inners = [SignalProducer<Int, Never>([1, 2]), SignalProducer<Int, Never>([3])]
        SignalProducer<SignalProducer<Int, Never>, Never>(inners).flatten(.concat).startWithValues { values.append($0) }
        XCTAssertEqual(values, [1, 2, 3])
    }

    func testFlattenJoinsASignalOfSignals() {
        let (outer, outerInput) = Signal<Signal<Int, Never>, Never>.pipe()
        let (first, firstInput) = Signal<Int, Never>.pipe()
        let (second, secondInput) = Signal<Int, Never>.pipe()
        var values: [Int] = []
        outer.flatten(.latest).observeValues { values.append($0) }
        outerInput.send(value: first)
        firstInput.send(value: 1)
        outerInput.send(value: second)
        firstInput.send(value: 2)
        secondInput.send(value: 3)
        XCTAssertEqual(values, [1, 3])
    }

    func testLatestOverPropertiesFollowsTheCurrentOne() {
        let first = MutableProperty(1), second = MutableProperty(10)
        let (outer, input) = Signal<MutableProperty<Int>, Never>.pipe()
        var values: [Int] = []
        outer.flatMap(.latest) { $0 }.observeValues { values.append($0) }
        input.send(value: first)
        first.value = 2
        input.send(value: second)
        first.value = 3
        second.value = 20
        XCTAssertEqual(values, [1, 2, 10, 20])
    }

    // MARK: Completion, failure, interruption

    func testLatestCompletesWhenOuterAndCurrentInnerHaveCompleted() {
        expectMarbles("-a-------|") { scheduler in
            scheduler.hot("-a-------|").flatMap(.latest) { scheduler.cold("\($0)|") }
        }
        expectMarbles("-a----a|") { scheduler in
            scheduler.hot("-a-|").flatMap(.latest) { scheduler.cold("\($0)----\($0)|") }
        }
    }

    func testInnerFailureFailsTheResultAndDisposesEverything() {
        let counter = StartCounter()
        let lines = ["a": "--#", "b": "b-----b|"]
        expectMarbles("-b--#") { scheduler in
            scheduler.hot("-ba------|").flatMap(.merge) { counter.cold(scheduler, $0, lines[$0] ?? "") }
        }
        XCTAssertEqual(counter.starts, ["b", "a"])
        XCTAssertEqual(counter.ends.sorted(), ["a", "b"])
    }

    func testOuterFailureFailsTheResultAndDisposesTheInners() {
        let counter = StartCounter()
        expectMarbles("-a--#") { scheduler in
            scheduler.hot("-a--#").flatMap(.merge) { counter.cold(scheduler, $0, "\($0)------\($0)|") }
        }
        XCTAssertEqual(counter.ends, ["a"])
    }

    func testInnerInterruptionInterruptsTheResult() {
        expectMarbles("-a-‖") { scheduler in
            scheduler.hot("-a-----|").flatMap(.merge) { scheduler.cold("\($0)-‖") }
        }
    }

    func testNeverFailingOuterTakesTheInnerError() {
        let (outer, input) = Signal<Int, Never>.pipe()
        var events: [String] = []
        outer.flatMap(.latest) { value -> SignalProducer<Int, MarbleError> in
            value < 0 ? SignalProducer(error: MarbleError("negative")) : SignalProducer(value: value)
        }.observe { events.append("\($0)") }
        input.send(value: 1)
        input.send(value: -1)
        input.send(value: 2)
        XCTAssertEqual(events, ["VALUE 1", "FAILED negative"])
    }

    func testNeverFailingInnersJoinAFailingOuter() {
        let (outer, input) = Signal<Int, MarbleError>.pipe()
        var events: [String] = []
        outer.flatMap(.merge) { SignalProducer<Int, Never>(value: $0 * 10) }.observe { events.append("\($0)") }
        input.send(value: 1)
        input.send(error: MarbleError())
        XCTAssertEqual(events, ["VALUE 10", "FAILED error"])
    }

    func testDisposingTheResultDisposesOuterAndInners() {
        let scheduler = TestScheduler()
        let counter = StartCounter()
        var outerEnded = false
        let outer = SignalProducer<String, MarbleError> { observer, lifetime in
            lifetime.observeEnded { outerEnded = true }
            lifetime += scheduler.cold("ab------|").start(observer)
        }
        let collector = Collector<String, MarbleError>(scheduler)
        let disposable = outer.flatMap(.merge) { counter.cold(scheduler, $0, "-\($0)------|") }.start(collector.observer)
        scheduler.advance(toNanoseconds: 3 * MarbleNotation.millisecond)
        disposable.dispose()
        scheduler.run()
        assertMarbles(collector.events, "-ab‖")
        XCTAssertEqual(counter.starts, ["a", "b"])
        XCTAssertEqual(counter.ends, ["a", "b"])
        XCTAssertTrue(outerEnded)
    }

    // MARK: Search as you type

    func testLatestCancelsASlowSearchWhenANewQueryArrives() {
        let counter = StartCounter()
        expectMarbles("------b------c--|") { scheduler in
            scheduler.hot("-a-b------c-----|").flatMap(.latest) { counter.cold(scheduler, $0, "---\($0)|") }
        }
        XCTAssertEqual(counter.starts, ["a", "b", "c"])
        XCTAssertEqual(counter.ends, ["a", "b", "c"])
    }

    func testFlattenMapIsAMergeRecordedUnderTheTutorialName() {
        expectMarbles("-a--b--a--b|") { scheduler in
            scheduler.hot("-a--b-----|").flattenMap { scheduler.cold("\($0)-----\($0)|") }
        }
        let (signal, _) = Signal<Int, Never>.pipe()
        let result = signal.flattenMap { SignalProducer<Int, Never>(value: $0) }
        XCTAssertEqual(result.node.name, "flattenMap")
        XCTAssertEqual(result.node.parameters, "merge")
    }

    // MARK: Instrumentation

    func testInnerSubscriptionsReportTheFlatMapSubscriptionAsParent() {
        let probe = TestProbe()
        probe.attached {
            let (outer, input) = Signal<Int, Never>.pipe()
            let result = outer.flatMap(.latest) { SignalProducer<Int, Never>(value: $0).map { $0 + 1 } }
            var values: [Int] = []
            result.observeValues { values.append($0) }
            input.send(value: 1)
            input.send(value: 2)
            XCTAssertEqual(values, [2, 3])
            let children = probe.subscriptions.filter { $0.parent == result.subscription && $0.node.kind != .sink }
            XCTAssertEqual(children.map(\.node.name),
                           ["SignalProducer(value:)", "map", "SignalProducer(value:)", "map"])
            let outerValues = probe.sent.filter { $0.subscription == outer.subscription && $0.kind == .value }
            let innerValues = probe.sent.filter { $0.node == "SignalProducer(value:)" && $0.kind == .value }
            XCTAssertEqual(innerValues.map(\.causes), outerValues.map { [$0.sequence] },
                           "an inner started by an outer value is caused by it")
        }
    }

    // MARK: Threads

    func testLatestSwitchingWhileInnersDeliverOnAnotherThreadKeepsOrderAndEnds() {
        let rounds = 2_000
        let inners = (0..<rounds).map { _ in Signal<Int, Never>.pipe() }
        let (outer, outerInput) = Signal<Int, Never>.pipe()
        let recorder = DeliveryRecorder<Int, Never>()
        outer.flatMap(.latest) { inners[$0].output.producer }.observe(recorder.observer)
        // The switching thread publishes the current inner; the other thread keeps sending
        // into it, so switches keep meeting deliveries in flight.
        let current = Synchronization.Atomic<Int>(-1)
        let switched = Synchronization.Atomic<Bool>(false)
        onThreads(2) { thread in
            if thread == 0 {
                for index in 0..<rounds {
                    outerInput.send(value: index)
                    current.store(index, ordering: .releasing)
                }
                switched.store(true, ordering: .releasing)
            } else {
                while !switched.load(ordering: .acquiring) {
                    let index = current.load(ordering: .acquiring)
                    if index >= 0 { inners[index].input.send(value: index) }
                }
            }
        }
        outerInput.sendCompleted()
        inners.forEach { $0.input.sendCompleted() }
        let values = recorder.events.compactMap(\.value)
        XCTAssertFalse(recorder.didOverlap, "two deliveries overlapped")
        XCTAssertEqual(values, values.sorted(), "a replaced inner's value arrived after a newer inner's")
        XCTAssertEqual(recorder.events.last.map { "\($0)" }, "COMPLETED")
        XCTAssertEqual(recorder.eventsAfterTerminal, 0)
    }

    func testMergeOfInnersOnManyThreadsIsSerialised() {
        let threads = 4, perThread = 1_000
        let inners = (0..<threads).map { _ in Signal<Int, Never>.pipe() }
        let (outer, outerInput) = Signal<Int, Never>.pipe()
        let recorder = DeliveryRecorder<Int, Never>()
        outer.flatMap(.merge) { inners[$0].output.producer }.observe(recorder.observer)
        (0..<threads).forEach { outerInput.send(value: $0) }
        outerInput.sendCompleted()
        onThreads(threads) { index in
            for value in 0..<perThread { inners[index].input.send(value: value) }
            inners[index].input.sendCompleted()
        }
        XCTAssertFalse(recorder.didOverlap, "two deliveries overlapped")
        XCTAssertEqual(recorder.events.count, threads * perThread + 1)
        XCTAssertEqual(recorder.events.last.map { "\($0)" }, "COMPLETED")
    }

    // MARK: Memory

    private final class Token {}

    func testDisposedLatestPipelineReleasesItsInnersAndObservers() {
        weak var weakToken: Token?
        weak var weakObserver: Signals.Observer<Int, Never>?
        let (outer, input) = Signal<Int, Never>.pipe()
        var disposable: Disposable?
        do {
            let token = Token()
            weakToken = token
            let inner = SignalProducer<Int, Never> { observer, _ in
                _ = token
                weakObserver = observer
            }
            disposable = SignalProducer(outer).flatMap(.latest) { _ in inner }.start()
            input.send(value: 1)
            input.send(value: 2)
        }
        XCTAssertNotNil(weakToken)
        XCTAssertNotNil(weakObserver)
        disposable?.dispose()
        XCTAssertNil(weakToken, "the inner producer is released")
        XCTAssertNil(weakObserver, "the inner observer is released")
    }

    func testCompletedLatestPipelineReleasesItsInnersAndObservers() {
        weak var weakToken: Token?
        weak var weakObserver: Signals.Observer<Int, Never>?
        let (outer, input) = Signal<Int, Never>.pipe()
        let (finish, finishInput) = Signal<Never, Never>.pipe()
        var completed = false
        do {
            let token = Token()
            weakToken = token
            let inner = SignalProducer<Int, Never> { observer, lifetime in
                _ = token
                weakObserver = observer
                lifetime += finish.observeCompleted { observer.sendCompleted() }
            }
            outer.flatMap(.latest) { _ in inner }.observeCompleted { completed = true }
            input.send(value: 1)
        }
        input.sendCompleted()
        XCTAssertFalse(completed)
        XCTAssertNotNil(weakObserver)
        finishInput.sendCompleted()
        XCTAssertTrue(completed)
        XCTAssertNil(weakToken, "the inner producer is released")
        XCTAssertNil(weakObserver, "the inner observer is released")
    }
}

final class FlattenSequenceTests: XCTestCase {
    func testFlattenSendsTheElementsOfEachValue() {
        var values: [Int] = []
        var completed = false
        SignalProducer([[1, 2], [], [3]]).flatten().start { event in
            if let value = event.value { values.append(value) }
            if case .completed = event { completed = true }
        }
        XCTAssertEqual(values, [1, 2, 3])
        XCTAssertTrue(completed)
        let (signal, input) = Signal<[String], Never>.pipe()
        var strings: [String] = []
        signal.flatten().observeValues { strings.append($0) }
        input.send(value: ["a", "b"])
        XCTAssertEqual(strings, ["a", "b"])
    }
}
