@testable import Diagrams
import Foundation
import Recording
import Signals
import TraceLog
import XCTest

/// Issue 27's figure cases, counted from what each subscription observed (the subscribe
/// records' `observes`), not inferred from causes.
final class ExactEdgeTests: XCTestCase {
    private struct Refused: Error, Codable {}

    /// The (observed node, observer node) pairs the trace's links join, by node name.
    private func linkedPairs(_ trace: Trace) -> Set<[String]> {
        let names = Dictionary(uniqueKeysWithValues: trace.nodes.map { ($0.id, $0.name) })
        var pairs: Set<[String]> = []
        for record in trace.subscriptions {
            for upstream in record.observes ?? [] {
                if let observed = trace.subscription(upstream) { pairs.insert([names[observed.node] ?? "?", names[record.node] ?? "?"]) }
            }
            for downstream in record.observedBy ?? [] {
                if let observer = trace.subscription(downstream) { pairs.insert([names[record.node] ?? "?", names[observer.node] ?? "?"]) }
            }
        }
        return pairs
    }

    private func edges(_ graph: PipelineGraph, _ trace: Trace, from: String, to: String) -> [PipelineGraph.Edge] {
        let names = Dictionary(uniqueKeysWithValues: trace.nodes.map { (String($0.id), $0.name) })
        return graph.edges.filter { names[$0.from] == from && names[$0.to] == to && $0.style != .error }
    }

    /// A hot signal's map that sends three values, the first two before a combineLatest
    /// observes it, recorded.
    private static func mapIntoCombineLatest() -> [UInt8] {
        Recorder.record(virtual: TestScheduler()) {
            let (readings, reading) = Signal<Int, Never>.pipe(named: "readings")
            let (targets, target) = Signal<Int, Never>.pipe(named: "targets")
            let scaled = readings.map { $0 * 10 }
            scaled.observeValues { _ in }
            reading.send(value: 1)
            reading.send(value: 2)
            scaled.combineLatest(with: targets).observeValues { _ in }
            target.send(value: 20)
            reading.send(value: 3)
        }
    }

    /// A hot signal's map sent three values, the first two before a combineLatest observed
    /// it: one crossed the edge into the combineLatest, where the map's total said three.
    func testAnEdgeIntoCombineLatestCountsOnlyWhatCrossedIt() throws {
        let bytes = Self.mapIntoCombineLatest()
        let trace = try Trace(bytes: bytes)
        XCTAssertTrue(trace.subscriptions.contains { $0.observes != nil }, "the recorder writes what each subscription observes")
        let graph = PipelineGraph(trace: trace)
        XCTAssertEqual(edges(graph, trace, from: "pipe", to: "map").map(\.label), ["3 values"])
        XCTAssertEqual(edges(graph, trace, from: "map", to: "combineLatest").map(\.label), ["1 value"])
        XCTAssertEqual(edges(graph, trace, from: "pipe", to: "combineLatest").map(\.label), ["1 value"])
    }

    /// The trace's edge index (`TraceEdges`) is what the figure and `marbles stats --edges`
    /// read: exact where links join an edge, inferred (and said to be) where none does.
    func testTheEdgeIndexCountsEachEdgeAndSaysHow() throws {
        let trace = try Trace(bytes: Self.mapIntoCombineLatest())
        let names = Dictionary(uniqueKeysWithValues: trace.nodes.map { ($0.id, $0.name) })
        let edges = TraceEdges(trace).edges
        func edge(_ from: String, _ to: String) -> TraceEdges.Edge? {
            edges.first { names[$0.from] == from && names[$0.to] == to }
        }
        XCTAssertEqual(edge("map", "combineLatest")?.counts, EdgeCounts(values: 1))
        XCTAssertEqual(edge("map", "combineLatest")?.exact, true)
        XCTAssertEqual(edge("map", "combineLatest")?.role, .data)
        XCTAssertEqual(edge("pipe", "map")?.counts, EdgeCounts(values: 3))
        // Without links, the same edges, each inferred.
        var unlinked = Trace(header: trace.header)
        for record in try Self.records(of: trace) {
            if case var .subscribe(subscription) = record {
                subscription.observes = nil
                subscription.observedBy = nil
                XCTAssertNil(unlinked.add(.subscribe(subscription)))
            } else {
                XCTAssertNil(unlinked.add(record))
            }
        }
        let inferred = TraceEdges(unlinked).edges
        XCTAssertEqual(inferred.map { [$0.from, $0.to] }, edges.filter { $0.role != nil }.map { [$0.from, $0.to] })
        XCTAssertTrue(inferred.allSatisfy { !$0.exact })
    }

    /// The records of `trace` in the order a file holds them (events before the disposals).
    private static func records(of trace: Trace) throws -> [TraceRecord] {
        var records: [TraceRecord] = trace.threads.map { .thread($0) } + trace.nodes.map { .node($0) }
        records += trace.subscriptions.map { .subscribe($0) }
        records += trace.events.map { .event($0) }
        records += trace.disposals.map { .dispose($0) }
        return records
    }

    /// On every committed trace, each labelled edge of the pipeline figure says what the
    /// trace's edge index says crossed it: one index, so the figure and `stats --edges` agree.
    func testThePipelineFigureLabelsEveryEdgeAsTheIndexCountsIt() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("traces")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".trace") }.sorted()
        XCTAssertGreaterThan(files.count, 10)
        var compared = 0
        for file in files {
            let trace = try Trace(contentsOf: folder.appendingPathComponent(file))
            let index = TraceEdges(trace)
            for edge in PipelineGraph(trace: trace).edges where edge.label != nil && edge.style != .error {
                guard let from = UInt64(edge.from), let to = UInt64(edge.to),
                      let counted = index.edge(from: from, into: to) else { continue }
                XCTAssertEqual(edge.label, counted.counts.label, "\(file): \(edge.from) -> \(edge.to)")
                compared += 1
            }
        }
        // Most labelled edges are upstream or linked edges, which the index holds.
        XCTAssertGreaterThan(compared, 100)
    }

    /// A link ends with its observer: a take(first: 1) on a hot map got one of its three
    /// values, however the trace was loaded (`marbles draw --pipeline` leaves the dispose
    /// records out, but not where they stood).
    func testAnEdgeEndsWhereItsObserverWasDisposed() throws {
        let bytes = Recorder.record(virtual: TestScheduler()) {
            let (readings, reading) = Signal<Int, Never>.pipe(named: "readings")
            let scaled = readings.map { $0 * 10 }
            scaled.observeValues { _ in }
            scaled.take(first: 1).observeValues { _ in }
            reading.send(value: 1)
            reading.send(value: 2)
            reading.send(value: 3)
        }
        for trace in [try Trace(bytes: bytes), try Trace(reader: TraceReader(bytes: bytes, name: "t"), leavingOut: [.disposals])] {
            let graph = PipelineGraph(trace: trace)
            XCTAssertEqual(edges(graph, trace, from: "map", to: "take").map(\.label), ["1 value"])
            XCTAssertEqual(edges(graph, trace, from: "pipe", to: "map").map(\.label), ["3 values"])
        }
    }

    /// A trace recorded before the links were written (the same run, its links taken out)
    /// still reads, and its figure infers the counts from causes as before: the hot map's
    /// total on the edge into the combineLatest.
    func testATraceWithoutLinksFallsBackToInferredCounts() throws {
        let bytes = Self.mapIntoCombineLatest()
        let unlinked = String(decoding: bytes, as: UTF8.self)
            .replacingOccurrences(of: #","observes":\[[0-9,]*\]"#, with: "", options: .regularExpression)
            .replacingOccurrences(of: #","observedBy":\[[0-9,]*\]"#, with: "", options: .regularExpression)
        XCTAssertNotEqual(unlinked.utf8.count, bytes.count)
        let trace = try Trace(bytes: Array(unlinked.utf8))
        XCTAssertTrue(trace.subscriptions.allSatisfy { $0.observes == nil && $0.observedBy == nil })
        let graph = PipelineGraph(trace: trace)
        XCTAssertEqual(edges(graph, trace, from: "map", to: "combineLatest").map(\.label), ["3 values"])
    }

    /// One call started by six consumers: each edge out of it carries its own start's
    /// values (1 to 6), where every one repeated the call's total (21).
    /// A `retry` resubscribing from the thread its upstream failed on can leave the new
    /// attempt's subscription without a link (the live field run: `timeout → retry` said
    /// 2 values · 7 failed of 4 · 10). Such an attempt is counted as observed by the
    /// subscription that started it, its parent, when that is a subscription of a node it is
    /// upstream of: the same counts as with every link written.
    func testAnAttemptWithoutALinkCountsAsItsParentsObservation() throws {
        let bytes = Recorder.record(virtual: TestScheduler()) {
            var attempts = 0
            SignalProducer<Int, Refused> { observer, _ in
                attempts += 1
                observer.send(value: attempts)
                if attempts < 3 { observer.send(error: Refused()) } else { observer.sendCompleted() }
            }
            .map { $0 * 10 }
            .retry(upTo: 3)
            .startWithValues { _ in }
        }
        let linked = try Trace(bytes: bytes)
        let mapNode = try XCTUnwrap(linked.nodes.first { $0.name == "map" }?.id)
        // The attempts after the first, their links taken out, as the live run recorded them.
        var seen = false
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map { line in
            guard line.contains("\"type\":\"subscribe\""), line.contains("\"node\":\(mapNode),") else { return String(line) }
            defer { seen = true }
            guard seen else { return String(line) }
            return String(line).replacingOccurrences(of: #","observedBy":\[[0-9,]*\]"#, with: "", options: .regularExpression)
                .replacingOccurrences(of: #","observes":\[[0-9,]*\]"#, with: "", options: .regularExpression)
        }
        let unlinked = try Trace(bytes: Array(lines.joined(separator: "\n").utf8))
        let stripped = unlinked.subscriptions.filter { $0.node == mapNode }.dropFirst()
        XCTAssertEqual(stripped.count, 2)
        XCTAssertTrue(stripped.allSatisfy { $0.observes == nil && $0.observedBy == nil })
        let expected = edges(PipelineGraph(trace: linked), linked, from: "map", to: "retry").map(\.label)
        XCTAssertEqual(expected, ["3 values · 2 failed"])
        XCTAssertEqual(edges(PipelineGraph(trace: unlinked), unlinked, from: "map", to: "retry").map(\.label), expected)
    }

    func testSixEdgesOutOfOneCallEachCarryTheirOwnStart() throws {
        let environment = LiveEnvironment()
        let bytes = Recorder.record(virtual: TestScheduler()) {
            var starts = 0
            let answers = environment.call("readings") {
                SignalProducer<Int, Refused> { observer, _ in
                    starts += 1
                    for value in 0..<starts { observer.send(value: value) }
                    observer.sendCompleted()
                }
            }
            answers.map { $0 + 1 }.start()
            answers.filter { _ in true }.start()
            answers.scan(0, +).start()
            answers.skip(first: 0).start()
            answers.take(first: 9).start()
            answers.skipRepeats().start()
        }
        let trace = try Trace(bytes: bytes)
        let graph = PipelineGraph(trace: trace)
        let labels = ["map", "filter", "scan", "skip", "take", "skipRepeats"].map { name in
            edges(graph, trace, from: "call", to: name).map(\.label)
        }
        XCTAssertEqual(labels, (1...6).map { [$0 == 1 ? "1 value" : "\($0) values"] })
    }

    /// A flatMap(.concat)'s inner chain (a call and a map over it) hangs from the flatMap that
    /// started it, its edge labelled with what the flatMap got from it.
    func testAConcatInnerChainHangsFromItsOperator() throws {
        let environment = LiveEnvironment()
        let scheduler = TestScheduler()
        let bytes = Recorder.record(virtual: scheduler) {
            let (taps, tap) = Signal<Int, Refused>.pipe(named: "taps")
            taps.flatMap(.concat) { number in
                environment.call("lookup", request: number) {
                    SignalProducer<Int, Refused> { observer, lifetime in
                        lifetime += scheduler.schedule(after: scheduler.currentDate.addingTimeInterval(0.004)) {
                            observer.send(value: number)
                            observer.send(value: number + 1)
                            observer.sendCompleted()
                        }
                    }
                }.map { $0 * 2 }
            }.observe { _ in }
            tap.send(value: 1)
            tap.send(value: 5)
            tap.send(value: 9)
            scheduler.advance(by: 1)
        }
        let trace = try Trace(bytes: bytes)
        let graph = PipelineGraph(trace: trace)
        let flatMap = try XCTUnwrap(trace.nodes.first { $0.name == "flatMap" })
        let into = graph.edges.filter { $0.to == String(flatMap.id) && $0.style == .inner }
        let names = Dictionary(uniqueKeysWithValues: trace.nodes.map { (String($0.id), $0.name) })
        XCTAssertEqual(into.map { names[$0.from] ?? "?" }, ["map"], "\(graph.edges)")
        XCTAssertEqual(into.map(\.label), ["6 values"])
        XCTAssertEqual(edges(graph, trace, from: "call", to: "map").map(\.label), ["6 values"])
    }

    /// An action applied three times (each `apply` at a line of its own), the second while
    /// the first ran (refused): each start runs an instance of the action's node, its answer,
    /// which the application observes, and `events` (or `disabledErrors`, refused) with it.
    /// The edges out of the action carry what its answers sent: each unit of work's two values
    /// into its `apply` and into `events`, the refusal into its `apply` and `disabledErrors`.
    /// When the action's node ran no instance of its own, they had no link.
    func testEdgesOutOfAnActionCarryItsAnswers() throws {
        let scheduler = TestScheduler()
        let bytes = Recorder.record(virtual: scheduler) {
            let action = Action<Int, Int, Refused> { number in
                SignalProducer<Int, Refused> { observer, lifetime in
                    lifetime += scheduler.schedule(after: scheduler.currentDate.addingTimeInterval(0.004)) {
                        observer.send(value: number)
                        observer.send(value: number + 1)
                        observer.sendCompleted()
                    }
                }
            }
            action.events.observe { _ in }
            action.disabledErrors.observe { _ in }
            action.apply(1).start()
            action.apply(2).start()
            scheduler.advance(by: 0.01)
            action.apply(3).start()
            scheduler.advance(by: 0.01)
        }
        let trace = try Trace(bytes: bytes)
        let graph = PipelineGraph(trace: trace)
        XCTAssertTrue(linkedPairs(trace).isSuperset(of: [["Action", "apply"], ["Action", "events"], ["Action", "disabledErrors"]]),
                      "\(linkedPairs(trace))")
        XCTAssertEqual(edges(graph, trace, from: "Action", to: "apply").map(\.label), ["2 values", "0 values · 1 failed", "2 values"],
                       "\(graph.edges)")
        XCTAssertEqual(edges(graph, trace, from: "Action", to: "events").map(\.label), ["4 values"])
        XCTAssertEqual(edges(graph, trace, from: "Action", to: "disabledErrors").map(\.label), ["0 values · 1 failed"])
        // The state properties the action sets itself: no answer crossed into them.
        XCTAssertEqual(edges(graph, trace, from: "Action", to: "isExecuting").map(\.label), ["0 values"])
        XCTAssertEqual(edges(graph, trace, from: "Action", to: "isEnabled").map(\.label), ["0 values"])
        // Each unit of work hangs from the answer that ran it.
        XCTAssertEqual(edges(graph, trace, from: "SignalProducer", to: "Action").map(\.style), [.inner], "\(graph.edges)")
    }

    /// A `<~` binding into a MutableProperty draws an edge from the binding into the
    /// property, labelled with the values the binding set.
    func testABindingIntoAMutablePropertyHasAnEdge() throws {
        let bytes = Recorder.record(virtual: TestScheduler()) {
            let property = MutableProperty(0)
            let (typed, type) = Signal<Int, Never>.pipe(named: "typed")
            property <~ typed
            property.producer.map { $0 + 1 }.start()
            type.send(value: 1)
            type.send(value: 2)
            withExtendedLifetime(property) {}
        }
        let trace = try Trace(bytes: bytes)
        let graph = PipelineGraph(trace: trace)
        XCTAssertEqual(edges(graph, trace, from: "<~", to: "MutableProperty").map(\.label), ["2 values"], "\(graph.edges)")
    }

    /// A skip(until:) observes its source from the start, dropping what comes before its
    /// trigger: the link is written as it is made, so the edge from a hot map that sent two
    /// values before it existed carries the four that came after (two dropped, two passed),
    /// not the map's six.
    func testAnEdgeIntoSkipUntilIsTakenFromItsLink() throws {
        let bytes = Recorder.record(virtual: TestScheduler()) {
            let (readings, reading) = Signal<Int, Never>.pipe(named: "readings")
            let (opens, open) = Signal<Void, Never>.pipe(named: "opens")
            let scaled = readings.map { $0 * 10 }
            scaled.observeValues { _ in }
            reading.send(value: 1)
            reading.send(value: 2)
            scaled.skip(until: opens).observeValues { _ in }
            reading.send(value: 3)
            reading.send(value: 4)
            open.send(value: ())
            reading.send(value: 5)
            reading.send(value: 6)
        }
        let trace = try Trace(bytes: bytes)
        XCTAssertTrue(linkedPairs(trace).contains(["map", "skip"]), "\(linkedPairs(trace))")
        let graph = PipelineGraph(trace: trace)
        XCTAssertEqual(edges(graph, trace, from: "map", to: "skip").map(\.label), ["4 values"])
        XCTAssertEqual(trace.events(of: try XCTUnwrap(trace.nodes.first { $0.name == "skip" }?.id)).count, 2)
    }

    /// A property derived from another (`Property(_:)`) is made by the first value of its
    /// stream, which sends no change: two such properties of one property's producer each
    /// got one value, where inferring from causes (nothing caused, two consumers) said none.
    func testEdgesIntoDerivedPropertiesAreTakenFromTheirLinks() throws {
        let bytes = Recorder.record(virtual: TestScheduler()) {
            let source = MutableProperty(1)
            let doubled = source.map { $0 * 2 }
            let first = Property(doubled)
            let second = Property(doubled)
            withExtendedLifetime((source, doubled, first, second)) {}
        }
        let trace = try Trace(bytes: bytes)
        XCTAssertTrue(linkedPairs(trace).contains(["producer", "Property"]), "\(linkedPairs(trace))")
        XCTAssertTrue(linkedPairs(trace).contains(["map", "Property"]), "\(linkedPairs(trace))")
        let graph = PipelineGraph(trace: trace)
        XCTAssertEqual(edges(graph, trace, from: "producer", to: "Property").map(\.label), ["1 value", "1 value"])
        XCTAssertEqual(edges(graph, trace, from: "map", to: "Property").map(\.label), ["1 value"])
    }

    /// `Property(initial:then:)` observes its stream from its start, linked.
    func testAnEdgeIntoAPropertyOfAStreamIsTakenFromItsLink() throws {
        let bytes = Recorder.record(virtual: TestScheduler()) {
            let (typed, type) = Signal<Int, Never>.pipe(named: "typed")
            let latest = Property(initial: 0, then: typed)
            type.send(value: 1)
            type.send(value: 2)
            withExtendedLifetime(latest) {}
        }
        let trace = try Trace(bytes: bytes)
        XCTAssertTrue(linkedPairs(trace).contains(["SignalProducer(signal)", "Property(initial:then:)"]), "\(linkedPairs(trace))")
        let graph = PipelineGraph(trace: trace)
        XCTAssertEqual(edges(graph, trace, from: "SignalProducer(signal)", to: "Property(initial:then:)").map(\.label),
                       ["2 values"])
    }

    /// A ValidatingProperty observes its inner property from when it is made: of the inner
    /// property's three changes, the one made after crossed (not the three a hot upstream's
    /// total said).
    func testAnEdgeIntoAValidatingPropertyIsTakenFromItsLink() throws {
        let bytes = Recorder.record(virtual: TestScheduler()) {
            let inner = MutableProperty(0)
            inner.value = 1
            inner.value = 2
            let checked = ValidatingProperty<Int, Refused>(inner) { $0 < 10 ? .valid : .invalid(Refused()) }
            inner.value = 3
            withExtendedLifetime(checked) {}
        }
        let trace = try Trace(bytes: bytes)
        XCTAssertTrue(linkedPairs(trace).contains(["MutableProperty", "ValidatingProperty"]), "\(linkedPairs(trace))")
        let graph = PipelineGraph(trace: trace)
        XCTAssertEqual(edges(graph, trace, from: "MutableProperty", to: "ValidatingProperty").map(\.label), ["1 value"])
    }

    /// take(untilReplacement:) observes both its inputs as it is made (it always did): both
    /// edges are linked. A hot map that sent one value before it began, its other observer
    /// gone, ends with the observation the replacement ends (nothing else observes it): the
    /// edge carries the one value in between, where the map's total said two.
    func testEdgesIntoTakeUntilReplacementAreTakenFromTheirLinks() throws {
        let bytes = Recorder.record(virtual: TestScheduler()) {
            let (readings, reading) = Signal<Int, Never>.pipe(named: "readings")
            let (replacements, replace) = Signal<Int, Never>.pipe(named: "replacements")
            let scaled = readings.map { $0 * 10 }
            let early = scaled.observeValues { _ in }
            reading.send(value: 1)
            scaled.take(untilReplacement: replacements).observeValues { _ in }
            early?.dispose()
            reading.send(value: 2)
            replace.send(value: 9)
            reading.send(value: 3)
        }
        let trace = try Trace(bytes: bytes)
        XCTAssertTrue(linkedPairs(trace).isSuperset(of: [["map", "take"], ["pipe", "take"]]), "\(linkedPairs(trace))")
        let graph = PipelineGraph(trace: trace)
        XCTAssertEqual(edges(graph, trace, from: "map", to: "take").map(\.label), ["1 value"])
    }

    /// A property's producer started only after the property ended observes nothing: the
    /// recorder has let go of the ended subscription, so no link is written, and nothing
    /// crossed. The edge says 0, where inferring from the property's one subscription gave
    /// it the property's value.
    func testAnEdgeFromASubscriptionThatEndedBeforeItsObserverBeganCarriesNothing() throws {
        let bytes = Recorder.record(virtual: TestScheduler()) {
            let (typed, type) = Signal<Int, Never>.pipe(named: "typed")
            let latest = Property(initial: 0, then: typed)
            type.send(value: 1)
            type.sendCompleted()
            latest.producer.startWithValues { _ in }
            withExtendedLifetime(latest) {}
        }
        let trace = try Trace(bytes: bytes)
        XCTAssertFalse(linkedPairs(trace).contains(["Property(initial:then:)", "producer"]), "\(linkedPairs(trace))")
        let graph = PipelineGraph(trace: trace)
        XCTAssertEqual(edges(graph, trace, from: "Property(initial:then:)", to: "producer").map(\.label), ["0 values"])
    }
}
