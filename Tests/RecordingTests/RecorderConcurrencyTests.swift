import Foundation
import Signals
import TraceLog
import Recording
import XCTest

final class RecorderConcurrencyTests: XCTestCase {
    func testInnerStreamsRecordTheirParentAndYieldOneInnerEdge() throws {
        let scheduler = TestScheduler()
        let bytes = Recorder.record(virtual: scheduler) {
            let (queries, input) = Signal<String, Never>.pipe(named: "query")
            queries
                .flatMap(.latest) { query in SignalProducer<String, Never>(value: query).map { $0 + "!" } }
                .observeValues { _ in }
            input.send(value: "a")
            input.send(value: "b")
        }
        let trace = try Trace(bytes: bytes)
        let flatMap = try XCTUnwrap(trace.node(named: "flatMap"))
        let innerMap = try XCTUnwrap(trace.nodes.first { $0.name == "map" })
        let flatMapSubscription = try XCTUnwrap(trace.subscriptions.first { $0.node == flatMap.id })
        let innerSubscriptions = trace.subscriptions.filter { $0.node == innerMap.id }
        XCTAssertEqual(innerSubscriptions.count, 2)
        XCTAssertEqual(innerSubscriptions.map(\.parent), [flatMapSubscription.id, flatMapSubscription.id])
        XCTAssertEqual(trace.innerEdges, [Trace.InnerEdge(inner: innerMap.id, outer: flatMap.id)])
        XCTAssertEqual(trace.events(of: flatMap.id).compactMap(\.text), ["a!", "b!"])
    }

    func testRealThreadHopsRecordQueueWaitAndBothThreads() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("marbles-hops-\(getpid()).trace")
        defer { try? FileManager.default.removeItem(at: url) }
        let worker = QueueScheduler(name: "worker")
        let done = DispatchSemaphore(value: 0)
        try Recorder.record(to: url) {
            let (signal, input) = Signal<Int, Never>.pipe()
            signal.observe(on: worker).observeCompleted { done.signal() }
            for value in 1...100 { input.send(value: value) }
            input.sendCompleted()
            done.wait()
        }
        let trace = try Trace(contentsOf: url)
        XCTAssertEqual(trace.hops.count, 101)
        XCTAssertTrue(trace.hops.allSatisfy { ($0.queueWait ?? -1) >= 0 })
        let workerThreads = trace.threads.filter { $0.scheduler == "worker" }
        XCTAssertFalse(workerThreads.isEmpty)
        XCTAssertTrue(workerThreads.allSatisfy { $0.os != nil && $0.name != "main" })
        let observeOn = try XCTUnwrap(trace.node(named: "observe(on:)"))
        let delivered = trace.events(of: observeOn.id)
        XCTAssertEqual(delivered.compactMap(\.text), (1...100).map(String.init))
        XCTAssertTrue(delivered.allSatisfy { event in workerThreads.contains { $0.id == event.thread } })
        // Every delivery on the worker is caused by the pipe's event on the main thread.
        for event in delivered {
            let cause = try XCTUnwrap(trace.event(sequence: event.causes.first ?? 0))
            XCTAssertEqual(trace.thread(cause.thread)?.name, "main")
        }
    }

    func testConcurrentSendersGetOneGlobalOrderAndEveryRecordParses() throws {
        // Real clock: a virtual recording keeps only the thread that started it.
        let recorder = Recorder(clock: .real, bufferCapacity: 4096)
        recorder.start()
        let pipes = (0..<4).map { _ in Signal<Int, Never>.pipe() }
        for pipe in pipes { pipe.output.map { $0 + 1 }.observeValues { _ in } }
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            for value in 0..<2_000 { pipes[index].input.send(value: value) }
        }
        try recorder.stop()
        let trace = try Trace(bytes: recorder.bytes)
        XCTAssertEqual(trace.events.map(\.sequence), Array(1...16_000))
        for event in trace.events where !event.causes.isEmpty {
            XCTAssertLessThan(event.causes[0], event.sequence)
            XCTAssertEqual(trace.event(sequence: event.causes[0])?.json.flatMap(Int.init).map { $0 + 1 },
                           event.json.flatMap(Int.init))
        }
    }
}
