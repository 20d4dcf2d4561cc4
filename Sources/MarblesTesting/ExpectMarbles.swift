import MarbleNotation
import Foundation
import Replay
import Signals
import XCTest

/// The error a `#` in a test's input marbles sends.
public struct MarbleError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String = "error") { self.message = message }
    public var description: String { message }
}

/// The input streams of a marble test, by name, on one virtual-time scheduler.
///
/// A line with `^` is hot (one running signal that every subscriber observes from its own
/// subscription on); any other line is cold (each subscription gets the events anew,
/// relative to when it subscribed). Values are the marble characters, as strings.
public final class MarbleInputs {
    /// The virtual clock; pass it to time-based operators (`debounce(0.003, on: $0.scheduler)`).
    public let scheduler: TestScheduler
    /// How long one frame lasts, in seconds.
    public let frame: TimeInterval
    private var producers: [String: SignalProducer<String, MarbleError>] = [:]

    init(_ lines: [String: String], frame: TimeInterval, scheduler: TestScheduler) throws {
        self.scheduler = scheduler
        self.frame = frame
        let nanoseconds = Int64((frame * 1e9).rounded())
        for name in lines.keys.sorted() {
            let line = lines[name] ?? ""
            let hot = line.contains("^")
            let events = try MarbleNotation.parse(line, frame: nanoseconds, hot: hot).map { marble in
                (time: marble.time, event: Self.event(marble.kind))
            }
            if hot {
                let (signal, input) = Signal<String, MarbleError>.pipe(named: name)
                for (time, event) in events where time >= 0 {
                    scheduler.schedule(atNanoseconds: time) { input.send(event) }
                }
                producers[name] = SignalProducer(signal)
            } else {
                producers[name] = SignalProducer { observer, lifetime in
                    let start = scheduler.now
                    for (time, event) in events {
                        lifetime += scheduler.schedule(atNanoseconds: start + time) { observer.send(event) }
                    }
                }
                .named(name)
            }
        }
    }

    private static func event(_ kind: MarbleNotation.Kind) -> Event<String, MarbleError> {
        switch kind {
        case let .value(symbol): return .value(symbol)
        case .error: return .failed(MarbleError())
        case .complete: return .completed
        }
    }

    /// The input with this name; a name not given to `expectMarbles` never sends anything
    /// (and the test fails, naming it).
    public subscript(name: String) -> SignalProducer<String, MarbleError> {
        if let producer = producers[name] { return producer }
        missing.append(name)
        return .never
    }

    var missing: [String] = []
}

/// Runs `build` over marble inputs in virtual time and checks its output against a marble
/// line; on a mismatch the failure shows both lines aligned, with a legend for values longer
/// than one character.
///
/// ```swift
/// try expectMarbles(inputs: ["e1": "--a--b--|"], { $0["e1"].map { $0.uppercased() } }, "--A--B--|")
/// ```
///
/// - Parameters:
///   - inputs: marble lines by name (see `MarbleInputs` for hot and cold).
///   - frame: one frame, in seconds (1 ms by default, as in RxJS run mode).
///   - build: makes the stream under test; it is started at frame 0.
///   - expected: the expected marble line (values by their `String(describing:)`, one character each).
/// - Throws: `MarbleSyntaxError` for a malformed input or expected line.
public func expectMarbles<Value, Failure: Error>(
    inputs: [String: String],
    frame: TimeInterval = 0.001,
    _ build: (MarbleInputs) -> SignalProducer<Value, Failure>,
    _ expected: String,
    file: StaticString = #filePath, line: UInt = #line
) throws {
    let scheduler = TestScheduler()
    let marbleInputs = try MarbleInputs(inputs, frame: frame, scheduler: scheduler)
    let nanoseconds = Int64((frame * 1e9).rounded())
    var received: [(time: Int64, event: Event<Value, Failure>)] = []
    let disposable = build(marbleInputs).start { event in received.append((scheduler.now, event)) }
    scheduler.run()
    disposable.dispose()
    if !marbleInputs.missing.isEmpty {
        XCTFail("expectMarbles: no input named " + marbleInputs.missing.map { "'\($0)'" }.joined(separator: ", "),
                file: file, line: line)
        return
    }
    if let message = try marbleMismatch(expected: expected, frame: nanoseconds, received: received) {
        XCTFail(message, file: file, line: line)
    }
}

/// The failure message of `expectMarbles`: expected and actual lines aligned, with a legend
/// for values longer than one character; nil when they match.
func marbleMismatch<Value, Failure: Error>(expected: String, frame nanoseconds: Int64,
                                           received: [(time: Int64, event: Event<Value, Failure>)]) throws -> String? {
    let expectedLine = MarbleNotation.print(try MarbleNotation.parse(expected, frame: nanoseconds), frame: nanoseconds)
    let legend = MarbleLegend(received.compactMap { $0.event.value.map { "\($0)" } })
    let events = received.compactMap { time, event -> MarbleNotation.Event? in
        switch event {
        case let .value(value): return .init(time: time, kind: .value(legend.symbol(for: "\(value)")))
        case .failed: return .init(time: time, kind: .error)
        case .completed: return .init(time: time, kind: .complete)
        case .interrupted: return nil
        }
    }
    let actualLine = MarbleNotation.print(events, frame: nanoseconds)
    guard actualLine != expectedLine else { return nil }
    var message = "marbles differ\nexpected: \(expectedLine)\n  actual: \(actualLine)"
    if !legend.entries.isEmpty {
        message += "\n  values: " + legend.entries.map { "\($0.symbol) = \($0.text)" }.joined(separator: ", ")
    }
    return message
}

/// As `expectMarbles(inputs:frame:_:_:)`, for a stream under test that is a `Signal` (it is
/// observed from frame 0).
public func expectMarbles<Value, Failure: Error>(
    inputs: [String: String],
    frame: TimeInterval = 0.001,
    _ build: (MarbleInputs) -> Signal<Value, Failure>,
    _ expected: String,
    file: StaticString = #filePath, line: UInt = #line
) throws {
    try expectMarbles(inputs: inputs, frame: frame, { SignalProducer(build($0)) }, expected, file: file, line: line)
}
