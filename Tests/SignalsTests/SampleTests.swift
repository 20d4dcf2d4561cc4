import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class SampleTests: XCTestCase {
    func testSampleOnSendsTheLatestValueEachTimeTheSamplerSends() {
        expectMarbles("--a-b-b---c|") { scheduler in
            scheduler.hot("-a-b---c--|").sample(on: scheduler.hotTrigger("--x-x-x---x|"))
        }
    }

    func testSamplerValuesBeforeTheFirstValueSendNothing() {
        expectMarbles("----a--|") { scheduler in
            scheduler.hot("---a--|").sample(on: scheduler.hotTrigger("-x--x--|"))
        }
    }

    func testSampleFailsWhenTheSourceFails() {
        expectMarbles("--a-#") { scheduler in
            scheduler.hot("-a--#").sample(on: scheduler.hotTrigger("--x----x|"))
        }
    }

    func testSampleWithPairsTheSampledValueWithTheSamplersValue() {
        let collector = collect { scheduler in
            scheduler.hot("-a--b-|").sample(with: scheduler.hotValues("--1-2--|")).map { $0 + $1 }
        }
        XCTAssertEqual(collector.values, ["a1", "b2"])
        assertMarbles(collector.events, "--x-y--|", values: ["x": "a1", "y": "b2"])
    }

    func testSampleNodeMarksTheSampler() {
        let (source, _) = Signal<Int, Never>.pipe()
        let (sampler, _) = Signal<(), Never>.pipe()
        let sampled = source.sample(on: sampler)
        XCTAssertEqual(sampled.node.name, "sample(on:)")
        XCTAssertEqual(sampled.node.upstream.map(\.node), [source.node, sampler.node])
        XCTAssertEqual(sampled.node.upstream.map(\.role), [.data, .sampler])
    }

    func testWithLatestPairsEachValueWithTheLatestOfTheOther() {
        let collector = collect { scheduler in
            scheduler.hot("-a--b--c-|").withLatest(from: scheduler.hotValues("--1---2|")).map { $0 + $1 }
        }
        XCTAssertEqual(collector.values, ["b1", "c2"])
        assertMarbles(collector.events, "----x--y-|", values: ["x": "b1", "y": "c2"])
    }

    func testWithLatestEndsWithTheSourceOnly() {
        expectMarbles("--x--y#", values: ["x": "a1", "y": "b1"]) { scheduler in
            scheduler.hot("--a--b#").withLatest(from: scheduler.hotValues("-1|")).map { $0 + $1 }
        }
    }

    func testWithLatestStartsTheSampleeProducerFirst() {
        var values: [String] = []
        SignalProducer<Int, Never>([1, 2]).withLatest(from: SignalProducer<String, Never>(value: "x"))
            .startWithValues { values.append("\($0.0)\($0.1)") }
        XCTAssertEqual(values, ["1x", "2x"])
    }

    func testWithLatestNodeMarksTheLatestInputAndTheOtherCause() {
        let probe = TestProbe()
        probe.attached {
            let (source, sourceInput) = Signal<Int, Never>.pipe()
            let (samplee, sampleeInput) = Signal<String, Never>.pipe()
            let result = source.withLatest(from: samplee)
            result.observeValues { _ in }
            XCTAssertEqual(result.node.upstream.map(\.role), [.data, .latest])
            sampleeInput.send(value: "x")
            sourceInput.send(value: 1)
            let sampleeSent = probe.sent.filter { $0.subscription == samplee.subscription }.map(\.sequence)
            let sourceSent = probe.sent.filter { $0.subscription == source.subscription }.map(\.sequence)
            let causes = probe.sent.filter { $0.subscription == result.subscription }.map(\.causes)
            XCTAssertEqual(causes, [[sourceSent[0], sampleeSent[0]]])
        }
    }

    func testProducerSampleStartsBothAndSamplesOnEachSamplerValue() {
        let collector = collect { scheduler in
            let (signal, input) = Signal<String, MarbleError>.pipe()
            scheduler.cold("-a--b-|").sample(on: SignalProducer(scheduler.hotTrigger("--x--x-x|")))
                .start(Signals.Observer(input.send))
            return signal
        }
        assertMarbles(collector.events, "--a--b-b|")
    }

    func testProducerSampleWithPairsValues() {
        var values: [String] = []
        let scheduler = TestScheduler()
        scheduler.cold("a---b|").sample(with: SignalProducer(scheduler.hotValues("-1---2-3|")))
            .startWithValues { values.append($0 + $1) }
        scheduler.run()
        XCTAssertEqual(values, ["a1", "b2", "b3"])
    }

    func testSignalWithLatestFromAProducerStartsItAndStopsItWithTheResult() {
        var ended = false
        let samplee = SignalProducer<String, Never> { observer, lifetime in
            observer.send(value: "x")
            lifetime.observeEnded { ended = true }
        }
        let (source, input) = Signal<Int, MarbleError>.pipe()
        var events: [String] = []
        source.withLatest(from: samplee).observe { events.append("\($0)") }
        input.send(value: 1)
        XCTAssertFalse(ended)
        input.sendCompleted()
        XCTAssertEqual(events, [#"VALUE (1, "x")"#, "COMPLETED"])
        XCTAssertTrue(ended, "the samplee's start is interrupted when the result ends")
    }

    func testProducerWithLatestFromASignal() {
        let (samplee, sampleeInput) = Signal<String, Never>.pipe()
        let (source, sourceInput) = Signal<Int, Never>.pipe()
        var values: [String] = []
        SignalProducer(source).withLatest(from: samplee).startWithValues { values.append("\($0.0)\($0.1)") }
        sourceInput.send(value: 1)
        sampleeInput.send(value: "x")
        sourceInput.send(value: 2)
        XCTAssertEqual(values, ["2x"])
    }
}

final class SampleConvertibleSamplerTests: XCTestCase {
    func testAProducerSampledOnAHotSignal() {
        let (values, input) = Signal<Int, Never>.pipe()
        let (sampler, tick) = Signal<Void, Never>.pipe()
        var sampled: [Int] = []
        SignalProducer(values).sample(on: sampler).startWithValues { sampled.append($0) }
        input.send(value: 1)
        input.send(value: 2)
        tick.send(value: ())
        XCTAssertEqual(sampled, [2])
    }
}
