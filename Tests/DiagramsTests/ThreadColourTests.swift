@testable import Diagrams
import TraceLog
import XCTest

/// Issue 34: figures tell threads apart. Each thread of a trace has its own colour, the same
/// in the marble figure and the pipeline figure, and a node fed from several threads is in
/// no thread's box.
final class ThreadColourTests: XCTestCase {
    /// `#rrggbb` with equal channels: a grey (or black or white).
    private func isGrey(_ fill: String) -> Bool {
        let hex = Array(fill.dropFirst())
        return hex.count == 6 && hex[0..<2] == hex[2..<4] && hex[2..<4] == hex[4..<6]
    }

    /// Each thread's fill in a marble figure's SVG: from its legend entry and every marble
    /// delivered on it alone.
    private func fills(_ svg: String) -> [String: Set<String>] {
        var fills: [String: Set<String>] = [:]
        for match in svg.matches(of: /<g class="marble[^"]*"[^>]*data-thread="([^"]*)"[^>]*>\s*(?:<title>[^<]*<\/title>\s*)?<(?:circle|rect)[^>]*fill="(#[0-9A-Fa-f]{6})"/) {
            fills[String(match.1), default: []].insert(String(match.2))
        }
        for match in svg.matches(of: /<g class="thread" data-name="([^"]*)">\s*<circle[^>]*fill="(#[0-9A-Fa-f]{6})"/) {
            fills[String(match.1), default: []].insert(String(match.2))
        }
        return fills
    }

    /// imu and gyro were both yellow, keyboard.bob and chat-server both vermilion, and a
    /// thread could get a grey like the one of marbles from several threads: four hashed
    /// colours for every name but four.
    func testEveryThreadOfAFigureHasItsOwnColourAndNoneIsGrey() throws {
        let figure = try MarbleFigure(trace: Pipelines.customThreads(), options: MarbleOptions(selection: .all))
        let fills = fills(String(decoding: try MarbleRenderer.render(figure, format: .svg), as: UTF8.self))
        XCTAssertEqual(Set(fills.keys), ["imu", "gyro", "keyboard.alice", "keyboard.bob", "keyboard.carol", "chat-server",
                                         "pool-1", "pool-2", "pool-3", "pool-4", "pool-5", "pool-6", "main"])
        for (thread, colours) in fills {
            XCTAssertEqual(colours.count, 1, "\(thread) is drawn in \(colours.sorted())")
            XCTAssertFalse(colours.contains(where: isGrey), "\(thread) is drawn in a grey: \(colours.sorted())")
        }
        let distinct = Set(fills.values.compactMap(\.first))
        XCTAssertEqual(distinct.count, fills.count, "two threads share a colour: \(fills)")
        XCTAssertEqual(fills["main"], ["#0072B2"], "main keeps its colour")
    }

    /// A figure of some lanes gives their threads the colours the whole trace gives them
    /// (as the viewer and the pipeline figure do), not colours of its own legend's order.
    func testAFigureOfSomeLanesKeepsTheTracesColours() throws {
        let trace = Pipelines.customThreads()
        let all = fills(String(decoding: try MarbleRenderer.render(try MarbleFigure(trace: trace, options: .init(selection: .all)),
                                                                   format: .svg), as: UTF8.self))
        let some = fills(String(decoding: try MarbleRenderer.render(try MarbleFigure(trace: trace, options: .init(selection: .nodes(["pool-4", "chat"]))),
                                                                    format: .svg), as: UTF8.self))
        XCTAssertEqual(Set(some.keys), ["pool-4", "chat-server"])
        for (thread, colours) in some { XCTAssertEqual(colours, all[thread], thread) }
    }

    func testNamesAreColouredInOrderOfFirstAppearanceWellKnownOnesAlike() {
        let colours = ThreadColours.assign(["imu", "main", "gyro", "imu", "test", "ui"])
        XCTAssertEqual(colours.mapValues(\.fill), [
            "imu": "#CC79A7", "main": "#0072B2", "gyro": "#F0E442", "test": "#D55E00", "ui": "#56B4E9",
        ])
        // Any number of threads: all different, none a grey, none a well-known name's colour.
        let names = (0..<300).map { "worker-\($0)" }
        let many = ThreadColours.assign(names)
        let fills = names.map { many[$0]?.fill ?? "" }
        XCTAssertEqual(Set(fills).count, names.count)
        XCTAssertFalse(fills.contains(where: isGrey), "\(fills.filter(isGrey))")
        XCTAssertTrue(Set(fills).isDisjoint(with: ThreadColours.wellKnown.values.map(\.fill) + [ThreadColours.several.fill]))
        for colour in many.values {
            XCTAssertTrue(colour.fill.wholeMatch(of: /#[0-9A-F]{6}/) != nil, colour.fill)
            XCTAssertTrue(["#000000", "#ffffff"].contains(colour.text))
        }
        XCTAssertEqual(ThreadColours.assign(names), many, "the same names, the same colours")
    }

    /// `merge` of three keyboards sat in the box "on keyboard.alice" (the thread of most of
    /// its events) and `combineLatest` of imu and gyro in "on imu".
    func testANodeFedFromSeveralThreadsSitsInNoThreadsBox() throws {
        let graph = PipelineGraph(trace: Pipelines.customThreads())
        let group = { (name: String) in graph.nodes.first { $0.name == name || $0.label == name }?.group }
        XCTAssertNil(group("merge"))
        XCTAssertNil(group("combineLatest"))
        XCTAssertEqual(group("imu"), "imu", "an interruption comes on the cancelling thread, not where the node runs")
        XCTAssertEqual(group("keyboard.alice"), "keyboard.alice")
        XCTAssertEqual(group("observe(on:)"), "main")
        // Where it ran instead is on hover.
        XCTAssertEqual(graph.nodes.first { $0.name == "merge" }?.threads, ["keyboard.alice", "keyboard.bob", "keyboard.carol"])
        XCTAssertEqual(graph.nodes.first { $0.name == "combineLatest" }?.threads, ["imu", "gyro"])
        XCTAssertEqual(graph.nodes.first { $0.label == "imu" }?.threads, [])
        let svg = String(decoding: try PipelineRenderer.render(graph, format: .svg), as: UTF8.self)
        XCTAssertTrue(svg.contains("on 3 threads: keyboard.alice, keyboard.bob, keyboard.carol"), svg)
        let dot = String(decoding: try PipelineRenderer.render(graph, format: .dot), as: UTF8.self)
        let merge = try XCTUnwrap(graph.nodes.firstIndex { $0.name == "merge" })
        for cluster in dot.split(separator: "subgraph").dropFirst() {
            let body = cluster.prefix { $0 != "}" }
            XCTAssertNil(body.firstMatch(of: try Regex("\\bn\(merge)\\b")), "merge is inside \(body)")
        }
    }

    /// Each thread's box in the pipeline figure has the colour of its marbles.
    func testThePipelineBoxesHaveTheMarbleFiguresColours() throws {
        let trace = Pipelines.customThreads()
        let marbles = fills(String(decoding: try MarbleRenderer.render(try MarbleFigure(trace: trace, options: .init(selection: .all)),
                                                                       format: .svg), as: UTF8.self))
        let svg = String(decoding: try PipelineRenderer.render(PipelineGraph(trace: trace), format: .svg), as: UTF8.self)
        var boxes: [String: String] = [:]
        for match in svg.matches(of: /<g id="clust\d+" class="cluster">\s*<title>[^<]*<\/title>\s*<path fill="[^"]*" stroke="(#[0-9a-fA-F]{6})"[^>]*\/>\s*<text[^>]*fill="(#[0-9a-fA-F]{6})"[^>]*>\u{25CF}<\/text>\s*<text[^>]*> ?on ([^<]*)<\/text>/) {
            boxes[match.3.replacingOccurrences(of: "&#45;", with: "-")] = String(match.1).uppercased()
            XCTAssertEqual(match.1.uppercased(), match.2.uppercased(), "the dot before \(match.3) is its box's colour")
        }
        // The pool threads' sources feed nothing, so the pipeline leaves them out.
        XCTAssertEqual(Set(boxes.keys), ["imu", "gyro", "keyboard.alice", "keyboard.bob", "keyboard.carol", "chat-server", "main"], svg)
        for (thread, colour) in boxes { XCTAssertEqual(marbles[thread], [colour], thread) }
    }
}
