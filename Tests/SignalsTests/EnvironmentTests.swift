import Signals
import XCTest

final class EnvironmentTests: XCTestCase {
    func testLiveInputsAreLabelledSourcesAScriptSendsInto() {
        let environment = LiveEnvironment()
        let text = environment.input("searchText", of: String.self)
        var seen: [String] = []
        text.observeValues { seen.append($0) }
        XCTAssertTrue(environment.send("ma", to: "searchText"))
        XCTAssertFalse(environment.send(3, to: "searchText"), "wrong type is refused")
        XCTAssertFalse(environment.send("x", to: "nothing"), "unknown label is refused")
        environment.completeInputs()
        XCTAssertTrue(environment.send("mag", to: "searchText"))
        XCTAssertEqual(seen, ["ma"])
        XCTAssertEqual(text.node.name, "input")
        XCTAssertEqual(text.node.label, "searchText")
        XCTAssertTrue(environment.input("searchText", of: String.self) === text)
    }

    func testLiveCallsRunTheServiceOncePerStartAsSubscriptionsOfOneNode() {
        let environment = LiveEnvironment()
        let probe = TestProbe()
        var performed = 0
        func search(_ text: String) -> SignalProducer<Int, TestCallError> {
            environment.call("search") {
                performed += 1
                return SignalProducer(value: text.count)
            }
        }
        var results: [Int] = []
        probe.attached {
            search("ab").startWithValues { results.append($0) }
            search("abc").startWithValues { results.append($0) }
        }
        XCTAssertEqual(performed, 2)
        XCTAssertEqual(results, [2, 3])
        let calls = probe.subscriptions.filter { $0.node.name == "call" }
        XCTAssertEqual(calls.count, 2)
        XCTAssertTrue(calls[0].node === calls[1].node)
        XCTAssertEqual(calls[0].node.label, "search")
    }

    func testNamedSchedulersAreReusedAndMainIsTheMainQueue() {
        let environment = LiveEnvironment()
        XCTAssertTrue(environment.scheduler("main") === QueueScheduler.main)
        XCTAssertTrue(environment.scheduler("background") === environment.scheduler("background"))
        XCTAssertEqual(environment.scheduler("background").name, "background")
    }
}

struct TestCallError: Swift.Error, Codable, Equatable {}
