import AsyncAlgorithms
@testable import AsyncMarbles
@testable import Demo
import Recording
import TraceLog
import XCTest

/// Causes through operators that pull their upstream from a task of their own (issue 30), by
/// each one's rule (`Received.Rule`), checked one by one on swift-async-algorithms' own
/// operators on a `VirtualTimeDriver`: a tap right on a `debounce` names what the debounce
/// received since the tap's previous element; on a `merge`, the one element passed through; on
/// a `zip`, the k-th element of each input; on a `combineLatest`, the arrival that made the
/// element and the latest of each other input.
final class TaskCausesTests: XCTestCase {
    private func texts(_ sequences: [UInt64], in trace: Trace) -> [String] {
        sequences.map { sequence in trace.events.first { $0.sequence == sequence }.map { $0.text ?? $0.kind.rawValue } ?? "?" }
    }

    func testADebouncedElementIsCausedByTheBurstItSettled() throws {
        let trace = try Trace(bytes: try recordAsyncSearch().bytes, name: "async-search")
        let settled = try XCTUnwrap(trace.nodes.first { $0.label == "settled" })
        let valid = try XCTUnwrap(trace.nodes.first { $0.label == "validSearchText" })
        let sent = trace.events(of: settled.id).filter { $0.kind != .pull }
        XCTAssertEqual(sent.map { $0.text ?? $0.kind.rawValue }, ["magi", "magic!", "completed"])
        // "mag" and "magi" came 180 ms apart, then 500 ms of quiet: "magi" passed, "mag" was
        // dropped for it; the last one received is the primary cause (written first).
        XCTAssertEqual(texts(sent[0].causes, in: trace), ["magi", "mag"])
        XCTAssertEqual(texts(sent[1].causes, in: trace), ["magic!", "magic"])
        for cause in sent[0].causes + sent[1].causes {
            XCTAssertEqual(trace.events.first { $0.sequence == cause }?.node, valid.id)
        }
        // The end is caused by the filter's end, received since "magic!".
        XCTAssertEqual(texts(sent[2].causes, in: trace), ["completed"])
    }

    /// Runs `sequence` on `test`'s driver with a recorder, the consumer waiting `pause` after
    /// each element: the elements, the trace, and what the iteration threw, if it did.
    private func record<S: AsyncSequence>(_ test: AsyncMarbleTest, _ sequence: S, pause: Duration? = nil) throws
        -> (elements: [S.Element], trace: Trace, bytes: [UInt8], thrown: (any Error)?) where S.Element: Sendable {
        let recorder = Recorder(clock: .virtual(test.driver.scheduler))
        recorder.start()
        let clock = test.clock
        let outcome = try test.driver.run { () -> ([S.Element], (any Error)?) in
            var elements: [S.Element] = []
            do {
                for try await element in sequence {
                    elements.append(element)
                    if let pause { try await clock.sleep(for: pause) }
                }
            } catch {
                return (elements, error)
            }
            return (elements, nil)
        }
        try recorder.stop()
        return (outcome.0, try Trace(bytes: recorder.bytes, name: "causes"), recorder.bytes, outcome.1)
    }

    /// The events the tap `label` sent, pulls left out.
    private func sent(_ label: String, in trace: Trace) throws -> [EventRecord] {
        let node = try XCTUnwrap(trace.nodes.first { $0.label == label }, "no node \(label)")
        return trace.events(of: node.id).filter { $0.kind != .pull }
    }

    /// The node label and text of each event numbered in `sequences`.
    private func described(_ sequences: [UInt64], in trace: Trace) -> [String] {
        sequences.map { sequence in
            guard let event = trace.events.first(where: { $0.sequence == sequence }) else { return "?" }
            return "\(trace.node(event.node)?.label ?? "?"):\(event.text ?? event.kind.rawValue)"
        }
    }

    func testAMergedElementIsCausedByTheOneElementPassedThrough() throws {
        let test = AsyncMarbleTest()
        let left = try test.input("a-b--c|").marbles("left"), right = try test.input("-x-y|").marbles("right")
        let merged = merge(left, right).marbles("merged")
        let run = try record(test, merged)
        XCTAssertEqual(run.elements, ["a", "x", "b", "y", "c"])
        let events = try sent("merged", in: run.trace)
        XCTAssertEqual(events.map { described($0.causes, in: run.trace) }, [
            ["left:a"], ["right:x"], ["left:b"], ["right:y"], ["left:c"],
            ["left:completed", "right:completed"],   // both ends; the last one primary
        ])
        XCTAssertEqual(try XCTUnwrap(run.trace.nodes.first { $0.label == "merged" }).name, "merge")
    }

    /// A failure passed on is caused by the input's failure; the other input, cancelled by
    /// merge then, is no cause.
    func testAMergesFailureIsCausedByTheInputsFailure() throws {
        let test = AsyncMarbleTest()
        let left = try test.input("a-#").marbles("left"), right = try test.input("-x---y|").marbles("right")
        let run = try record(test, merge(left, right).marbles("merged"))
        XCTAssertEqual(run.elements, ["a", "x"])
        XCTAssertEqual(run.thrown as? MarbleFailure, MarbleFailure(column: 3))
        let events = try sent("merged", in: run.trace)
        XCTAssertEqual(events.map(\.kind), [.value, .value, .failed])
        XCTAssertEqual(events.map { described($0.causes, in: run.trace) }, [["left:a"], ["right:x"], ["left:marble failure (#) at column 3"]])
        XCTAssertEqual(try sent("right", in: run.trace).last?.kind, .interrupted)
    }

    /// A consumer that waits: each pull lets both inputs send one element, so a second one
    /// arrives before the first is taken, and waits in merge's queue.
    func testAMergedElementThatWaitedIsCausedByItselfNotTheLatest() throws {
        let test = AsyncMarbleTest()
        let left = try test.input("a-b|").marbles("left"), right = try test.input("x-y|").marbles("right")
        let run = try record(test, merge(left, right).marbles("merged"), pause: .milliseconds(10))
        XCTAssertEqual(run.elements.count, 4)
        let values = try sent("merged", in: run.trace).filter { $0.kind == .value }
        // Each element is caused by the input element of its own value, whichever input
        // arrived since.
        XCTAssertEqual(values.map { described($0.causes, in: run.trace).map { $0.split(separator: ":")[1] } },
                       values.map { [Substring($0.text ?? "")] })
        let arrived = Set(try sent("left", in: run.trace).map(\.time) + sent("right", in: run.trace).map(\.time))
        XCTAssertTrue(values.contains { value in !arrived.contains(value.time) }, "one waited in the queue")
        // So stage latency is how long each waited there: the consumer's pause at most.
        let stats = try TraceStats.compute(TraceReader(bytes: run.bytes, name: "merge"))
        let latency = try XCTUnwrap(stats.nodes.first { $0.node.label == "merged" }?.stageLatency)
        XCTAssertEqual(latency.max, 10_000_000)
    }

    func testAZippedElementIsCausedByTheKthElementOfEachInput() throws {
        let test = AsyncMarbleTest()
        // "left" has sent all three before "right" sends its first: zip still pairs the k-th.
        let left = try test.input("abc|").marbles("left"), right = try test.input("----x-y-z|").marbles("right")
        let run = try record(test, zip(left, right).marbles("zipped"))
        XCTAssertEqual(run.elements.map { "\($0.0)\($0.1)" }, ["ax", "by", "cz"])
        let events = try sent("zipped", in: run.trace)
        XCTAssertEqual(events.map { described($0.causes, in: run.trace) }, [
            ["right:x", "left:a"], ["right:y", "left:b"], ["right:z", "left:c"],   // the later one primary
            ["left:completed"],   // left ended it; right, cancelled then, is no cause
        ])
    }

    func testACombinedElementIsCausedByTheArrivalAndTheLatestOfTheOthers() throws {
        let test = AsyncMarbleTest()
        // a, b and c arrive before "right" has any: the first element pairs c with x.
        let left = try test.input("abc---d|").marbles("left"), right = try test.input("----x-----y|").marbles("right")
        let run = try record(test, combineLatest(left, right).marbles("combined"))
        XCTAssertEqual(run.elements.map { "\($0.0)\($0.1)" }, ["cx", "dx", "dy"])
        let events = try sent("combined", in: run.trace)
        XCTAssertEqual(events.map { described($0.causes, in: run.trace) }, [
            ["right:x", "left:c"], ["left:d", "right:x"], ["right:y", "left:d"],
            ["right:completed", "left:completed"],   // both ends, the last (right's) primary
        ])
        let stats = try TraceStats.compute(TraceReader(bytes: run.bytes, name: "combineLatest"))
        XCTAssertEqual(stats.nodes.first { $0.node.label == "combined" }?.stageLatency?.max, 0, "each made at its arrival")
    }

    /// A consumer that waits: elements combined while nobody pulls wait in combineLatest's
    /// queue; each still names the elements it holds, its newest primary.
    func testACombinedElementThatWaitedNamesTheElementsItHolds() throws {
        let test = AsyncMarbleTest()
        let left = try test.input("a-b-c|").marbles("left"), right = try test.input("x--y|").marbles("right")
        let run = try record(test, combineLatest(left, right).marbles("combined"), pause: .milliseconds(3))
        let values = try sent("combined", in: run.trace).filter { $0.kind == .value }
        XCTAssertEqual(values.count, run.elements.count)
        XCTAssertGreaterThan(values.count, 1)
        for (value, element) in zip(values, run.elements) {
            XCTAssertEqual(Set(described(value.causes, in: run.trace)), ["left:\(element.0)", "right:\(element.1)"])
            XCTAssertEqual(value.causes.first, value.causes.max(), "the newest element it holds made it")
        }
    }

    /// One tapped sequence as both inputs of a zip: its elements cannot be told apart by
    /// input, so the zipped elements name no causes rather than half of them.
    func testOneTapAsTwoInputsNamesNoCauses() throws {
        let test = AsyncMarbleTest()
        let a = ["x", "y"].async.marbles("a")   // each iterator its own
        let run = try record(test, zip(a, a).marbles("zipped"))
        XCTAssertEqual(run.elements.map { "\($0.0)\($0.1)" }, ["xx", "yy"])
        XCTAssertEqual(try sent("zipped", in: run.trace).flatMap(\.causes), [])
    }

    /// An input with two taps inside (a merge not tapped) is not known by one tap: the
    /// elements name no causes rather than wrong ones.
    func testAnInputWithSeveralTapsInsideNamesNoCauses() throws {
        let test = AsyncMarbleTest()
        let a = try test.input("a--|").marbles("a"), b = try test.input("-b-|").marbles("b")
        let c = try test.input("--c|").marbles("c")
        let run = try record(test, combineLatest(merge(a, b), c).marbles("combined"))
        XCTAssertEqual(run.elements.map { "\($0.0)\($0.1)" }, ["bc"])
        XCTAssertEqual(try sent("combined", in: run.trace).flatMap(\.causes), [])
    }
}
