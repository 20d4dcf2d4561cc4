@testable import Diagrams
import Foundation
import TraceLog
import XCTest

/// The pipeline diagram of the committed autocomplete fixture (failures, retries and
/// `.latest` interruptions inside a `flatMap`) says what failed and was interrupted, where.
final class PipelineFailureTests: XCTestCase {
    private func counts(_ trace: Trace, _ node: UInt64) -> (values: Int, failed: Int, interrupted: Int) {
        let events = trace.events(of: node)
        return (events.filter { $0.kind == .value }.count, events.filter { $0.kind == .failed }.count,
                events.filter { $0.kind == .interrupted }.count)
    }

    private func expectedLabel(_ trace: Trace, _ node: UInt64) -> String {
        let (values, failed, interrupted) = counts(trace, node)
        var parts = [values == 1 ? "1 value" : "\(values) values"]
        if failed > 0 { parts.append("\(failed) failed") }
        if interrupted > 0 { parts.append("\(interrupted) interrupted") }
        return parts.joined(separator: " \u{00B7} ")
    }

    func testEachNodeAndEdgeCountsFailuresAndInterruptionsBesideValues() throws {
        let trace = try Pipelines.autocomplete()
        let graph = PipelineGraph(trace: trace)
        var failing = 0
        for node in graph.nodes {
            let id = try XCTUnwrap(UInt64(node.id))
            let (_, failed, interrupted) = counts(trace, id)
            XCTAssertEqual(node.note, failed + interrupted > 0 ? expectedLabel(trace, id) : nil, node.name)
            if failed + interrupted > 0 { failing += 1 }
        }
        XCTAssertEqual(failing, 3, "the service, call(search) and retry: \(graph.nodes.map(\.note))")
        let retry = try XCTUnwrap(graph.nodes.first { $0.name == "retry" })
        XCTAssertEqual(retry.note, "2 values \u{00B7} 1 failed \u{00B7} 1 interrupted")
        for edge in graph.edges where edge.style != .error {
            let from = try XCTUnwrap(UInt64(edge.from))
            let toSink = graph.nodes.first { $0.id == edge.to }?.kind == .sink
            XCTAssertEqual(edge.label, toSink ? nil : expectedLabel(trace, from), "\(edge.from)->\(edge.to)")
            XCTAssertEqual(edge.failed, !toSink && counts(trace, from).failed > 0, "\(edge.from)->\(edge.to)")
        }
        XCTAssertEqual(graph.edges.filter(\.failed).count, 3, "service → call, call → retry, retry → flatMapError")
    }

    /// The issue: the service was drawn as an inner stream of `retry`, not of `call(search)`.
    func testTheServiceHangsFromTheCallThatCreatedIt() throws {
        let trace = try Pipelines.autocomplete()
        let graph = PipelineGraph(trace: trace)
        func name(_ id: String) -> String { graph.nodes.first { $0.id == id }.map { "\($0.name)(\($0.parameters))" } ?? id }
        let inner = graph.edges.filter { $0.style == .inner }.map { "\(name($0.from)) -> \(name($0.to))" }
        XCTAssertEqual(inner, ["flatMapError() -> flatMap(latest)", "SignalProducer() -> call(search)",
                               "SignalProducer(value:)() -> flatMapError()"])
    }

    func testFailingEdgesAreDrawnRedWithAKey() throws {
        let graph = PipelineGraph(trace: try Pipelines.autocomplete(), title: "autocomplete")
        let svg = String(decoding: try PipelineRenderer.render(graph, format: .svg), as: UTF8.self)
        XCTAssertEqual(svg.components(separatedBy: ##"<path fill="none" stroke="#b2182b" stroke-width="2.2""##).count - 1, 3, svg)
        XCTAssertTrue(svg.contains("failures crossed it"), svg)
        XCTAssertTrue(svg.contains("inner stream"), svg)
        XCTAssertEqual(try PipelineRenderer.render(graph, format: .svg), try PipelineRenderer.render(graph, format: .svg))
        let quiet = PipelineGraph(nodes: [.init(id: "1", kind: .source, name: "a"), .init(id: "2", kind: .sink, name: "b")],
                                  edges: [.init(from: "1", to: "2")])
        let plain = String(decoding: try PipelineRenderer.render(quiet, format: .svg), as: UTF8.self)
        XCTAssertFalse(plain.contains("edges"), "no key without a failure to explain")
    }
}

/// `--heat` on the autocomplete fixture: the debounce's 100 ms is a wait asked for, drawn
/// apart; the heat scale is the time the other nodes took, so the slow service is the hottest.
final class PipelineHeatTests: XCTestCase {
    private func heatGraph() throws -> PipelineGraph {
        let bytes = Array(try Data(contentsOf: Pipelines.autocompleteFixture))
        let stats = try TraceStats.compute(TraceReader(bytes: bytes, name: "autocomplete"))
        var latencies: [UInt64: Int64] = [:]
        for node in stats.nodes {
            if let latency = node.stageLatency { latencies[node.node.id] = latency.p95 }
        }
        return PipelineGraph(trace: try Trace(bytes: bytes, name: "autocomplete"), latencies: latencies)
    }

    func testOnlyOperatorsThatHoldValuesOnPurposeWaitOnPurpose() throws {
        let graph = try heatGraph()
        XCTAssertEqual(graph.nodes.filter(\.waitsOnPurpose).map(\.name), ["debounce"])
        XCTAssertEqual(graph.nodes.first { $0.name == "debounce" }?.latency, 100_000_000)
        for name in ["throttle(quietPeriod:)", "sample(on:)", "delayValues", "timeout", "debounce", "audit"] {
            XCTAssertTrue(PipelineGraph.waitsOnPurpose(name), name)
        }
        for name in ["flatMap", "observe(on:)", "call", "retry", "delaySubscription"] {
            XCTAssertFalse(PipelineGraph.waitsOnPurpose(name), name)
        }
    }

    func testASampleSaysItWaitsForItsTriggerNotItsLatencyFromTheTrigger() throws {
        // The field package's dashboard: readings sampled on a 250 ms tick; a sampled value's
        // primary cause is the tick, 22.2 µs before it.
        let graph = PipelineGraph(nodes: [
            .init(id: "1", kind: .source, name: "timer(tick)"),
            .init(id: "2", kind: .operator, name: "sample(on:)", latency: 22_200, waitsOnPurpose: true),
            .init(id: "3", kind: .operator, name: "debounce", parameters: "0.3s", latency: 300_200_000, waitsOnPurpose: true),
        ], edges: [.init(from: "1", to: "2"), .init(from: "2", to: "3")], heat: true)
        let svg = String(decoding: try PipelineRenderer.render(graph, format: .svg), as: UTF8.self)
        XCTAssertTrue(svg.contains(">waits for its trigger<"), svg)
        XCTAssertFalse(svg.contains("waits 22.2"), svg)
        XCTAssertTrue(svg.contains(">waits 300.2 ms on purpose<"), svg)
        XCTAssertTrue(PipelineGraph.waitsForTrigger("sampleLatest(on:)"))
        XCTAssertFalse(PipelineGraph.waitsForTrigger("debounce"))
    }

    func testAnIntendedWaitIsDrawnApartAndTheServiceIsTheHottest() throws {
        let svg = String(decoding: try PipelineRenderer.render(try heatGraph(), format: .svg), as: UTF8.self)
        let nodes = svg.split(separator: "<g id=\"node").dropFirst()
        func fill(_ text: String) throws -> String {
            let node = try XCTUnwrap(nodes.first { $0.contains(">\(text)<") }, text)
            return String(try XCTUnwrap(node.firstMatch(of: /fill="(#[0-9a-f]{6})"/)).1)
        }
        XCTAssertEqual(try fill("debounce(0.1s, on: main)"), "#d6e4f0", "drawn apart, not on the heat scale")
        XCTAssertTrue(svg.contains(">waits 100 ms on purpose<"), svg)
        XCTAssertEqual(try fill("SignalProducer"), "#800026", "the service's 200 ms is the hottest stage")
        XCTAssertEqual(try fill("filter"), "#ffffcc")
        XCTAssertTrue(svg.contains("time working (p95 from cause to event)"), svg)
        XCTAssertTrue(svg.contains("waits on purpose (debounce, throttle, delay, timeout, sample): off the scale"), svg)
    }
}
