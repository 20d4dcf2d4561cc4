import Foundation
import Signals
import TraceLog
import Recording
import XCTest

/// A boundary call whose service answers from a dispatch queue of its own (no Signals
/// scheduler carries the cause across): the answer still leads back to the input that asked,
/// so `stats` measures from the keystroke, not from the service's reply.
final class CallCauseTests: XCTestCase {
    struct Unavailable: Error, Codable {}

    func testACallAnsweredFromAQueueOfItsOwnHasTheRequestingEventAsACause() throws {
        let recorder = Recorder(clock: .real)
        recorder.start()
        let environment = LiveEnvironment()
        let service = DispatchQueue(label: "search-service")
        let answered = DispatchSemaphore(value: 0)
        let pipeline = SignalProducer(environment.input("query", of: String.self))
            .flatMap(.latest) { text in
                environment.call("search", request: text) { () -> SignalProducer<String, Unavailable> in
                    SignalProducer { observer, _ in
                        service.async {
                            observer.send(value: text + "!")
                            observer.sendCompleted()
                        }
                    }
                }
                .flatMapError { _ in SignalProducer(value: "") }
            }
            .startWithValues { _ in answered.signal() }
        try environment.send("sw", to: "query")
        answered.wait()
        pipeline.dispose()
        try recorder.stop()
        let trace = try Trace(bytes: recorder.bytes, name: "call")

        let input = try XCTUnwrap(trace.nodes.first { $0.name == "input" })
        let call = try XCTUnwrap(trace.nodes.first { $0.name == "call" })
        let asked = Set(trace.events(of: input.id).filter { $0.kind == .value }.map(\.sequence))
        XCTAssertFalse(asked.isEmpty)
        let answer = try XCTUnwrap(trace.events(of: call.id).first { $0.kind == .value })
        // The delivering event (the service's) first, then the start, whose primary causes
        // lead back to the input's value.
        XCTAssertEqual(answer.causes.count, 2, "\(answer.causes)")
        let delivering = try XCTUnwrap(answer.causes.first.flatMap(trace.event(sequence:)))
        XCTAssertNotEqual(delivering.node, call.id)
        // The service's own event, sent from its queue, is caused by what started the service.
        XCTAssertEqual(delivering.causes.count, 1, "\(delivering.causes)")
        for first in [delivering.sequence, try XCTUnwrap(answer.causes.dropFirst().first)] {
            let (chain, reached) = Self.primaryChain(from: first, in: trace)
            XCTAssertEqual(chain.last, input.id, "the causes lead back to the input")
            XCTAssertTrue(asked.contains(reached), "the chain ends at one of the input's values")
        }

        // stats: the data age of the sink's value is measured from the query.
        let stats = try TraceStats.compute(try TraceReader(bytes: recorder.bytes))
        let path = try XCTUnwrap(stats.paths.first { $0.source.id == input.id && $0.sink.kind == .sink })
        XCTAssertNotNil(path.dataAge)
        XCTAssertGreaterThanOrEqual(path.dataAge?.count ?? 0, 1)
    }

    /// The nodes of the primary causes from `sequence` back to the event that has none, and
    /// that event's number.
    static func primaryChain(from sequence: UInt64, in trace: Trace) -> (nodes: [UInt64], reached: UInt64) {
        var current = sequence
        var chain: [UInt64] = []
        var reached: UInt64 = 0
        while current != 0, chain.count < 20, let event = trace.event(sequence: current) {
            chain.append(event.node)
            reached = current
            current = event.causes.first ?? 0
        }
        return (chain, reached)
    }

    /// Issue 34: a service written as a plain producer that answers from
    /// `DispatchQueue.asyncAfter` (no environment, no Signals scheduler) links its answer to the
    /// event that started it, through `retry` too: `stats` measures from the input to the sink
    /// instead of reporting the service as a source of its own.
    func testAProducerAnsweringFromAQueueOfItsOwnIsCausedByWhatStartedIt() throws {
        let recorder = Recorder(clock: .real)
        recorder.start()
        let answered = DispatchSemaphore(value: 0)
        let attempts = LockedCounter()
        let (files, send) = Signal<String, Never>.pipe(named: "files")
        let pipeline = files
            .flatMap(.merge) { file in
                SignalProducer<String, Unavailable> { observer, lifetime in
                    let failing = attempts.next() == 1
                    let work = DispatchWorkItem {
                        if failing {
                            observer.send(error: Unavailable())
                        } else {
                            observer.send(value: file + " uploaded")
                            observer.sendCompleted()
                        }
                    }
                    lifetime.observeEnded { work.cancel() }
                    DispatchQueue.global().asyncAfter(deadline: .now() + 0.001, execute: work)
                }
                .named("uploadService")
                .retry(upTo: 2)
                .flatMapError { _ in SignalProducer<String, Never>(value: "gave up") }
            }
            .observeValues { _ in answered.signal() }
        send.send(value: "a.txt")
        answered.wait()
        pipeline?.dispose()
        try recorder.stop()
        let trace = try Trace(bytes: recorder.bytes, name: "upload")

        let input = try XCTUnwrap(trace.nodes.first { $0.name == "pipe" })
        let service = try XCTUnwrap(trace.nodes.first { $0.label == "uploadService" })
        let sink = try XCTUnwrap(trace.nodes.first { $0.kind == .sink })
        let failure = try XCTUnwrap(trace.events(of: service.id).first { $0.kind == .failed })
        let answer = try XCTUnwrap(trace.events(of: service.id).first { $0.kind == .value })
        XCTAssertNotEqual(failure.thread, trace.events(of: input.id).first?.thread, "answered on another thread")
        for event in [failure, answer] {
            XCTAssertEqual(Self.primaryChain(from: event.sequence, in: trace).nodes.last, input.id,
                           "the service's \(event.kind) leads back to the file, through the retry")
        }
        // The teardown's interruptions come from the disposal, not from the start.
        for event in trace.events(of: service.id) where event.kind == .interrupted {
            XCTAssertEqual(event.causes, [], "an interruption from the disposal")
        }
        let stats = try TraceStats.compute(try TraceReader(bytes: recorder.bytes))
        let path = try XCTUnwrap(stats.paths.first { $0.source.id == input.id && $0.sink.id == sink.id })
        XCTAssertEqual(path.latency?.count, 1, "the file's upload reached the sink, measured from the file")
        XCTAssertNil(stats.paths.first { $0.source.id == service.id }, "the service is not a source of its own")
        XCTAssertFalse(stats.text.contains("chains of its own"), stats.text)
    }

    /// Issue 34 item 1: where a value enters from code Marbles cannot see (a pipe made at the
    /// top of the program, sent into from a queue of its own in answer to another source's
    /// value), nothing links it to what asked; `stats` says so instead of only reporting the
    /// pipe as a source.
    func testStatsSaysWhereAValueEntersFromCodeMarblesCannotSee() throws {
        let recorder = Recorder(clock: .real)
        recorder.start()
        let answered = DispatchSemaphore(value: 0)
        let (files, sendFile) = Signal<String, Never>.pipe(named: "files")
        let (results, sendResult) = Signal<String, Never>.pipe(named: "results")
        let asking = files.observeValues { file in
            DispatchQueue.global().async { sendResult.send(value: file + " uploaded") }
        }
        let showing = results.map { $0.uppercased() }.observeValues { _ in answered.signal() }
        sendFile.send(value: "a.txt")
        answered.wait()
        asking?.dispose()
        showing?.dispose()
        try recorder.stop()
        let stats = try TraceStats.compute(try TraceReader(bytes: recorder.bytes))
        XCTAssertTrue(stats.text.contains(#"note: #1 pipe "files", #2 pipe "results" start chains of their own."#), stats.text)
        XCTAssertTrue(stats.text.contains("code Marbles\ncannot see (a callback, a DispatchQueue of your own) has no cause"),
                      stats.text)
    }

    /// A start disposed (by a `stops` value, on one thread) while another thread delivers a
    /// value through it: the interruption is left for the delivering thread, which records it
    /// when its delivery ends, caused by the `stops` value that ended it, so a diff can name
    /// the race between the two (`TraceDiff.Race`). Real threads, ordered by semaphores.
    func testAnInterruptionLeftForTheDeliveringThreadIsCausedByWhatEndedIt() throws {
        let recorder = Recorder(clock: .real)
        recorder.start()
        let (ticks, tick) = Signal<Int, Never>.pipe(named: "ticks")
        let (stops, stop) = Signal<Void, Never>.pipe(named: "stops")
        let inside = DispatchSemaphore(value: 0), proceed = DispatchSemaphore(value: 0)
        let start = SignalProducer(ticks).map { value -> Int in
            inside.signal()
            _ = proceed.wait(timeout: .now() + 10)
            return value
        }.start()
        stops.observeValues { start.dispose() }
        let done = DispatchGroup()
        done.enter()
        Thread {
            tick.send(value: 1)
            done.leave()
        }.start()
        done.enter()
        Thread {
            inside.wait()
            stop.send(value: ())
            proceed.signal()
            done.leave()
        }.start()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "the disposal waited for the delivery")
        try recorder.stop()
        let trace = try Trace(bytes: recorder.bytes, name: "left")
        let stopped = try XCTUnwrap(trace.nodes.first { $0.label == "stops" }.flatMap { trace.events(of: $0.id).first })
        let source = try XCTUnwrap(trace.nodes.first { $0.name == "SignalProducer(signal)" })
        let interrupted = try XCTUnwrap(trace.events(of: source.id).first { $0.kind == .interrupted })
        XCTAssertNotEqual(interrupted.thread, stopped.thread, "left for the delivering thread")
        XCTAssertEqual(interrupted.causes, [stopped.sequence])
        withExtendedLifetime((ticks, stops)) {}
    }

    /// A start of a property's producer made outside any delivery (a pipeline's setup) sends
    /// the value it read caused by the event that set it, so a diff can tell a start that read
    /// another thread's value (`TraceDiff.Race`); a start before any recorded change has no
    /// cause, and one inside a delivery keeps that delivery's event first.
    func testAPropertysStartIsCausedByTheEventThatSetWhatItRead() throws {
        let bytes = Recorder.record(virtual: TestScheduler()) {
            let property = MutableProperty(0)
            property.producer.startWithValues { _ in }
            property.value = 5
            property.producer.startWithValues { _ in }
            let (taps, tap) = Signal<Int, Never>.pipe(named: "taps")
            taps.observeValues { _ in property.producer.startWithValues { _ in } }
            tap.send(value: 1)
            withExtendedLifetime(property) {}
        }
        let trace = try Trace(bytes: bytes)
        let set = try XCTUnwrap(trace.nodes.first { $0.name == "MutableProperty" }.flatMap { node in
            trace.events(of: node.id).first { $0.kind == .value }
        })
        let tapped = try XCTUnwrap(trace.nodes.first { $0.name == "pipe" }.flatMap { trace.events(of: $0.id).first })
        let producer = try XCTUnwrap(trace.nodes.first { $0.name == "producer" })
        let starts = trace.subscriptions.filter { $0.node == producer.id }.map { subscription in
            trace.events(of: producer.id).first { $0.subscription == subscription.id }?.causes
        }
        XCTAssertEqual(starts, [[], [set.sequence], [tapped.sequence, set.sequence]])
    }
}

/// A counter several threads may bump.
private final class LockedCounter: @unchecked Sendable {  // `count` only under `lock`
    private let lock = NSLock()
    private var count = 0
    func next() -> Int { lock.withLock { count += 1; return count } }
}
