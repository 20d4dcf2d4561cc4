import MarbleNotation
import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class SkipTests: XCTestCase {
    func testSkipFirstDropsTheFirstValues() {
        expectMarbles("-----c|") { scheduler in scheduler.hot("-a-b-c|").skip(first: 2) }
        expectMarbles("-a-b-c|") { scheduler in scheduler.hot("-a-b-c|").skip(first: 0) }
    }

    func testSkipFirstPassesFailureAndInterruption() {
        expectMarbles("---#") { scheduler in scheduler.hot("-a-#").skip(first: 5) }
        expectMarbles("---‖") { scheduler in scheduler.cold("-a-‖").skip(first: 5) }
    }

    func testSkipFirstCountsAnewOnEachStart() {
        let producer = SignalProducer([1, 2, 3]).skip(first: 1)
        var values: [Int] = []
        producer.startWithValues { values.append($0) }
        producer.startWithValues { values.append($0) }
        XCTAssertEqual(values, [2, 3, 2, 3])
    }

    func testSkipWhileDropsUntilThePredicateFirstFails() {
        expectMarbles("-----c-a|") { scheduler in scheduler.hot("-a-b-c-a|").skip { $0 != "c" } }
        expectMarbles("-----c-a|") { scheduler in scheduler.cold("-a-b-c-a|").skip { $0 != "c" } }
    }

    func testSkipWhileNeverSatisfiedPassesOnlyTheTerminalEvent() {
        expectMarbles("-----|") { scheduler in scheduler.hot("-a-b-|").skip { _ in true } }
        expectMarbles("-----#") { scheduler in scheduler.hot("-a-b-#").skip { _ in true } }
    }

    func testSkipNodesNameTheirVariant() {
        let (signal, _) = Signal<Int, Never>.pipe()
        XCTAssertEqual(signal.skip(first: 3).node.description.hasPrefix("skip(first: 3)"), true)
        XCTAssertEqual(signal.skip { $0 > 0 }.node.parameters, "while:")
    }
}

final class SkipUntilTests: XCTestCase {
    func testSkipUntilDropsEverythingBeforeTheTriggerSends() {
        expectMarbles("-----c-d|") { scheduler in
            scheduler.hot("-a-b-c-d|").skip(until: scheduler.hotTrigger("----x"))
        }
    }

    func testSkipUntilOpensWhenTheTriggerCompletes() {
        expectMarbles("-----c-d|") { scheduler in
            scheduler.hot("-a-b-c-d|").skip(until: scheduler.hotTrigger("----|"))
        }
    }

    func testSkipUntilStaysClosedAfterAnInterruptedTrigger() {
        var events: [String] = []
        let (values, input) = Signal<Int, Never>.pipe()
        let (trigger, triggerInput) = Signal<Void, Never>.pipe()
        values.skip(until: trigger).observe { events.append("\($0)") }
        triggerInput.sendInterrupted()
        input.send(value: 1)
        XCTAssertEqual(events, [])
    }

    func testSkipUntilOnProducersStartsTheTriggerWithEachStart() {
        expectMarbles("---b-c|") { scheduler in
            scheduler.cold("-a-b-c|").skip(until: scheduler.cold("--x", symbols: MarbleSymbols<String, Never>(error: nil)))
        }
    }
}
