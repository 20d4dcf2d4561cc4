import Dispatch
import Foundation
import Signals
import Synchronization
import XCTest

/// Operators with one upstream (`map`, `filter`, `scan`, `take`, `on`…) share their upstream's
/// serializer and deliver without a lock of their own. The contract must not notice: serialised
/// delivery per observer, one terminal event, nothing after `dispose()` returns, reentrancy,
/// and with a probe attached every operator is still a node with its own events.
final class FusionTests: XCTestCase {
    /// map → filter → compactMap → scan → skipRepeats → on(value:) → take(first:), with the
    /// values, the side effects and the terminal event it delivered.
    private func runChain(_ inputs: [Int]) -> (values: [Int], effects: [Int], terminal: String) {
        var values: [Int] = [], effects: [Int] = [], terminal = "none"
        let (signal, input) = Signal<Int, Never>.pipe(named: "numbers")
        let kept: Signal<Int, Never> = signal
            .map { $0 + 1 }
            .filter { $0 % 3 != 0 }
            .compactMap { $0 % 5 == 0 ? nil : $0 }
        let summed: Signal<Int, Never> = kept
            .scan(0) { $0 + $1 }
            .map { $0 / 10 }
            .skipRepeats()
        summed
            .on(value: { effects.append($0) })
            .take(first: 4)
            .observe { event in
                switch event {
                case let .value(value): values.append(value)
                case .completed: terminal = "completed"
                case .interrupted: terminal = "interrupted"
                }
            }
        for value in inputs { input.send(value: value) }
        input.sendCompleted()
        return (values, effects, terminal)
    }

    func testAFusedChainDeliversTheSameWithAndWithoutAProbe() {
        let inputs = Array(0..<40)
        let plain = runChain(inputs)
        XCTAssertEqual(plain.values, [0, 1, 2, 3])
        XCTAssertEqual(plain.effects, [0, 1, 2, 3])
        XCTAssertEqual(plain.terminal, "completed")

        let probe = TestProbe()
        var recorded: (values: [Int], effects: [Int], terminal: String)?
        probe.attached { recorded = runChain(inputs) }
        XCTAssertEqual(recorded?.values, plain.values)
        XCTAssertEqual(recorded?.effects, plain.effects)
        XCTAssertEqual(recorded?.terminal, plain.terminal)
        // Every operator is still a node of its own, with its own subscription and events.
        let operators = ["map", "filter", "compactMap", "scan", "skipRepeats", "on", "take"]
        let subscribed = probe.subscriptions.map(\.node.name).filter { operators.contains($0) }
        XCTAssertEqual(subscribed, ["map", "filter", "compactMap", "scan", "map", "skipRepeats", "on", "take"])
        // The first input passes every stage: each event is caused by the one before it.
        let first = probe.sent.prefix(9)
        XCTAssertEqual(first.map(\.node), ["pipe", "map", "filter", "compactMap", "scan", "map", "skipRepeats", "on", "take"])
        for (cause, effect) in zip(first, first.dropFirst()) {
            XCTAssertEqual(effect.causes, [cause.sequence], "\(effect.node) is caused by \(cause.node)")
        }
        // take(first: 4) completes after its fourth value; it and nothing downstream sends more.
        let takes = probe.sent.filter { $0.node == "take" }
        XCTAssertEqual(takes.map(\.kind), [.value, .value, .value, .value, .completed])
        XCTAssertEqual(probe.sent.filter { $0.node == "skipRepeats" && $0.kind == .value }.count, 4)
    }

    func testAnObserverJoiningDuringADeliveryGetsTheNestedEventsOnly() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let mapped = signal.map { $0 * 10 }
        var first: [Int] = [], joined: [Int] = []
        mapped.observeValues { value in
            first.append(value)
            if value == 10 {
                mapped.observeValues { joined.append($0) }
                input.send(value: 2)
            }
        }
        input.send(value: 1)
        input.send(value: 3)
        XCTAssertEqual(first, [10, 20, 30])
        XCTAssertEqual(joined, [20, 30])
    }

    func testAnObserverLeavingDuringADeliveryGetsNothingMoreAndTheOthersGoOn() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let filtered = signal.filter { $0 > 0 }
        var leaving: [Int] = [], staying: [Int] = []
        var disposable: Disposable?
        disposable = filtered.observeValues { value in
            leaving.append(value)
            disposable?.dispose()
            input.send(value: value + 100)
        }
        filtered.observeValues { staying.append($0) }
        input.send(value: 1)
        input.send(value: 2)
        XCTAssertEqual(leaving, [1])
        XCTAssertEqual(staying, [101, 1, 2])
    }

    func testATerminalEventSentFromInsideADeliveryEndsTheChainOnce() {
        let (signal, input) = Signal<Int, Never>.pipe()
        var events: [String] = []
        signal.map { $0 }.scan(0, +).observe { event in
            events.append("\(event)")
            if event.value == 3 { input.sendCompleted() }
        }
        for value in 1...4 { input.send(value: value) }
        input.sendCompleted()
        XCTAssertEqual(events, ["VALUE 1", "VALUE 3", "COMPLETED"])
    }

    func testTheLastObserverLeavingDetachesTheChainFromItsUpstream() {
        let probe = TestProbe()
        // Held past the recording: a pipe nothing observes or holds is disposed, too.
        var held: Signal<Int, Never>?
        probe.attached {
            let (signal, input) = Signal<Int, Never>.pipe()
            held = signal
            let disposable = signal.map { $0 }.filter { _ in true }.observeValues { _ in }
            input.send(value: 1)
            disposable?.dispose()
            input.send(value: 2)
        }
        XCTAssertEqual(probe.sent.map { "\($0.node) \($0.value ?? "-")" }, ["pipe 1", "map 1", "filter 1", "pipe 2"])
        XCTAssertEqual(Set(probe.disposed.map(\.node.name)), ["map", "filter"])
        XCTAssertNotNil(held)
    }

    /// Observers join and leave a fused chain from other threads while one thread sends:
    /// each sees an increasing run of values, one delivery at a time, nothing after its
    /// `dispose()` returned.
    func testObserversJoiningAndLeavingFromOtherThreadsWhileTheChainDelivers() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let chain = signal.map { $0 * 2 }.filter { $0 % 4 == 0 }.scan(0) { max($0, $1) }
        chain.observeValues { _ in }
        let failures = Synchronization.Atomic<Int>(0)
        let delivered = Synchronization.Atomic<Int>(0)
        let sending = Synchronization.Atomic<Bool>(true)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            if thread == 0 {
                for value in 0..<50_000 { input.send(value: value) }
                sending.store(false, ordering: .releasing)
                return
            }
            while sending.load(ordering: .acquiring) {
                let last = Mutex(-1)
                let inside = Synchronization.Atomic<Bool>(false)
                let returned = Synchronization.Atomic<Bool>(false)
                let disposable = chain.observeValues { value in
                    if inside.exchange(true, ordering: .acquiringAndReleasing) { failures.add(1, ordering: .relaxed) }
                    if returned.load(ordering: .acquiring) { failures.add(1, ordering: .relaxed) }
                    last.withLock { last in
                        if value < last { failures.add(1, ordering: .relaxed) }
                        last = value
                    }
                    delivered.add(1, ordering: .relaxed)
                    inside.store(false, ordering: .releasing)
                }
                for _ in 0..<50 where sending.load(ordering: .relaxed) { sched_yield() }
                disposable?.dispose()
                returned.store(true, ordering: .releasing)
            }
        }
        XCTAssertEqual(failures.load(ordering: .relaxed), 0)
        XCTAssertGreaterThan(delivered.load(ordering: .relaxed), 0)
    }

    /// A started producer's fused chain interrupted from another thread while its values flow:
    /// exactly one terminal event, nothing after it.
    func testInterruptingAFusedProducerChainFromAnotherThread() {
        for _ in 0..<100 {
            let terminals = Synchronization.Atomic<Int>(0)
            let afterTerminal = Synchronization.Atomic<Int>(0)
            let values = Synchronization.Atomic<Int>(0)
            let producer = SignalProducer<Int, Never> { observer, lifetime in
                DispatchQueue.global().async {
                    var value = 0
                    while !lifetime.hasEnded {
                        observer.send(value: value)
                        value += 1
                    }
                }
            }
            let done = DispatchSemaphore(value: 0)
            let disposable = producer.map { $0 + 1 }.filter { $0 > 0 }.take(while: { _ in true }).start { event in
                if terminals.load(ordering: .acquiring) > 0 { afterTerminal.add(1, ordering: .relaxed) }
                if event.isTerminating {
                    terminals.add(1, ordering: .releasing)
                    done.signal()
                } else {
                    values.add(1, ordering: .relaxed)
                }
            }
            while values.load(ordering: .relaxed) < 10 { sched_yield() }
            disposable.dispose()
            done.wait()
            XCTAssertEqual(terminals.load(ordering: .relaxed), 1)
            XCTAssertEqual(afterTerminal.load(ordering: .relaxed), 0)
        }
    }

    /// A user's value: a string and an array, which a copy retains.
    private struct Reading: Equatable {
        var name: String
        var value: Int
        var tags: [String]
    }

    /// Sends twelve readings through map → filter → compactMap → scan, each with
    /// `send(value:)` or as an event with `send(.value(…))`, to three kinds of observer.
    private func runReadings(asEvents: Bool)
        -> (values: [Reading], events: [String], callbacks: [Reading], completed: Bool) {
        var values: [Reading] = [], events: [String] = [], callbacks: [Reading] = [], completed = false
        let (signal, input) = Signal<Reading, Never>.pipe(named: "readings")
        let summed = signal
            .map { Reading(name: $0.name.uppercased(), value: $0.value + 1, tags: $0.tags + ["mapped"]) }
            .filter { $0.value % 3 != 0 }
            .compactMap { $0.value % 5 == 0 ? nil : $0 }
            .scan(Reading(name: "", value: 0, tags: [])) {
                Reading(name: $1.name, value: $0.value + $1.value, tags: $1.tags)
            }
        summed.observeValues { values.append($0) }
        summed.observe { events.append("\($0)") }
        summed.observe(Signal<Reading, Never>.Observer(value: { callbacks.append($0) }, completed: { completed = true }))
        for index in 0..<12 {
            let reading = Reading(name: "sensor-\(index)", value: index, tags: index % 2 == 0 ? ["even"] : [])
            if asEvents {
                input.send(.value(reading))
            } else {
                input.send(value: reading)
            }
        }
        input.sendCompleted()
        return (values, events, callbacks, completed)
    }

    /// `map`, `filter`, `compactMap` and `scan` pass a value sent with `send(value:)` on by a
    /// path of their own, lent from stage to stage with no event made around it; a value sent
    /// as an event takes the events' path. Every kind of observer gets the same from both, and
    /// a probe sees the same events.
    func testAValueSentAsAValueOrAsAnEventTravelsAlike() {
        let expected = [
            Reading(name: "SENSOR-0", value: 1, tags: ["even", "mapped"]),
            Reading(name: "SENSOR-1", value: 3, tags: ["mapped"]),
            Reading(name: "SENSOR-3", value: 7, tags: ["mapped"]),
            Reading(name: "SENSOR-6", value: 14, tags: ["even", "mapped"]),
            Reading(name: "SENSOR-7", value: 22, tags: ["mapped"]),
            Reading(name: "SENSOR-10", value: 33, tags: ["even", "mapped"]),
        ]
        for asEvents in [false, true] {
            let run = runReadings(asEvents: asEvents)
            XCTAssertEqual(run.values, expected, "sent as events: \(asEvents)")
            XCTAssertEqual(run.callbacks, expected, "sent as events: \(asEvents)")
            XCTAssertEqual(run.events, expected.map { "VALUE \($0)" } + ["COMPLETED"], "sent as events: \(asEvents)")
            XCTAssertTrue(run.completed, "sent as events: \(asEvents)")
        }

        func recorded(asEvents: Bool) -> [String] {
            let probe = TestProbe()
            let run = probe.attached { runReadings(asEvents: asEvents) }
            XCTAssertEqual(run.values, expected, "sent as events: \(asEvents), probe attached")
            return probe.sent.map { "\($0.node) \($0.kind) \($0.value ?? "-")" }
        }
        let lent = recorded(asEvents: false)
        XCTAssertEqual(lent.filter { $0.hasPrefix("scan value") }.count, expected.count)
        XCTAssertEqual(lent.filter { $0.hasPrefix("pipe value") }.count, 12)
        XCTAssertEqual(lent, recorded(asEvents: true))
    }
}
