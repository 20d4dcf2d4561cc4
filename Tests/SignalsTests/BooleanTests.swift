import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class BooleanTests: XCTestCase {
    private let bools = ["t": true, "f": false]

    func testNegateFlipsEachValue() {
        expectMarbles("-f-t-|", values: bools) { scheduler in scheduler.hot("-t-f-|", values: bools).negate() }
        expectMarbles("-f-t-|", values: bools) { scheduler in scheduler.cold("-t-f-|", values: bools).negate() }
    }

    func testAndIsTrueOnlyWhileBothLatestValuesAre() {
        expectMarbles("--f-t--f|", values: bools) { scheduler in
            scheduler.hot("-t-----f|", values: bools).and(scheduler.hot("--f-t---|", values: bools))
        }
    }

    func testOrIsTrueWhileEitherLatestValueIs() {
        expectMarbles("--tf--t|", values: bools) { scheduler in
            scheduler.cold("-t-f---|", values: bools).or(scheduler.cold("--f---t|", values: bools))
        }
    }

    func testAllAndAnyOverSeveralSignals() {
        expectMarbles("---f-t|", values: bools) { scheduler in
            Signal.all(scheduler.hot("-t----|", values: bools), scheduler.hot("--t---|", values: bools),
                       scheduler.hot("---f-t|", values: bools))
        }
        expectMarbles("---t-f|", values: bools) { scheduler in
            Signal.any([scheduler.hot("-f----|", values: bools), scheduler.hot("--f---|", values: bools),
                        scheduler.hot("---t-f|", values: bools)])
        }
    }

    func testAllAndAnyOfNoProducersSendTheirIdentityAndComplete() {
        var events: [String] = []
        SignalProducer<Bool, Never>.all([SignalProducer<Bool, Never>]()).start { events.append("\($0)") }
        SignalProducer<Bool, Never>.any([SignalProducer<Bool, Never>]()).start { events.append("\($0)") }
        XCTAssertEqual(events, ["VALUE true", "COMPLETED", "VALUE false", "COMPLETED"])
    }

    func testBooleanPropertiesFollowTheirSources() {
        let a = MutableProperty(true), b = MutableProperty(false)
        let both = a.and(b), either = a.or(b), notA = a.negate()
        XCTAssertEqual([both.value, either.value, notA.value], [false, true, false])
        b.value = true
        XCTAssertEqual([both.value, either.value, notA.value], [true, true, false])
        a.value = false
        XCTAssertEqual([both.value, either.value, notA.value], [false, true, true])
        XCTAssertTrue(Property.all([MutableProperty(true), MutableProperty(true)]).value)
        XCTAssertFalse(Property.any(MutableProperty(false), MutableProperty(false)).value)
        XCTAssertTrue(Property<Bool>.all([MutableProperty<Bool>]()).value)
        XCTAssertFalse(Property<Bool>.any([MutableProperty<Bool>]()).value)
    }

    func testBooleanNodesAreNamedForTheirOperator() {
        let (a, _) = Signal<Bool, Never>.pipe(), (b, _) = Signal<Bool, Never>.pipe()
        XCTAssertEqual(a.negate().node.name, "negate")
        XCTAssertEqual(a.and(b).node.name, "and")
        XCTAssertEqual(a.or(b).node.upstream.map(\.node), [a.node, b.node])
        XCTAssertEqual(Signal.all(a, b).node.name, "all")
        XCTAssertEqual(Signal.any(a, b).node.name, "any")
    }
}
