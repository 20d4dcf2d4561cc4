import Foundation
import Locks
import MarbleNotation
import Signals

/// The error a `#` sends where no other error is given.
///
/// ```swift
/// let environment = try VirtualEnvironment(inputs: [:], calls: ["search": "--#"])
/// environment.call("search") { SignalProducer<String, MarbleError>(value: "unused") }
///     .startWithFailed { print("failed:", $0) }   // "failed: error", at frame 2
/// environment.scheduler.run()
/// ```
public struct MarbleError: Error, Equatable, Codable, CustomStringConvertible {
    /// What the error says (`error` by default).
    public let message: String
    /// An error saying `message`.
    public init(_ message: String = "error") { self.message = message }
    public var description: String { message }
}

/// The world of a test in virtual time: the one `Environment` every test, `expectMarbles` and
/// the benchmark run pipelines in.
///
/// It makes the nodes a `LiveEnvironment` makes (an input is a source `input`, a call a
/// source `call`), minus the threads and the clock:
/// - **inputs** are hot signals. One given a marble line sends the line's events at their
///   times; any input also takes values from ``send(_:to:)`` (what a script does) and ends
///   with ``completeInputs()``;
/// - **schedulers** are lanes of one ``scheduler``, named as asked (`main`, `network`);
/// - **calls** are answered, on each start, by the call's marble line when one is given (a
///   cold stream from that start), else by a closure given to ``answer(_:with:)``, else by
///   the pipeline's own `perform` (a fake service, running on the virtual clock).
///
/// Marble lines follow `MarbleNotation`. A value symbol takes its value from `values` when
/// that has one of the stream's type, else stands for itself (`String`, `Character`, `Int`…);
/// `#` sends the stream's entry in `errors`, else `MarbleError()` where the stream's error
/// type is `MarbleError`. What cannot be given a value is a ``problems`` entry, which
/// `expectMarbles` reports as a failure.
///
/// ```swift
/// struct SearchError: Error, Codable {}
/// func search(in environment: Environment) -> SignalProducer<[String], SearchError> {
///     SignalProducer(environment.input("query", of: String.self))
///         .flatMap(.latest) { text in
///             environment.call("search", request: text) { SignalProducer<[String], SearchError>(value: []) }
///         }
/// }
/// let environment = try VirtualEnvironment(inputs: ["query": "-a--b-"], calls: ["search": "--r|"],
///                                          values: ["a": "swift", "b": "swim", "r": ["Swift"]])
/// search(in: environment).startWithValues { print(environment.scheduler.now, $0) }
/// environment.scheduler.run()   // prints the results at 3 ms and 6 ms (virtual nanoseconds)
/// ```
public final class VirtualEnvironment: Environment, @unchecked Sendable {
    // @unchecked: the mutable state below is only touched under `lock`.
    /// The virtual clock every lane, input and call runs on.
    public let scheduler: TestScheduler
    /// How long one frame of the marble lines lasts, in nanoseconds.
    public let frame: Int64
    private let lock = Lock()
    private let lines: [String: Line]
    private let callLines: [String: Line]
    private let values: [String: Any]
    private let errors: [String: any Error]
    private var inputs: [String: AnyObject] = [:]
    private var inputEnds: [String: () -> Void] = [:]
    /// The value type of each input, as Swift writes it, and the inputs completed.
    private var inputTypes: [String: String] = [:]
    private var completedInputs: Set<String> = []
    private var streams: [String: Any] = [:]
    private var answers: [String: Answer] = [:]
    private var starts: [String: Int] = [:]
    private var loggedCalls: [String] = []
    private var loggedProblems: [String] = []

    private struct Line {
        let text: String
        let hot: Bool
        let events: [MarbleNotation.Event]
    }

    /// An environment with no marble lines: inputs take what is sent, calls run `perform`.
    public init(scheduler: TestScheduler = TestScheduler()) {
        self.scheduler = scheduler
        frame = MarbleNotation.millisecond
        lines = [:]
        callLines = [:]
        values = [:]
        errors = [:]
    }

    /// An environment whose inputs and calls play marble lines.
    ///
    /// - Parameters:
    ///   - scheduler: the virtual clock.
    ///   - frame: one frame of the lines, in seconds (1 ms, as in RxJS run mode).
    ///   - inputs: marble lines by input name. As an ``input(_:of:file:line:)`` a line is hot
    ///     (frame 0 is the start of the run, or the line's `^`); as a named stream
    ///     (``stream(_:of:file:line:)``, `environment["name"]`) a line with `^` is hot and any
    ///     other is cold (each start gets the events anew, from its own start).
    ///   - calls: marble lines by call label, each start of the call playing its line anew.
    ///   - values: what value symbols stand for, shared by every line.
    ///   - errors: what `#` sends, by input name or call label.
    /// - Throws: `MarbleSyntaxError` for a malformed line (its message names the line).
    public init(scheduler: TestScheduler = TestScheduler(), frame: TimeInterval = 0.001,
                inputs: [String: String], calls: [String: String] = [:],
                values: [String: Any] = [:], errors: [String: any Error] = [:]) throws {
        self.scheduler = scheduler
        let nanoseconds = Int64((frame * 1e9).rounded())
        self.frame = nanoseconds
        func parse(_ lines: [String: String], kind: String) throws -> [String: Line] {
            try lines.reduce(into: [:]) { result, entry in
                let hot = entry.value.contains("^")
                do {
                    let events = try MarbleNotation.parse(entry.value, frame: nanoseconds, hot: hot)
                    result[entry.key] = Line(text: entry.value, hot: hot, events: events)
                } catch let error as MarbleSyntaxError {
                    throw MarbleSyntaxError(line: error.line, column: error.column,
                                            message: "\(kind) '\(entry.key)': \(error.message)")
                }
            }
        }
        lines = try parse(inputs, kind: "input")
        callLines = try parse(calls, kind: "call")
        self.values = values
        self.errors = errors
    }

    /// Every call started, by label, in the order they started.
    public var calls: [String] { lock.withLock { loggedCalls } }

    /// What could not be done as asked: a symbol with no value of its stream's type, a `#` with
    /// no error, a stream asked for by a name no line has, an answer of the wrong type.
    public var problems: [String] { lock.withLock { loggedProblems } }

    /// The names of input lines nothing has asked for yet, neither as an input nor as a named
    /// stream (a misspelt name leaves its line unplayed), in name order.
    public var unusedInputs: [String] {
        lock.withLock { lines.keys.filter { inputs[$0] == nil && streams[$0] == nil }.sorted() }
    }

    private func problem(_ message: String) {
        lock.withLock { loggedProblems.append(message) }
    }

    // MARK: Environment

    public func input<Value: Codable>(_ label: String, of type: Value.Type, file: StaticString, line: UInt) -> Signal<Value, Never> {
        if let existing = lock.withLock({ inputs[label] }) {
            if let hot = existing as? HotMarbles<Value, Never> { return hot.signal }
            problem("input '\(label)' asked for as \(Value.self), but it was made with another type")
            return Signal<Value, Never>.pipe(node: .input(label, file: file, line: line)).output
        }
        let timeline = self.timeline(of: lines[label], name: "input '\(label)'", as: Value.self, error: nil as Never?)
        let hot = scheduler.hot(timeline.filter { $0.time >= scheduler.now }, node: .input(label, file: file, line: line))
        lock.withLock {
            inputs[label] = hot
            inputTypes[label] = "\(Value.self)"
            inputEnds[label] = { hot.input.sendCompleted() }
        }
        hot.scheduleEvents()
        return hot.signal
    }

    public func scheduler(_ name: String) -> DateScheduler { scheduler.lane(name) }

    public func call<Value: Codable, Failure: Swift.Error & Codable>(
        _ label: String, file: StaticString, line: UInt,
        _ perform: @escaping () -> SignalProducer<Value, Failure>
    ) -> SignalProducer<Value, Failure> {
        call(label, request: nil, file: file, line: line, perform)
    }

    /// A call carrying a request: answered as any call (the request is recorded, not used to
    /// choose the answer).
    public func call<Request: Codable & Equatable, Value: Codable, Failure: Swift.Error & Codable>(
        _ label: String, request: Request, file: StaticString, line: UInt,
        _ perform: @escaping () -> SignalProducer<Value, Failure>
    ) -> SignalProducer<Value, Failure> {
        call(label, request: request as (any Encodable)?, file: file, line: line, perform)
    }

    /// A timer ticking on the virtual clock (on ``scheduler``'s lane `scheduler.name`).
    public func timer(_ label: String, after delay: TimeInterval, repeating interval: TimeInterval?,
                      on scheduler: DateScheduler, file: StaticString, line: UInt) -> SignalProducer<Date, Never> {
        .timer(node: .timer(label, after: delay, repeating: interval, file: file, line: line), after: delay,
               repeating: interval, on: scheduler)
    }

    private func call<Value: Codable, Failure: Swift.Error & Codable>(
        _ label: String, request: (any Encodable)?, file: StaticString, line: UInt,
        _ perform: @escaping () -> SignalProducer<Value, Failure>
    ) -> SignalProducer<Value, Failure> {
        .environmentCall(label, request: request, file: file, line: line) { [self] in
            let attempt: Int = lock.withLock {
                loggedCalls.append(label)
                defer { starts[label, default: 0] += 1 }
                return starts[label, default: 0]
            }
            if let marbles = callLines[label] {
                let timeline = self.timeline(of: marbles, name: "call '\(label)'", as: Value.self,
                                             error: errors[label] as? Failure ?? MarbleError() as? Failure)
                let node = Node.make(.source, "cold", parameters: marbles.text, file: file, line: line)
                return scheduler.cold(timeline, node: node).producer
            }
            if let answer = lock.withLock({ answers[label] }) {
                guard let result = answer.run(request, attempt) else {
                    let carried = request.map { "a request of \(type(of: $0))" } ?? "no request"
                    problem("call '\(label)' carries \(carried), but its answer takes a request of \(answer.request ?? "no type")")
                    return .never
                }
                guard let producer = result as? SignalProducer<Value, Failure> else {
                    problem("call '\(label)' is of \(Value.self) and \(Failure.self), but its answer is \(type(of: result))")
                    return .never
                }
                return producer
            }
            return perform()
        }
    }

    // MARK: Driving the environment

    /// Answers every start of the call `label` with `answer(attempt)` (0 for the first start,
    /// 1 for the next…) instead of the pipeline's own service; a marble line given for the
    /// call still comes first.
    public func answer<Value, Failure: Swift.Error>(_ label: String,
                                                    with answer: @escaping (_ attempt: Int) -> SignalProducer<Value, Failure>) {
        lock.withLock { answers[label] = Answer(request: nil) { _, attempt in answer(attempt) } }
    }

    /// Answers every start of the call `label`, which carries a request
    /// (`environment.call("search", request: text) { … }`), with `answer(request, attempt)`:
    /// a fake service that answers by what is asked. A call without a request of this type is
    /// a ``problems`` entry.
    public func answer<Request, Value, Failure: Swift.Error>(
        _ label: String, with answer: @escaping (_ request: Request, _ attempt: Int) -> SignalProducer<Value, Failure>
    ) {
        lock.withLock {
            answers[label] = Answer(request: "\(Request.self)") { request, attempt in
                (request as? Request).map { answer($0, attempt) }
            }
        }
    }

    /// A test's answer to a call, its types checked when a call starts: `run` gives the
    /// producer, or nil when the call does not carry the request the answer takes.
    private struct Answer {
        let request: String?
        let run: (_ request: Any?, _ attempt: Int) -> Any?
    }

    /// Sends a value into the input `label` (what a user typing or tapping does).
    ///
    /// - Throws: `InputError` when no input has that label, when it takes values of another
    ///   type, or when it was completed.
    public func send<Value: Codable>(_ value: Value, to label: String) throws {
        let hot: HotMarbles<Value, Never> = try lock.withLock {
            guard let input = inputs[label] else {
                throw InputError(label: label, reason: .unknownLabel(inputs: inputs.keys.sorted()))
            }
            guard let hot = input as? HotMarbles<Value, Never> else {
                throw InputError(label: label, reason: .wrongType(expected: inputTypes[label] ?? "another type",
                                                                  sent: "\(Value.self)"))
            }
            guard !completedInputs.contains(label) else { throw InputError(label: label, reason: .completed) }
            return hot
        }
        hot.input.send(value: value)
    }

    /// Completes the input `label` alone; the others stay open.
    ///
    /// - Throws: `InputError` when no input has that label.
    public func complete(_ label: String) throws {
        let end: () -> Void = try lock.withLock {
            guard let end = inputEnds[label] else {
                throw InputError(label: label, reason: .unknownLabel(inputs: inputs.keys.sorted()))
            }
            completedInputs.insert(label)
            return end
        }
        end()
    }

    /// Completes every input, in the order of their names (the user leaves the screen).
    public func completeInputs() {
        let ends = lock.withLock {
            completedInputs.formUnion(inputEnds.keys)
            return inputEnds.keys.sorted().compactMap { inputEnds[$0] }
        }
        ends.forEach { $0() }
    }

    // MARK: Named streams

    /// The marble line `name` as a stream of `Value`s: hot when the line has a `^` (one
    /// running signal, every start observing it from then on), cold otherwise. A name no line
    /// has never sends anything and is a ``problems`` entry.
    public func stream<Value>(_ name: String, of type: Value.Type = Value.self,
                              file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, MarbleError> {
        if let made = lock.withLock({ streams[name] }) {
            if let producer = made as? SignalProducer<Value, MarbleError> { return producer }
            problem("stream '\(name)' asked for as \(Value.self), but it was made with another type")
            return .never
        }
        guard let marbles = lines[name] else {
            problem("no input named '\(name)'")
            return .never
        }
        let timeline = self.timeline(of: marbles, name: "input '\(name)'", as: Value.self,
                                     error: errors[name] as? MarbleError ?? MarbleError())
        let producer: SignalProducer<Value, MarbleError>
        if marbles.hot {
            let pipe = Node.make(.source, "pipe", label: name, file: file, line: line)
            let hot = scheduler.hot(timeline, node: pipe)
            hot.scheduleEvents()
            producer = hot.producer(node: Node.make(.source, "hot", parameters: marbles.text, file: file, line: line)).named(name)
        } else {
            producer = scheduler.cold(timeline, node: Node.make(.source, "cold", parameters: marbles.text, file: file, line: line))
                .producer.named(name)
        }
        lock.withLock { streams[name] = producer }
        return producer
    }

    /// The marble line `name` as a stream of strings (see ``stream(_:of:file:line:)``).
    public subscript(name: String, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<String, MarbleError> {
        stream(name, of: String.self, file: file, line: line)
    }

    /// A line's events with this environment's values; a problem (and no events) when a
    /// symbol has no value of the stream's type or a `#` no error.
    private func timeline<Value, Failure>(of marbles: Line?, name: String, as type: Value.Type,
                                          error: Failure?) -> MarbleTimeline<Value, Failure> {
        guard let marbles else { return [] }
        let values = self.values
        let symbols = MarbleSymbols<Value, Failure>(error: error) { symbol in
            if let value = values[symbol] { return value as? Value }
            return MarbleSymbols<Value, Failure>.standing(for: symbol)
        }
        do {
            return try symbols.timeline(marbles.events)
        } catch {
            problem("\(name): \(error)")
            return []
        }
    }
}
