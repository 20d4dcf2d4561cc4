import Foundation
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
            for tree in [streamed, trace.subscriptions.tree] {
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
        // A parent the tree holds no record of is kept as given, and has the child.
        var tree = SubscriptionTree()
        tree.append(SubscriptionRecord(id: 1, node: 1, parent: 0, time: 0, thread: 1))
        tree.append(SubscriptionRecord(id: 2, node: 1, parent: 9, time: 1, thread: 1))
        tree.append(SubscriptionRecord(id: 3, node: 2, parent: 1, time: 2, thread: 1))
        XCTAssertEqual((0..<3).map { tree[$0].parent }, [0, 9, 1])
        XCTAssertEqual(tree.children(of: 1), [2])
        XCTAssertEqual(tree.children(of: 9), [])
    }

    /// A trace's subscriptions, kept as columns, read back as the records that were added:
    /// every field, a link list written empty apart from one not written, on every committed
    /// trace and on records that use every field.
    func testTheSubscriptionsReadBackAsTheRecordsAdded() throws {
        var trace = Trace(header: TraceHeader(clock: .virtual))
        XCTAssertNil(trace.add(.thread(ThreadRecord(id: 1, name: "main"))))
        XCTAssertNil(trace.add(.thread(ThreadRecord(id: 2, name: "worker"))))
        XCTAssertNil(trace.add(.node(NodeRecord(id: 1, kind: .source, name: "a", file: "f", line: 1, upstream: []))))
        let added = [
            SubscriptionRecord(id: 1, node: 1, parent: 0, time: 5, thread: 2, late: true),
            SubscriptionRecord(id: 2, node: 1, parent: 1, time: 6, thread: 1, request: "{\"q\":1}", observes: []),
            SubscriptionRecord(id: 4, node: 1, parent: 0, time: -7, thread: 1,
                               requestOmitted: RequestDigest(bytes: 70_000, hash: 42), observedBy: [1, 2]),
            SubscriptionRecord(id: 3, node: 1, parent: 2, time: 8, thread: 2, observes: [1], observedBy: []),
        ]
        for subscription in added { XCTAssertNil(trace.add(.subscribe(subscription))) }
        XCTAssertEqual(Array(trace.subscriptions), added)
        XCTAssertEqual(added.map(\.id).map(trace.subscription), added)

        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let files = try FileManager.default.contentsOfDirectory(at: root.appendingPathComponent("traces"), includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "trace" }
        XCTAssertGreaterThan(files.count, 10)
        var linked = 0
        for url in files {
            let reader = try TraceReader(url: url)
            var read: [SubscriptionRecord] = []
            while let record = try reader.next() {
                if case let .subscribe(subscription) = record { read.append(subscription) }
            }
            XCTAssertEqual(Array(try Trace(contentsOf: url).subscriptions), read, url.lastPathComponent)
            linked += read.count { $0.observes != nil || $0.observedBy != nil || $0.request != nil }
        }
        XCTAssertGreaterThan(linked, 0)
    }
}
