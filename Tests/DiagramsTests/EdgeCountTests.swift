@testable import Diagrams
import Foundation
import Recording
import Signals
import TraceLog
import XCTest

/// A pipeline figure's edge says what crossed that edge, computed from the trace's own
/// relations (which upstream subscriptions the downstream node's events name as causes), not
/// the upstream node's total.
final class EdgeCountTests: XCTestCase {
    private func label(_ graph: PipelineGraph, _ trace: Trace, from: String, to: String) -> String? {
        let names = Dictionary(uniqueKeysWithValues: trace.nodes.map { (String($0.id), $0.name) })
        return graph.edges.first { names[$0.from] == from && names[$0.to] == to && $0.style != .error }?.label
    }

    /// A cold producer consumed twice (by a combineLatest and a zip) is started twice: each
    /// edge out of it carries one start's 3 values, where both said 6.
    func testEachConsumerOfAColdProducerGetsItsOwnStartsCount() throws {
        let scheduler = TestScheduler()
        let bytes = Recorder.record(virtual: scheduler) {
            let readings: SignalProducer<Int, Never> = SignalProducer([1, 2, 3]).map { value in value * 10 }
            let other = SignalProducer<Int, Never>([7, 8, 9])
            SignalProducer.combineLatest(readings, other).startWithValues { _ in }
            SignalProducer.zip(readings, other).startWithValues { _ in }
        }
        let trace = try Trace(bytes: bytes)
        let graph = PipelineGraph(trace: trace)
        XCTAssertEqual(trace.events(of: try XCTUnwrap(trace.nodes.first { $0.name == "map" }?.id))
            .filter { $0.kind == .value }.count, 6)
        XCTAssertEqual(label(graph, trace, from: "map", to: "combineLatest"), "3 values")
        XCTAssertEqual(label(graph, trace, from: "map", to: "zip"), "3 values")
    }

    /// A start that only failed into a flatMapError (whose fallback answered, so nothing
    /// downstream names the failure as its cause) still crossed the edge into it.
    func testAFailureCaughtByAFallbackCrossesTheEdgeIntoTheCatcher() throws {
        struct Denied: Error {}
        let scheduler = TestScheduler()
        var attempt = 0
        let bytes = Recorder.record(virtual: scheduler) {
            let service = SignalProducer<Bool, Denied> { observer, _ in
                attempt += 1
                if attempt == 1 { observer.send(error: Denied()) } else {
                    observer.send(value: true)
                    observer.sendCompleted()
                }
            }
            let (taps, tap) = Signal<Int, Never>.pipe(named: "taps")
            taps.flatMap(.merge) { _ in service.map { $0 }.flatMapError { _ in SignalProducer(value: false) } }
                .observeValues { _ in }
            tap.send(value: 1)
            tap.send(value: 2)
        }
        let trace = try Trace(bytes: bytes)
        let graph = PipelineGraph(trace: trace)
        XCTAssertEqual(label(graph, trace, from: "map", to: "flatMapError"), "1 value \u{00B7} 1 failed")
    }

    /// A flatMap started twice, whose second start got the value and called the service, saw
    /// the numbers end and was disposed before the call answered: it sent nothing the numbers
    /// caused, but the call's interruption names the value that
    /// asked as a cause, as its answer would have, so the edge into the flatMap carries both
    /// starts' values, where it said 1 (fidelity seed 20289). The numbers feed a map too, so
    /// the count cannot come from the upstream having one consumer only.
    func testACallInterruptedBeforeItAnsweredStillCountsTheValueThatAskedIt() throws {
        struct Refused: Error, Codable {}
        let scheduler = TestScheduler()
        let environment = LiveEnvironment()
        let bytes = Recorder.record(virtual: scheduler) {
            let (input, tap) = Signal<Int, Refused>.pipe(named: "numbers")
            let numbers = SignalProducer(input)
            let asked = numbers.flatMap(.concat) { number in
                environment.call("lookup", request: number) {
                    SignalProducer<Int, Refused> { observer, lifetime in
                        lifetime += scheduler.schedule(after: scheduler.currentDate.addingTimeInterval(0.004)) {
                            observer.send(value: number * 2)
                            observer.sendCompleted()
                        }
                    }
                }
            }
            let answered = asked.start()
            let abandoned = asked.start()
            let doubled = numbers.map { $0 * 2 }.start()
            tap.send(value: 21)
            tap.sendCompleted()
            abandoned.dispose()
            scheduler.advance(by: 1)
            answered.dispose()
            doubled.dispose()
        }
        let trace = try Trace(bytes: bytes)
        let graph = PipelineGraph(trace: trace)
        let calls = trace.subscriptions.filter { trace.node($0.node)?.name == "call" }
        XCTAssertEqual(calls.count, 2)
        XCTAssertEqual(label(graph, trace, from: "SignalProducer(signal)", to: "flatMap"), "2 values")
        XCTAssertEqual(label(graph, trace, from: "SignalProducer(signal)", to: "map"), "1 value")
    }

    /// A teardown is no data: when one start of the numbers completes a take(until:), which
    /// tears down its trigger (a flatMap over another start, waiting for a call), the
    /// flatMap's and the call's interruptions come while that completion is delivered, but
    /// it never crossed the edge into the flatMap: that edge carries the one value of its own
    /// start, where it said 2 (fidelity seed 40144).
    func testATeardownFromAnotherBranchDoesNotCrossAnEdge() throws {
        struct Refused: Error, Codable {}
        let scheduler = TestScheduler()
        let environment = LiveEnvironment()
        let bytes = Recorder.record(virtual: scheduler) {
            let (input, tap) = Signal<Int, Refused>.pipe(named: "numbers")
            let numbers = SignalProducer(input).map { $0 + 1 }
            let answers = numbers.flatMap(.merge) { number in
                environment.call("lookup", request: number) {
                    SignalProducer<Int, Refused> { observer, lifetime in
                        lifetime += scheduler.schedule(after: scheduler.currentDate.addingTimeInterval(0.004)) {
                            observer.send(value: number * 2)
                            observer.sendCompleted()
                        }
                    }
                }
            }
            let ended = numbers.take(until: answers.map { _ in () }.flatMapError { _ in SignalProducer<(), Never>.empty })
                .start()
            tap.send(value: 21)
            tap.sendCompleted()
            scheduler.advance(by: 1)
            ended.dispose()
        }
        let trace = try Trace(bytes: bytes)
        let graph = PipelineGraph(trace: trace)
        XCTAssertEqual(trace.events.filter { trace.node($0.node)?.name == "call" }.map(\.kind), [.interrupted])
        XCTAssertEqual(label(graph, trace, from: "map", to: "flatMap"), "1 value")
        XCTAssertEqual(label(graph, trace, from: "map", to: "take"), "1 value")
    }
}
