import MarblesTesting
import Signals
import XCTest

final class ZipTests: XCTestCase {
    func testPairsTheNthValuesAndCompletesWhenAnInputIsExhausted() {
        let collector = collect { scheduler in
            Signal.zip(scheduler.hot("-a-b-c-|"), scheduler.hot("--1---2|")).map { $0 + $1 }
        }
        XCTAssertEqual(collector.values, ["a1", "b2"])
        assertMarbles(collector.events, "--x---y|", values: ["x": "a1", "y": "b2"])
    }

    func testCompletesAsSoonAsACompletedInputsLastValueIsPaired() {
        let collector = collect { scheduler in
            scheduler.hot("-a|").zip(with: scheduler.hot("--1-2-|")).map { $0 + $1 }
        }
        XCTAssertEqual(collector.values, ["a1"])
        assertMarbles(collector.events, "--(x|)", values: ["x": "a1"])
    }

    func testFailsWhenAnInputFails() {
        expectMarbles("--x-#", values: ["x": "a1"]) { scheduler in
            Signal.zip(scheduler.hot("-ab---|"), scheduler.hot("--1-#")).map { $0 + $1 }
        }
    }

    func testTuplesOfThreeAndFourAndArrays() {
        let a = SignalProducer<Int, Never>([1, 2, 3]), b = SignalProducer<String, Never>(["x", "y"])
        let c = SignalProducer<Bool, Never>([true, false]), d = SignalProducer<Int, Never>([7])
        var triples: [String] = [], quads: [String] = [], arrays: [[Int]] = []
        SignalProducer.zip(a, b, c).startWithValues { triples.append("\($0)") }
        SignalProducer.zip(a, b, c, d).startWithValues { quads.append("\($0)") }
        SignalProducer.zip([a, a.map { $0 * 10 }, d]).startWithValues { arrays.append($0) }
        XCTAssertEqual(triples, [#"(1, "x", true)"#, #"(2, "y", false)"#])
        XCTAssertEqual(quads, [#"(1, "x", true, 7)"#])
        XCTAssertEqual(arrays, [[1, 10, 7]])
    }

    func testSignalArraysAndTuples() {
        let (a, ai) = Signal<Int, Never>.pipe(), (b, bi) = Signal<Int, Never>.pipe(), (c, ci) = Signal<Int, Never>.pipe()
        var arrays: [[Int]] = [], triples: [String] = []
        Signal.zip([a, b, c]).observeValues { arrays.append($0) }
        Signal.zip(a, b, c).observeValues { triples.append("\($0)") }
        ai.send(value: 1)
        ai.send(value: 2)
        bi.send(value: 10)
        ci.send(value: 100)
        bi.send(value: 20)
        ci.send(value: 200)
        XCTAssertEqual(arrays, [[1, 10, 100], [2, 20, 200]])
        XCTAssertEqual(triples, ["(1, 10, 100)", "(2, 20, 200)"])
    }

    func testPairedValuesAreTheCauses() {
        let probe = TestProbe()
        probe.attached {
            let (a, aInput) = Signal<Int, Never>.pipe()
            let (b, bInput) = Signal<Int, Never>.pipe()
            let zipped = Signal.zip(a, b)
            zipped.observeValues { _ in }
            aInput.send(value: 1)
            aInput.send(value: 2)
            bInput.send(value: 10)
            bInput.send(value: 20)
            let aSent = probe.sent.filter { $0.subscription == a.subscription }.map(\.sequence)
            let bSent = probe.sent.filter { $0.subscription == b.subscription }.map(\.sequence)
            let zippedCauses = probe.sent.filter { $0.subscription == zipped.subscription }.map(\.causes)
            XCTAssertEqual(zippedCauses, [[bSent[0], aSent[0]], [bSent[1], aSent[1]]])
        }
    }

    func testZipNodeHasEveryInputAsData() {
        let (a, _) = Signal<Int, Never>.pipe()
        let (b, _) = Signal<String, Never>.pipe()
        let zipped = Signal.zip(a, b)
        XCTAssertEqual(zipped.node.name, "zip")
        XCTAssertEqual(zipped.node.upstream.map(\.node), [a.node, b.node])
    }

    func testProducerZipWithPairsInOrder() {
        var values: [String] = []
        SignalProducer<Int, Never>([1, 2, 3]).zip(with: SignalProducer<String, Never>(["a", "b"]))
            .startWithValues { values.append("\($0.0)\($0.1)") }
        XCTAssertEqual(values, ["1a", "2b"])
    }
}
