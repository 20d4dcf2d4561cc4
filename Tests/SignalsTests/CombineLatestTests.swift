import MarblesTesting
import Signals
import XCTest

final class CombineLatestTests: XCTestCase {
    func testCombinesTheLatestOfEachOnceAllHaveSentAndCompletesWhenAllComplete() {
        let collector = collect { scheduler in
            Signal.combineLatest(scheduler.hot("-a--b---|"), scheduler.hot("---1--2|"), reduce: +)
        }
        XCTAssertEqual(collector.values, ["a1", "b1", "b2"])
        assertMarbles(collector.events, "---ab-c-|", values: ["a": "a1", "b": "b1", "c": "b2"])
    }

    func testTuplesOfTwoThreeAndFour() {
        var pairs: [String] = [], triples: [String] = [], quads: [String] = []
        let a = SignalProducer<Int, Never>([1, 2]), b = SignalProducer<String, Never>(value: "x")
        let c = SignalProducer<Bool, Never>(value: true), d = SignalProducer<Double, Never>(value: 0.5)
        SignalProducer.combineLatest(a, b).startWithValues { pairs.append("\($0)") }
        SignalProducer.combineLatest(a, b, c).startWithValues { triples.append("\($0)") }
        SignalProducer.combineLatest(a, b, c, d).startWithValues { quads.append("\($0)") }
        XCTAssertEqual(pairs, [#"(2, "x")"#])
        XCTAssertEqual(triples, [#"(2, "x", true)"#])
        XCTAssertEqual(quads, [#"(2, "x", true, 0.5)"#])
    }

    func testSignalTuplesOfThreeAndFour() {
        let (a, ai) = Signal<Int, Never>.pipe(), (b, bi) = Signal<String, Never>.pipe()
        let (c, ci) = Signal<Bool, Never>.pipe(), (d, di) = Signal<Int, Never>.pipe()
        var triples: [String] = [], quads: [String] = []
        Signal.combineLatest(a, b, c).observeValues { triples.append("\($0)") }
        Signal.combineLatest(a, b, c, d).observeValues { quads.append("\($0)") }
        ai.send(value: 1)
        bi.send(value: "x")
        ci.send(value: false)
        di.send(value: 7)
        ai.send(value: 2)
        XCTAssertEqual(triples, [#"(1, "x", false)"#, #"(2, "x", false)"#])
        XCTAssertEqual(quads, [#"(1, "x", false, 7)"#, #"(2, "x", false, 7)"#])
    }

    func testArrayFormGivesValuesInInputOrder() {
        let collector = collect { scheduler in
            Signal.combineLatest([scheduler.hot("--a---|"), scheduler.hot("-b--c-|"), scheduler.hot("---d--|")])
                .map { $0.joined() }
        }
        XCTAssertEqual(collector.values, ["abd", "acd"])
        assertMarbles(collector.events, "---xy-|", values: ["x": "abd", "y": "acd"])
    }

    func testWithIsTheTwoInputForm() {
        var values: [String] = []
        SignalProducer<Int, Never>(value: 1).combineLatest(with: SignalProducer<Int, Never>([10, 20]))
            .startWithValues { values.append("\($0.0 + $0.1)") }
        XCTAssertEqual(values, ["11", "21"])
    }

    func testReduceIsTheTutorialsSignInButtonEnabling() {
        let (username, usernameInput) = Signal<String, Never>.pipe()
        let (password, passwordInput) = Signal<String, Never>.pipe()
        let validUsername = username.map { $0.count > 3 }
        let validPassword = password.map { $0.count > 3 }
        var enabled: [Bool] = []
        Signal.combineLatest([validUsername, validPassword]) { $0.allSatisfy { $0 } }.observeValues { enabled.append($0) }
        usernameInput.send(value: "user")
        passwordInput.send(value: "pw")
        passwordInput.send(value: "secret")
        usernameInput.send(value: "u")
        XCTAssertEqual(enabled, [false, true, false])
        let node = Signal.combineLatest([validUsername, validPassword]) { $0.allSatisfy { $0 } }.node
        XCTAssertEqual(node.name, "combineLatest")
        XCTAssertEqual(node.parameters, "reduce")
        XCTAssertEqual(node.upstream.map(\.node), [validUsername.node, validPassword.node])
    }

    func testProducerReduceOverTwoInputs() {
        var values: [Int] = []
        SignalProducer.combineLatest(SignalProducer<Int, Never>(value: 2), SignalProducer<Int, Never>([3, 4]), reduce: *)
            .startWithValues { values.append($0) }
        XCTAssertEqual(values, [6, 8])
    }

    func testFailsWhenAnyInputFails() {
        expectMarbles("-x#", values: ["x": "a1"]) { scheduler in
            Signal.combineLatest(scheduler.hot("-a----|"), scheduler.hot("-1#"), reduce: +)
        }
    }

    func testAnInputThatNeverSendsHoldsBackEverything() {
        expectMarbles("-------|") { scheduler in
            Signal.combineLatest(scheduler.hot("-a-b-|"), scheduler.hot("-------|"), reduce: +)
        }
    }

    func testCombiningNothingCompletesAtOnce() {
        var events: [String] = []
        SignalProducer.combineLatest([SignalProducer<Int, Never>]()).start { events.append("\($0)") }
        XCTAssertEqual(events, ["COMPLETED"])
    }

    func testInterruptingTheResultInterruptsEveryInput() {
        var ended: [String] = []
        func input(_ name: String) -> SignalProducer<Int, Never> {
            SignalProducer { observer, lifetime in
                observer.send(value: 1)
                lifetime.observeEnded { ended.append(name) }
            }
        }
        var events: [String] = []
        let disposable = SignalProducer.combineLatest(input("a"), input("b")).start { events.append("\($0)") }
        disposable.dispose()
        XCTAssertEqual(events, ["VALUE (1, 1)", "INTERRUPTED"])
        XCTAssertEqual(ended.sorted(), ["a", "b"])
    }

    func testEveryInputsLatestEventIsACause() {
        let probe = TestProbe()
        probe.attached {
            let (a, aInput) = Signal<Int, Never>.pipe()
            let (b, bInput) = Signal<Int, Never>.pipe()
            let combined = Signal.combineLatest(a, b)
            combined.observeValues { _ in }
            aInput.send(value: 1)
            bInput.send(value: 10)
            aInput.send(value: 2)
            let aSent = probe.sent.filter { $0.subscription == a.subscription }.map(\.sequence)
            let bSent = probe.sent.filter { $0.subscription == b.subscription }.map(\.sequence)
            let combinedCauses = probe.sent.filter { $0.subscription == combined.subscription }.map(\.causes)
            XCTAssertEqual(combinedCauses, [[bSent[0], aSent[0]], [aSent[1], bSent[0]]])
        }
    }

    func testValuesFromManyThreadsArriveSerialisedAndEndWithEveryLastValue() {
        let threads = 4, perThread = 2_000
        let pipes = (0..<threads).map { _ in Signal<Int, Never>.pipe() }
        let recorder = DeliveryRecorder<[Int], Never>()
        Signal.combineLatest(pipes.map(\.output)).observe(recorder.observer)
        onThreads(threads) { index in
            for value in 1...perThread { pipes[index].input.send(value: value) }
            pipes[index].input.sendCompleted()
        }
        let events = recorder.events
        XCTAssertFalse(recorder.didOverlap, "two deliveries overlapped")
        XCTAssertEqual(events.dropLast().last?.value, Array(repeating: perThread, count: threads))
        XCTAssertEqual(events.last.map { "\($0)" }, "COMPLETED")
        XCTAssertEqual(recorder.eventsAfterTerminal, 0)
    }
}
