import Foundation
import Signals
import TraceLog
import Recording
import XCTest

/// A boundary call whose service answers from a dispatch queue of its own (no Signals
/// scheduler carries the cause across): the answer still leads back to the input that asked,
/// so `stats` measures from the keystroke, not from the service's reply.
final class CallCauseTests: XCTestCase {
    struct Unavailable: Error, Codable {}

    func testACallAnsweredFromAQueueOfItsOwnHasTheRequestingEventAsACause() throws {
        let recorder = Recorder(clock: .real)
        recorder.start()
        let environment = LiveEnvironment()
        let service = DispatchQueue(label: "search-service")
        let answered = DispatchSemaphore(value: 0)
        let pipeline = SignalProducer(environment.input("query", of: String.self))
            .flatMap(.latest) { text in
                environment.call("search", request: text) { () -> SignalProducer<String, Unavailable> in
                    SignalProducer { observer, _ in
                        service.async {
                            observer.send(value: text + "!")
                            observer.sendCompleted()
                        }
                    }
                }
                .flatMapError { _ in SignalProducer(value: "") }
            }
            .startWithValues { _ in answered.signal() }
        try environment.send("sw", to: "query")
        answered.wait()
        pipeline.dispose()
        try recorder.stop()
        let trace = try Trace(bytes: recorder.bytes, name: "call")

        let input = try XCTUnwrap(trace.nodes.first { $0.name == "input" })
        let call = try XCTUnwrap(trace.nodes.first { $0.name == "call" })
        let asked = Set(trace.events(of: input.id).filter { $0.kind == .value }.map(\.sequence))
        XCTAssertFalse(asked.isEmpty)
        let answer = try XCTUnwrap(trace.events(of: call.id).first { $0.kind == .value })
        // The delivering event (the service's) first, then the start, whose primary causes
        // lead back to the input's value.
        XCTAssertEqual(answer.causes.count, 2, "\(answer.causes)")
        let delivering = try XCTUnwrap(answer.causes.first.flatMap(trace.event(sequence:)))
        XCTAssertNotEqual(delivering.node, call.id)
        XCTAssertTrue(delivering.causes.isEmpty, "the service's own event has no cause across its queue")
        var current = try XCTUnwrap(answer.causes.dropFirst().first)
        var chain: [UInt64] = []
        var reached: UInt64 = 0
        while current != 0, chain.count < 10, let event = trace.event(sequence: current) {
            chain.append(event.node)
            reached = current
            current = event.causes.first ?? 0
        }
        XCTAssertEqual(chain.last, input.id, "the start's causes lead back to the input")
        XCTAssertTrue(asked.contains(reached), "the chain ends at one of the input's values")

        // stats: the data age of the sink's value is measured from the query.
        let stats = try TraceStats.compute(try TraceReader(bytes: recorder.bytes))
        let path = try XCTUnwrap(stats.paths.first { $0.source.id == input.id && $0.sink.kind == .sink })
        XCTAssertNotNil(path.dataAge)
        XCTAssertGreaterThanOrEqual(path.dataAge?.count ?? 0, 1)
    }
}
