import Foundation
import Signals
import TraceLog
import Recording
import XCTest

final class PerfettoExportTests: XCTestCase {
    /// pipe on the test scheduler's thread → map → observe(on: lane "ui") → sink, so
    /// causality crosses from thread "test" to thread "ui".
    private func recordHoppingPipeline() -> [UInt8] {
        let scheduler = TestScheduler()
        return Recorder.record(virtual: scheduler) {
            let (signal, input) = Signal<Int, Never>.pipe(named: "clicks")
            signal.map { $0 * 2 }.observe(on: scheduler.lane("ui")).observeValues { _ in }
            Recorder.mark("start")
            for value in 1...3 {
                scheduler.schedule(atNanoseconds: Int64(value) * 1_500) { input.send(value: value) }
            }
            scheduler.schedule(atNanoseconds: 10_000) { input.sendCompleted() }
            scheduler.run()
        }
    }

    private func export() throws -> (bytes: [UInt8], summary: PerfettoExport.Summary) {
        var bytes: [UInt8] = []
        let summary = try PerfettoExport.export(TraceReader(bytes: recordHoppingPipeline())) { bytes += $0 }
        return (bytes, summary)
    }

    func testOutputHasTheTraceEventFormatsRequiredFields() throws {
        let (bytes, summary) = try export()
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let events = try XCTUnwrap(root["traceEvents"] as? [[String: Any]])
        XCTAssertEqual(events.count, summary.traceEvents)
        for event in events {
            let phase = try XCTUnwrap(event["ph"] as? String, "\(event)")
            XCTAssertNotNil(event["name"] as? String, "\(event)")
            XCTAssertNotNil(event["pid"] as? Int, "\(event)")
            XCTAssertNotNil(event["tid"] as? Int, "\(event)")
            if phase != "M" { XCTAssertNotNil(event["ts"] as? Double, "\(event)") }
            switch phase {
            case "X": XCTAssertNotNil(event["dur"] as? Double, "\(event)")
            case "s", "f", "b", "e": XCTAssertNotNil(event["id"] as? Int, "\(event)")
            case "i": XCTAssertEqual(event["s"] as? String, "g")
            case "M": XCTAssertNotNil(event["args"] as? [String: Any], "\(event)")
            default: XCTFail("unexpected phase \(phase)")
            }
            if phase == "f" { XCTAssertEqual(event["bp"] as? String, "e") }
        }
    }

    func testThreadsBecomeTracksAndCausalityAcrossThreadsBecomesFlows() throws {
        let (bytes, summary) = try export()
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let events = try XCTUnwrap(root["traceEvents"] as? [[String: Any]])
        let threadNames = events.filter { $0["name"] as? String == "thread_name" }
            .compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
        XCTAssertEqual(threadNames, ["main", "test", "ui"])
        // Four events cross from "test" to "ui": three values and the completion.
        XCTAssertEqual(summary.flows, 4)
        XCTAssertEqual(events.filter { $0["ph"] as? String == "s" }.count, 4)
        let values = events.filter { $0["ph"] as? String == "X" && $0["cat"] as? String == "observe(on:)" }
        XCTAssertEqual(values.compactMap { $0["name"] as? String },
                       ["observe(on:) 2", "observe(on:) 4", "observe(on:) 6", "observe(on:) completed"])
        XCTAssertEqual(values.first?["ts"] as? Double, 1.5)
        XCTAssertTrue(events.contains { $0["ph"] as? String == "i" && $0["name"] as? String == "start" })
        XCTAssertEqual(events.filter { $0["ph"] as? String == "b" }.count, events.filter { $0["ph"] as? String == "e" }.count)
    }

    func testExportIsDeterministic() throws {
        XCTAssertEqual(try export().bytes, try export().bytes)
    }
}
