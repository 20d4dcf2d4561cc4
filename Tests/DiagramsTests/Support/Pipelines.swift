import Foundation
import Signals
import TraceLog
import Recording

/// The failure of the pipelines recorded for these tests.
struct SearchError: Swift.Error, CustomStringConvertible {
    var description: String
}

/// Pipelines recorded in virtual time, the traces the diagram tests draw.
enum Pipelines {
    /// TwitterInstant: text → filter → debounce (RAC2 throttle) → flatMap(.latest) search on a
    /// background lane → observe(on: main) → observeValues. The user types "m" ... "magic!";
    /// the search for a query containing "!" fails.
    static func twitterInstant() throws -> Trace {
        try Trace(bytes: twitterInstantBytes(), name: "twitter-instant")
    }

    /// The TwitterInstant trace's bytes.
    static func twitterInstantBytes() -> [UInt8] {
        let scheduler = TestScheduler()
        let main = scheduler.lane("main")
        let background = scheduler.lane("background")
        // The text field outlives the recording, as a screen's does: a signal nothing observes
        // or holds is disposed.
        var textField: Signal<String, SearchError>?
        defer { _ = textField }
        return Recorder.record(virtual: scheduler) {
            let (text, input) = Signal<String, SearchError>.pipe(named: "searchText")
            textField = text
            text.filter { $0.count > 2 }
                .debounce(0.5, on: main)
                .flatMap(.latest) { query in
                    SignalProducer<String, SearchError> { observer, _ in
                        if query.contains("!") {
                            observer.send(error: SearchError(description: "InvalidResponse"))
                        } else {
                            observer.send(value: "\(query.count) tweets")
                            observer.sendCompleted()
                        }
                    }.delay(0.3, on: background)
                }
                .observe(on: main)
                .observe { _ in }
            let keys: [(Int64, String)] = [(100, "m"), (300, "ma"), (550, "mag"), (800, "magi"), (1500, "magic"), (2400, "magic!")]
            for (ms, value) in keys {
                _ = main.schedule(after: Date(timeIntervalSinceReferenceDate: Double(ms) / 1000)) { input.send(value: value) }
            }
            _ = scheduler.run()
        }
    }
}

extension Pipelines {
    /// `numbers → map → observed`, and `numbers → filter` that nobody observes.
    static func branches() throws -> Trace {
        let scheduler = TestScheduler()
        let bytes = Recorder.record(virtual: scheduler) {
            let (numbers, input) = Signal<Int, Never>.pipe(named: "numbers")
            numbers.map { $0 * 2 }.observeValues { _ in }
            _ = numbers.filter { $0 > 1 }
            for value in 1...3 {
                scheduler.schedule(atNanoseconds: Int64(value) * 1_000_000) { input.send(value: value) }
            }
            _ = scheduler.run()
        }
        return try Trace(bytes: bytes, name: "branches")
    }

    /// A pipe labelled `text` sending `text` and then failing with it, through `map`.
    static func hostile(_ text: String) throws -> Trace {
        let scheduler = TestScheduler()
        let bytes = Recorder.record(virtual: scheduler) {
            let (source, input) = Signal<String, SearchError>.pipe(named: text)
            source.map { $0 + text }.named(text).observe { _ in }
            scheduler.schedule(atNanoseconds: 1_000_000) { input.send(value: text) }
            scheduler.schedule(atNanoseconds: 2_000_000) { input.send(error: SearchError(description: text)) }
            _ = scheduler.run()
        }
        return try Trace(bytes: bytes, name: "hostile")
    }
}

extension Pipelines {
    /// `queries → flatMap(.latest) { lookup } → observe`, where the observer starts an
    /// `avatar` producer for each result while flatMap is delivering it.
    static func subscriberStartsWork() throws -> Trace {
        let scheduler = TestScheduler()
        let bytes = Recorder.record(virtual: scheduler) {
            let (queries, input) = Signal<String, Never>.pipe(named: "queries")
            queries.flatMap(.latest) { query in SignalProducer<String, Never>(value: query + "!").named("lookup") }
                .observeValues { result in
                    SignalProducer<String, Never>(value: "avatar for " + result).named("avatar").startWithValues { _ in }
                }
            scheduler.schedule(atNanoseconds: 1_000_000) { input.send(value: "a") }
            scheduler.schedule(atNanoseconds: 2_000_000) { input.send(value: "b") }
            _ = scheduler.run()
        }
        return try Trace(bytes: bytes, name: "subscriber-starts-work")
    }

    /// A real-time trace built record by record: a source delivering on the OS main thread
    /// and a map delivering on the same thread under the `main` scheduler.
    static func twoRecordsOfMain() -> Trace {
        var trace = Trace(header: TraceHeader(clock: .real))
        let records: [TraceRecord] = [
            .thread(ThreadRecord(id: 1, name: "main", os: 7)),
            .thread(ThreadRecord(id: 2, name: "main", scheduler: "main", os: 7)),
            .thread(ThreadRecord(id: 3, name: "com.apple.root.default-qos", scheduler: "background", os: 9)),
            .node(NodeRecord(id: 1, kind: .source, name: "pipe", file: "A.swift", line: 1, upstream: [])),
            .node(NodeRecord(id: 2, kind: .operator, name: "map", file: "A.swift", line: 2,
                             upstream: [.init(node: 1, role: .data)])),
            .subscribe(SubscriptionRecord(id: 1, node: 1, parent: 0, time: 0, thread: 1)),
            .subscribe(SubscriptionRecord(id: 2, node: 2, parent: 0, time: 3_000, thread: 1)),
            .event(EventRecord(sequence: 1, time: 1_000_000, node: 1, subscription: 1, kind: .value, thread: 1, text: "x")),
            .event(EventRecord(sequence: 2, time: 2_000_000, node: 2, subscription: 2, kind: .value, thread: 2,
                               causes: [1], text: "X")),
            .event(EventRecord(sequence: 3, time: 9_000_000, node: 2, subscription: 2, kind: .value, thread: 3, text: "Y")),
        ]
        for record in records { trace.add(record) }
        return trace
    }
}

/// The failure of the autocomplete fixture's fake service.
struct ServiceUnavailable: Swift.Error, Codable, CustomStringConvertible {
    var description: String { "ServiceUnavailable" }
}

extension Pipelines {
    /// Where the autocomplete fixture is committed.
    static let autocompleteFixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("autocomplete.trace")

    /// The issue-12 autocomplete pipeline, recorded in virtual time: text → filter → debounce
    /// (100 ms) → flatMap(.latest) { call("search") → retry(upTo: 2) → flatMapError } →
    /// observe(on: main). The fake service answers after 200 ms on "network" and fails all
    /// but its 3rd and 6th calls: a search fails, is retried and succeeds, a stale search
    /// still running when the next query arrives is interrupted by `.latest`, and a search
    /// failing three times is caught by `flatMapError`.
    static func autocompleteBytes() -> [UInt8] {
        let scheduler = TestScheduler()
        let main = scheduler.lane("main")
        let network = scheduler.lane("network")
        return Recorder.record(virtual: scheduler) {
            let (text, input) = Signal<String, Never>.pipe(named: "text")
            var calls = 0
            text.filter { $0.count > 1 }
                .debounce(0.1, on: main)
                .flatMap(.latest) { query in
                    SignalProducer<[String], ServiceUnavailable>.environmentCall("search", request: query,
                                                                                 file: #fileID, line: #line) {
                        SignalProducer { observer, lifetime in
                            calls += 1
                            let fails = ![3, 6].contains(calls)
                            lifetime += network.schedule(after: network.currentDate.addingTimeInterval(0.2)) {
                                if fails {
                                    observer.send(error: ServiceUnavailable())
                                } else {
                                    observer.send(value: [query + "1", query + "2"])
                                    observer.sendCompleted()
                                }
                            }
                        }
                    }
                    .retry(upTo: 2)
                    .flatMapError { _ in SignalProducer<[String], Never>(value: []) }
                }
                .observe(on: main)
                .observeValues { _ in }
            // "sw": two failures, then a retry succeeds. "swif": interrupted by "swift" (one
            // failure, then success). "swiftly": three failures, caught.
            let keys: [(Int64, String)] = [(0, "s"), (50, "sw"), (1_000, "swi"), (1_050, "swif"), (1_200, "swift"),
                                           (2_000, "swiftly")]
            for (ms, value) in keys {
                _ = main.schedule(after: Date(timeIntervalSinceReferenceDate: Double(ms) / 1000)) { input.send(value: value) }
            }
            _ = scheduler.run()
        }
    }

    /// The committed autocomplete fixture.
    static func autocomplete() throws -> Trace {
        try Trace(bytes: Array(try Data(contentsOf: autocompleteFixture)), name: "autocomplete")
    }
}

extension Pipelines {
    /// The custom thread names of a user's package (issue 34): sensors `imu` and `gyro`
    /// combined, three keyboards merged, a chat server, six pool threads, then `main`; all in
    /// real time. Each source delivers on its own thread; `combineLatest` on imu and gyro,
    /// `merge` on the three keyboards (twice on alice), `observe(on: main)` on main; main
    /// interrupts the imu at the end.
    static func customThreads() -> Trace {
        var trace = Trace(header: TraceHeader(clock: .real))
        let names = ["imu", "gyro", "keyboard.alice", "keyboard.bob", "keyboard.carol", "chat-server",
                     "pool-1", "pool-2", "pool-3", "pool-4", "pool-5", "pool-6"]
        var records: [TraceRecord] = names.enumerated().map { .thread(ThreadRecord(id: UInt64($0.offset + 1), name: $0.element)) }
        records.append(.thread(ThreadRecord(id: 13, name: "main", scheduler: "main")))
        func node(_ id: UInt64, _ kind: NodeKind, _ name: String, parameters: String = "", label: String? = nil,
                  upstream: [UInt64] = []) {
            records.append(.node(NodeRecord(id: id, kind: kind, name: name, parameters: parameters, file: "Field.swift", line: id,
                                            label: label, upstream: upstream.map { .init(node: $0, role: .data) })))
            records.append(.subscribe(SubscriptionRecord(id: id, node: id, parent: 0, time: 0, thread: 13)))
        }
        var sequence: UInt64 = 0
        func value(_ node: UInt64, on thread: UInt64, at ms: Int64, _ text: String, cause: UInt64? = nil) {
            sequence += 1
            records.append(.event(EventRecord(sequence: sequence, time: ms * 1_000_000, node: node, subscription: node,
                                              kind: .value, thread: thread, causes: cause.map { [$0] } ?? [], text: text)))
        }
        node(1, .source, "pipe", label: "imu")
        node(2, .source, "pipe", label: "gyro")
        node(3, .operator, "combineLatest", upstream: [1, 2])
        for keyboard in 0..<3 { node(UInt64(4 + keyboard), .source, "pipe", label: names[2 + keyboard]) }
        node(7, .operator, "merge", upstream: [4, 5, 6])
        node(8, .source, "pipe", label: "chat")
        node(9, .operator, "observe(on:)", parameters: "main", upstream: [8])
        for pool in 0..<6 { node(UInt64(10 + pool), .source, "pipe", label: names[6 + pool]) }
        value(1, on: 1, at: 1, "i1")
        value(2, on: 2, at: 2, "g1")
        value(3, on: 2, at: 2, "(i1,g1)", cause: 2)
        value(1, on: 1, at: 3, "i2")
        value(3, on: 1, at: 3, "(i2,g1)", cause: 4)
        for (index, keyboard) in [4, 4, 5, 6].enumerated() {
            value(UInt64(keyboard), on: UInt64(keyboard - 1), at: Int64(10 + index), "k\(index)")
            value(7, on: UInt64(keyboard - 1), at: Int64(10 + index), "k\(index)", cause: sequence)
        }
        value(8, on: 6, at: 20, "hi")
        value(9, on: 13, at: 21, "hi", cause: sequence)
        for pool in 0..<6 { value(UInt64(10 + pool), on: UInt64(7 + pool), at: Int64(30 + pool), "p\(pool)") }
        // main disposes the imu: its interruption comes on main, where the imu does not run.
        sequence += 1
        records.append(.event(EventRecord(sequence: sequence, time: 40_000_000, node: 1, subscription: 1, kind: .interrupted, thread: 13)))
        for record in records { trace.add(record) }
        return trace
    }
}
