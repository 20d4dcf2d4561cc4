import MarbleStreams
import MarblesTesting
import Signals
import XCTest

final class LogEventsTests: XCTestCase {
    func testProducerEventsAreLoggedWithIdentifierAndCallSite() {
        var lines: [String] = []
        SignalProducer([1, 2])
            .logEvents(identifier: "numbers") { identifier, event, file, line in
                lines.append("[\(identifier)] \(event) \(file) \(line > 0)")
            }
            .start()
        XCTAssertEqual(lines, [
            "[numbers] starting SignalsTests/LogEventsTests.swift true",
            "[numbers] value 1 SignalsTests/LogEventsTests.swift true",
            "[numbers] value 2 SignalsTests/LogEventsTests.swift true",
            "[numbers] completed SignalsTests/LogEventsTests.swift true",
            "[numbers] terminated SignalsTests/LogEventsTests.swift true",
            "[numbers] disposed SignalsTests/LogEventsTests.swift true",
            "[numbers] started SignalsTests/LogEventsTests.swift true",
        ])
    }

    func testOnlyTheChosenEventsAreLogged() {
        var events: [String] = []
        let (signal, input) = Signal<Int, MarbleError>.pipe()
        let logged = signal.logEvents(events: [.failed]) { _, event, _, _ in events.append(event) }
        logged.observe { _ in }
        input.send(value: 1)
        input.send(error: MarbleError("boom"))
        XCTAssertEqual(events, ["failed boom"])
        XCTAssertEqual(logged.node.name, "logEvents")
    }

    func testInterruptionIsLogged() {
        var events: [String] = []
        let disposable = SignalProducer<Int, Never>.never
            .logEvents(events: [.interrupted, .terminated, .disposed]) { _, event, _, _ in events.append(event) }
            .start()
        XCTAssertEqual(events, [])
        disposable.dispose()
        XCTAssertEqual(events, ["interrupted", "terminated", "disposed"])
    }
}

final class FunctionNamingLogEventsTests: XCTestCase {
    func testALoggerOfReactiveSwiftsFormAlsoGetsTheFunctionName() {
        var lines: [String] = []
        func log(_ identifier: String, event: String, fileName: String, functionName: String, lineNumber: Int) {
            lines.append("[\(identifier)] \(event) \(fileName) \(functionName) \(lineNumber > 0)")
        }
        let (signal, input) = Signal<Int, Never>.pipe()
        let logged = signal.logEvents(identifier: "n", events: [.value, .completed], logger: log)
        logged.observe { _ in }
        input.send(value: 1)
        input.sendCompleted()
        let site = "SignalsTests/LogEventsTests.swift testALoggerOfReactiveSwiftsFormAlsoGetsTheFunctionName() true"
        XCTAssertEqual(lines, ["[n] value 1 \(site)", "[n] completed \(site)"])
        XCTAssertEqual(logged.node.name, "logEvents")
        XCTAssertEqual(logged.node.upstream.map(\.node), [signal.node])
    }

    func testAProducerLogsItsStartsToALoggerOfReactiveSwiftsForm() {
        var events: [String] = []
        let producer = SignalProducer(value: 7)
        let logged = producer.logEvents(events: [.starting, .value, .disposed]) { _, event, _, _, _ in
            events.append(event)
        } as SignalProducer<Int, Never>
        logged.start()
        XCTAssertEqual(events, ["starting", "value 7", "disposed"])
        XCTAssertEqual(logged.node.file, "SignalsTests/LogEventsTests.swift")
    }
}
