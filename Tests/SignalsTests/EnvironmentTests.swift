import Signals
import XCTest

final class EnvironmentTests: XCTestCase {
    /// A send that would reach nothing is an error the caller sees, saying why: a wrong type,
    /// an unknown label (with the labels there are), an input completed. It used to return
    /// false, which nothing read, and the value vanished.
    func testASendThatWouldReachNothingThrowsSayingWhy() throws {
        let environment = LiveEnvironment()
        let text = environment.input("searchText", of: String.self)
        _ = environment.input("taps", of: Int.self)
        var seen: [String] = []
        text.observeValues { seen.append($0) }
        XCTAssertThrowsError(try environment.send(3, to: "searchText")) { error in
            XCTAssertEqual("\(error)", "the input \"searchText\" takes String, not Int")
        }
        XCTAssertThrowsError(try environment.send("x", to: "serachText")) { error in
            XCTAssertEqual("\(error)", "no input is labelled \"serachText\": the inputs are \"searchText\", \"taps\"")
        }
        try environment.complete("searchText")
        XCTAssertThrowsError(try environment.send("mag", to: "searchText")) { error in
            XCTAssertEqual(error as? InputError, InputError(label: "searchText", reason: .completed))
        }
        // Completing one input leaves the others open.
        try environment.send(1, to: "taps")
        XCTAssertThrowsError(try environment.complete("nothing"))
        XCTAssertEqual(seen, [])
    }

    func testLiveInputsAreLabelledSourcesAScriptSendsInto() throws {
        let environment = LiveEnvironment()
        let text = environment.input("searchText", of: String.self)
        var seen: [String] = []
        text.observeValues { seen.append($0) }
        try environment.send("ma", to: "searchText")
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
