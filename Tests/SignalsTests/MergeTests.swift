import Dispatch
import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class MergeTests: XCTestCase {
    func testMergeInterleavesValuesAndCompletesWhenAllHaveCompleted() {
        expectMarbles("-ab-c-d|") { scheduler in
            Signal.merge(scheduler.hot("-a--c-|"), scheduler.hot("--b---d|"))
        }
    }

    func testMergeKeepsSameFrameOrder() {
        expectMarbles("-(ab)-|") { scheduler in
            scheduler.hot("-a----|").merge(with: scheduler.hot("-b----|"))
        }
    }

    func testMergeFailsWhenAnyInputFails() {
        expectMarbles("-ab-#") { scheduler in
            Signal.merge([scheduler.hot("-a--#"), scheduler.hot("--b---c|")])
        }
    }

    func testMergeIsInterruptedWhenAnyInputIsInterrupted() {
        expectMarbles("-a-‖") { scheduler in
            Signal.merge(scheduler.hot("-a-‖"), scheduler.hot("-----b|"))
        }
    }

    func testMergedProducersStartTogether() {
        expectMarbles("ab-c|") { scheduler in
            SignalProducer.merge(scheduler.cold("a--c|"), scheduler.cold("-b|"))
        }
        expectMarbles("a(bc)|") { scheduler in
            scheduler.cold("ab---|").merge(with: scheduler.cold("-c|"))
        }
    }

    func testMergeOfNoProducersCompletes() {
        var events: [String] = []
        SignalProducer<Int, Never>.merge([SignalProducer<Int, Never>]()).start { events.append("\($0)") }
        XCTAssertEqual(events, ["COMPLETED"])
    }

    func testInterruptingAMergedProducerInterruptsEveryInput() {
        var ended: [String] = []
        func input(_ name: String) -> SignalProducer<Int, Never> {
            SignalProducer { _, lifetime in lifetime.observeEnded { ended.append(name) } }
        }
        var events: [String] = []
        let disposable = SignalProducer.merge(input("a"), input("b"), input("c")).start { events.append("\($0)") }
        XCTAssertEqual(ended, [])
        disposable.dispose()
        XCTAssertEqual(events, ["INTERRUPTED"])
        XCTAssertEqual(ended.sorted(), ["a", "b", "c"])
    }

    func testMergeNodeHasEveryInputAsData() {
        let (a, _) = Signal<Int, Never>.pipe()
        let (b, _) = Signal<Int, Never>.pipe()
        let merged = Signal.merge(a, b)
        XCTAssertEqual(merged.node.name, "merge")
        XCTAssertEqual(merged.node.upstream.map(\.node), [a.node, b.node])
        XCTAssertEqual(merged.node.upstream.map(\.role), [.data, .data])
    }

    func testValuesFromManyThreadsArriveSerialisedAndNothingFollowsTheEnd() {
        let threads = 4, perThread = 2_000
        let pipes = (0..<threads).map { _ in Signal<Int, Never>.pipe() }
        let recorder = DeliveryRecorder<Int, Never>()
        Signal.merge(pipes.map(\.output)).observe(recorder.observer)
        onThreads(threads) { index in
            for value in 0..<perThread { pipes[index].input.send(value: value) }
            pipes[index].input.sendCompleted()
        }
        let events = recorder.events
        XCTAssertFalse(recorder.didOverlap, "two deliveries overlapped")
        XCTAssertEqual(events.count, threads * perThread + 1)
        XCTAssertEqual(events.last.map { "\($0)" }, "COMPLETED")
        XCTAssertEqual(recorder.eventsAfterTerminal, 0)
    }

    func testAFailureRacingOtherThreadsEndsTheMergeForGood() {
        let threads = 4, perThread = 2_000
        let pipes = (0..<threads).map { _ in Signal<Int, MarbleError>.pipe() }
        let recorder = DeliveryRecorder<Int, MarbleError>()
        Signal.merge(pipes.map(\.output)).observe(recorder.observer)
        onThreads(threads) { index in
            for value in 0..<perThread {
                if index == 0 && value == perThread / 2 { pipes[index].input.send(error: MarbleError()) }
                pipes[index].input.send(value: value)
            }
        }
        let events = recorder.events
        XCTAssertFalse(recorder.didOverlap, "two deliveries overlapped")
        XCTAssertEqual(events.filter(\.isTerminating).count, 1)
        XCTAssertEqual(events.last.map { "\($0)" }, "FAILED error")
        XCTAssertEqual(recorder.eventsAfterTerminal, 0)
    }
}
