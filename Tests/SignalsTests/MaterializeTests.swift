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

final class MaterializeResultsTests: XCTestCase {
    private struct Broken: Error, Equatable {}

    func testMaterializeResultsTurnsAFailureIntoAValueThenCompletes() {
        var events: [String] = []
        SignalProducer<Int, Broken>(value: 1).concat(error: Broken()).materializeResults().start { event in
            switch event {
            case let .value(.success(value)): events.append("ok \(value)")
            case .value(.failure): events.append("failure")
            default: events.append("\(event)")
            }
        }
        XCTAssertEqual(events, ["ok 1", "failure", "COMPLETED"])
    }

    func testDematerializeResultsFailsAtTheFirstFailure() {
        let (signal, input) = Signal<Result<Int, Broken>, Never>.pipe()
        var events: [String] = []
        signal.dematerializeResults().observe { events.append("\($0)") }
        input.send(value: .success(1))
        input.send(value: .failure(Broken()))
        input.send(value: .success(2))
        XCTAssertEqual(events, ["VALUE 1", "FAILED Broken()"])
    }
}
