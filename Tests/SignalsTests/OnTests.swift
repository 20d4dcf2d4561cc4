import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class OnTests: XCTestCase {
    func testProducerSideEffectsRunInOrderAroundEachStart() {
        var log: [String] = []
        var received: [Int] = []
        SignalProducer([1, 2])
            .on(starting: { log.append("starting") }, started: { log.append("started") },
                event: { log.append("event \($0)") }, completed: { log.append("completed") },
                terminated: { log.append("terminated") }, disposed: { log.append("disposed") },
                value: { log.append("value \($0)") })
            .startWithValues { received.append($0) }
        XCTAssertEqual(log, ["starting", "event VALUE 1", "value 1", "event VALUE 2", "value 2",
                             "event COMPLETED", "completed", "terminated", "disposed", "started"])
        XCTAssertEqual(received, [1, 2])
    }

    func testSignalSideEffectsSeeFailure() {
        var log: [String] = []
        expectMarbles("-a#") { s in
            s.hot("-a#").on(failed: { log.append("failed \($0)") }, terminated: { log.append("terminated") })
        }
        XCTAssertEqual(log, ["failed error", "terminated"])
    }

    func testInterruptionByDisposal() {
        var log: [String] = []
        let disposable = SignalProducer<Int, Never>.never
            .on(interrupted: { log.append("interrupted") }, disposed: { log.append("disposed") })
            .start()
        XCTAssertEqual(log, [])
        disposable.dispose()
        XCTAssertEqual(log, ["interrupted", "disposed"])
    }

    func testNodeParametersNameTheGivenEffects() {
        let producer = SignalProducer<Int, Never>.empty.on(completed: {}, value: { _ in })
        XCTAssertEqual(producer.node.name, "on")
        XCTAssertEqual(producer.node.parameters, "completed:value:")
    }

    func testReactiveCocoa2Aliases() {
        var log: [String] = []
        let (signal, input) = Signal<Int, MarbleError>.pipe()
        let observed = signal
            .doNext { log.append("next \($0)") }
            .doError { log.append("error \($0)") }
        observed.observe { _ in }
        input.send(value: 1)
        input.send(error: MarbleError("bad"))
        var completed = false
        SignalProducer([1]).doCompleted { completed = true }.start()
        XCTAssertEqual(log, ["next 1", "error bad"])
        XCTAssertTrue(completed)
        XCTAssertEqual(observed.node.name, "on")
        XCTAssertEqual(observed.node.parameters, "failed:")
        XCTAssertEqual(observed.node.upstream.first?.node.parameters, "value:")
    }
}
