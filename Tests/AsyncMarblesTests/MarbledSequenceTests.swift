import AsyncAlgorithms
@testable import AsyncMarbles
import Diagrams
import Recording
import Signals
import TraceLog
import XCTest

/// Taps on AsyncSequence pipelines, recorded into the trace `Signals` pipelines write
/// (issue 30). The recordings run on real tasks, so the tests look at what was recorded
/// (nodes, edges, events and their causes), never at times.
final class MarbledSequenceTests: XCTestCase {
    private struct Refused: Error, CustomStringConvertible {
        var code: Int
        var description: String { "Refused(\(code))" }
    }

    /// Runs `body` with a recorder attached and returns what it recorded.
    private func record(_ body: () async throws -> Void) async throws -> Trace {
        try Trace(bytes: try await recordedAsync(body), name: "async")
    }

    private func values(of node: NodeRecord, in trace: Trace) -> [String] {
        trace.events.filter { $0.node == node.id && $0.kind == .value }.map { $0.text ?? "" }
    }

    func testAChainOfTapsIsAPipelineWhoseElementsAreCausedUpstream() async throws {
        var seen: [Int] = []
        let trace = try await record {
            let keys = AsyncStream<Int> { continuation in
                for key in 1...6 { continuation.yield(key) }
                continuation.finish()
            }.marbles("keys")
            let doubled = keys.map { $0 * 2 }.marbles("doubled")
            let large = doubled.filter { $0 > 4 }.marbles("large")
            for await value in large { seen.append(value) }
        }
        XCTAssertEqual(seen, [6, 8, 10, 12])
        let keys = try XCTUnwrap(trace.nodes.first { $0.label == "keys" })
        let doubled = try XCTUnwrap(trace.nodes.first { $0.label == "doubled" })
        let large = try XCTUnwrap(trace.nodes.first { $0.label == "large" })
        XCTAssertEqual(keys.kind, .source)
        XCTAssertEqual(keys.name, "stream")
        XCTAssertEqual(doubled.name, "map")
        XCTAssertEqual(large.name, "filter")
        XCTAssertEqual(doubled.upstream.map(\.node), [keys.id])
        XCTAssertEqual(large.upstream.map(\.node), [doubled.id])
        XCTAssertEqual(values(of: keys, in: trace), ["1", "2", "3", "4", "5", "6"])
        XCTAssertEqual(values(of: doubled, in: trace), ["2", "4", "6", "8", "10", "12"])
        XCTAssertEqual(values(of: large, in: trace), ["6", "8", "10", "12"])
        // Each element is caused by what the tap upstream produced during its pull: 6 by the
        // doubled 6, which was caused by the key 3; the filtered-out 2 and 4 cause nothing.
        let events = trace.events
        let six = try XCTUnwrap(events.first { $0.node == large.id && $0.text == "6" })
        let sixCauses = six.causes.compactMap { cause in events.first { $0.sequence == cause } }
        XCTAssertEqual(sixCauses.map(\.node), [doubled.id, doubled.id, doubled.id], "2 and 4 were pulled and dropped first")
        XCTAssertEqual(sixCauses.map { $0.text ?? "" }, ["6", "2", "4"], "the value that passed is the primary cause")
        let doubledSix = try XCTUnwrap(events.first { $0.node == doubled.id && $0.text == "6" })
        XCTAssertEqual(doubledSix.causes.compactMap { cause in events.first { $0.sequence == cause }?.text }, ["3"])
        // Every tap ends: completed.
        for node in [keys, doubled, large] {
            XCTAssertEqual(trace.events.filter { $0.node == node.id }.last?.kind, .completed, node.name)
        }
        // The pipeline figure draws the chain with what crossed each edge.
        let graph = PipelineGraph(trace: trace)
        let edge = try XCTUnwrap(graph.edges.first { $0.from == String(doubled.id) && $0.to == String(large.id) })
        XCTAssertEqual(edge.label, "6 values")
    }

    func testAThrownErrorIsAFailureOfTheTapsItCrosses() async throws {
        var caught: String?
        let trace = try await record {
            let readings = AsyncThrowingStream<Int, any Error> { continuation in
                continuation.yield(1)
                continuation.yield(2)
                continuation.finish(throwing: Refused(code: 503))
            }.marbles("readings")
            let scaled = readings.map { $0 * 10 }.marbles("scaled")
            do {
                for try await _ in scaled {}
            } catch {
                caught = "\(error)"
            }
        }
        XCTAssertEqual(caught, "Refused(503)")
        let readings = try XCTUnwrap(trace.nodes.first { $0.label == "readings" })
        let scaled = try XCTUnwrap(trace.nodes.first { $0.label == "scaled" })
        XCTAssertEqual(readings.name, "throwingStream")
        let failures = trace.events.filter { $0.kind == .failed }
        XCTAssertEqual(failures.map(\.node), [readings.id, scaled.id])
        XCTAssertEqual(failures.map { $0.text ?? "" }, ["Refused(503)", "Refused(503)"])
        // The downstream failure is caused by the upstream one.
        XCTAssertEqual(failures[1].causes, [failures[0].sequence])
    }

    func testACancelledPullIsAnInterruption() async throws {
        let trace = try await record {
            let (stream, continuation) = AsyncStream<Int>.makeStream()
            let (received, gotOne) = AsyncStream<Void>.makeStream()
            let tapped = stream.marbles("never")
            let task = Task {
                for await _ in tapped { gotOne.yield() }
            }
            continuation.yield(1)
            // Cancelled while it waits for a second element that never comes.
            for await _ in received { break }
            task.cancel()
            await task.value
        }
        let node = try XCTUnwrap(trace.nodes.first { $0.label == "never" })
        // Each pull, then what answered it: the second pull was still waiting when cancelled.
        XCTAssertEqual(trace.events.filter { $0.node == node.id }.map(\.kind), [.pull, .value, .pull, .interrupted])
    }

    func testWithoutARecorderATapOnlyPassesElementsThrough() async {
        let numbers = AsyncStream<Int> { continuation in
            for number in 0..<100 { continuation.yield(number) }
            continuation.finish()
        }
        var sum = 0
        for await number in numbers.marbles("numbers").map({ $0 + 1 }).marbles("plus one") { sum += number }
        XCTAssertEqual(sum, 5050)
    }

    /// A tap on the standard library's `map`, `filter` or `compactMap` pulls its base with a
    /// pull written against the base's type (specialised where a generic one is not); a tap
    /// reached only generically uses the protocol's. Both give the same elements, recorded or not.
    func testATapOnAStandardLibrarySequencePullsItDirectly() async throws {
        func tapGenerically<S: AsyncSequence>(_ sequence: S) -> MarbledSequence<S> { sequence.marbles("generic") }
        let mapped = [1, 2, 3].async.marbles("source").map { $0 * 10 }
        XCTAssertTrue(mapped.marbles("map").pullsDirectly)
        XCTAssertTrue(mapped.filter { $0 > 10 }.marbles("filter").pullsDirectly)
        XCTAssertTrue(mapped.compactMap { $0 == 20 ? nil : $0 }.marbles("compactMap").pullsDirectly)
        XCTAssertTrue(mapped.map { value throws -> Int in value }.marbles("throwing map").pullsDirectly)
        XCTAssertFalse(tapGenerically(mapped).pullsDirectly)
        var direct: [Int] = [], generic: [Int] = []
        for await value in mapped.filter({ $0 > 10 }).marbles("filter") { direct.append(value) }
        for await value in tapGenerically(mapped.filter { $0 > 10 }) { generic.append(value) }
        XCTAssertEqual(direct, [20, 30])
        XCTAssertEqual(generic, direct)
        var recorded: [Int] = []
        let trace = try await record {
            for await value in mapped.filter({ $0 > 10 }).marbles("filter") { recorded.append(value) }
        }
        XCTAssertEqual(recorded, direct)
        let filter = try XCTUnwrap(trace.nodes.first { $0.label == "filter" })
        XCTAssertEqual(filter.name, "filter")
        XCTAssertEqual(trace.events(of: filter.id).filter { $0.kind == .value }.compactMap(\.text), ["20", "30"])
    }

    func testTheNodeIsNamedAfterTheSequenceType() {
        typealias Tap = MarbledSequence<AsyncStream<Int>>
        XCTAssertEqual(Tap.operatorName(of: AsyncMapSequence<AsyncStream<Int>, Int>.self), "map")
        XCTAssertEqual(Tap.operatorName(of: AsyncFilterSequence<AsyncStream<Int>>.self), "filter")
        XCTAssertEqual(Tap.operatorName(of: AsyncStream<Int>.self), "stream")
        XCTAssertEqual(Tap.operatorName(of: AsyncCompactMapSequence<AsyncStream<Int>, Int>.self), "compactMap")
        XCTAssertEqual(Tap.operatorName(of: Tap.self), "marbles")
        XCTAssertEqual(Tap.operatorName(of: AsyncThrowingStream<Int, any Error>.self), "throwingStream")
        XCTAssertEqual(Tap.operatorName(of: AsyncThrowingMapSequence<AsyncStream<Int>, Int>.self), "map")
    }

    /// swift-async-algorithms' sequences are named after the methods that make them, not
    /// their types: the names a reader of the pipeline wrote.
    func testAsyncAlgorithmsSequencesAreNamedAfterTheirMethods() {
        typealias Tap = MarbledSequence<AsyncStream<Int>>
        let numbers = AsyncStream<Int> { $0.finish() }
        let letters = AsyncStream<String> { $0.finish() }
        let signal = AsyncStream<Void> { $0.finish() }
        func name<S: AsyncSequence>(_ sequence: S) -> String { Tap.operatorName(of: S.self) }
        XCTAssertEqual(name(numbers.debounce(for: .seconds(1))), "debounce")
        XCTAssertEqual(name(numbers._throttle(for: .seconds(1))), "throttle")
        XCTAssertEqual(name(merge(numbers, numbers)), "merge")
        XCTAssertEqual(name(merge(numbers, numbers, numbers)), "merge")
        XCTAssertEqual(name(combineLatest(numbers, letters)), "combineLatest")
        XCTAssertEqual(name(combineLatest(numbers, letters, numbers)), "combineLatest")
        XCTAssertEqual(name(zip(numbers, letters)), "zip")
        XCTAssertEqual(name(chain(numbers, numbers)), "chain")
        XCTAssertEqual(name(numbers.chunks(ofCount: 2, or: signal)), "chunks")
        XCTAssertEqual(name(numbers.chunks(ofCount: 2)), "chunks")
        XCTAssertEqual(name(numbers.chunked { $0 < $1 }), "chunked")
        XCTAssertEqual(name(numbers.chunked(on: { $0 % 2 })), "chunked")
        XCTAssertEqual(name(numbers.reductions(+)), "reductions")
        XCTAssertEqual(name(numbers.reductions(0, +)), "reductions")
        XCTAssertEqual(name(numbers.removeDuplicates()), "removeDuplicates")
        XCTAssertEqual(name(numbers.adjacentPairs()), "adjacentPairs")
        XCTAssertEqual(name([1, 2].async), "async")
        XCTAssertEqual(name(AsyncTimerSequence(interval: .seconds(1), clock: .continuous)), "timer")
        XCTAssertEqual(name(AsyncChannel<Int>()), "channel")
        XCTAssertEqual(name(numbers.buffer(policy: .unbounded)), "buffer")
    }
}
