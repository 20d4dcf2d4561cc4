import Locks
import Foundation

/// Where the outside world enters a pipeline: the boundaries of nondeterminism.
///
/// A pipeline written against an `Environment` takes its inputs (text typed, buttons
/// tapped), its schedulers, its asynchronous calls (a network request) and its timers from
/// it. Run live, they are real pipes, queues, services and clocks; replayed, the same code
/// gets virtual-time stand-ins that re-emit what a trace recorded. Pure operator work in
/// between is re-run, not re-read.
///
/// ```swift
/// struct WeatherError: Error, Codable {}   // a call's error type must be Codable
/// func thermostat(in environment: Environment) -> SignalProducer<String, WeatherError> {
///     let main = environment.scheduler("main")
///     let target = environment.input("target", of: Double.self)       // values sent from outside
///     return environment.timer("sensor", every: 1, on: main)          // a tick every second
///         .flatMap(.latest) { _ in
///             environment.call("reading") { SignalProducer<Double, WeatherError>(value: 19.5) }
///         }
///         .combineLatest(with: SignalProducer(target).promoteError(WeatherError.self))
///         .map { reading, target in reading < target ? "heat" : "idle" }
/// }
/// ```
public protocol Environment: AnyObject, Sendable {
    /// A stream of values from outside, found in traces by its label.
    func input<Value: Codable>(_ label: String, of type: Value.Type, file: StaticString, line: UInt) -> Signal<Value, Never>

    /// A scheduler by name (`main`, `background`): the thread its actions show on.
    func scheduler(_ name: String) -> DateScheduler

    /// An asynchronous call across the boundary, found in traces by its label. Each start is
    /// one call; live, `perform` does the work; replayed, a recorded start's result comes back
    /// after its recorded latency and `perform` is not called. Starts are paired with the
    /// recorded ones in order.
    func call<Value: Codable, Failure: Swift.Error & Codable>(
        _ label: String, file: StaticString, line: UInt,
        _ perform: @escaping () -> SignalProducer<Value, Failure>
    ) -> SignalProducer<Value, Failure>

    /// An asynchronous call across the boundary that carries `request`: what it asks for (a
    /// search text, a photo id). Live, the request is recorded with each start; replayed,
    /// each start gets the result of the next unused recorded start with the same label and
    /// an equal request, never another request's result.
    func call<Request: Codable & Equatable, Value: Codable, Failure: Swift.Error & Codable>(
        _ label: String, request: Request, file: StaticString, line: UInt,
        _ perform: @escaping () -> SignalProducer<Value, Failure>
    ) -> SignalProducer<Value, Failure>

    /// A timer across the boundary, found in traces by its label: each start sends the date
    /// `delay` seconds after it starts, then every `interval` seconds until interrupted, or
    /// completes after the first tick when `interval` is nil. Live, it ticks on `scheduler`
    /// and sends its date; replayed, each start re-sends the recorded ticks (their dates) at
    /// their recorded times, so a pipeline sampled by it sees what it saw live.
    func timer(_ label: String, after delay: TimeInterval, repeating interval: TimeInterval?,
               on scheduler: DateScheduler, file: StaticString, line: UInt) -> SignalProducer<Date, Never>
}

extension Environment {
    /// A stream of values from outside, found in traces by its label.
    public func input<Value: Codable>(_ label: String, of type: Value.Type = Value.self,
                                      file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, Never> {
        input(label, of: type, file: file, line: line)
    }

    /// An asynchronous call across the boundary, found in traces by its label.
    public func call<Value: Codable, Failure: Swift.Error & Codable>(
        _ label: String, file: StaticString = #fileID, line: UInt = #line,
        _ perform: @escaping () -> SignalProducer<Value, Failure>
    ) -> SignalProducer<Value, Failure> {
        call(label, file: file, line: line, perform)
    }

    /// An asynchronous call across the boundary carrying `request`, found in traces by its
    /// label and matched by its request: `environment.call("search", request: text) { … }`.
    public func call<Request: Codable & Equatable, Value: Codable, Failure: Swift.Error & Codable>(
        _ label: String, request: Request, file: StaticString = #fileID, line: UInt = #line,
        _ perform: @escaping () -> SignalProducer<Value, Failure>
    ) -> SignalProducer<Value, Failure> {
        call(label, request: request, file: file, line: line, perform)
    }

    /// A periodic timer across the boundary: the date every `interval` seconds, the first one
    /// `interval` after the start, until interrupted.
    public func timer(_ label: String, every interval: TimeInterval, on scheduler: DateScheduler,
                      file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Date, Never> {
        timer(label, after: interval, repeating: interval, on: scheduler, file: file, line: line)
    }

    /// A one-shot timer across the boundary: the date `delay` seconds after the start, then
    /// completion.
    public func timer(_ label: String, after delay: TimeInterval, on scheduler: DateScheduler,
                      file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Date, Never> {
        timer(label, after: delay, repeating: nil, on: scheduler, file: file, line: line)
    }
}

extension Node {
    /// The node of an environment input: a source named `input`, labelled.
    public static func input(_ label: String, file: StaticString, line: UInt) -> Node {
        make(.source, "input", parameters: label, label: label, file: file, line: line)
    }

    /// The node of an environment call: a source named `call`, labelled; each call is one
    /// subscription of it.
    public static func call(_ label: String, file: StaticString, line: UInt) -> Node {
        make(.source, "call", parameters: label, label: label, file: file, line: line)
    }

    /// The node of an environment timer: a source named `timer`, labelled; each start is one
    /// subscription of it, each tick one value. Its timing is a parameter (`sensor, after:
    /// 0.5s, every: 0.5s`), so a changed interval is a changed node in a diff, not an
    /// invisible change; a node made without it has the label alone, as traces before had.
    public static func timer(_ label: String, after delay: TimeInterval? = nil, repeating interval: TimeInterval? = nil,
                             file: StaticString, line: UInt) -> Node {
        var parameters = label
        if let delay { parameters += ", after: " + formatInterval(delay) }
        if let interval { parameters += ", every: " + formatInterval(interval) }
        return make(.source, "timer", parameters: parameters, label: label, file: file, line: line)
    }
}

extension SignalProducer where Value == Date, Error == Never {
    /// A timer as a node of its own: each start sends `scheduler`'s date `delay` seconds after
    /// it starts, then every `interval` seconds until interrupted, or completes after the first
    /// tick when `interval` is nil. What an environment's `timer` runs live.
    public static func timer(node: Node, after delay: TimeInterval, repeating interval: TimeInterval?,
                             on scheduler: DateScheduler) -> SignalProducer<Date, Never> {
        SignalProducer(node: node) { observer, lifetime in
            let first = scheduler.currentDate.addingTimeInterval(delay)
            if let interval {
                // Whole nanoseconds, at least one, at most what a DispatchTimeInterval holds.
                let period = DispatchTimeInterval.nanoseconds(Int(min(max(interval, 1e-9), 9e9) * 1e9))
                lifetime += scheduler.schedule(after: first, interval: period, leeway: .nanoseconds(0)) {
                    observer.send(value: scheduler.currentDate)
                }
            } else {
                lifetime += scheduler.schedule(after: first) {
                    observer.send(value: scheduler.currentDate)
                    observer.sendCompleted()
                }
            }
        }
    }
}

extension SignalProducer {
    /// An environment call that runs `perform` on each start, as one subscription of the node
    /// `call(label)` observing the service without a sink of its own: what a live call is, so
    /// every environment that runs the service (live, or the tests' virtual one) records the
    /// same nodes. A `request` is reported with each start (and recorded).
    ///
    /// The call's events carry, after the cause that delivered them (the service's event), the
    /// event that started the call (the request) as a further cause, whichever thread the
    /// service answers on: a service answering from a dispatch queue of its own carries no
    /// cause across, and its answer would otherwise be cut off from the input that asked
    /// (end-to-end latency from the input, the data age of what a sink shows). Its
    /// interruption carries it too: a call interrupted before it answered still names the
    /// value that asked.
    package static func environmentCall(
        _ label: String, request: (any Encodable)? = nil, file: StaticString, line: UInt,
        _ perform: @escaping () -> SignalProducer
    ) -> SignalProducer {
        SignalProducer(node: .call(label, file: file, line: line), request: request, causedByStart: true, handlerWhenMade: {
            { observer, lifetime in
                perform().startWithSignal { signal, interrupter in
                    signal.observeInternally(observer.send)
                    lifetime += interrupter
                }
            }
        })
    }
}

/// The real world: inputs are pipes a script sends into, schedulers are dispatch queues
/// (`main` is the main queue), calls run the real (or simulated) service.
///
/// ```swift
/// let live = LiveEnvironment()
/// let doubled = live.input("count", of: Int.self).map { $0 * 2 }
/// doubled.observeValues { print($0) }
/// try live.send(3, to: "count")   // prints 6
/// live.completeInputs()           // or live.complete("count"), one input
/// ```
public final class LiveEnvironment: Environment, @unchecked Sendable {  // mutable state only under `lock`
    private let lock = Lock()
    private var inputs: [String: AnyInput] = [:]
    private var schedulers: [String: QueueScheduler] = [:]

    public init() {}

    public func input<Value: Codable>(_ label: String, of type: Value.Type, file: StaticString, line: UInt) -> Signal<Value, Never> {
        lock.withLock {
            if let existing = inputs[label] as? Pipe<Value> { return existing.signal }
            var observer: Signals.Observer<Value, Never>!
            let signal = Signal<Value, Never>(node: .input(label, file: file, line: line)) { input, _ in
                observer = input
            }
            inputs[label] = Pipe(signal: signal, observer: observer)
            return signal
        }
    }

    /// Sends a value into the input `label` (what a user typing or tapping does).
    ///
    /// - Throws: `InputError` when no input has that label, when it takes values of another
    ///   type, or when it was completed: a value sent there would reach nothing.
    public func send<Value: Codable>(_ value: Value, to label: String) throws {
        let pipe: Pipe<Value> = try lock.withLock {
            guard let input = inputs[label] else {
                throw InputError(label: label, reason: .unknownLabel(inputs: inputs.keys.sorted()))
            }
            guard let pipe = input as? Pipe<Value> else {
                throw InputError(label: label, reason: .wrongType(expected: input.valueType, sent: "\(Value.self)"))
            }
            guard !pipe.completed else { throw InputError(label: label, reason: .completed) }
            return pipe
        }
        pipe.observer.send(value: value)
    }

    /// Completes the input `label` alone (the user leaves one field); the others stay open.
    ///
    /// - Throws: `InputError` when no input has that label.
    public func complete(_ label: String) throws {
        let input: AnyInput = try lock.withLock {
            guard let input = inputs[label] else {
                throw InputError(label: label, reason: .unknownLabel(inputs: inputs.keys.sorted()))
            }
            input.markCompleted()
            return input
        }
        input.complete()
    }

    /// Completes every input (the user leaves the screen).
    public func completeInputs() {
        let pipes = lock.withLock {
            let pipes = inputs.keys.sorted().compactMap { inputs[$0] }
            pipes.forEach { $0.markCompleted() }
            return pipes
        }
        pipes.forEach { $0.complete() }
    }

    public func scheduler(_ name: String) -> DateScheduler {
        if name == "main" { return QueueScheduler.main }
        return lock.withLock {
            if let existing = schedulers[name] { return existing }
            let scheduler = QueueScheduler(qos: .utility, name: name)
            schedulers[name] = scheduler
            return scheduler
        }
    }

    public func call<Value: Codable, Failure: Swift.Error & Codable>(
        _ label: String, file: StaticString, line: UInt,
        _ perform: @escaping () -> SignalProducer<Value, Failure>
    ) -> SignalProducer<Value, Failure> {
        .environmentCall(label, file: file, line: line, perform)
    }

    public func call<Request: Codable & Equatable, Value: Codable, Failure: Swift.Error & Codable>(
        _ label: String, request: Request, file: StaticString, line: UInt,
        _ perform: @escaping () -> SignalProducer<Value, Failure>
    ) -> SignalProducer<Value, Failure> {
        .environmentCall(label, request: request, file: file, line: line, perform)
    }

    public func timer(_ label: String, after delay: TimeInterval, repeating interval: TimeInterval?,
                      on scheduler: DateScheduler, file: StaticString, line: UInt) -> SignalProducer<Date, Never> {
        .timer(node: .timer(label, after: delay, repeating: interval, file: file, line: line), after: delay,
               repeating: interval, on: scheduler)
    }

    private final class Pipe<Value>: AnyInput, @unchecked Sendable {  // `completed` only under the environment's lock
        let signal: Signal<Value, Never>
        let observer: Signals.Observer<Value, Never>
        /// Set (under the environment's lock) once the input was completed.
        var completed = false
        init(signal: Signal<Value, Never>, observer: Signals.Observer<Value, Never>) {
            self.signal = signal
            self.observer = observer
        }
        var valueType: String { "\(Value.self)" }
        func markCompleted() { completed = true }
        func complete() { observer.sendCompleted() }
    }
}

/// An input of a `LiveEnvironment`, whatever its value type.
private protocol AnyInput: AnyObject {
    /// The type of the values it takes, as Swift writes it.
    var valueType: String { get }
    /// Notes that it is completed (under the environment's lock), before `complete()`.
    func markCompleted()
    func complete()
}

/// Why a value sent into an environment's input (`LiveEnvironment.send(_:to:)`, a virtual
/// environment's) did not reach it: the send is refused, never dropped without a word.
///
/// ```swift
/// let live = LiveEnvironment()
/// _ = live.input("query", of: String.self)
/// do {
///     try live.send(42, to: "query")
/// } catch let error as InputError {
///     print(error)   // the input "query" takes String, not Int
/// }
/// ```
public struct InputError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was wrong with the send: the label, the value's type, or the input's state.
    ///
    /// ```swift
    /// let live = LiveEnvironment()
    /// do {
    ///     try live.send("a", to: "qeury")
    /// } catch let error as InputError {
    ///     if case let .unknownLabel(inputs) = error.reason { print("known inputs:", inputs) }
    /// }
    /// ```
    public enum Reason: Equatable, Sendable {
        /// No input has the label; `inputs` are the labels of those there are.
        case unknownLabel(inputs: [String])
        /// The input takes values of the type `expected`, not `sent`.
        case wrongType(expected: String, sent: String)
        /// The input was completed: nothing observes a value sent after.
        case completed
    }

    /// The label the value was sent to.
    public let label: String
    /// Why the send was refused.
    public let reason: Reason

    public init(label: String, reason: Reason) {
        self.label = label
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case let .unknownLabel(inputs):
            let known = inputs.isEmpty ? "there is no input yet (inputs are made by the pipeline, before a send)"
                : "the inputs are " + inputs.map { "\"\($0)\"" }.joined(separator: ", ")
            return "no input is labelled \"\(label)\": \(known)"
        case let .wrongType(expected, sent):
            return "the input \"\(label)\" takes \(expected), not \(sent)"
        case .completed:
            return "the input \"\(label)\" was completed: nothing receives a value sent to it now"
        }
    }
}
