import Signals
import XCTest

final class PropertyTests: XCTestCase {
    func testProducerSendsTheCurrentValueThenChangesAndSignalOnlyChanges() {
        let property = MutableProperty(1)
        var fromProducer: [Int] = []
        var fromSignal: [Int] = []
        property.producer.startWithValues { fromProducer.append($0) }
        property.signal.observeValues { fromSignal.append($0) }
        property.value = 2
        property.modify { $0 += 10 }
        XCTAssertEqual(property.swap(5), 12)
        XCTAssertEqual(fromProducer, [1, 2, 12, 5])
        XCTAssertEqual(fromSignal, [2, 12, 5])
        XCTAssertEqual(property.value, 5)
    }

    func testReleasingThePropertyCompletesItsObserversAndEndsItsLifetime() {
        var property: MutableProperty<Int>? = MutableProperty(0)
        var events: [String] = []
        var lifetimeEnded = false
        property?.producer.start { events.append("\($0)") }
        property?.lifetime.observeEnded { lifetimeEnded = true }
        property?.value = 1
        property = nil
        XCTAssertEqual(events, ["VALUE 0", "VALUE 1", "COMPLETED"])
        XCTAssertTrue(lifetimeEnded)
    }

    func testProducerStartedAfterReleaseSendsTheLastValueAndCompletes() {
        var property: MutableProperty<Int>? = MutableProperty(0)
        let producer = property!.producer
        property?.value = 3
        property = nil
        var events: [String] = []
        producer.start { events.append("\($0)") }
        XCTAssertEqual(events, ["VALUE 3", "COMPLETED"])
    }

    func testMappedPropertyFollowsItsSource() {
        let text = MutableProperty("ab")
        let valid = text.map { $0.count > 3 }
        var changes: [Bool] = []
        valid.producer.startWithValues { changes.append($0) }
        XCTAssertFalse(valid.value)
        text.value = "magic"
        XCTAssertTrue(valid.value)
        XCTAssertEqual(changes, [false, true])
    }

    func testCombinedPropertiesFollowBothSources() {
        let username = MutableProperty("us")
        let password = MutableProperty("pass")
        let both = username.map { $0.count > 3 }.combineLatest(with: password.map { $0.count > 3 })
        var pairs: [String] = []
        var changes: [String] = []
        both.producer.startWithValues { pairs.append("\($0.0) \($0.1)") }
        both.signal.observeValues { changes.append("\($0.0) \($0.1)") }
        username.value = "user"
        password.value = "pa"
        XCTAssertEqual(pairs, ["false true", "true true", "true false"])
        XCTAssertEqual(changes, ["true true", "true false"])
        XCTAssertTrue(both.value == (true, false))
    }

    func testPropertyFromInitialThenAStream() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let property = Property(initial: 0, then: signal)
        XCTAssertEqual(property.value, 0)
        input.send(value: 4)
        XCTAssertEqual(property.value, 4)
        let constant = Property(value: "c")
        var values: [String] = []
        constant.producer.startWithValues { values.append($0) }
        XCTAssertEqual(values, ["c"])
        XCTAssertEqual(Property(MutableProperty(9)).value, 9)
    }

    func testBindingSetsTheTargetUntilTheSourceEnds() {
        let target = MutableProperty("")
        let (signal, input) = Signal<String, Never>.pipe()
        target <~ signal
        input.send(value: "m")
        input.send(value: "ma")
        input.sendCompleted()
        input.send(value: "ignored")
        XCTAssertEqual(target.value, "ma")
    }

    func testBindingEndsWithTheTargetsLifetime() {
        var target: MutableProperty<Int>? = MutableProperty(0)
        var sourceDisposed = false
        let (signal, input) = Signal<Int, Never>.pipe()
        target! <~ SignalProducer(signal).on(disposed: { sourceDisposed = true })
        input.send(value: 1)
        XCTAssertEqual(target?.value, 1)
        target = nil
        XCTAssertTrue(sourceDisposed)
    }

    func testPropertyToPropertyBinding() {
        let source = MutableProperty(1)
        let target = MutableProperty(0)
        target <~ source
        XCTAssertEqual(target.value, 1)
        source.value = 2
        XCTAssertEqual(target.value, 2)
    }

    func testBindingToAnObjectKeyPathLikeRAC() {
        final class Field { var backgroundColor = "white" }
        let field = Field()
        let (lifetime, token) = Lifetime.make()
        let (text, input) = Signal<String, Never>.pipe()
        BindingTarget(object: field, keyPath: \.backgroundColor, lifetime: lifetime)
            <~ text.map { $0.count > 3 ? "white" : "yellow" }
        input.send(value: "ab")
        XCTAssertEqual(field.backgroundColor, "yellow")
        input.send(value: "abcd")
        XCTAssertEqual(field.backgroundColor, "white")
        token.end()
        input.send(value: "a")
        XCTAssertEqual(field.backgroundColor, "white")
    }

    func testBindingIntoAnEndedLifetimeDoesNothing() {
        let (lifetime, token) = Lifetime.make()
        token.end()
        var received: [Int] = []
        let disposable = BindingTarget<Int>(lifetime: lifetime) { received.append($0) } <~ SignalProducer(value: 1)
        XCTAssertNil(disposable)
        XCTAssertEqual(received, [])
    }

    func testBindingIsReportedAsASinkOfThePropertyNode() {
        let probe = TestProbe()
        probe.attached {
            let target = MutableProperty(0).named("count")
            target <~ SignalProducer([1, 2])
        }
        let sink = probe.subscriptions.first { $0.node.name == "<~" }
        XCTAssertEqual(sink?.node.kind, .sink)
        XCTAssertEqual(probe.sent.filter { $0.node == "MutableProperty" && $0.kind == .value }.map(\.value), ["1", "2"])
    }
}

final class BindingFormsTests: XCTestCase {
    func testBindingIntoAnOptionalTargetWrapsEachValue() {
        let target = MutableProperty<Int?>(nil)
        let (signal, input) = Signal<Int, Never>.pipe()
        target <~ signal
        input.send(value: 3)
        XCTAssertEqual(target.value, 3)
    }

    func testBindingIntoAMissingTargetDoesNothing() {
        let target: MutableProperty<Int>? = nil
        XCTAssertNil(target <~ SignalProducer(value: 1))
    }

    func testBindingIntoAnObserverSendsTheValuesOnly() {
        let (output, input) = Signal<Int, Never>.pipe()
        var events: [String] = []
        output.observe { events.append("\($0)") }
        input <~ SignalProducer([1, 2])
        XCTAssertEqual(events, ["VALUE 1", "VALUE 2"])
    }

    func testAKeyPathTargetWithReactiveSwiftsArgumentOrder() {
        final class Label { var text = "" }
        let label = Label()
        let (lifetime, token) = Lifetime.make()
        BindingTarget(lifetime: lifetime, object: label, keyPath: \.text) <~ SignalProducer(value: "hello")
        XCTAssertEqual(label.text, "hello")
        token.dispose()
        BindingTarget(lifetime: lifetime, object: label, keyPath: \.text) <~ SignalProducer(value: "late")
        XCTAssertEqual(label.text, "hello", "a target whose lifetime ended takes nothing")
    }
}
