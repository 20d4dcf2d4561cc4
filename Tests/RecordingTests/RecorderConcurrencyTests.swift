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

    /// A live recording to a file: each thread appends to its own ring (small here, so that
    /// threads wait for the writer often) and the writer merges the rings: one order, every id
    /// defined before it is used (the reader checks), causes across threads (a hop to a queue)
    /// pointing at the right events.
    func testThreadsRingsMergeIntoOneOrderWithCausesAcrossThreads() throws {
        try? FileManager.default.removeItem(at: try checkRingsMerge(extension: "trace"))
    }

    /// The same in the binary encoding (`.mtrace`): the writer encodes the merged rings and
    /// the shared buffer's boxed records and deferred events in one order, small chunks (a
    /// 4 KiB buffer, 5 ms flushes) interleaving with the producers.
    func testThreadsRingsMergeIntoOneOrderInTheBinaryEncoding() throws {
        let url = try checkRingsMerge(extension: "mtrace")
        defer { try? FileManager.default.removeItem(at: url) }
        XCTAssertEqual(try Array(Data(contentsOf: url).prefix(8)), BinaryTraceFormat.magic)
    }

    /// Records four threads' pipelines to a file named with `fileExtension` and checks it;
    /// returns the file, for the caller to remove.
    private func checkRingsMerge(extension fileExtension: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("marbles-rings-\(getpid()).\(fileExtension)")
        let recorder = try Recorder(to: url, bufferCapacity: 4096, flushInterval: .milliseconds(5))
        recorder.start()
        let worker = QueueScheduler(name: "worker")
        let delivered = DispatchGroup()
        let pipes = (0..<4).map { _ in Signal<Int, Never>.pipe() }
        for pipe in pipes {
            delivered.enter()
            pipe.output.map { $0 + 1 }.observe(on: worker).map { $0 * 2 }
                .observe { event in if event.isTerminating { delivered.leave() } }
        }
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            for value in 0..<3_000 { pipes[index].input.send(value: index * 100_000 + value) }
            pipes[index].input.sendCompleted()
        }
        delivered.wait()
        let summary = try recorder.stop()
        XCTAssertEqual(summary.dropped, 0)
        let trace = try Trace(contentsOf: url)
        let sequences = Array(trace.events.map(\.sequence))
        XCTAssertEqual(sequences, Array(1...UInt64(sequences.count)))
        XCTAssertEqual(trace.events.filter { $0.kind == .value }.count, 4 * 3_000 * 4)
        let doubling = try XCTUnwrap(trace.nodes.last { $0.name == "map" })
        var checked = 0
        for event in trace.events(of: doubling.id) where event.kind == .value {
            // value = 2 × (sent + 1): its cause is observe(on:)'s delivery of sent + 1, on the
            // worker, caused by the map of `sent` on the sending thread.
            let hop = try XCTUnwrap(trace.event(sequence: event.causes.first ?? 0))
            let mapped = try XCTUnwrap(trace.event(sequence: hop.causes.first ?? 0))
            XCTAssertLessThan(mapped.sequence, hop.sequence)
            XCTAssertEqual(hop.json.flatMap(Int.init).map { $0 * 2 }, event.json.flatMap(Int.init))
            XCTAssertEqual(mapped.json, hop.json)
            XCTAssertNotEqual(trace.thread(mapped.thread)?.scheduler, "worker")
            checked += 1
        }
        XCTAssertEqual(checked, 4 * 3_000)
        let reader = try TraceReader(url: url)
        while try reader.next() != nil {}
        XCTAssertEqual(reader.warnings, [])
        return url
    }
}

/// Runs `body` on a new thread and returns once the thread has ended (its thread-specific
/// data destroyed): `pthread_join`, which neither `Thread` nor a dispatch queue offers.
private func runOnThreadToItsEnd(_ body: @escaping () -> Void) {
    final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }
    var thread = pthread_t()
    let created = pthread_create(&thread, nil, { raw in
        Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
        return nil
    }, Unmanaged.passRetained(Body(body)).toOpaque())
    precondition(created == 0, "pthread_create failed")
    pthread_join(thread, nil)
}

final class RecorderRingLifetimeTests: XCTestCase {
    /// A live recording fed by many short-lived threads, one after another: each thread's ring
    /// is let go once the thread has ended and the writer has drained it, so the rings held
    /// stay bounded (one ring each before: 60 here, 256 KB each at the default capacity), and
    /// every event still reaches the file in order.
    func testTheRingsOfEndedThreadsAreLetGo() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("marbles-ended-\(getpid()).trace")
        defer { try? FileManager.default.removeItem(at: url) }
        let recorder = try Recorder(to: url, bufferCapacity: 4096)
        recorder.start()
        let (signal, input) = Signal<Int, Never>.pipe(named: "numbers")
        signal.map { $0 + 1 }.observeValues { _ in }
        var most = 0
        for round in 0..<60 {
            runOnThreadToItsEnd { for value in 0..<50 { input.send(value: round * 1_000 + value) } }
            recorder.synchronize()
            most = max(most, recorder.ringCount)
        }
        let summary = try recorder.stop()
        XCTAssertEqual(summary.dropped, 0)
        XCTAssertLessThanOrEqual(most, 1, "rings held after a thread ended and was drained")
        let trace = try Trace(contentsOf: url)
        XCTAssertEqual(trace.events.map(\.sequence), Array(1...UInt64(60 * 50 * 2)))
        let mapped = try XCTUnwrap(trace.node(named: "map"))
        XCTAssertEqual(trace.events(of: mapped.id).compactMap { $0.json.flatMap(Int.init) },
                       (0..<60).flatMap { round in (0..<50).map { round * 1_000 + $0 + 1 } })
    }
}

final class RecorderThreadNameTests: XCTestCase {
    /// Work on a concurrent dispatch queue runs on several pooled worker threads, whose own
    /// names (`-qos.overcommit`-like on Linux) say nothing: each is named after the queue.
    func testWorkOnADispatchQueueIsNamedAfterTheQueueOnEveryWorkerThread() throws {
        let recorder = Recorder(clock: .real)
        recorder.start()
        let (signal, input) = Signal<Int, Never>.pipe(named: "numbers")
        signal.map { $0 + 1 }.observeValues { _ in }
        let queue = DispatchQueue(label: "test.labelled", attributes: .concurrent)
        let group = DispatchGroup()
        for value in 0..<32 {
            queue.async(group: group) {
                // Long enough that the queue spreads the items over more than one worker.
                for repeated in 0..<100 { input.send(value: value * 1_000 + repeated) }
            }
        }
        group.wait()
        input.send(value: -1)
        try recorder.stop()
        let trace = try Trace(bytes: recorder.bytes)
        let pipe = try XCTUnwrap(trace.node(named: "numbers"))
        let sendingThreads = Set(trace.events(of: pipe.id).map(\.thread))
        let names = sendingThreads.compactMap { trace.thread($0)?.name }
        XCTAssertEqual(Set(names), ["test.labelled", "main"], "\(trace.threads)")
        XCTAssertFalse(trace.threads.contains { $0.name.hasPrefix("-") || $0.name.isEmpty }, "\(trace.threads)")
        let labelled = trace.threads.filter { $0.name == "test.labelled" }
        XCTAssertEqual(Set(labelled.compactMap(\.os)).count, labelled.count, "one record per OS thread serving the queue")
    }

    func testAQueueSchedulersWorkersAreNamedAfterItsQueueWithTheSchedulerBeside() throws {
        let recorder = Recorder(clock: .real)
        recorder.start()
        let worker = QueueScheduler(name: "namer")
        let done = DispatchSemaphore(value: 0)
        let (signal, input) = Signal<Int, Never>.pipe()
        signal.observe(on: worker).observeCompleted { done.signal() }
        input.send(value: 1)
        input.sendCompleted()
        done.wait()
        try recorder.stop()
        let trace = try Trace(bytes: recorder.bytes)
        let scheduled = trace.threads.filter { $0.scheduler == "namer" }
        XCTAssertFalse(scheduled.isEmpty)
        XCTAssertEqual(Set(scheduled.map(\.name)), ["marbles.namer"], "\(trace.threads)")
    }
}
