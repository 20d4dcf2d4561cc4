import Foundation
import MarbleNotation
import MarbleStreams
import Signals
import XCTest

// MARK: Marble lines on a test scheduler

extension TestScheduler {
    /// A hot signal of a marble line: one running signal that sends the line's events at their
    /// frames (from frame 0, or from the line's `^`), whoever observes it.
    ///
    /// A malformed line, or a symbol with no value, fails the test at the call site; the signal
    /// then never sends anything.
    ///
    /// - Parameters:
    ///   - marbles: the line (`MarbleNotation`).
    ///   - symbols: what value symbols stand for and what `#` sends.
    ///   - frame: one frame, in seconds (1 ms, as in RxJS run mode).
    ///
    /// ```swift
    /// let scheduler = TestScheduler()
    /// let clicks = scheduler.hot("-a--b-|", symbols: MarbleSymbols<Int, Never>(["a": 1, "b": 2], error: nil))
    /// var received: [Int] = []
    /// clicks.observeValues { received.append($0) }
    /// scheduler.run()
    /// XCTAssertEqual(received, [1, 2])
    /// ```
    public func hot<Value, Failure>(_ marbles: String, symbols: MarbleSymbols<Value, Failure>, frame: TimeInterval = 0.001,
                                    fileID: StaticString = #fileID, file: StaticString = #filePath,
                                    line: UInt = #line) -> Signal<Value, Failure> {
        let timeline = Self.timeline(marbles, symbols: symbols, frame: frame, hot: true, file: file, line: line)
        let stream = hot(timeline, node: Node.make(.source, "pipe", file: fileID, line: line))
        stream.scheduleEvents()
        return stream.signal
    }

    /// A hot signal of a marble line whose values are `values` (a symbol missing from it stands
    /// for itself) and whose `#` fails with `error`; see `hot(_:symbols:frame:fileID:file:line:)`.
    public func hot<Value>(_ marbles: String, values: [String: Value], error: MarbleError = MarbleError(),
                           frame: TimeInterval = 0.001, fileID: StaticString = #fileID, file: StaticString = #filePath,
                           line: UInt = #line) -> Signal<Value, MarbleError> {
        hot(marbles, symbols: MarbleSymbols(values, error: error), frame: frame, fileID: fileID, file: file, line: line)
    }

    /// A hot signal of a marble line whose values are its symbols, as strings.
    public func hot(_ marbles: String, error: MarbleError = MarbleError(), frame: TimeInterval = 0.001,
                    fileID: StaticString = #fileID, file: StaticString = #filePath, line: UInt = #line) -> Signal<String, MarbleError> {
        hot(marbles, values: [:], error: error, frame: frame, fileID: fileID, file: file, line: line)
    }

    /// A cold producer of a marble line: each start sends the line's events at their frames
    /// from that start.
    ///
    /// A malformed line, or a symbol with no value, fails the test at the call site; the
    /// producer then sends nothing.
    ///
    /// ```swift
    /// let scheduler = TestScheduler()
    /// let reply = scheduler.cold("--r|", symbols: MarbleSymbols<String, MarbleError>(["r": "ok"], error: MarbleError()))
    /// var events: [(time: Int64, event: Event<String, MarbleError>)] = []
    /// reply.start { events.append((scheduler.now, $0)) }   // each start plays the line from then on
    /// scheduler.run()
    /// assertMarbles(events, "--r|", values: ["r": "ok"])
    /// ```
    public func cold<Value, Failure>(_ marbles: String, symbols: MarbleSymbols<Value, Failure>, frame: TimeInterval = 0.001,
                                     fileID: StaticString = #fileID, file: StaticString = #filePath,
                                     line: UInt = #line) -> SignalProducer<Value, Failure> {
        let timeline = Self.timeline(marbles, symbols: symbols, frame: frame, hot: false, file: file, line: line)
        return cold(timeline, node: Node.make(.source, "SignalProducer", file: fileID, line: line)).producer
    }

    /// A cold producer of a marble line whose values are `values` (a symbol missing from it
    /// stands for itself) and whose `#` fails with `error`.
    public func cold<Value>(_ marbles: String, values: [String: Value], error: MarbleError = MarbleError(),
                            frame: TimeInterval = 0.001, fileID: StaticString = #fileID, file: StaticString = #filePath,
                            line: UInt = #line) -> SignalProducer<Value, MarbleError> {
        cold(marbles, symbols: MarbleSymbols(values, error: error), frame: frame, fileID: fileID, file: file, line: line)
    }

    /// A cold producer of a marble line whose values are its symbols, as strings.
    public func cold(_ marbles: String, error: MarbleError = MarbleError(), frame: TimeInterval = 0.001,
                     fileID: StaticString = #fileID, file: StaticString = #filePath, line: UInt = #line) -> SignalProducer<String, MarbleError> {
        cold(marbles, values: [:], error: error, frame: frame, fileID: fileID, file: file, line: line)
    }

    private static func timeline<Value, Failure>(_ marbles: String, symbols: MarbleSymbols<Value, Failure>, frame: TimeInterval,
                                                 hot: Bool, file: StaticString, line: UInt) -> MarbleTimeline<Value, Failure> {
        do {
            return try symbols.timeline(MarbleNotation.parse(marbles, frame: nanoseconds(frame), hot: hot))
        } catch {
            XCTFail("marble line \"\(marbles)\": \(error)", file: file, line: line)
            return []
        }
    }
}

/// A frame in seconds as virtual nanoseconds.
func nanoseconds(_ frame: TimeInterval) -> Int64 { Int64((frame * 1e9).rounded()) }

// MARK: Checking what a stream sent

/// Asserts that `events` (what a stream sent, with virtual times) are the marble line
/// `expected` (a `^` in it marks frame 0, the subscription): the same events in the same frames and order, each value equal to what its
/// symbol stands for (its entry in `values`, else a value whose description is the symbol).
/// On a mismatch the failure shows both lines under one legend.
///
/// ```swift
/// let scheduler = TestScheduler()
/// var events: [(time: Int64, event: Event<Int, Never>)] = []
/// SignalProducer([1, 2]).delay(0.002, on: scheduler).start { events.append((scheduler.now, $0)) }
/// scheduler.run()
/// assertMarbles(events, "--(ab|)", values: ["a": 1, "b": 2])
/// ```
public func assertMarbles<Value: Equatable, Failure>(_ events: [(time: Int64, event: Event<Value, Failure>)], _ expected: String,
                                                     values: [String: Value] = [:], frame: TimeInterval = 0.001,
                                                     file: StaticString = #filePath, line: UInt = #line) {
    if let failure = marbleFailure(expected: expected, values: values, frame: nanoseconds(frame), received: events, equal: ==) {
        XCTFail(failure, file: file, line: line)
    }
}

/// As `assertMarbles(_:_:values:frame:file:line:)` for values that are not
/// `Equatable`: values compare by their descriptions.
public func assertMarbles<Value, Failure>(_ events: [(time: Int64, event: Event<Value, Failure>)], _ expected: String,
                                          values: [String: Value] = [:], frame: TimeInterval = 0.001,
                                          file: StaticString = #filePath, line: UInt = #line) {
    if let failure = marbleFailure(expected: expected, values: values, frame: nanoseconds(frame), received: events,
                                   equal: { "\($0)" == "\($1)" }) {
        XCTFail(failure, file: file, line: line)
    }
}

// MARK: expectMarbles over a test scheduler

/// Runs `build`'s signal on a fresh test scheduler to the end and asserts that it sent the
/// marble line `expected` (see `assertMarbles(_:_:values:frame:file:line:)`).
///
/// ```swift
/// expectMarbles("---a-b|") { $0.hot("-a-b|").delay(0.002, on: $0) }   // the completion is delayed too
/// ```
public func expectMarbles<Value: Equatable, Failure>(_ expected: String, values: [String: Value] = [:], frame: TimeInterval = 0.001,
                                                     file: StaticString = #filePath, line: UInt = #line,
                                                     _ build: (TestScheduler) -> Signal<Value, Failure>) {
    expectMarbles(expected, values: values, frame: frame, file: file, line: line) { SignalProducer(build($0)) }
}

/// As `expectMarbles(_:values:frame:file:line:_:)`, for a producer started at frame 0.
public func expectMarbles<Value: Equatable, Failure>(_ expected: String, values: [String: Value] = [:], frame: TimeInterval = 0.001,
                                                     file: StaticString = #filePath, line: UInt = #line,
                                                     _ build: (TestScheduler) -> SignalProducer<Value, Failure>) {
    let scheduler = TestScheduler()
    assertMarbles(run(build(scheduler), on: scheduler), expected, values: values, frame: frame, file: file, line: line)
}

/// As `expectMarbles(_:values:frame:file:line:_:)` for values that are not
/// `Equatable`: values compare by their descriptions.
public func expectMarbles<Value, Failure>(_ expected: String, values: [String: Value] = [:], frame: TimeInterval = 0.001,
                                          file: StaticString = #filePath, line: UInt = #line,
                                          _ build: (TestScheduler) -> Signal<Value, Failure>) {
    let scheduler = TestScheduler()
    assertMarbles(run(SignalProducer(build(scheduler)), on: scheduler), expected, values: values, frame: frame, file: file, line: line)
}

/// Starts `producer` at the scheduler's now and runs the scheduler to the end: what the
/// stream sent by then (the disposal that follows is the test's, not the stream's).
private func run<Value, Failure>(_ producer: SignalProducer<Value, Failure>,
                                 on scheduler: TestScheduler) -> [(time: Int64, event: Event<Value, Failure>)] {
    var received: [(time: Int64, event: Event<Value, Failure>)] = []
    var running = true
    let disposable = producer.start { event in
        if running { received.append((scheduler.now, event)) }
    }
    scheduler.run()
    running = false
    disposable.dispose()
    return received
}

// MARK: expectMarbles over a virtual environment

/// Runs `build` in a `VirtualEnvironment` whose inputs and calls play marble lines, and
/// asserts that its stream sent the marble line `expected`; on a mismatch the failure shows
/// both lines under one legend. The pipeline may use the environment as any `Environment`
/// (`input`, `call`, `scheduler`) or read its lines as named streams (`$0["e1"]`).
///
/// ```swift
/// expectMarbles(inputs: ["e1": "-a--b-|"], inputValues: ["a": "swift", "b": "swim"],
///               { $0["e1"].map(\.count) }, "-5--4-|")
/// ```
///
/// A pipeline's calls play the lines in `calls`: *every* start of a call plays its line anew
/// from that start, whatever its request, and a `#` in it fails the call with the entry of
/// `errors` for its label.
///
/// ```swift
/// struct Offline: Error, Codable {}
/// func search(in environment: Environment) -> SignalProducer<String, Offline> {
///     SignalProducer(environment.input("query", of: String.self)).promoteError(Offline.self)
///         .flatMap(.concat) { text in
///             environment.call("search", request: text) { SignalProducer<String, Offline>(value: text) }
///         }
/// }
/// // "a" starts a call at frame 1, answered at 3; "b" one at 7, answered at 9.
/// expectMarbles(inputs: ["query": "-a-----b|"], calls: ["search": "--r|"],
///               inputValues: ["a": "sw", "b": "swift", "r": "found"],
///               { search(in: $0) }, "---r-----r|", values: ["r": "found"])
/// // The first call fails: so does the search.
/// expectMarbles(inputs: ["query": "-a-|"], calls: ["search": "--#"], inputValues: ["a": "sw"],
///               errors: ["search": Offline()], { search(in: $0) }, "---#")
/// ```
///
/// - Parameters:
///   - inputs: marble lines by input name (see `VirtualEnvironment`).
///   - calls: marble lines by call label, each start of a call playing its line.
///   - inputValues: what the input and call lines' symbols stand for, where they differ from
///     `values` (an input whose type is the output's uses `values` too).
///   - errors: what `#` sends, by input name or call label.
///   - frame: one frame, in seconds (1 ms, as in RxJS run mode).
///   - build: makes the stream under test; it is started at frame 0.
///   - expected: the expected marble line.
///   - values: what the expected line's symbols stand for; a symbol missing from it stands
///     for a value whose description is the symbol.
public func expectMarbles<Value: Equatable, Failure>(
    inputs: [String: String] = [:], calls: [String: String] = [:], inputValues: [String: Any] = [:],
    errors: [String: any Error] = [:], frame: TimeInterval = 0.001,
    _ build: (VirtualEnvironment) -> SignalProducer<Value, Failure>,
    _ expected: String, values: [String: Value] = [:],
    file: StaticString = #filePath, line: UInt = #line
) {
    let environment: VirtualEnvironment
    do {
        environment = try VirtualEnvironment(frame: frame, inputs: inputs, calls: calls,
                                             values: values.mapValues { $0 as Any }.merging(inputValues) { $1 }, errors: errors)
    } catch {
        return XCTFail("expectMarbles: \(error)", file: file, line: line)
    }
    let received = run(build(environment), on: environment.scheduler)
    var failures = environment.problems.map { "expectMarbles: \($0)" }
    failures += environment.unusedInputs.map { "expectMarbles: the pipeline never asked for the input '\($0)'" }
    if let mismatch = marbleFailure(expected: expected, values: values, frame: environment.frame, received: received,
                                    reserving: Set(inputValues.keys), equal: ==) {
        failures.append(mismatch)
    }
    if !failures.isEmpty { XCTFail(failures.joined(separator: "\n"), file: file, line: line) }
}

/// As `expectMarbles(inputs:calls:inputValues:errors:frame:_:_:values:file:line:)`, for
/// a stream under test that is a `Signal` (it is observed from frame 0).
public func expectMarbles<Value: Equatable, Failure>(
    inputs: [String: String] = [:], calls: [String: String] = [:], inputValues: [String: Any] = [:],
    errors: [String: any Error] = [:], frame: TimeInterval = 0.001,
    _ build: (VirtualEnvironment) -> Signal<Value, Failure>,
    _ expected: String, values: [String: Value] = [:],
    file: StaticString = #filePath, line: UInt = #line
) {
    expectMarbles(inputs: inputs, calls: calls, inputValues: inputValues, errors: errors, frame: frame,
                  { SignalProducer(build($0)) }, expected, values: values, file: file, line: line)
}

// MARK: The failure message

/// Why `received` is not the marble line `expected`: both lines under one legend, in which a
/// symbol means one value only (an actual value equal to one of `values` takes its symbol; any
/// other gets its own character if that means nothing else, else a letter used by neither
/// line nor in `reserved`, the symbols of the inputs' values); nil when they match. A
/// malformed expected line is a failure naming the error.
func marbleFailure<Value, Failure>(expected: String, values: [String: Value], frame: Int64,
                                   received: [(time: Int64, event: Event<Value, Failure>)],
                                   reserving reserved: Set<String> = [],
                                   equal: (Value, Value) -> Bool) -> String? {
    let marbles: [MarbleNotation.Event]
    do {
        // A `^` marks frame 0, where the stream under test was started: a lane that
        // `marbles draw` printed with its subscription reads as it was drawn.
        marbles = try MarbleNotation.parse(expected, frame: frame, hot: true)
    } catch {
        return "expectMarbles: the expected line \"\(expected)\": \(error)"
    }
    func frameOf(_ time: Int64) -> Int64 { time >= 0 ? time / frame : -((-time + frame - 1) / frame) }
    func matches(_ marble: MarbleNotation.Event, _ actual: (time: Int64, event: Event<Value, Failure>)) -> Bool {
        guard frameOf(marble.time) == frameOf(actual.time) else { return false }
        switch (marble.kind, actual.event) {
        case let (.value(symbol), .value(value)):
            if let expectedValue = values[symbol] { return equal(expectedValue, value) }
            return "\(value)" == symbol
        case (.error, .failed), (.complete, .completed), (.interrupted, .interrupted): return true
        default: return false
        }
    }
    if marbles.count == received.count, zip(marbles, received).allSatisfy(matches) { return nil }

    var legend = Legend(reserving: reserved.union(values.keys).union(marbles.compactMap { marble in
        if case let .value(symbol) = marble.kind { return symbol }
        return nil
    }))
    for marble in marbles {
        if case let .value(symbol) = marble.kind, let value = values[symbol] { legend.note(symbol, means: "\(value)") }
    }
    let keys = values.keys.sorted()
    var named: [(value: Value, symbol: String)] = []
    var actual: [MarbleNotation.Event] = []
    for (time, event) in received {
        let kind: MarbleNotation.Kind
        switch event {
        case let .value(value):
            if let key = keys.first(where: { equal(values[$0]!, value) }) {
                legend.note(key, means: "\(value)")
                kind = .value(key)
            } else if let known = named.first(where: { equal($0.value, value) }) {
                kind = .value(known.symbol)
            } else {
                let text = "\(value)"
                let symbol = legend.symbol(for: text, free: values[text] == nil && !reserved.contains(text))
                named.append((value, symbol))
                kind = .value(symbol)
            }
        case let .failed(error):
            legend.note("#", means: "\(error)")
            kind = .error
        case .completed: kind = .complete
        case .interrupted: kind = .interrupted
        }
        actual.append(MarbleNotation.Event(time: time, kind: kind))
    }
    var message = "marbles differ\nexpected: \(MarbleNotation.print(marbles, frame: frame))\n"
        + "  actual: \(MarbleNotation.print(actual, frame: frame))"
    if !legend.entries.isEmpty {
        message += "\n  values: " + legend.entries.map { "\($0.symbol) = \($0.text)" }.joined(separator: ", ")
    }
    return message
}

/// The one legend of a failure message: every symbol it lists means one thing.
private struct Legend {
    private(set) var entries: [(symbol: String, text: String)] = []
    private var used: Set<String>
    private var lettered: Set<String> = []
    private static let pool = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".map(String.init)

    init(reserving reserved: Set<String>) { used = reserved }

    /// Lists `symbol = text` (once), unless the symbol is its own text.
    mutating func note(_ symbol: String, means text: String) {
        guard symbol != text, !entries.contains(where: { $0.symbol == symbol }) else { return }
        entries.append((symbol, text))
    }

    /// A symbol for a value no other symbol names: its own text when that is one plain
    /// character that is `free` to mean itself, else the first letter or digit in use nowhere.
    mutating func symbol(for text: String, free: Bool) -> String {
        if free, MarbleLegend.isPlain(text), !lettered.contains(text) {
            used.insert(text)
            return text
        }
        let symbol = Self.pool.first { !used.contains($0) } ?? "*"
        used.insert(symbol)
        lettered.insert(symbol)
        note(symbol, means: text)
        return symbol
    }
}
