import Dispatch
import Signals
import XCTest

/// `named(_:)` gives one use of a call site a labelled node of its own, and the probe hears of
/// the instance only with that node: no node is ever relabelled.
final class NamedTests: XCTestCase {
    /// One call site, used with a label, with another label and with none.
    private func mapped(_ signal: Signal<Int, Never>, _ label: String?) -> Signal<Int, Never> {
        let mapped = signal.map { $0 + 1 }
        return label.map { mapped.named($0) } ?? mapped
    }

    func testTwoLabelsAtOneCallSiteAreTwoNodesAndTheUnnamedUseStaysUnlabelled() {
        let (signal, _) = Signal<Int, Never>.pipe(named: "numbers")
        let a = mapped(signal, "a"), b = mapped(signal, "b"), plain = mapped(signal, nil)
        XCTAssertFalse(a.node === b.node)
        XCTAssertEqual([a.node.label, b.node.label, plain.node.label], ["a", "b", nil])
        XCTAssertTrue(mapped(signal, "a").node === a.node, "one label at one call site is one node")
        for node in [a.node, b.node] {
            XCTAssertEqual(node.name, "map")
            XCTAssertEqual(node.file, plain.node.file)
            XCTAssertEqual(node.line, plain.node.line)
            XCTAssertEqual(node.upstream.map(\.node), [signal.node])
        }
    }

    func testTheProbeHearsOfANamedSignalOnlyWithItsLabel() {
        let probe = TestProbe()
        probe.attached {
            let (signal, input) = Signal<Int, Never>.pipe(named: "numbers")
            mapped(signal, "first").observeValues { _ in }
            mapped(signal, "second").observeValues { _ in }
            input.send(value: 1)
        }
        let maps = probe.subscriptions.filter { $0.node.name == "map" }
        XCTAssertEqual(maps.map(\.node.label), ["first", "second"])
        XCTAssertEqual(probe.sent.map(\.node), ["pipe", "map", "map"])
        XCTAssertEqual(Set(probe.sent.map(\.subscription)).count, 3)
        let sinks = probe.subscriptions.filter { $0.node.kind == .sink }
        XCTAssertEqual(sinks.map(\.node.upstream.first?.node.label), ["first", "second"])
        XCTAssertEqual(sinks.map(\.parent), maps.map(\.subscription))
    }

    func testSubscriptionsAreReportedInTheOrderTheyWereMade() {
        let probe = TestProbe()
        var made: [UInt64] = []
        probe.attached {
            let (signal, _) = Signal<Int, Never>.pipe()
            let first = signal.map { $0 }.named("first")
            let second = signal.filter { $0 > 0 }
            let third = first.map { $0 }.named("third")
            made = [signal.subscription, first.subscription, second.subscription, third.subscription]
        }
        XCTAssertEqual(probe.subscriptions.map(\.subscription), made, "detaching reports the last one made")
    }

    func testNamingASignalAlreadyObservedAddsANamedNodeAndLeavesItsNodeAlone() {
        let probe = TestProbe()
        var values: [Int] = []
        probe.attached {
            let (signal, input) = Signal<Int, Never>.pipe()
            let doubled = signal.map { $0 * 2 }
            doubled.observeValues { _ in }
            let named = doubled.named("late")
            XCTAssertNil(doubled.node.label)
            XCTAssertEqual(named.node.name, "named")
            XCTAssertEqual(named.node.label, "late")
            XCTAssertEqual(named.node.upstream.map(\.node), [doubled.node])
            named.observeValues { values.append($0) }
            input.send(value: 2)
        }
        XCTAssertEqual(values, [4])
        XCTAssertEqual(probe.sent.map(\.node), ["pipe", "map", "named"])
    }

    func testAnOperatorBuiltOnASignalFixesItsNode() {
        let (signal, _) = Signal<Int, Never>.pipe()
        let mapped = signal.map { $0 }
        let downstream = mapped.filter { $0 > 0 }
        let named = mapped.named("after")
        XCTAssertFalse(named === mapped, "the node the filter was built on stays what it was")
        XCTAssertTrue(downstream.node.upstream[0].node === mapped.node)
        XCTAssertNil(mapped.node.label)
    }

    func testANamedProducerGivesEachStartTheLabelledNode() {
        let probe = TestProbe()
        func lookup(_ label: String?) -> SignalProducer<Int, Never> {
            let producer = SignalProducer<Int, Never>(value: 1).map { $0 * 10 }
            return label.map { producer.named($0) } ?? producer
        }
        XCTAssertFalse(lookup("x").node === lookup("y").node)
        XCTAssertEqual(lookup("x").node.label, "x")
        XCTAssertNil(lookup(nil).node.label)
        probe.attached {
            lookup("x").start()
            lookup("y").start()
            lookup(nil).start()
        }
        let maps = probe.subscriptions.filter { $0.node.name == "map" }
        XCTAssertEqual(maps.map(\.node.label), ["x", "y", nil])
        XCTAssertTrue(maps[0].node === lookup("x").node)
        XCTAssertEqual(probe.sent.filter { $0.node == "map" && $0.kind == .value }.map(\.value), ["10", "10", "10"])
    }

    func testANamedPropertyIsANodeOfItsOwnAndItsProducerFollows() {
        func counter(_ label: String) -> MutableProperty<Int> { MutableProperty(0).named(label) }
        let a = counter("a"), b = counter("b")
        XCTAssertFalse(a.node === b.node)
        XCTAssertEqual([a.node.label, b.node.label], ["a", "b"])
        XCTAssertEqual(a.signal.node, a.node)
        XCTAssertEqual(a.producer.node.upstream.map(\.node), [a.node])
        let made = MutableProperty(0, named: "made")
        XCTAssertEqual(made.node.label, "made")
        let probe = TestProbe()
        probe.attached {
            let property = counter("counted")
            property.producer.startWithValues { _ in }
            property.value = 1
        }
        XCTAssertEqual(probe.subscriptions.first?.node.label, "counted")
        XCTAssertEqual(probe.subscriptions.map(\.node.name), ["MutableProperty", "producer", "startWithValues"])
    }

    func testASignalFirstUsedOnAnotherThreadIsReportedBeforeItsEvents() {
        let probe = TestProbe()
        probe.attached {
            let (signal, input) = Signal<Int, Never>.pipe(named: "source")
            let named = signal.map { $0 }.named("elsewhere")
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                named.observeValues { _ in }
                input.send(value: 1)
            }
            group.wait()
        }
        let maps = probe.subscriptions.filter { $0.node.name == "map" }
        XCTAssertEqual(maps.map(\.node.label), ["elsewhere"])
        XCTAssertEqual(probe.sent.map(\.node), ["pipe", "map"])
    }
}
