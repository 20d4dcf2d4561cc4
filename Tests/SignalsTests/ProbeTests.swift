import Signals
import XCTest

final class ProbeTests: XCTestCase {
    func testEventsAreReportedWithTheirCauses() {
        let probe = TestProbe()
        probe.attached {
            let (signal, input) = Signal<Int, Never>.pipe(named: "numbers")
            signal.map { $0 * 2 }.filter { $0 > 2 }.observeValues { _ in }
            input.send(value: 1)
            input.send(value: 2)
        }
        let summary = probe.sent.map { "\($0.node) \($0.value ?? "-") <- \($0.causes)" }
        XCTAssertEqual(summary, [
            "pipe 1 <- []", "map 2 <- [1]",
            "pipe 2 <- []", "map 4 <- [3]", "filter 4 <- [4]",
        ])
    }

    func testNodesCarryCallSiteUpstreamAndLabel() {
        let (signal, _) = Signal<Int, Never>.pipe(named: "text")
        let mapped = signal.map { $0 }
        XCTAssertEqual(mapped.node.name, "map")
        XCTAssertEqual(mapped.node.file, "SignalsTests/ProbeTests.swift")
        XCTAssertEqual(mapped.node.upstream.map(\.node), [signal.node])
        XCTAssertEqual(signal.node.label, "text")
    }

    func testTheSameCallSiteIsOneNodeWithManySubscriptions() {
        let probe = TestProbe()
        func search(_ text: String) -> SignalProducer<String, Never> { SignalProducer(value: text).map { $0 } }
        probe.attached {
            search("a").start()
            search("b").start()
        }
        let maps = probe.subscriptions.filter { $0.node.name == "map" }
        XCTAssertEqual(maps.count, 2)
        XCTAssertTrue(maps[0].node === maps[1].node)
        XCTAssertNotEqual(maps[0].subscription, maps[1].subscription)
    }

    func testOneCallSiteWithOtherParametersIsAnotherNodeWithItsOwnParameters() {
        let scheduler = TestScheduler()
        let (signal, _) = Signal<Int, Never>.pipe(named: "text")
        func debounced(_ interval: TimeInterval) -> Signal<Int, Never> { signal.debounce(interval, on: scheduler) }
        let short = debounced(0.3), long = debounced(0.5), again = debounced(0.3)
        XCTAssertFalse(short.node === long.node)
        XCTAssertTrue(short.node === again.node)
        XCTAssertEqual(short.node.parameters, "0.3s, on: test")
        XCTAssertEqual(long.node.parameters, "0.5s, on: test")
    }
    func testAnIntervalComputedInFloatingPointReadsAsMeantInItsNodesParameters() {
        let scheduler = TestScheduler()
        let (signal, _) = Signal<Int, Never>.pipe(named: "text")
        // 0.05 * 1.5 is 0.07500000000000001 and 0.05 * 3 is 0.15000000000000002 as doubles.
        XCTAssertEqual(signal.debounce(0.05 * 1.5, on: scheduler).node.parameters, "0.075s, on: test")
        XCTAssertEqual(signal.delay(0.05 * 3, on: scheduler).node.parameters, "0.15s, on: test")
        XCTAssertEqual(signal.delay(1, on: scheduler).node.parameters, "1.0s, on: test")
        XCTAssertEqual(signal.delay(0.000_000_001_4, on: scheduler).node.parameters, "1e-09s, on: test")
        // Past the nanosecond, two intervals are one node (the trace's clock cannot tell them apart).
        XCTAssertTrue(signal.delay(0.25, on: scheduler).node === signal.delay(0.25 + 1e-13, on: scheduler).node)
    }


    func testALabelGivenWhenANodeIsMadeTellsNodesAtOneCallSiteApart() {
        func input(_ name: String) -> Signal<Int, Never> { Signal<Int, Never>.pipe(named: name).output }
        let a = input("a"), b = input("b")
        XCTAssertFalse(a.node === b.node)
        XCTAssertEqual([a.node.label, b.node.label], ["a", "b"], "the second label did not overwrite the first")
        XCTAssertTrue(input("a").node === a.node)
        XCTAssertFalse(Node.input("x", file: #fileID, line: 1) === Node.input("y", file: #fileID, line: 1))
    }

    func testAValueIsDataNotAnotherNode() {
        func answer(_ value: Int) -> SignalProducer<Int, Never> { SignalProducer(value: value) }
        XCTAssertTrue(answer(1).node === answer(2).node, "one producer per value inside a flatMap is one node")
    }

    func testSinksAreReportedAsNodes() {
        let probe = TestProbe()
        probe.attached {
            SignalProducer(value: 1).startWithValues { _ in }
        }
        XCTAssertTrue(probe.subscriptions.contains { $0.node.kind == .sink && $0.node.name == "startWithValues" })
    }

    func testScheduledActionsCarryTheirCause() {
        let probe = TestProbe()
        let scheduler = TestScheduler()
        probe.attached {
            let (signal, input) = Signal<Int, Never>.pipe()
            let (later, laterInput) = Signal<Int, Never>.pipe()
            signal.observeValues { value in scheduler.schedule(after: 0.001) { laterInput.send(value: value) } }
            later.observeValues { _ in }
            input.send(value: 7)
            scheduler.run()
        }
        XCTAssertEqual(probe.sent.map(\.causes), [[], [1]])
    }

    func testNoProbeMeansNoReports() {
        let probe = TestProbe()
        let (signal, input) = Signal<Int, Never>.pipe()
        signal.observeValues { _ in }
        input.send(value: 1)
        XCTAssertTrue(probe.sent.isEmpty)
        XCTAssertNil(Instrumentation.probe)
    }

    func testDisposalIsReported() {
        let probe = TestProbe()
        probe.attached {
            let disposable = SignalProducer<Int, Never>.never.start()
            disposable.dispose()
        }
        XCTAssertTrue(probe.disposed.contains { $0.node.name == "never" })
        XCTAssertEqual(probe.sent.last?.kind, .interrupted)
    }
}
