import TraceLog
import XCTest

/// The subscription tree answers as the `Trace` it was made from does: ids numbered 1, 2, 3,
/// … (kept implicitly), ids that stop being numbered so part way, ids that never were, and
/// ids that stop ascending (found through a dictionary then); and its indexes list each
/// node's subscriptions and each subscription's children in trace order.
final class SubscriptionTreeTests: XCTestCase {
    func testEveryNumberingAnswersAsTheTraceDoes() throws {
        let numberings: [[UInt64]] = [[1, 2, 3, 4, 5], [1, 2, 3, 7, 8, 20], [5, 6, 9], [1, 2, 9, 4, 3], [3, 1, 2], [1]]
        for ids in numberings {
            var trace = Trace(header: TraceHeader(clock: .virtual))
            XCTAssertNil(trace.add(.thread(ThreadRecord(id: 1, name: "main"))))
            XCTAssertNil(trace.add(.node(NodeRecord(id: 1, kind: .source, name: "a", file: "f", line: 1, upstream: []))))
            XCTAssertNil(trace.add(.node(NodeRecord(id: 2, kind: .operator, name: "b", file: "f", line: 2,
                                                    upstream: [.init(node: 1, role: .data)]))))
            var streamed = SubscriptionTree()
            for (position, id) in ids.enumerated() {
                // Every other one started by the first, on alternating nodes.
                let subscription = SubscriptionRecord(id: id, node: UInt64(1 + position % 2),
                                                      parent: position % 2 == 1 ? ids[0] : 0,
                                                      time: Int64(10 * position), thread: 1)
                XCTAssertNil(trace.add(.subscribe(subscription)))
                streamed.append(subscription)
            }
            for tree in [streamed, SubscriptionTree(trace: trace)] {
                XCTAssertEqual(tree.count, trace.subscriptions.count, "\(ids)")
                for (position, record) in trace.subscriptions.enumerated() {
                    let kept = tree[position]
                    XCTAssertEqual([kept.id, kept.node, kept.parent], [record.id, record.node, record.parent], "\(ids)")
                    XCTAssertEqual(kept.time, record.time, "\(ids)")
                }
                for id in UInt64(0)...25 {
                    XCTAssertEqual(tree.position(of: id), trace.subscriptionIndex(id), "\(ids): id \(id)")
                    let children = trace.subscriptions.indices.filter { trace.subscriptions[$0].parent == id && id != 0 }
                    XCTAssertEqual(tree.children(of: id).map(Int.init), children, "\(ids): children of \(id)")
                }
                for node in UInt64(1)...3 {
                    let own = trace.subscriptions.indices.filter { trace.subscriptions[$0].node == node }
                    XCTAssertEqual(tree.positions(ofNode: node)?.map(Int.init), own.isEmpty ? nil : own, "\(ids): node \(node)")
                }
                XCTAssertEqual(tree.innerEdges { trace.node($0) }, trace.innerEdges, "\(ids)")
            }
        }
    }
}
