import Foundation
import Signals
import TraceLog
import Recording
import XCTest

/// A recorder keeps the trace ids of a signal instance's node and subscription on the instance
/// (`InstanceIDs`) after its first events. These tests fail when what it kept outlives what it
/// names: the recording (another one numbers the same instance otherwise), the subscription
/// (a new instance of the same node is a new subscription), or the node (`named` gives an
/// instance nothing has seen a node of its own).
final class InstanceIDsTests: XCTestCase {
    /// How a test records: live to a file (the threads' rings) or on virtual time in memory.
    private enum Way: CaseIterable { case file, virtual }

    private func record(_ way: Way, _ body: () -> Void) throws -> Trace {
        switch way {
        case .file:
            let url = FileManager.default.temporaryDirectory
                .appendingPathComponent("marbles-instance-ids-\(getpid())-\(UUID().uuidString).trace")
            defer { try? FileManager.default.removeItem(at: url) }
            try Recorder.record(to: url, body)
            return try Trace(contentsOf: url)
        case .virtual:
            return try Trace(bytes: Recorder.record(virtual: TestScheduler(), body))
        }
    }

    /// The values each event carries with its node's label and its subscription's position;
    /// `sameNode`: each event's node is its subscription's.
    private func attributed(_ trace: Trace, sameNode: Bool = true) -> [(value: Int, label: String?, subscription: Int)] {
        trace.events.indices.compactMap { position in
            guard let value = trace.events.jsonInteger(at: position) else { return nil }
            let subscription = trace.events.subscriptionIndex(at: position)
            let label = trace.node(trace.events.node(at: position))?.label
            if sameNode { XCTAssertEqual(trace.subscriptions[subscription].node, trace.events.node(at: position)) }
            return (Int(value), label, subscription)
        }
    }

    func testTheNextRecordingNumbersAnInstanceAnew() throws {
        for way in Way.allCases {
            let (signal, input) = Signal<Int, Never>.pipe(named: "kept")
            signal.observeValues { _ in }
            // The first recording meets three other streams first, so its ids for `kept` are
            // not the second one's.
            for others in [3, 0] {
                let trace = try record(way) {
                    var inputs: [Signal<Int, Never>.Observer] = []
                    for index in 0..<others {
                        let (other, otherInput) = Signal<Int, Never>.pipe(named: "other\(index)")
                        other.observeValues { _ in }
                        otherInput.send(value: -1)
                        inputs.append(otherInput)
                    }
                    for value in 1...4 { input.send(value: value) }
                }
                let kept = attributed(trace).filter { $0.value > 0 }
                XCTAssertEqual(kept.map(\.value), [1, 2, 3, 4], "\(way)")
                XCTAssertEqual(Set(kept.map(\.label)), ["kept"], "\(way), \(others) others")
                XCTAssertEqual(Set(kept.map(\.subscription)).count, 1, "\(way)")
            }
        }
    }

    private func makeInner() -> (Signal<Int, Never>, Signal<Int, Never>.Observer) {
        Signal<Int, Never>.pipe(named: "inner")
    }

    func testANewInstanceOfTheSameNodeIsANewSubscription() throws {
        for way in Way.allCases {
            let trace = try record(way) {
                for round in 0..<3 {
                    let (signal, input) = makeInner()
                    let observation = signal.observeValues { _ in }
                    for value in 1...3 { input.send(value: 10 * round + value) }
                    observation?.dispose()
                    input.sendCompleted()
                }
            }
            let events = attributed(trace)
            XCTAssertEqual(events.map(\.value), [1, 2, 3, 11, 12, 13, 21, 22, 23], "\(way)")
            XCTAssertEqual(Set(events.map(\.label)), ["inner"], "\(way)")
            let rounds = stride(from: 0, to: 9, by: 3).map { Set(events[$0..<$0 + 3].map(\.subscription)) }
            XCTAssertEqual(rounds.map(\.count), [1, 1, 1], "\(way)")
            XCTAssertEqual(Set(rounds.flatMap { $0 }).count, 3, "\(way): one subscription a round")
        }
    }

    func testAnInstanceNamedAfterItsFirstEventsReportsUnderItsNewNode() throws {
        for way in Way.allCases {
            // Made with no probe attached and not observed: `named` still gives it a node of its
            // own after it has sent.
            let (signal, input) = Signal<Int, Never>.pipe()
            let trace = try record(way) {
                input.send(value: 1)
                input.send(value: 2)
                let named = signal.named("renamed")
                XCTAssertTrue(named === signal, "\(way): named in place")
                named.observeValues { _ in }
                input.send(value: 3)
                input.send(value: 4)
            }
            // (Its late subscription record keeps the node it was first recorded with.)
            let events = attributed(trace, sameNode: false)
            XCTAssertEqual(events.map(\.value), [1, 2, 3, 4], "\(way)")
            XCTAssertEqual(events.map(\.label), [nil, nil, "renamed", "renamed"], "\(way)")
        }
    }
}
