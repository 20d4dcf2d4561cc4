import Locks
import Dispatch
import Foundation
import Signals
import XCTest

/// Real threads against the shared state of MutableProperty and replayLazily; they assert
/// outcomes (every change seen once, in order), never timings.
final class MulticastStressTests: XCTestCase {
    func testConcurrentChangesToAPropertyAreSeenOnceEachInOrder() {
        let property = MutableProperty(0)
        let seen = Box<[Int]>([])
        property.signal.observeValues { value in seen.modify { $0.append(value) } }
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<500 { property.modify { $0 += 1 } }
        }
        XCTAssertEqual(property.value, 2000)
        XCTAssertEqual(seen.value, Array(1...2000))
    }

    func testConsumersJoiningAReplayFromManyThreadsSeeNoGapsAndNoRepeats() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let replayed = SignalProducer(signal).replayLazily(upTo: 3)
        let runs = Box<[[Int]]>([])
        let completions = Box(0)
        replayed.start()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            for value in 1...3000 { input.send(value: value) }
            input.sendCompleted()
        }
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<5 {
                let received = Box<[Int]>([])
                replayed.start { event in
                    switch event {
                    case let .value(value): received.modify { $0.append(value) }
                    case .completed:
                        runs.modify { $0.append(received.value) }
                        completions.modify { $0 += 1 }
                    default: break
                    }
                }
            }
        }
        group.wait()
        XCTAssertEqual(completions.value, 20)
        for run in runs.value {
            XCTAssertEqual(run.last, 3000)
            XCTAssertEqual(run, Array((run.first ?? 0)...3000), "a consumer missed or repeated a value")
        }
    }

    /// A value shared between test threads.
    private final class Box<Value>: @unchecked Sendable {
        private let lock = Lock()
        private var stored: Value
        init(_ value: Value) { stored = value }
        var value: Value { lock.withLock { stored } }
        func modify(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
    }
}
