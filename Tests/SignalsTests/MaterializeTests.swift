import MarbleNotation
import MarbleStreams
import MarblesTesting
import Signals
import XCTest

/// One letter per materialized event: the value itself, or C(ompleted), F(ailed), I(nterrupted).
private func letter(_ event: Event<String, MarbleError>) -> String {
    switch event {
    case let .value(value): return value
    case .completed: return "C"
    case .failed: return "F"
    case .interrupted: return "I"
    }
}

final class MaterializeTests: XCTestCase {
    func testEveryEventBecomesAValueThenTheStreamCompletes() {
        expectMarbles("-a-(C|)") { s in s.cold("-a-|").materialize().map(letter) }
    }

    func testFailureBecomesAValue() {
        expectMarbles("-a(F|)") { s in s.cold("-a#").materialize().map(letter) }
    }

    func testInterruptionIsSentAsAValueAndThenInterrupts() {
        expectMarbles("-a(I‖)") { s in s.hot("-a‖").materialize().map(letter) }
    }

    func testDematerializeInvertsMaterialize() {
        expectMarbles("-a-#") { s in s.cold("-a-#").materialize().dematerialize() }
        expectMarbles("-a-b|") { s in s.hot("-a-b|").materialize().dematerialize() }
    }

    func testDematerializeOfExplicitEvents() {
        var events: [String] = []
        SignalProducer<Event<Int, MarbleError>, Never>([.value(1), .failed(MarbleError("x")), .value(2)])
            .dematerialize()
            .start { events.append("\($0)") }
        XCTAssertEqual(events, ["VALUE 1", "FAILED x"])
    }

    func testDisposingAMaterializedProducerSendsTheInterruptionAsAValueFirst() {
        let scheduler = TestScheduler()
        let collector = Collector<String, Never>(scheduler)
        let disposable = scheduler.cold("-a--b|").materialize().map(letter).start(collector.observer)
        scheduler.schedule(atNanoseconds: 2 * MarbleNotation.millisecond) { disposable.dispose() }
        scheduler.run()
        assertMarbles(collector.events, "-a(I‖)")
    }
}
