import Locks
import Foundation
import Signals

/// The stream type every spec stream is.
public typealias SpecProducer = SignalProducer<SpecValue, SpecFailure>

/// Evaluates spec expressions: values, lambdas, builtin functions, and operator calls on
/// streams (which build real Signals producers; see `SpecOperators`).
///
/// Construction errors (an unknown operator, a wrong argument) throw at once. Errors inside
/// lambdas happen while the streams run, inside operators that cannot fail; the first one is
/// kept and the run reports it instead of a result.
final class SpecInterpreter {
    let document: SpecDocument
    let scheduler: TestScheduler
    /// The streams by name: inputs, and derived streams once evaluated.
    var streams: [String: SpecStream] = [:]
    /// The first error raised while the streams ran.
    private(set) var runtimeError: SpecSyntaxError?
    private let lock = Lock()
    /// The `stream(name)` references being started, outermost first (see `named`).
    private var starting: [(name: String, location: SpecLocation)] = []
    /// Streams that refer to themselves (`catchError`'s `caught`), held here rather than by
    /// their own closures so that they are freed with the run.
    private var lateStreams: [SpecLateStream] = []

    init(document: SpecDocument, scheduler: TestScheduler) {
        self.document = document
        self.scheduler = scheduler
    }

    /// The longest string '+' may build (1 MiB): far more than any figure shows.
    static let longestString = 1 << 20

    /// Keeps the first runtime error.
    func fail(_ location: SpecLocation, _ message: String) {
        lock.withLock {
            if runtimeError == nil { runtimeError = SpecSyntaxError(location: location, message: message) }
        }
    }

    /// The instant of the latest restart `allowsRestart` counted, and how many it counted then.
    private var restarts: (instant: Int64, count: Int) = (0, 0)
    /// How many restarts of a `retry` or `catchError` upstream may happen at one instant. A
    /// restart that takes no scheduled action (an upstream that fails as it starts) runs
    /// inside one action, where the run's own action limits cannot see it.
    static let restartsPerInstant = 10_000

    /// Whether a `retry` or `catchError` at `location` may start its upstream again now. Past
    /// `restartsPerInstant` restarts at one instant it records a located error and says no,
    /// so the loop stops and the run ends with the error.
    func allowsRestart(by name: String, at location: SpecLocation) -> Bool {
        let now = scheduler.now
        let count: Int = lock.withLock {
            restarts = restarts.instant == now ? (now, restarts.count + 1) : (now, 1)
            return restarts.count
        }
        guard count > Self.restartsPerInstant else { return true }
        fail(location, "expected the streams to settle, but this \(name) started its input again \(Self.restartsPerInstant) "
            + "times at \(SpecResult.milliseconds(now))ms without time passing: over an input that fails as it starts, it "
            + "loops for ever")
        return false
    }

    /// A stream to be set once it is built, kept as long as this interpreter (see `lateStreams`).
    func lateStream() -> SpecLateStream {
        let late = SpecLateStream()
        lock.withLock { lateStreams.append(late) }
        return late
    }

    /// Runs `body` on the references being started, under the lock.
    func lockedStarting<Result>(_ body: (inout [(name: String, location: SpecLocation)]) -> Result) -> Result {
        lock.withLock { body(&starting) }
    }

    /// Calls a spec function at run time; an error is recorded and the result is null.
    func invoke(_ function: SpecLambda, _ arguments: [SpecValue]) -> SpecValue {
        do {
            return try apply(function, arguments)
        } catch let error as SpecSyntaxError {
            fail(error.location, error.message)
        } catch {
            fail(function.location, "\(error)")
        }
        return .null
    }

    func apply(_ function: SpecLambda, _ arguments: [SpecValue]) throws -> SpecValue {
        var scope = function.scope
        for (index, name) in function.parameters.enumerated() {
            scope[name] = index < arguments.count ? arguments[index] : .null
        }
        return try evaluate(function.body, scope: scope)
    }

    // MARK: Expressions

    func evaluate(_ expression: SpecExpression, scope: [String: SpecValue]) throws -> SpecValue {
        switch expression {
        case let .number(value, _): return .number(value)
        case let .string(value, _): return .string(value)
        case let .bool(value, _): return .bool(value)
        case .null: return .null
        case let .array(items, _): return .array(try items.map { try evaluate($0, scope: scope) })
        case let .object(pairs, _): return .object(try pairs.map { ($0.0, try evaluate($0.1, scope: scope)) })
        case let .name(name, location):
            if let value = scope[name] { return value }
            if let stream = streams[name] { return .stream(stream) }
            // flatMap's strategies, written bare as in the issue (`flatMap(latest, f)`).
            if ["latest", "merge", "concat", "race", "throttle"].contains(name) { return .string(name) }
            if SpecOperators.functions[name] != nil {
                throw SpecSyntaxError(location: location, message: "expected '(' after the function '\(name)'")
            }
            if document.derivedNames.contains(name) {
                throw SpecSyntaxError(location: location,
                                      message: "expected a stream defined above this line; '\(name)' is defined later (use stream('\(name)') inside a lambda)")
            }
            throw SpecSyntaxError(location: location, message: "expected a stream, a parameter or a function, found unknown name '\(name)'")
        case let .lambda(parameters, body, location):
            return .lambda(SpecLambda(parameters: parameters, body: body, scope: scope, location: location))
        case let .member(base, name, location):
            return try property(try evaluate(base, scope: scope), name, location)
        case let .index(base, index, location):
            let container = try evaluate(base, scope: scope)
            let key = try evaluate(index, scope: scope)
            switch (container, key) {
            case let (.array(items), .number(position)):
                let at = Int(exactly: position) ?? -1
                return at >= 0 && at < items.count ? items[at] : .null
            case let (.string(text), .number(position)):
                let at = Int(exactly: position) ?? -1
                return at >= 0 && at < text.count ? .string(String(Array(text)[at])) : .null
            case let (.object(pairs), _):
                return pairs.first { $0.key == key.text }?.value ?? .null
            default:
                throw SpecSyntaxError(location: location, message: "expected an array, string or object to index, found \(container.typeName)")
            }
        case let .call(callee, arguments, location):
            return try call(callee, arguments, location, scope: scope)
        case let .unary(op, operand, location):
            let value = try evaluate(operand, scope: scope)
            switch op {
            case "!": return .bool(!value.isTruthy)
            case "-": return .number(-(try number(value, location)))
            default: return .number(try number(value, location))
            }
        case let .binary(op, left, right, location):
            let lhs = try evaluate(left, scope: scope)
            if op == "&&" { return lhs.isTruthy ? try evaluate(right, scope: scope) : lhs }
            if op == "||" { return lhs.isTruthy ? lhs : try evaluate(right, scope: scope) }
            return try binary(op, lhs, try evaluate(right, scope: scope), location)
        case let .conditional(condition, then, otherwise, _):
            return try evaluate(condition, scope: scope).isTruthy
                ? evaluate(then, scope: scope) : evaluate(otherwise, scope: scope)
        }
    }

    /// JavaScript's `Number(x)`: numbers, booleans, null and numeric strings; streams and
    /// functions are errors (NaN would hide a mistake in a figure).
    func number(_ value: SpecValue, _ location: SpecLocation) throws -> Double {
        switch value {
        case let .number(number): return number
        case let .bool(flag): return flag ? 1 : 0
        case .null: return 0
        case let .string(text):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { return 0 }
            return Double(trimmed) ?? .nan
        case .array, .object: return .nan
        case .lambda, .stream:
            throw SpecSyntaxError(location: location, message: "expected a number, found \(value.typeName)")
        }
    }

    private func binary(_ op: String, _ lhs: SpecValue, _ rhs: SpecValue, _ location: SpecLocation) throws -> SpecValue {
        switch op {
        case "==", "===": return .bool(lhs.strictlyEquals(rhs))
        case "!=", "!==": return .bool(!lhs.strictlyEquals(rhs))
        case "+":
            switch (lhs, rhs) {
            case (.string, _), (_, .string), (.array, _), (_, .array), (.object, _), (_, .object):
                let (left, right) = (lhs.text, rhs.text)
                // A scan doubling a string would otherwise eat all memory before any error.
                let length = left.utf8.count + right.utf8.count
                guard length <= Self.longestString else {
                    throw SpecSyntaxError(location: location,
                                          message: "expected a string of at most \(Self.longestString) bytes; '+' would make \(length)")
                }
                return .string(left + right)
            default:
                return .number(try number(lhs, location) + number(rhs, location))
            }
        case "<", "<=", ">", ">=":
            if case let .string(a) = lhs, case let .string(b) = rhs {
                switch op {
                case "<": return .bool(a < b)
                case "<=": return .bool(a <= b)
                case ">": return .bool(a > b)
                default: return .bool(a >= b)
                }
            }
            let a = try number(lhs, location), b = try number(rhs, location)
            switch op {
            case "<": return .bool(a < b)
            case "<=": return .bool(a <= b)
            case ">": return .bool(a > b)
            default: return .bool(a >= b)
            }
        default:
            let a = try number(lhs, location), b = try number(rhs, location)
            switch op {
            case "-": return .number(a - b)
            case "*": return .number(a * b)
            case "/": return .number(a / b)
            default: return .number(a.truncatingRemainder(dividingBy: b))
            }
        }
    }

    private func property(_ value: SpecValue, _ name: String, _ location: SpecLocation) throws -> SpecValue {
        switch (value, name) {
        case let (.string(text), "length"): return .number(Double(text.count))
        case let (.array(items), "length"): return .number(Double(items.count))
        case let (.object(pairs), _): return pairs.first { $0.key == name }?.value ?? .null
        case (.stream, _):
            throw SpecSyntaxError(location: location, message: "expected '(' after the operator '\(name)'")
        default:
            throw SpecSyntaxError(location: location, message: "expected a property of \(value.typeName), found '\(name)'")
        }
    }

    private func call(_ callee: SpecExpression, _ arguments: [SpecArgument], _ location: SpecLocation,
                      scope: [String: SpecValue]) throws -> SpecValue {
        let evaluated = try arguments.map { argument in
            SpecCall.Argument(label: argument.label, value: try evaluate(argument.value, scope: scope),
                              location: argument.value.location)
        }
        switch callee {
        case let .member(base, name, memberLocation):
            let receiver = try evaluate(base, scope: scope)
            switch receiver {
            case let .stream(stream):
                guard let method = SpecOperators.methods[name] else {
                    throw SpecSyntaxError(location: memberLocation, message: "expected an operator, found unknown operator '\(name)'"
                                          + SpecOperators.suggestion(name, among: SpecOperators.methods.keys))
                }
                let call = SpecCall(name: name, location: memberLocation, receiver: stream.producer,
                                    arguments: evaluated, interpreter: self)
                return try method(call)
            case let .string(text) where ["toUpperCase", "toLowerCase", "trim"].contains(name):
                try SpecCall(name: name, location: memberLocation, receiver: nil, arguments: evaluated, interpreter: self)
                    .expectArguments(0)
                switch name {
                case "toUpperCase": return .string(text.uppercased())
                case "toLowerCase": return .string(text.lowercased())
                default: return .string(text.trimmingCharacters(in: .whitespaces))
                }
            default: break
            }
            throw SpecSyntaxError(location: memberLocation, message: "expected a method of \(receiver.typeName), found '\(name)'")
        case let .name(name, nameLocation) where scope[name] == nil && streams[name] == nil:
            guard let function = SpecOperators.functions[name] else {
                throw SpecSyntaxError(location: nameLocation, message: "expected a function, found unknown name '\(name)'"
                                      + SpecOperators.suggestion(name, among: SpecOperators.functions.keys))
            }
            return try function(SpecCall(name: name, location: nameLocation, receiver: nil, arguments: evaluated, interpreter: self))
        default:
            let function = try evaluate(callee, scope: scope)
            guard case let .lambda(lambda) = function else {
                throw SpecSyntaxError(location: location, message: "expected a function to call, found \(function.typeName)")
            }
            if let labelled = evaluated.first(where: { $0.label != nil }) {
                throw SpecSyntaxError(location: labelled.location, message: "expected positional arguments to a lambda")
            }
            return try apply(lambda, evaluated.map(\.value))
        }
    }
}

/// One call of an operator or function: its receiver and arguments, with helpers that read
/// them and report precise errors.
struct SpecCall {
    struct Argument {
        let label: String?
        let value: SpecValue
        let location: SpecLocation
    }

    let name: String
    let location: SpecLocation
    let receiver: SpecProducer?
    let arguments: [Argument]
    let interpreter: SpecInterpreter

    var scheduler: TestScheduler { interpreter.scheduler }

    /// The call site Signals nodes get: the spec, at the operator's line (Signals wants a
    /// static file name, so every spec shares this one and the line tells them apart).
    static let file: StaticString = "spec.marbles"
    var line: UInt { UInt(location.line) }
    var positional: [Argument] { arguments.filter { $0.label == nil } }

    /// RxJS's configuration-object form (`retry({count: 2, delay: 4})`) read as the spec's
    /// named arguments (`retry(count: 2, delay: 4)`): a call whose one argument is an object
    /// becomes a call with its entries as named arguments. A key in `unsupported` is an error
    /// with its message; any other key outside `keys` is an error naming the known ones.
    func spreadingConfiguration(_ keys: Set<String>, unsupported: [String: String] = [:]) throws -> SpecCall {
        guard arguments.count == 1, arguments[0].label == nil, case let .object(entries) = arguments[0].value else { return self }
        let location = arguments[0].location
        for entry in entries {
            if let message = unsupported[entry.key] {
                throw SpecSyntaxError(location: location, message: message)
            }
            guard keys.contains(entry.key) else {
                let known = keys.sorted().map { "'\($0)'" }.joined(separator: ", ")
                throw SpecSyntaxError(location: location, message: "expected a configuration with \(known) for '\(name)', found '\(entry.key)'")
            }
        }
        return SpecCall(name: name, location: self.location, receiver: receiver,
                        arguments: entries.map { Argument(label: $0.key, value: $0.value, location: location) },
                        interpreter: interpreter)
    }

    /// The receiver stream of a method call (function calls have none and never ask).
    var stream: SpecProducer {
        receiver ?? .empty
    }

    /// The receiver, for an operator that may start it again at once (`retry`, `catchError`):
    /// its starts count towards `SpecInterpreter.restartsPerInstant`.
    var restartableStream: SpecProducer {
        let interpreter = interpreter, location = location, name = name
        return stream.gatingStarts { interpreter.allowsRestart(by: name, at: location) }
    }

    /// Checks the number of positional arguments and the labels used.
    func expectArguments(_ range: ClosedRange<Int>, labels: Set<String> = []) throws {
        let count = positional.count
        if let unknown = arguments.first(where: { $0.label.map { !labels.contains($0) } ?? false }) {
            let known = labels.isEmpty ? "no named arguments" : "one of " + labels.sorted().map { "'\($0):'" }.joined(separator: ", ")
            throw SpecSyntaxError(location: unknown.location, message: "expected \(known) for '\(name)', found '\(unknown.label ?? ""):'")
        }
        guard range.contains(count) else {
            let where_ = count > range.upperBound ? positional[range.upperBound].location : location
            let expected = range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
            throw SpecSyntaxError(location: where_, message: "expected \(expected) argument\(range.upperBound == 1 ? "" : "s") for '\(name)', found \(count)")
        }
    }

    func expectArguments(_ count: Int, labels: Set<String> = []) throws {
        try expectArguments(count...count, labels: labels)
    }

    /// The argument labelled `label`, or else the positional one at `index`.
    func argument(_ index: Int?, _ label: String? = nil) -> Argument? {
        if let label, let named = arguments.first(where: { $0.label == label }) { return named }
        guard let index else { return nil }
        let list = positional
        return index < list.count ? list[index] : nil
    }

    private func missing(_ what: String, _ index: Int?, _ label: String?) -> SpecSyntaxError {
        let name = label.map { " '\($0)'" } ?? ""
        return SpecSyntaxError(location: location, message: "expected \(what)\(name) argument for '\(self.name)'"
                               + (index.map { " at position \($0 + 1)" } ?? ""))
    }

    func stream(_ index: Int?, _ label: String? = nil) throws -> SpecProducer {
        guard let argument = argument(index, label) else { throw missing("a stream", index, label) }
        return try Self.stream(argument.value, argument.location)
    }

    static func stream(_ value: SpecValue, _ location: SpecLocation) throws -> SpecProducer {
        switch value {
        case let .stream(stream): return stream.producer
        case let .array(items): return SpecProducer(items)
        default: throw SpecSyntaxError(location: location, message: "expected a stream, found \(value.typeName)")
        }
    }

    func number(_ index: Int?, _ label: String? = nil) throws -> Double {
        guard let argument = argument(index, label) else { throw missing("a number", index, label) }
        guard case let .number(value) = argument.value, value.isFinite else {
            throw SpecSyntaxError(location: argument.location, message: "expected a number, found \(argument.value.typeName)")
        }
        return value
    }

    /// A count: a whole number of at least `minimum`.
    func count(_ index: Int?, _ label: String? = nil, minimum: Int = 0) throws -> Int {
        let value = try number(index, label)
        guard let count = Int(exactly: value), count >= minimum else {
            let location = argument(index, label)?.location ?? self.location
            throw SpecSyntaxError(location: location, message: "expected a whole number of at least \(minimum), found \(SpecValue.format(value))")
        }
        return count
    }

    /// A duration in milliseconds (a bare number, `20ms`, `0.5s`), as seconds for Signals.
    func duration(_ index: Int?, _ label: String? = nil) throws -> TimeInterval {
        let milliseconds = try number(index, label)
        guard milliseconds >= 0 else {
            let location = argument(index, label)?.location ?? self.location
            throw SpecSyntaxError(location: location, message: "expected a duration of at least 0ms, found \(SpecValue.format(milliseconds))")
        }
        return milliseconds / 1000
    }

    func bool(_ index: Int?, _ label: String? = nil) throws -> Bool {
        guard let argument = argument(index, label) else { throw missing("a boolean", index, label) }
        guard case let .bool(value) = argument.value else {
            throw SpecSyntaxError(location: argument.location, message: "expected true or false, found \(argument.value.typeName)")
        }
        return value
    }

    /// A lambda argument, as a Swift function that evaluates it (errors recorded at run time).
    func function(_ index: Int?, _ label: String? = nil) throws -> ([SpecValue]) -> SpecValue {
        guard let argument = argument(index, label) else { throw missing("a function", index, label) }
        guard case let .lambda(lambda) = argument.value else {
            throw SpecSyntaxError(location: argument.location, message: "expected a function such as x => ..., found \(argument.value.typeName)")
        }
        let interpreter = self.interpreter
        return { interpreter.invoke(lambda, $0) }
    }

    /// A lambda that returns a stream (or an array, as `of(...)` would make it).
    func streamFunction(_ index: Int?, _ label: String? = nil) throws -> ([SpecValue]) -> SpecProducer {
        let function = try self.function(index, label)
        let location = argument(index, label)?.location ?? self.location
        let interpreter = self.interpreter
        return { arguments in
            let result = function(arguments)
            do {
                return try SpecCall.stream(result, location)
            } catch {
                interpreter.fail(location, "expected the function to return a stream, found \(result.typeName)")
                return .empty
            }
        }
    }

    /// A predicate lambda, by JavaScript truthiness.
    func predicate(_ index: Int?, _ label: String? = nil) throws -> ([SpecValue]) -> Bool {
        let function = try self.function(index, label)
        return { function($0).isTruthy }
    }
}

/// A stream referred to before it is built: set once, right after it is built, before any
/// start can read it.
final class SpecLateStream: @unchecked Sendable {  // written once before the run starts, read only while it runs
    var producer: SpecProducer?
}
