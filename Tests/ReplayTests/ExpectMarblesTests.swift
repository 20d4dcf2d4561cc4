import MarbleNotation
import MarbleStreams
@testable import MarblesTesting
import Signals
import XCTest

final class ExpectMarblesTests: XCTestCase {
    func testColdInputThroughAnOperator() {
        expectMarbles(inputs: ["e1": "--a--b--|"], { $0["e1"].map { $0.uppercased() } }, "--A--B--|")
    }

    func testHotInputAndSpacesInTheExpectedLine() {
        expectMarbles(inputs: ["e1": "-x-^-a-(bc)-|"], { $0["e1"].filter { $0 != "b" } }, "--a -c---- |")
    }

    /// A lane as `marbles draw` prints it starts with its subscription, `^` or `(^a)` when it
    /// sent at once: pasted as the expected line, the caret is frame 0, where the stream under
    /// test was started.
    func testTheCaretOfAPrintedLaneIsFrameZero() {
        expectMarbles(inputs: ["e1": "--a--|"], { $0["e1"] }, "^-a--|")
        expectMarbles(inputs: ["e1": "a----b|"], { $0["e1"] }, "(^a)-b|")
        let sent: [(time: Int64, event: Event<String, Never>)] = [(1_000_000, .value("a")), (2_000_000, .completed)]
        XCTAssertNil(marbleFailure(expected: "^a|", values: [:], frame: 1_000_000, received: sent, equal: ==))
        XCTAssertNotNil(marbleFailure(expected: "^-a|", values: [:], frame: 1_000_000, received: sent, equal: ==))
    }

    func testAValuesMapNamesValuesOfAnyEquatableType() {
        expectMarbles(inputs: ["e1": "-a--b-|"], { $0["e1"] }, "-a--b-|", values: ["a": "swift", "b": "swim"])
        expectMarbles(inputs: ["e1": "-a--b-|"], inputValues: ["a": "swift", "b": "swim"],
                      { $0["e1"].map(\.count) }, "-x--y-|", values: ["x": 5, "y": 4])
        struct Suggestion: Equatable { var text: String; var rank: Int }
        expectMarbles(inputs: ["e1": "-a-|"], inputValues: ["a": "swift"],
                      { $0["e1"].map { Suggestion(text: $0, rank: 1) } }, "-s-|", values: ["s": Suggestion(text: "swift", rank: 1)])
    }

    func testASymbolWithoutAValueStandsForItsDescription() {
        expectMarbles(inputs: ["e1": "-1-2|"], { $0.stream("e1", of: Int.self).map { $0 * 3 } }, "-3-6|")
        expectMarbles(inputs: ["e1": "-a--b-|"], inputValues: ["a": "swift", "b": "swim"],
                      { $0["e1"].map(\.count) }, "-5--4-|")
    }

    func testInterruptionIsTheDoubleBar() {
        expectMarbles(inputs: ["e1": "-a-‖"], { $0["e1"].map { $0.uppercased() } }, "-A-‖")
        expectMarbles("-a-‖") { scheduler in scheduler.hot("-a-‖") }
    }

    /// A pipeline written against `Environment` (the issue's autocomplete: input → filter →
    /// debounce → flatMap(.latest) { call → retry → flatMapError } → observe(on: main)),
    /// driven by marble lines for its input and a closure for its service.
    func testAPipelineWrittenAgainstEnvironment() {
        func autocomplete(_ environment: Environment) -> Signal<[String], Never> {
            let main = environment.scheduler("main")
            return environment.input("query", of: String.self)
                .filter { $0.count >= 2 }
                .debounce(0.002, on: main)
                .flatMap(.latest) { query in
                    environment.call("search") { SignalProducer<[String], MarbleError>(value: [query]) }
                        .retry(upTo: 2)
                        .flatMapError { _ in SignalProducer(value: ["offline"]) }
                }
                .observe(on: main)
        }
        // The service fails its first two starts at once, retry(upTo: 2) gets the third, which
        // answers after 2 frames.
        expectMarbles(inputs: ["query": "-a-bc----d-------|"], inputValues: ["a": "s", "b": "sw", "c": "swi", "d": "swim"], { environment in
            environment.answer("search") { (attempt: Int) -> SignalProducer<[String], MarbleError> in
                let answer: SignalProducer<[String], MarbleError> = attempt < 2
                    ? SignalProducer(error: MarbleError("busy")) : SignalProducer(value: ["\(attempt)"])
                return answer.delay(0.002, on: environment.scheduler)
            }
            return autocomplete(environment)
        }, "--------x----y---|", values: ["x": ["2"], "y": ["3"]])

        // The same pipeline with its call played by a marble line: the search for "sw" is
        // interrupted by the one for "swi" before it answers, so one answer comes.
        expectMarbles(inputs: ["query": "-a-b---c---|"], calls: ["search": "-----r|"],
                      inputValues: ["a": "s", "b": "sw", "c": "swi"], { autocomplete($0) },
                      "--------------r|", values: ["r": ["swift"]])
    }

    /// A fake service that answers by what is asked: the call carries its request, the answer
    /// closure gets it.
    func testACallCarryingARequestIsAnsweredByWhatItAsks() {
        expectMarbles(inputs: ["query": "-a--b-|"], inputValues: ["a": "sw", "b": "swi"], { environment in
            environment.answer("search") { (query: String, attempt: Int) in
                SignalProducer<[String], MarbleError>(value: [query + "ft", "\(attempt)"])
            }
            return environment.input("query", of: String.self).flatMap(.concat) { query in
                environment.call("search", request: query) { SignalProducer<[String], MarbleError>(value: ["live"]) }
                    .flatMapError { _ in SignalProducer(value: ["offline"]) }
            }
        }, "-x--y-|", values: ["x": ["swft", "0"], "y": ["swift", "1"]])

        let environment = VirtualEnvironment()
        environment.answer("search") { (query: String, _: Int) in SignalProducer<Int, MarbleError>(value: query.count) }
        environment.call("search") { SignalProducer<Int, MarbleError>(value: 0) }.start()
        environment.call("search", request: 7) { SignalProducer<Int, MarbleError>(value: 0) }.start()
        XCTAssertEqual(environment.problems, [
            "call 'search' carries no request, but its answer takes a request of String",
            "call 'search' carries a request of Int, but its answer takes a request of String",
        ])
    }

    func testTheVirtualEnvironmentMakesTheNodesALiveOneMakes() {
        // The same pipeline code in both environments gets the very same (interned) nodes.
        func boundaries(_ environment: Environment) -> (input: Node, call: Node) {
            (environment.input("query", of: String.self).node,
             environment.call("search") { SignalProducer<Int, MarbleError>(value: 1) }.node)
        }
        let live = boundaries(LiveEnvironment())
        let virtual = boundaries(VirtualEnvironment())
        XCTAssertTrue(live.input === virtual.input, "\(live.input) vs \(virtual.input)")
        XCTAssertTrue(live.call === virtual.call, "\(live.call) vs \(virtual.call)")

        let environment = VirtualEnvironment()
        let input = environment.input("query", of: String.self)
        XCTAssertEqual(input.node.name, "input")
        XCTAssertEqual(input.node.label, "query")
        let call = environment.call("search") { SignalProducer<Int, MarbleError>(value: 1) }
        XCTAssertEqual(call.node.name, "call")
        XCTAssertEqual(call.node.label, "search")
        XCTAssertNoThrow(try environment.send("swift", to: "query"))
        XCTAssertThrowsError(try environment.send(1, to: "query"), "the input is of strings") { error in
            XCTAssertEqual(error as? InputError, InputError(label: "query", reason: .wrongType(expected: "String", sent: "Int")))
        }
        var values: [Int] = []
        call.startWithValues { values.append($0) }
        XCTAssertEqual(values, [1])
        XCTAssertEqual(environment.calls, ["search"])
        XCTAssertEqual(environment.problems, [])
    }

    func testMalformedLinesAndMissingValuesAreProblemsNamingTheLine() {
        XCTAssertThrowsError(try VirtualEnvironment(inputs: ["e1": "-(a"])) { error in
            XCTAssertEqual(error as? MarbleSyntaxError,
                           MarbleSyntaxError(line: 1, column: 2, message: "input 'e1': expected ')' to close the group opened here"))
        }
        let environment = try? VirtualEnvironment(inputs: ["e1": "-a-#"], values: ["a": 1])
        _ = environment?.input("e1", of: String.self)
        _ = environment?["missing"]
        XCTAssertEqual(environment?.problems, [
            "input 'e1': 1:2: expected a String value for 'a' in the values map",
            "no input named 'missing'",
        ])
        let unused = try? VirtualEnvironment(inputs: ["qurey": "-a|", "query": "-b|"])
        _ = unused?.input("query", of: String.self)
        XCTAssertEqual(unused?.unusedInputs, ["qurey"], "a misspelt input's line is never played")
        let never = try? VirtualEnvironment(inputs: ["e1": "-#"])
        _ = never?.input("e1", of: String.self)
        XCTAssertEqual(never?.problems, ["input 'e1': 1:2: expected no '#': this stream cannot fail (its error type is Never)"])
    }
}

final class ExpectMarblesMessageTests: XCTestCase {
    private let ms = MarbleNotation.millisecond

    func testMismatchShowsBothLinesUnderOneLegend() {
        let received: [(time: Int64, event: Event<String, MarbleError>)] = [
            (2 * ms, .value("x")), (3 * ms, .value("long")), (3 * ms, .completed),
        ]
        XCTAssertEqual(marbleFailure(expected: "--x-|", values: [:], frame: ms, received: received, equal: ==), """
        marbles differ
        expected: --x-|
          actual: --x(a|)
          values: a = long
        """)
        let matching: [(time: Int64, event: Event<String, MarbleError>)] = [
            (2 * ms, .value("x")), (3 * ms, .value("a")), (3 * ms, .completed),
        ]
        XCTAssertNil(marbleFailure(expected: "--x (a|)", values: [:], frame: ms, received: matching, equal: ==))
    }

    /// The actual line's letters never collide with the expected line's: a value the values
    /// map names keeps its symbol, one it does not gets a letter neither line uses.
    func testLegendLettersNeverCollide() {
        let received: [(time: Int64, event: Event<String, MarbleError>)] = [
            (1 * ms, .value("swift")), (3 * ms, .value("swam")), (4 * ms, .value("b")), (5 * ms, .failed(MarbleError("offline"))),
        ]
        XCTAssertEqual(marbleFailure(expected: "-a-bc|", values: ["a": "swift", "b": "swim"], frame: ms,
                                     received: received, equal: ==), """
        marbles differ
        expected: -a-bc|
          actual: -a-de#
          values: a = swift, b = swim, d = swam, e = b, # = offline
        """)
    }

    func testAnActualValueThatLooksLikeAnExpectedSymbolIsStillTold() {
        let received: [(time: Int64, event: Event<String, MarbleError>)] = [(1 * ms, .value("along")), (2 * ms, .completed)]
        XCTAssertEqual(marbleFailure(expected: "-a|", values: [:], frame: ms, received: received, equal: ==), """
        marbles differ
        expected: -a|
          actual: -b|
          values: b = along
        """)
    }

    func testInterruptionAndTheMalformedExpectedLine() {
        let interrupted: [(time: Int64, event: Event<String, MarbleError>)] = [(2 * ms, .interrupted)]
        XCTAssertNil(marbleFailure(expected: "--‖", values: [:], frame: ms, received: interrupted, equal: ==))
        XCTAssertEqual(marbleFailure(expected: "--|", values: [:], frame: ms, received: interrupted, equal: ==), """
        marbles differ
        expected: --|
          actual: --‖
        """)
        XCTAssertEqual(marbleFailure(expected: "--!", values: [:], frame: ms, received: interrupted, equal: ==),
                       "expectMarbles: the expected line \"--!\": 1:3: expected a value, '-', '|', '#' or '‖' ('!' belongs in an unsubscribe line)")
    }
}

/// What `expectMarbles` reports, end to end: the failures it records are captured here
/// instead of failing this test.
final class ExpectMarblesFailureTests: XCTestCase {
    private var captured: [String]?

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
                                expected: Bool) {
        guard captured != nil else {
            return super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
        captured?.append(description)
    }

    private func failures(_ body: () -> Void) -> [String] {
        captured = []
        body()
        defer { captured = nil }
        return captured ?? []
    }

    func testAMismatchIsReportedWithBothLinesUnderOneLegend() {
        let messages = failures {
            expectMarbles(inputs: ["query": "-a-b|"], inputValues: ["a": "swift", "b": "swim"],
                          { $0.stream("query", of: String.self).map { $0.uppercased() } }, "-a-b|",
                          values: ["a": "SWIFT", "b": "SWAM"])
        }
        XCTAssertEqual(messages, ["failed - marbles differ\nexpected: -a-b|\n  actual: -a-c|\n  values: a = SWIFT, b = SWAM, c = SWIM"])
    }

    func testTheLegendLettersAvoidTheInputsSymbolsToo() {
        let messages = failures {
            expectMarbles(inputs: ["e1": "-a|"], inputValues: ["a": "swift"], { $0["e1"].map { $0 + "!" } }, "-x|",
                          values: ["x": "SWIFT"])
        }
        XCTAssertEqual(messages, ["failed - marbles differ\nexpected: -x|\n  actual: -b|\n  values: x = SWIFT, b = swift!"])
    }

    func testProblemsAndAnUnusedInputAreReportedBesideTheMismatch() {
        let messages = failures {
            expectMarbles(inputs: ["qurey": "-a|", "e1": "-x|"], inputValues: ["x": 1], { $0["e1"] }, "-x|")
        }
        XCTAssertEqual(messages, ["failed - expectMarbles: input 'e1': 1:2: expected a String value for 'x' in the values map\n"
            + "expectMarbles: the pipeline never asked for the input 'qurey'\n"
            + "marbles differ\nexpected: -x|\n  actual: "])
    }

    func testAMatchReportsNothing() {
        XCTAssertEqual(failures { expectMarbles(inputs: ["e1": "-a|"], { $0["e1"] }, "-a|") }, [])
    }
}
