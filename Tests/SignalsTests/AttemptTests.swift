import MarbleNotation
import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class AttemptTests: XCTestCase {
    private struct Refused: Error, Equatable {}

    func testAttemptForwardsValuesUntilTheActionFails() {
        expectMarbles("-a-b-#") { scheduler in
            scheduler.hot("-a-b-c-d|").attempt { $0 == "c" ? .failure(MarbleError()) : .success(()) }
        }
    }

    func testAttemptMapSendsTheSuccessesThenTheFailure() {
        expectMarbles("-A-B-#", values: ["A": "A", "B": "B"]) { scheduler in
            scheduler.cold("-a-b-c-d|").attemptMap { $0 == "c" ? .failure(MarbleError()) : .success($0.uppercased()) }
        }
    }

    func testThrowingAttemptOnAStreamThatCannotFailFailsWithTheThrownError() {
        let (signal, input) = Signal<Int, Never>.pipe()
        var events: [String] = []
        signal.attemptMap { value -> Int in
            if value > 1 { throw Refused() }
            return value * 10
        }.observe { events.append("\($0)") }
        input.send(value: 1)
        input.send(value: 2)
        input.send(value: 3)
        XCTAssertEqual(events, ["VALUE 10", "FAILED Refused()"])
    }

    func testThrowingAttemptOnAProducerStopsAtTheThrow() {
        var seen: [Int] = []
        let result = SignalProducer<Int, Swift.Error>([1, 2, 3]).attempt { value in
            seen.append(value)
            if value == 2 { throw Refused() }
        }
        var events: [String] = []
        result.start { events.append("\($0)") }
        XCTAssertEqual(seen, [1, 2])
        XCTAssertEqual(events, ["VALUE 1", "FAILED Refused()"])
    }

    func testAttemptNodes() {
        let (signal, _) = Signal<Int, MarbleError>.pipe()
        XCTAssertEqual(signal.attempt { _ in .success(()) }.node.name, "attempt")
        XCTAssertEqual(signal.attemptMap { .success($0) }.node.name, "attemptMap")
    }
}
