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

    func testASubscriptionEndsUnderTheNameItBeganWithAndOneNeverDisposedEndsAtTheTraceEnd() throws {
        let lines = [
            #"{"type":"header","format":"marbles-trace","version":"1.1","unit":"ns","clock":"virtual"}"#,
            #"{"type":"thread","id":1,"name":"main"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"pipe","parameters":"","file":"A.swift","line":3,"upstream":[]}"#,
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":1000,"thread":1}"#,
            #"{"type":"label","node":1,"label":"clicks"}"#,
            #"{"type":"subscribe","id":2,"node":1,"parent":0,"time":2000,"thread":1}"#,
            #"{"type":"dispose","sub":1,"time":3000,"thread":1}"#,
            #"{"type":"summary","events":0,"nodes":1,"subscriptions":2,"threads":1,"hops":0,"marks":0,"dropped":0,"duration":5000}"#,
        ]
        var bytes: [UInt8] = []
        try PerfettoExport.export(TraceReader(bytes: Array((lines.joined(separator: "\n") + "\n").utf8))) { bytes += $0 }
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let events = try XCTUnwrap(root["traceEvents"] as? [[String: Any]])
        let slices = events.filter { ["b", "e"].contains($0["ph"] as? String) }
        XCTAssertEqual(slices.map { "\($0["ph"] as? String ?? "") \($0["name"] as? String ?? "") \($0["cat"] as? String ?? "")" },
                       ["b pipe #1 pipe", "b pipe \"clicks\" #2 pipe", "e pipe #1 pipe", "e pipe \"clicks\" #2 pipe"])
        XCTAssertEqual(slices.map { $0["ts"] as? Double }, [1, 2, 3, 5])
    }

    /// The threads a real recording of a dashboard defines (`observe(on: main)` runs on the
    /// main OS thread again, under the `main` scheduler) plus a dispatch queue served by two
    /// worker threads: every track gets its own name.
    func testTracksAreNamedUniquelyByThreadSchedulerAndOSThread() throws {
        let lines = [
            #"{"type":"header","format":"marbles-trace","version":"1.1","unit":"ns","clock":"real"}"#,
            #"{"type":"thread","id":1,"name":"main","os":993}"#,
            #"{"type":"thread","id":2,"name":"com.apple.root.default-qos","os":997}"#,
            #"{"type":"thread","id":3,"name":"main","scheduler":"main","os":993}"#,
            #"{"type":"thread","id":4,"name":"com.apple.root.default-qos","os":998}"#,
            #"{"type":"thread","id":5,"name":"worker","scheduler":"io"}"#,
            #"{"type":"thread","id":6,"name":"worker","scheduler":"io"}"#,
            #"{"type":"thread","id":7,"name":"main \#u{00B7} scheduler main"}"#,
        ]
        var bytes: [UInt8] = []
        try PerfettoExport.export(TraceReader(bytes: Array((lines.joined(separator: "\n") + "\n").utf8))) { bytes += $0 }
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let events = try XCTUnwrap(root["traceEvents"] as? [[String: Any]])
        let tracks = events.filter { $0["name"] as? String == "thread_name" }
            .map { ($0["tid"] as? Int ?? 0, ($0["args"] as? [String: Any])?["name"] as? String ?? "") }
        XCTAssertEqual(tracks.map(\.0), [1, 2, 3, 4, 5, 6, 7])
        XCTAssertEqual(tracks.map(\.1), [
            "main",
            "com.apple.root.default-qos",
            "main \u{00B7} scheduler main",
            "com.apple.root.default-qos \u{00B7} os 998",
            "worker \u{00B7} scheduler io",
            "worker \u{00B7} scheduler io \u{00B7} thread 6",
            "main \u{00B7} scheduler main \u{00B7} thread 7",
        ])
    }

    func testExportIsDeterministic() throws {
        XCTAssertEqual(try export().bytes, try export().bytes)
    }
}
