@testable import Diagrams
import Foundation
import Signals
import TraceLog
import Recording
import XCTest

/// A long session drawn whole: more inner streams than a figure can stack, more marks on a
/// lane than its axis can show apart. The figure stays a figure: one lane for the inner
/// streams, marks of one kind drawn on top of each other counted as one, every subscription
/// still accounted for.
final class BigFigureTests: XCTestCase {
    static let queries = 500

    /// text → flatMap(.latest) { a search answering after 300 ms on "background", its
    /// failure caught }, one query a second; every tenth search fails.
    static func longSession() throws -> Trace {
        let scheduler = TestScheduler()
        let main = scheduler.lane("main")
        let background = scheduler.lane("background")
        let bytes = Recorder.record(virtual: scheduler) {
            let (text, input) = Signal<Int, Never>.pipe(named: "searchText")
            text.flatMap(.latest) { query in
                SignalProducer<Int, SearchError> { observer, _ in
                    if query % 10 == 9 {
                        observer.send(error: SearchError(description: "InvalidResponse"))
                    } else {
                        observer.send(value: query)
                        observer.sendCompleted()
                    }
                }
                .delay(0.3, on: background)
                .flatMapError { _ in SignalProducer<Int, Never>.empty }
            }
            .observe { _ in }
            for query in 0..<queries {
                _ = main.schedule(after: Date(timeIntervalSinceReferenceDate: Double(query))) { input.send(value: query) }
            }
            _ = scheduler.run()
        }
        return try Trace(bytes: bytes, name: "long-session")
    }

    /// Each mark group of `kind` in `svg` with its `data-node` and `data-count` (1 without).
    private func marks(_ svg: String, _ kind: String) -> [(node: String, count: Int)] {
        svg.matches(of: /<g class="([a-z ]+)"([^>]*)>/).compactMap { match in
            guard match.1 == kind else { return nil }
            let attributes = String(match.2)
            let node = attributes.firstMatch(of: /data-node="(\d+)"/).map { String($0.1) } ?? ""
            let count = attributes.firstMatch(of: /data-count="(\d+)"/).flatMap { Int($0.1) } ?? 1
            return (node, count)
        }
    }

    func testManyInnerStreamsAreOneLaneWithEveryStartAndEndAsAMark() throws {
        let figure = try MarbleFigure(trace: Self.longSession())
        let inner = figure.lanes.filter(\.isInner)
        XCTAssertEqual(inner.count, 1, "\(inner.map(\.title))")
        let lane = try XCTUnwrap(inner.first)
        XCTAssertTrue(lane.title.hasSuffix("\u{00D7}\(Self.queries)"), lane.title)
        XCTAssertEqual(lane.marbles.count, Self.queries - Self.queries / 10)
        let starts = lane.marks.filter { $0.node == lane.node && { if case .subscribed = $0 { true } else { false } }($0.kind) }
        let ends = lane.marks.filter { $0.node == lane.node && { if case .ended = $0 { true } else { false } }($0.kind) }
        // The chain's failures, caught by its flatMapError, on the nodes upstream of the lane's.
        let failed = lane.marks.filter { $0.node != lane.node && { if case .ended(.failed) = $0 { true } else { false } }($0.kind) }
        // The lane's own start is its first subscription's, its end the last one's.
        XCTAssertEqual(starts.count + (lane.subscribed == nil ? 0 : 1), Self.queries)
        XCTAssertEqual(ends.count + (lane.end == nil ? 0 : 1), Self.queries)
        // Each failure is the producer's and the delay's forwarding it.
        XCTAssertEqual(failed.count, 2 * Self.queries / 10)
    }

    func testCrowdedMarksAreDrawnOnceAtTheFiguresResolutionAndCounted() throws {
        let figure = try MarbleFigure(trace: Self.longSession())
        let svg = MarbleRenderer.svg(figure)
        let lane = try XCTUnwrap(figure.lanes.first(where: \.isInner))
        let node = String(try XCTUnwrap(lane.node))
        let starts = marks(svg, "subscribed").filter { $0.node == node }
        let failed = marks(svg, "failed")
        // Drawn at most once per cell of the axis, counting every one.
        XCTAssertLessThan(starts.count, Int(MarbleRenderer.defaultMaxWidth / MarbleLayout.markCell))
        XCTAssertGreaterThan(starts.count, 20)
        XCTAssertEqual(starts.map(\.count).reduce(0, +), Self.queries)
        XCTAssertTrue(starts.contains { $0.count > 1 })
        XCTAssertEqual(failed.map(\.count).reduce(0, +), 2 * Self.queries / 10)
        XCTAssertTrue(svg.contains("<title>subscribed \u{00D7}"), "a counted mark says how many it stands for")
        XCTAssertEqual(MarbleRenderer.svg(figure), svg)
        // Small enough for an image.
        XCTAssertNoThrow(try MarbleRenderer.render(figure, format: .png))
    }

    func testAFewMarksAtOneInstantAreEachDrawn() throws {
        // Three subscriptions of the lane's node at one time: fewer than the axis can show
        // apart, so each is drawn, as before.
        let lane = MarbleFigure.Lane(title: "thumbnail \u{00D7}3", subscribed: 10, marbles: [.init(id: 1, time: 50, display: "a")],
                                     end: .completed(at: 90), node: 7,
                                     marks: [.init(.subscribed(at: 10), node: 7), .init(.subscribed(at: 10), node: 7),
                                             .init(.ended(.completed(at: 60)), node: 7), .init(.ended(.completed(at: 61)), node: 7)])
        let svg = MarbleRenderer.svg(MarbleFigure(rows: [.lane(lane)]))
        XCTAssertEqual(marks(svg, "subscribed").count, 3)
        XCTAssertEqual(marks(svg, "completed").count, 3)
        XCTAssertFalse(svg.contains("data-count=\"2\""))
    }
}
