@testable import Diagrams
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Signals
import TraceLog
import Recording
import XCTest

final class TraceMarbleTests: XCTestCase {
    static let ms: Int64 = 1_000_000

    func testDefaultLanesFollowThePipelineWithInnerStreamsUnderTheirOperator() throws {
        let figure = try MarbleFigure(trace: Pipelines.twitterInstant())
        XCTAssertEqual(figure.lanes.map(\.title),
                       ["searchText", "filter", "debounce", "SignalProducer \u{2192} delay", "SignalProducer \u{2192} delay",
                        "SignalProducer \u{2192} delay", "flatMap", "observe(on:)"])
        XCTAssertEqual(figure.lanes.map(\.isInner), [false, false, false, true, true, true, false, false])
        let boxes = figure.rows.compactMap { row -> String? in
            if case let .operator(op) = row { return op.text }
            return nil
        }
        XCTAssertEqual(boxes, ["filter", "debounce(0.5s, on: main)", "flatMap(latest)", "observe(on: main)"])
        guard case .operator = figure.rows[5] else { return XCTFail("flatMap's box comes before its inner lanes") }
    }

    func testInnerLanesStartWhereTheyWereSubscribed() throws {
        let inner = try MarbleFigure(trace: Pipelines.twitterInstant()).lanes.filter(\.isInner)
        XCTAssertEqual(inner.map(\.subscribed), [1300 * Self.ms, 2000 * Self.ms, 2900 * Self.ms])
        XCTAssertEqual(inner[0].marbles.map(\.display), ["4 tweets"])
        XCTAssertEqual(inner[0].end, .completed(at: 1600 * Self.ms))
        XCTAssertEqual(inner[2].end, .failed(at: 2900 * Self.ms, message: "InvalidResponse"))
    }

    func testMarblesCarryTheDeliveringThreadSoTheHopShows() throws {
        let figure = try MarbleFigure(trace: Pipelines.twitterInstant())
        XCTAssertEqual(figure.threads, ["main", "background"])
        let byTitle = Dictionary(figure.lanes.map { ($0.title, $0) }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(byTitle["flatMap"]?.marbles.map(\.thread), [1, 1])
        XCTAssertEqual(byTitle["observe(on:)"]?.marbles.map(\.thread), [0, 0])
        XCTAssertEqual(byTitle["observe(on:)"]?.marbles.map(\.display), ["4 tweets", "5 tweets"])
    }

    func testTerminalAndDisposalMarks() throws {
        let lanes = try MarbleFigure(trace: Pipelines.twitterInstant()).lanes
        XCTAssertNil(lanes[0].end, "the text field never ends")
        XCTAssertEqual(lanes[1].end, .disposed(at: 2900 * Self.ms), "filter is disposed when the search fails")
        XCTAssertEqual(lanes[6].end, .failed(at: 2900 * Self.ms, message: "InvalidResponse"))
    }

    func testChosenNodesByLabelNameOrId() throws {
        let trace = try Pipelines.twitterInstant()
        let figure = try MarbleFigure(trace: trace, options: .init(selection: .nodes(["searchText", "debounce", "#5"])))
        XCTAssertEqual(figure.lanes.map(\.title), ["searchText", "debounce", "observe(on:)"])
        let boxes = figure.rows.compactMap { row -> MarbleFigure.Operator? in
            if case let .operator(op) = row { return op }
            return nil
        }
        XCTAssertEqual(boxes.map(\.input), ["filter", "flatMap"], "a box names its input when it is not the lane above")
    }

    func testUnknownNodeIsAClearError() throws {
        let trace = try Pipelines.twitterInstant()
        XCTAssertThrowsError(try MarbleFigure(trace: trace, options: .init(selection: .nodes(["nope"])))) { error in
            guard case let DiagramError.invalidRequest(message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.hasPrefix("no node \"nope\" in the trace; its nodes are: #1 searchText, #2 filter"), message)
        }
    }

    func testPathsLeaveOutBranchesNobodyObserves() throws {
        let trace = try Pipelines.branches()
        let paths = try MarbleFigure(trace: trace)
        XCTAssertEqual(paths.lanes.map(\.title), ["numbers", "map"])
        let all = try MarbleFigure(trace: trace, options: .init(selection: .all))
        XCTAssertEqual(all.lanes.map(\.title), ["numbers", "map", "filter"])
    }

    func testCausalArrowsLinkEachMarbleToItsCause() throws {
        let trace = try Pipelines.twitterInstant()
        let figure = try MarbleFigure(trace: trace, options: .init(causes: true))
        // "magi" from debounce (seq 7) was caused by filter's "magi" (seq 6).
        XCTAssertTrue(figure.causes.contains(.init(from: 6, to: 7)))
        // The first inner result (seq 12) traces back through the hidden inner source to debounce's "magi".
        XCTAssertTrue(figure.causes.contains(.init(from: 7, to: 12)))
        XCTAssertTrue(try MarbleFigure(trace: trace).causes.isEmpty, "no arrows unless asked")
        let svg = MarbleRenderer.svg(figure)
        let xml = try XMLDocument(data: Data(svg.utf8), options: [])
        XCTAssertGreaterThan(try xml.nodes(forXPath: "//*[local-name()='g'][@class='cause']").count, 8)
    }

    func testSVGOfTheSameRecordingIsByteIdentical() throws {
        let first = MarbleRenderer.svg(try MarbleFigure(trace: Pipelines.twitterInstant(), options: .init(causes: true)))
        let second = MarbleRenderer.svg(try MarbleFigure(trace: Pipelines.twitterInstant(), options: .init(causes: true)))
        XCTAssertEqual(first, second)
        XCTAssertEqual(MarbleText.render(try MarbleFigure(trace: Pipelines.twitterInstant())),
                       MarbleText.render(try MarbleFigure(trace: Pipelines.twitterInstant())))
    }

    func testHostileValuesAndLabelsFromATraceGiveValidSVGAndDOT() throws {
        let hostile = "<x a=\"1\"> & 'q' \\N \\\\ \n\u{7} é 日本 🙂"
        let trace = try Pipelines.hostile(hostile)
        let svg = MarbleRenderer.svg(try MarbleFigure(trace: trace, options: .init(causes: true, title: hostile)))
        let xml = try XMLDocument(data: Data(svg.utf8), options: [])
        let titles = try xml.nodes(forXPath: "//*[local-name()='g'][starts-with(@class, 'marble')]/*[local-name()='title']").map { $0.stringValue ?? "" }
        XCTAssertTrue(titles.contains { $0.hasPrefix("<x a=\"1\"> & 'q' \\N \\\\ \n\u{2407} é 日本 🙂") }, "\(titles)")

        let graph = PipelineGraph(trace: trace, title: hostile)
        let pipelineSVG = try PipelineRenderer.render(graph, format: .svg)
        XCTAssertNoThrow(try XMLDocument(data: pipelineSVG, options: []))
        let dot = String(decoding: try PipelineRenderer.render(graph, format: .dot), as: UTF8.self)
        XCTAssertNotNil(try Graphviz.parse(dot: dot))
    }

    func testATwentyMegabyteTextIsCutForTheMarbleAndItsHoverTitle() throws {
        var lines = String(decoding: Pipelines.twitterInstantBytes(), as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let index = try XCTUnwrap(lines.firstIndex { $0.contains("\"kind\":\"value\"") && $0.contains("\"text\":\"") })
        let start = try XCTUnwrap(lines[index].range(of: "\"text\":\"")).upperBound
        let end = try XCTUnwrap(lines[index][start...].firstIndex(of: "\""))
        lines[index].replaceSubrange(start..<end, with: String(repeating: "w", count: 20_000_000))
        let figure = try MarbleFigure(trace: Trace(bytes: Array(lines.joined(separator: "\n").utf8), name: "long"))
        let marble = try XCTUnwrap(figure.lanes.flatMap(\.marbles).first { $0.full.hasPrefix("www") })
        XCTAssertEqual(marble.display, String(repeating: "w", count: 119) + "\u{2026}")
        XCTAssertEqual(marble.full, String(repeating: "w", count: 1999) + "\u{2026}")
        let svg = MarbleRenderer.svg(figure)
        XCTAssertLessThan(svg.utf8.count, 200_000)
        XCTAssertTrue(svg.contains(String(repeating: "w", count: 1999) + "\u{2026} (at "))
        XCTAssertFalse(svg.contains(String(repeating: "w", count: 2000)))
        XCTAssertLessThan(MarbleText.render(figure).utf8.count, 20_000)
    }

    func testTruncationCountsCharactersNotBytes() {
        XCTAssertEqual(TextSafety.truncated("日本語です", to: 5), "日本語です")
        XCTAssertEqual(TextSafety.truncated("日本語です!", to: 5), "日本語で\u{2026}")
        XCTAssertEqual(TextSafety.truncated("abc", to: 2), "a\u{2026}")
    }
}

final class TracePipelineTests: XCTestCase {
    func testNodesEdgesAndCountsComeFromTheTrace() throws {
        let graph = PipelineGraph(trace: try Pipelines.twitterInstant())
        XCTAssertEqual(graph.nodes.map(\.name), ["pipe", "filter", "debounce", "flatMap", "observe(on:)", "observe", "SignalProducer", "delay"])
        XCTAssertEqual(graph.nodes.map(\.kind), [.source, .operator, .operator, .operator, .operator, .sink, .source, .operator])
        XCTAssertEqual(graph.nodes[0].label, "searchText")
        XCTAssertEqual(graph.nodes[1].callSite?.hasPrefix("DiagramsTests/Pipelines.swift:"), true)
        let edges = graph.edges.map { "\($0.from)->\($0.to) \($0.style) \($0.label ?? "")" }
        XCTAssertEqual(edges, [
            "1->2 data 6 values", "2->3 data 4 values", "3->4 data 3 values", "4->5 data 2 values \u{00B7} 1 failed", "5->6 data ",
            "7->8 data 2 values \u{00B7} 1 failed", "8->4 inner 2 values \u{00B7} 1 failed", "7->6 error InvalidResponse",
        ])
    }

    func testNodesAreGroupedByTheThreadTheyDeliverOn() throws {
        let graph = PipelineGraph(trace: try Pipelines.twitterInstant())
        XCTAssertEqual(graph.nodes.map { $0.group ?? "-" }, ["main", "main", "main", "background", "main", "main", "main", "background"])
    }

    func testLatenciesTurnOnTheHeatScale() throws {
        let bytes = Pipelines.twitterInstantBytes()
        let stats = try TraceStats.compute(TraceReader(bytes: bytes, name: "t"))
        var latencies: [UInt64: Int64] = [:]
        for node in stats.nodes {
            if let latency = node.stageLatency { latencies[node.node.id] = latency.p95 }
        }
        let graph = PipelineGraph(trace: try Trace(bytes: bytes), latencies: latencies)
        XCTAssertTrue(graph.heat)
        XCTAssertEqual(graph.nodes[2].latency, 500_000_000, "debounce holds each value 0.5 s")
        let svg = String(decoding: try PipelineRenderer.render(graph, format: .svg), as: UTF8.self)
        XCTAssertTrue(svg.contains("#800026"), "the slowest stage is drawn in the hottest colour")
    }

    func testPipelineSVGOfTheSameRecordingIsByteIdentical() throws {
        XCTAssertEqual(try PipelineRenderer.render(PipelineGraph(trace: Pipelines.twitterInstant()), format: .svg),
                       try PipelineRenderer.render(PipelineGraph(trace: Pipelines.twitterInstant()), format: .svg))
    }
}

final class TraceThreadsAndInnerStreamsTests: XCTestCase {
    func testWorkASubscriberStartsIsNotAnInnerStream() throws {
        let trace = try Pipelines.subscriberStartsWork()
        let avatar = try XCTUnwrap(trace.node(named: "avatar"))
        XCTAssertTrue(trace.innerEdges.contains { $0.inner == avatar.id }, "the trace counts it as started by flatMap")
        let figure = try MarbleFigure(trace: trace)
        XCTAssertEqual(figure.lanes.filter(\.isInner).map(\.title), ["lookup", "lookup"])
        let graph = PipelineGraph(trace: trace)
        let inner = graph.edges.filter { $0.style == .inner }.compactMap { edge in graph.nodes.first { $0.id == edge.from }?.label }
        XCTAssertEqual(inner, ["lookup"])
    }

    func testThreadsAreNamedByTheirSchedulerAndMergedByName() throws {
        let trace = Pipelines.twoRecordsOfMain()
        let figure = try MarbleFigure(trace: trace)
        XCTAssertEqual(figure.threads, ["main", "background"])
        XCTAssertEqual(figure.lanes.map { $0.marbles.map(\.thread) }, [[0], [0, 1]])
        // map delivered on main and on background: it sits in neither's box.
        XCTAssertEqual(PipelineGraph(trace: trace).nodes.map(\.group), ["main", nil])
    }

    func testRealTimeLanesSubscribedMicrosecondsApartShowNoSubscriptionMark() throws {
        let lanes = try MarbleFigure(trace: Pipelines.twoRecordsOfMain()).lanes
        XCTAssertEqual(lanes.map(\.subscribed), [nil, nil], "3 µs after the first, in a 9 ms trace")
    }
}

final class TraceManySubscriptionsTests: XCTestCase {
    func testManySubscriptionsOfOneNodeShareALane() throws {
        let scheduler = TestScheduler()
        let bytes = Recorder.record(virtual: scheduler) {
            let load = SignalProducer<String, Never>(value: "thumb").named("thumbnail")
            for index in 0..<5 {
                scheduler.schedule(atNanoseconds: Int64(index + 1) * 1_000_000) { load.startWithValues { _ in } }
            }
            _ = scheduler.run()
        }
        let figure = try MarbleFigure(trace: Trace(bytes: bytes))
        XCTAssertEqual(figure.lanes.map(\.title), ["thumbnail \u{00D7}5"])
        XCTAssertEqual(figure.lanes.first?.marbles.map(\.time), [1, 2, 3, 4, 5].map { $0 * 1_000_000 })
        XCTAssertEqual(figure.lanes.first?.end, .completed(at: 5_000_000))
    }
}

final class HostileTimesTests: XCTestCase {
    func testExtremeTimesInATraceDrawWithoutOverflow() throws {
        var trace = Trace(header: TraceHeader(clock: .real))
        let records: [TraceRecord] = [
            .thread(ThreadRecord(id: 1, name: "main")),
            .node(NodeRecord(id: 1, kind: .source, name: "pipe", file: "A.swift", line: 1, upstream: [])),
            .subscribe(SubscriptionRecord(id: 1, node: 1, parent: 0, time: Int64.min, thread: 1)),
            .event(EventRecord(sequence: 1, time: Int64.min, node: 1, subscription: 1, kind: .value, thread: 1, text: "a")),
            .event(EventRecord(sequence: 2, time: 0, node: 1, subscription: 1, kind: .value, thread: 1, text: "b")),
            .event(EventRecord(sequence: 3, time: Int64.max, node: 1, subscription: 1, kind: .completed, thread: 1)),
        ]
        for record in records { XCTAssertNil(trace.add(record)) }
        let figure = try MarbleFigure(trace: trace)
        XCTAssertEqual(figure.lanes.first?.marbles.map(\.display), ["a", "b"])
        let xml = try XMLDocument(data: Data(MarbleRenderer.svg(figure).utf8), options: [])
        XCTAssertEqual(try xml.nodes(forXPath: "//*[local-name()='g'][starts-with(@class, 'marble')]").count, 2)
        XCTAssertFalse(MarbleText.render(figure).isEmpty)
        XCTAssertNoThrow(try PipelineRenderer.render(PipelineGraph(trace: trace, latencies: [1: Int64.min]), format: .svg))
    }
}
