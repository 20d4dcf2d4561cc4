import AsyncAlgorithms
import AsyncMarbles
import Signals
import XCTest

/// A tap's node carries the durations and counts its operator's sequence stores, so a changed
/// interval or count is a changed node (one `node-changed` in a diff), as for `Signals`.
final class OperatorParameterTests: XCTestCase {
    private func parameters(_ node: Node) -> String { node.parameters }

    func testDurationsAndCountsOfTheOperatorAreItsParameters() {
        let (stream, _) = AsyncStream<Int>.makeStream()
        let clock = ContinuousClock()
        XCTAssertEqual(parameters(stream.debounce(for: .milliseconds(75), clock: clock).marbles("d").node), "interval: 0.075s")
        XCTAssertEqual(parameters(stream.debounce(for: .seconds(1), tolerance: .milliseconds(5), clock: clock)
            .marbles("d").node), "interval: 1.0s, tolerance: 0.005s")
        XCTAssertEqual(parameters(stream.chunks(ofCount: 3).marbles("c").node), "count: 3")
        XCTAssertEqual(parameters(stream._throttle(for: .milliseconds(250), clock: clock).marbles("t").node),
                       "interval: 0.25s")
        XCTAssertEqual(parameters(AsyncTimerSequence.repeating(every: .milliseconds(20), clock: clock).marbles("tick").node),
                       "interval: 0.02s")
    }

    func testClosuresClocksAndUpstreamsAreNoParameters() {
        let (stream, _) = AsyncStream<Int>.makeStream()
        XCTAssertEqual(parameters(stream.map { $0 + 1 }.marbles("m").node), "")
        XCTAssertEqual(parameters(stream.filter { $0 > 1 }.marbles("f").node), "")
        XCTAssertEqual(parameters(stream.marbles("s").node), "")
        XCTAssertEqual(parameters(stream.marbles("s").marbles("again").node), "")
    }

    /// Two intervals at one call site are two nodes; the same interval, one.
    func testAnotherIntervalIsAnotherNode() {
        let (stream, _) = AsyncStream<Int>.makeStream()
        func settled(_ milliseconds: Int) -> Node {
            stream.debounce(for: .milliseconds(milliseconds), clock: ContinuousClock()).marbles("settled").node
        }
        XCTAssertFalse(settled(300) === settled(500))
        XCTAssertTrue(settled(300) === settled(300))
    }
}
