@testable import Diagrams
import TraceLog
import XCTest

/// The columns a marble figure keeps of a trace's subscriptions answer as the `Trace` does:
/// ids numbered 1, 2, 3, … (kept implicitly), ids that stop being numbered so part way, ids
/// that never were, and ids that stop ascending (found through a dictionary then).
final class SubscriptionTableTests: XCTestCase {
    func testEveryNumberingAnswersAsTheTraceDoes() throws {
        let numberings: [[UInt64]] = [[1, 2, 3, 4, 5], [1, 2, 3, 7, 8, 20], [5, 6, 9], [1, 2, 9, 4, 3], [3, 1, 2], [1]]
        for ids in numberings {
            var trace = Trace(header: TraceHeader(clock: .virtual))
            XCTAssertNil(trace.add(.thread(ThreadRecord(id: 1, name: "main"))))
            XCTAssertNil(trace.add(.node(NodeRecord(id: 1, kind: .source, name: "a", file: "f", line: 1, upstream: []))))
            XCTAssertNil(trace.add(.node(NodeRecord(id: 2, kind: .operator, name: "b", file: "f", line: 2,
                                                    upstream: [.init(node: 1, role: .data)]))))
            var table = SubscriptionTable()
            for (position, id) in ids.enumerated() {
                // Every other one started by the one before it, on alternating nodes.
                let subscription = SubscriptionRecord(id: id, node: UInt64(1 + position % 2),
                                                      parent: position % 2 == 1 ? ids[position - 1] : 0,
                                                      time: Int64(10 * position), thread: 1)
                XCTAssertNil(trace.add(.subscribe(subscription)))
                table.append(subscription)
            }
            XCTAssertEqual(table.count, trace.subscriptions.count, "\(ids)")
            for (position, record) in trace.subscriptions.enumerated() {
                let kept = table[position]
                XCTAssertEqual([kept.id, kept.node, kept.parent], [record.id, record.node, record.parent], "\(ids)")
                XCTAssertEqual(kept.time, record.time, "\(ids)")
            }
            XCTAssertEqual(table.nodesAndParents.map(\.node), trace.subscriptions.map(\.node), "\(ids)")
            XCTAssertEqual(table.nodesAndParents.map(\.parent), trace.subscriptions.map(\.parent), "\(ids)")
            for id in UInt64(0)...25 {
                XCTAssertEqual(table.position(of: id), trace.subscriptionIndex(id), "\(ids): id \(id)")
            }
        }
    }
}
