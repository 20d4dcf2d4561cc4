import Diagrams
import Foundation
import TraceLog
import XCTest
@testable import Viewer

/// The page generator: the same bytes for the same input, no way for trace text to leave the
/// embedded data, and the columnar data holding every event as the trace does.
final class TracePageTests: XCTestCase {
    private let top = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private func tutorial(_ name: String) throws -> Trace {
        try Trace(contentsOf: top.appendingPathComponent("traces/\(name)"))
    }

    /// A trace whose label, values, JSON, request and thread name are markup and script.
    private func hostileTrace() -> Trace {
        var trace = Trace(header: TraceHeader(clock: .virtual))
        let records: [TraceRecord] = [
            .thread(ThreadRecord(id: 1, name: "<b>main</b>")),
            .node(NodeRecord(id: 1, kind: .source, name: "input", parameters: "<!--", file: "A.swift", line: 1,
                             label: "</script><script>alert(1)</script>")),
            .subscribe(SubscriptionRecord(id: 1, node: 1, parent: 0, time: 0, thread: 1,
                                          request: "\"</SCRIPT >&amp;\u{2028}")),
            .node(NodeRecord(id: 2, kind: .sink, name: "observe", file: "A.swift", line: 2,
                             upstream: [.init(node: 1, role: .data)])),
            .subscribe(SubscriptionRecord(id: 2, node: 2, parent: 0, time: 0, thread: 1)),
            .event(EventRecord(sequence: 1, time: 5, node: 1, subscription: 1, kind: .value, thread: 1,
                               text: "<img src=x onerror=alert(2)>", json: "\"</script><img src=x>\"")),
            .event(EventRecord(sequence: 2, time: 5, node: 2, subscription: 2, kind: .value, thread: 1, causes: [1],
                               text: "x\u{0}\\\"y")),
            .event(EventRecord(sequence: 3, time: 9, node: 1, subscription: 1, kind: .failed, thread: 1,
                               text: "]]></script>")),
        ]
        for record in records { XCTAssertNil(trace.add(record)) }
        return trace
    }

    /// The embedded data document of `page`.
    private func data(of page: String) throws -> [String: Any] {
        let open = "<script id=\"marbles-data\" type=\"application/json\">"
        let start = try XCTUnwrap(page.range(of: open)).upperBound
        let end = try XCTUnwrap(page.range(of: "</script>", range: start ..< page.endIndex)).lowerBound
        let object = try JSONSerialization.jsonObject(with: Data(page[start ..< end].utf8))
        return try XCTUnwrap(object as? [String: Any])
    }

    func testThePageIsByteIdenticalForTheSameInput() throws {
        let a = try tutorial("twitter-instant.trace"), b = try tutorial("twitter-instant.replay.trace")
        let differences = [TracePage.Difference(text: "value differs", eventA: 3, eventB: 4)]
        let once = try TracePage.html([.init(name: "a", trace: a), .init(name: "b", trace: b)], differences: differences,
                                  title: "ti")
        let twice = try TracePage.html([.init(name: "a", trace: try tutorial("twitter-instant.trace")),
                                    .init(name: "b", trace: try tutorial("twitter-instant.replay.trace"))],
                                   differences: differences, title: "ti")
        XCTAssertEqual(Array(once.utf8), Array(twice.utf8))
        XCTAssertNotEqual(once, try TracePage.html([.init(name: "a", trace: a)], title: "ti"))
    }

    func testHostileTextStaysInsideTheEmbeddedData() throws {
        let page = try TracePage.html([.init(name: "<i>x</i>.trace", trace: hostileTrace())],
                                  title: "</title><script>alert(3)</script>")
        // The only script elements are the page's own two.
        XCTAssertEqual(page.components(separatedBy: "<script").count - 1, 2)
        XCTAssertEqual(page.lowercased().components(separatedBy: "</script").count - 1, 2)
        XCTAssertFalse(page.contains("<img"))
        XCTAssertFalse(page.contains("<!--"))
        XCTAssertFalse(page.contains("<b>"))
        XCTAssertTrue(page.contains("<title>&lt;/title&gt;&lt;script&gt;alert(3)&lt;/script&gt;</title>"))
        // The texts are still there, whole, once decoded.
        let strings = try XCTUnwrap(try data(of: page)["strings"] as? [String])
        for text in ["</script><script>alert(1)</script>", "<img src=x onerror=alert(2)>", "\"</script><img src=x>\"",
                     "\"</SCRIPT >&amp;\u{2028}", "x\u{0}\\\"y", "]]></script>", "<!--", "<b>main</b>", "<i>x</i>.trace"] {
            XCTAssertTrue(strings.contains(text), text)
        }
        // The script never inserts markup built from data.
        XCTAssertFalse(PageScript.source.contains("innerHTML"))
        XCTAssertFalse(PageScript.source.contains("insertAdjacentHTML"))
        XCTAssertFalse(PageScript.source.contains("document.write"))
    }

    func testThePipelineStatisticsAndThreadColoursAreEmbedded() throws {
        let url = top.appendingPathComponent("traces/twitter-instant.replay.trace")
        let trace = try Trace(contentsOf: url)
        let stats = try TraceStats.compute(TraceReader(url: url))
        let document = try data(of: try TracePage.html([.init(name: "ti", trace: trace, stats: stats)], title: "ti"))
        let strings = try XCTUnwrap(document["strings"] as? [String])
        // The figure `marbles draw --pipeline` draws, and the node of each Graphviz node n0, n1, …
        let pipeline = try XCTUnwrap(document["pipeline"] as? [String: Any])
        let graph = PipelineGraph(trace: trace)
        XCTAssertEqual(pipeline["nodes"] as? [Int], graph.nodes.map { Int($0.id) ?? -1 })
        let svg = strings[try XCTUnwrap(pipeline["svg"] as? Int)]
        XCTAssertEqual(svg, String(decoding: try PipelineRenderer.render(graph, format: .svg), as: UTF8.self))
        // Each lane's statistics are those of `marbles stats`.
        let lanes = try XCTUnwrap(document["lanes"] as? [String: [Int]])
        let laneNodes = try XCTUnwrap(lanes["node"]), laneStats = try XCTUnwrap(lanes["stats"])
        for node in stats.nodes {
            let lane = try XCTUnwrap(laneNodes.firstIndex(of: Int(node.node.id)))
            XCTAssertEqual(strings[laneStats[lane]], PageData.describe(node))
        }
        let searchResults = try XCTUnwrap(laneNodes.firstIndex(of: 11))
        XCTAssertTrue(strings[laneStats[searchResults]].hasPrefix("1 value · 1 completed · stage latency p50 "),
                      strings[laneStats[searchResults]])
        // Threads have the figures' colours: main is blue in every figure and on the page.
        let threads = try XCTUnwrap(document["threads"] as? [Int]), colours = try XCTUnwrap(document["threadColours"] as? [Int])
        XCTAssertEqual(threads.count, colours.count)
        let main = try XCTUnwrap(threads.firstIndex { strings[$0] == "main" })
        XCTAssertEqual(strings[colours[main]], "#0072B2")
    }

    /// Pulls (an async consumer's demand) are counted in a lane's statistics and drawn as
    /// nothing: the lanes hold the events a stream sent, as the marble figure does.
    func testPullsAreCountedInTheLaneStatisticsNotDrawn() throws {
        let url = top.appendingPathComponent("traces/async-search.trace")
        let trace = try Trace(contentsOf: url)
        let stats = try TraceStats.compute(TraceReader(url: url))
        let document = try data(of: try TracePage.html([.init(name: "async", trace: trace, stats: stats)], title: "async"))
        let strings = try XCTUnwrap(document["strings"] as? [String])
        let lanes = try XCTUnwrap(document["lanes"] as? [String: [Int]])
        let laneNodes = try XCTUnwrap(lanes["node"]), laneStats = try XCTUnwrap(lanes["stats"])
        let counts = try XCTUnwrap(lanes["count"])
        let typed = try XCTUnwrap(trace.nodes.first { $0.label == "typed" })
        let lane = try XCTUnwrap(laneNodes.firstIndex(of: Int(typed.id)))
        let typedStats = try XCTUnwrap(stats.nodes.first { $0.node.id == typed.id })
        XCTAssertGreaterThan(typedStats.pulls, 0)
        XCTAssertTrue(strings[laneStats[lane]].contains("\(typedStats.pulls) pulls"), strings[laneStats[lane]])
        // The lane holds its subscription's start and the events sent, no pull.
        let sent = trace.events(of: typed.id).filter { $0.kind != .pull }.count
        let subscriptions = trace.subscriptions.filter { $0.node == typed.id }.count
        XCTAssertEqual(counts[lane], sent + subscriptions)
    }

    /// Issue 34: custom thread names shared four hashed colours (imu and gyro both yellow).
    /// The page gives each thread its own colour, the one the marble figure gives it.
    func testEachThreadHasItsOwnColourTheMarbleFiguresOne() throws {
        var trace = Trace(header: TraceHeader(clock: .real))
        let names = ["imu", "gyro", "keyboard.alice", "keyboard.bob", "keyboard.carol", "chat-server", "uploads"]
        var records: [TraceRecord] = names.enumerated().map { .thread(ThreadRecord(id: UInt64($0.offset + 1), name: $0.element)) }
        records.append(.thread(ThreadRecord(id: 8, name: "main", scheduler: "main")))
        for (index, name) in (names + ["main"]).enumerated() {
            let id = UInt64(index + 1)
            records.append(.node(NodeRecord(id: id, kind: .source, name: "pipe", file: "F.swift", line: id, label: name)))
            records.append(.subscribe(SubscriptionRecord(id: id, node: id, parent: 0, time: 0, thread: 8)))
            records.append(.event(EventRecord(sequence: id, time: Int64(id) * 1_000_000, node: id, subscription: id,
                                              kind: .value, thread: id, text: "v\(id)")))
        }
        for record in records { XCTAssertNil(trace.add(record)) }
        let document = try data(of: try TracePage.html([.init(name: "field", trace: trace)], title: "field"))
        let strings = try XCTUnwrap(document["strings"] as? [String])
        let threads = try XCTUnwrap(document["threads"] as? [Int]), colours = try XCTUnwrap(document["threadColours"] as? [Int])
        let page = Dictionary(uniqueKeysWithValues: zip(threads.map { strings[$0] }, colours.map { strings[$0] }))
        XCTAssertEqual(Set(page.keys), Set(names + ["main"]))
        XCTAssertEqual(Set(page.values).count, page.count, "two threads share a colour: \(page)")
        XCTAssertFalse(page.values.contains("#666666"), "no thread is grey")
        let figure = try MarbleFigure(trace: trace, options: MarbleOptions(selection: .all))
        let svg = String(decoding: try MarbleRenderer.render(figure, format: .svg), as: UTF8.self)
        var drawn: [String: String] = [:]
        for match in svg.matches(of: /<g class="thread" data-name="([^"]*)">\s*<circle[^>]*fill="(#[0-9A-Fa-f]{6})"/) {
            drawn[String(match.1)] = String(match.2)
        }
        XCTAssertEqual(drawn, page)
    }

    func testTheColumnarDataHoldsEveryEventOfEveryNode() throws {
        for name in ["twitter-instant.trace", "twitter-instant.replay.trace", "pixels.trace"] {
            let trace = try tutorial(name)
            let document = try data(of: try TracePage.html([.init(name: name, trace: trace)], title: name))
            let strings = try XCTUnwrap(document["strings"] as? [String])
            let threads = try XCTUnwrap(document["threads"] as? [Int])
            let lanes = try XCTUnwrap(document["lanes"] as? [String: [Int]])
            let events = try XCTUnwrap(document["events"] as? [String: [Int]])
            let column = { (key: String) throws -> [Int] in try XCTUnwrap(events[key], key) }
            let (t, k, h, x, j, r, s, cn, c) = (try column("t"), try column("k"), try column("h"), try column("x"),
                                                 try column("j"), try column("r"), try column("s"), try column("cn"),
                                                 try column("c"))
            let laneNodes = try XCTUnwrap(lanes["node"])
            XCTAssertEqual(laneNodes.sorted(), trace.nodes.map { Int($0.id) }, name)
            var causeOffset = 0
            var decoded: [UInt64: EventRecord] = [:]
            var subscriptions = 0, delivered = 0
            for (lane, node) in laneNodes.enumerated() {
                let first = try XCTUnwrap(lanes["first"])[lane], count = try XCTUnwrap(lanes["count"])[lane]
                var time = 0
                for index in first ..< first + count {
                    time += t[index]
                    defer { causeOffset += cn[index] }
                    if k[index] == TracePage.Mark.subscribed.rawValue {
                        subscriptions += 1
                        continue
                    }
                    if s[index] == 0 {
                        // An event delivered to a sink, caused by the event it is: the same
                        // kind, time and value, on the lane of a sink.
                        delivered += 1
                        XCTAssertEqual(trace.node(UInt64(node))?.kind, .sink, name)
                        XCTAssertEqual(cn[index], 1, name)
                        let original = try XCTUnwrap(trace.event(sequence: UInt64(s[c[causeOffset]])))
                        XCTAssertEqual(Int64(time), original.time, name)
                        XCTAssertEqual(k[index], TracePage.Mark(original.kind).rawValue, name)
                        XCTAssertEqual(x[index] >= 0 ? strings[x[index]] : nil, original.text, name)
                        continue
                    }
                    let causes = c[causeOffset ..< causeOffset + cn[index]].map { UInt64(s[$0]) }
                    let kind: EventKind = [.value, .failed, .completed, .interrupted][k[index]]
                    let original = try XCTUnwrap(trace.event(sequence: UInt64(s[index])))
                    // Threads are told apart by name, as the page colours them.
                    XCTAssertEqual(strings[threads[h[index]]], trace.thread(original.thread)?.displayName)
                    decoded[UInt64(s[index])] = EventRecord(
                        sequence: UInt64(s[index]), time: Int64(time), node: UInt64(node),
                        subscription: original.subscription, kind: kind, thread: original.thread, causes: causes,
                        text: x[index] >= 0 ? strings[x[index]] : nil, truncated: original.truncated,
                        json: j[index] >= 0 ? strings[j[index]] : nil, omittedJSONBytes: original.omittedJSONBytes)
                    XCTAssertEqual(r[index] >= 0 ? strings[r[index]] : nil,
                                   trace.subscription(original.subscription)?.request, name)
                }
            }
            XCTAssertEqual(causeOffset, c.count, name)
            XCTAssertEqual(subscriptions, trace.subscriptions.count, name)
            XCTAssertEqual(decoded.count, trace.events.count, name)
            XCTAssertEqual(delivered, trace.nodes.filter { $0.kind == .sink }
                .map { PageData.delivered(to: $0, in: trace).count }.reduce(0, +), name)
            for event in trace.events where !event.truncated {
                XCTAssertEqual(decoded[event.sequence], event, "\(name) seq \(event.sequence)")
            }
        }
    }

    /// A sink sends nothing of its own: its lane shows what it received, so the lane table's
    /// count of values is the one `marbles stats` gives it.
    func testASinksLaneShowsWhatWasDeliveredToIt() throws {
        for name in ["twitter-instant.replay.trace", "pixels.trace", "registration.trace"] {
            let url = top.appendingPathComponent("traces/\(name)")
            let trace = try Trace(contentsOf: url)
            let stats = try TraceStats.compute(TraceReader(url: url))
            let document = try data(of: try TracePage.html([.init(name: name, trace: trace)], title: name))
            let lanes = try XCTUnwrap(document["lanes"] as? [String: [Int]])
            let kinds = try XCTUnwrap((document["events"] as? [String: [Int]])?["k"])
            let laneNodes = try XCTUnwrap(lanes["node"]), firsts = try XCTUnwrap(lanes["first"]), counts = try XCTUnwrap(lanes["count"])
            var sinks = 0
            for node in stats.nodes where node.node.kind == .sink {
                sinks += 1
                let lane = try XCTUnwrap(laneNodes.firstIndex(of: Int(node.node.id)))
                let lanesKinds = kinds[firsts[lane] ..< firsts[lane] + counts[lane]]
                XCTAssertEqual(lanesKinds.filter { $0 == TracePage.Mark.value.rawValue }.count, node.values,
                               "\(name): \(node.node.name) #\(node.node.id)")
                XCTAssertEqual(lanesKinds.filter { $0 == TracePage.Mark.completed.rawValue }.count, node.completed, name)
                XCTAssertEqual(lanesKinds.filter { $0 == TracePage.Mark.failed.rawValue }.count, node.failed, name)
            }
            XCTAssertGreaterThan(sinks, 0, name)
        }
    }

    func testInnerStreamsFollowTheirOperatorAndTwoTracesInterleave() throws {
        let trace = try tutorial("twitter-instant.replay.trace")
        let order = PageData.laneOrder(trace)
        XCTAssertEqual(order.map(\.node).sorted(), trace.nodes.map(\.id))
        // The search call (node 14) is an inner stream of flatMap "searchResults" (node 11).
        let outer = try XCTUnwrap(order.firstIndex { $0.node == 11 })
        XCTAssertEqual(order[outer + 1].node, 14)
        XCTAssertEqual(order[outer + 1].depth, 1)
        let document = try data(of: try TracePage.html([.init(name: "a", trace: trace), .init(name: "b", trace: trace)],
                                                   title: "same"))
        let lanes = try XCTUnwrap(document["lanes"] as? [String: [Int]])
        XCTAssertEqual(lanes["trace"], Array(repeating: [0, 1], count: trace.nodes.count).flatMap { $0 })
        XCTAssertEqual(lanes["node"], order.flatMap { [Int($0.node), Int($0.node)] })
    }

    /// Work a `for await` loop followed from an element (the async search's call) is drawn
    /// right after the tap it followed, at its depth, and what that work fed after it: the
    /// page's lanes read in pipeline order, as the marble figure's, whatever the node ids.
    func testFollowedWorkFollowsItsTapAndFeedsTheLaneAfterIt() throws {
        let trace = try tutorial("async-search.replay.trace")
        let order = PageData.laneOrder(trace)
        let names = Dictionary(uniqueKeysWithValues: trace.nodes.map { ($0.id, $0.label ?? $0.name) })
        XCTAssertEqual(order.map { names[$0.node] ?? "?" },
                       ["searchText", "typed", "validSearchText", "settled", "search", "searchResults"])
        XCTAssertEqual(order.map(\.depth), [0, 0, 0, 0, 0, 0])
        // Node ids are not that order: the results' stream was made before the taps.
        XCTAssertNotEqual(order.map(\.node), order.map(\.node).sorted())
    }

    func testADifferenceRefersToTheEventsOfEachTrace() throws {
        let a = try tutorial("twitter-instant.trace"), b = try tutorial("twitter-instant.replay.trace")
        let page = try TracePage.html([.init(name: "a", trace: a), .init(name: "b", trace: b)],
                                  differences: [.init(text: "one", eventA: 39, eventB: 40), .init(text: "two")],
                                  title: "diff")
        let document = try data(of: page)
        let strings = try XCTUnwrap(document["strings"] as? [String])
        let diffs = try XCTUnwrap(document["diffs"] as? [String: [Int]])
        let events = try XCTUnwrap(document["events"] as? [String: [Int]])
        let lanes = try XCTUnwrap(document["lanes"] as? [String: [Int]])
        XCTAssertEqual(try XCTUnwrap(diffs["text"]).map { strings[$0] }, ["one", "two"])
        XCTAssertEqual(diffs["b"]?[1], -1)
        let indexA = try XCTUnwrap(diffs["a"]?[0]), indexB = try XCTUnwrap(diffs["b"]?[0])
        XCTAssertEqual(events["s"]?[indexA], 39)
        XCTAssertEqual(events["s"]?[indexB], 40)
        let firsts = try XCTUnwrap(lanes["first"])
        let laneOf = { (index: Int) -> Int? in firsts.indices.last { firsts[$0] <= index } }
        XCTAssertEqual(lanes["trace"]?[try XCTUnwrap(laneOf(indexA))], 0)
        XCTAssertEqual(lanes["trace"]?[try XCTUnwrap(laneOf(indexB))], 1)
    }

    /// The page reads each event by its position in the trace, and finds a cause's row by its
    /// sequence number: a trace whose events were written out of sequence order (each pair of
    /// adjacent event lines swapped, which a trace read from such a file indexes by a
    /// dictionary) gives the same page as the trace in order, with the same causes, for one
    /// trace and for two with differences between them.
    func testEventsReadOutOfSequenceOrderGiveTheSamePage() throws {
        for name in ["twitter-instant", "async-search", "pixels"] {
            let url = top.appendingPathComponent("traces/\(name).trace")
            var lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            var swapped = 0
            var index = 0
            while index + 1 < lines.count {
                if lines[index].hasPrefix("{\"type\":\"event\""), lines[index + 1].hasPrefix("{\"type\":\"event\"") {
                    lines.swapAt(index, index + 1)
                    swapped += 1
                    index += 2
                } else {
                    index += 1
                }
            }
            XCTAssertGreaterThan(swapped, 10, name)
            let inOrder = try Trace(contentsOf: url)
            let shuffled = try Trace(bytes: Array(lines.joined(separator: "\n").utf8), name: name)
            XCTAssertNotEqual((0..<inOrder.events.count).map(inOrder.events.sequence(at:)),
                              (0..<shuffled.events.count).map(shuffled.events.sequence(at:)), name)
            XCTAssertEqual(try TracePage.html([.init(name: name, trace: shuffled)], title: name),
                           try TracePage.html([.init(name: name, trace: inOrder)], title: name), name)
            let differences = [TracePage.Difference(text: "d", eventA: 5, eventB: 7)]
            XCTAssertEqual(try TracePage.html([.init(name: "a", trace: shuffled), .init(name: "b", trace: shuffled)],
                                              differences: differences, title: name),
                           try TracePage.html([.init(name: "a", trace: inOrder), .init(name: "b", trace: inOrder)],
                                              differences: differences, title: name), name)
            let page = try data(of: TracePage.html([.init(name: name, trace: shuffled)], title: name))
            let causes = try XCTUnwrap((page["events"] as? [String: Any])?["c"] as? [Int])
            XCTAssertGreaterThan(causes.count, 10, name)
        }
    }
}
