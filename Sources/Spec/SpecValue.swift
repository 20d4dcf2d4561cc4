import Signals

/// A value in a `.marbles` spec: JSON-like data, plus the lambdas and streams expressions make.
///
/// Stream events carry these values; an error event carries a `SpecFailure` wrapping one.
public indirect enum SpecValue: Sendable {
    case number(Double)
    case string(String)
    case bool(Bool)
    case null
    case array([SpecValue])
    /// Keys in their written order (printing keeps it, so output is stable).
    case object([(key: String, value: SpecValue)])
    case lambda(SpecLambda)
    case stream(SpecStream)

    /// The JavaScript-style type name, for error messages.
    public var typeName: String {
        switch self {
        case .number: return "number"
        case .string: return "string"
        case .bool: return "boolean"
        case .null: return "null"
        case .array: return "array"
        case .object: return "object"
        case .lambda: return "function"
        case .stream: return "stream"
        }
    }

    /// JavaScript truthiness: false, 0, NaN, "" and null are false.
    public var isTruthy: Bool {
        switch self {
        case let .number(value): return value != 0 && !value.isNaN
        case let .string(value): return !value.isEmpty
        case let .bool(value): return value
        case .null: return false
        case .array, .object, .lambda, .stream: return true
        }
    }

    /// The value as JavaScript's `String(x)` would show it (objects and arrays as JSON).
    public var text: String {
        switch self {
        case let .string(value): return value
        case .number, .bool, .null: return json
        case let .array(items): return items.map { $0.isNull ? "" : $0.text }.joined(separator: ",")
        case .object: return json
        case .lambda: return "<function>"
        case .stream: return "<stream>"
        }
    }

    /// A short display form for figures: strings bare, everything else as JSON.
    public var display: String {
        if case let .string(value) = self { return value }
        return json
    }

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value as compact JSON (functions and streams, which JSON cannot hold, as strings).
    public var json: String {
        switch self {
        case let .number(value): return Self.format(value)
        case let .string(value): return Self.quote(value)
        case let .bool(value): return value ? "true" : "false"
        case .null: return "null"
        case let .array(items): return "[" + items.map(\.json).joined(separator: ",") + "]"
        case let .object(pairs):
            return "{" + pairs.map { Self.quote($0.key) + ":" + $0.value.json }.joined(separator: ",") + "}"
        case .lambda: return Self.quote("<function>")
        case .stream: return Self.quote("<stream>")
        }
    }

    /// Numbers print as integers when they are whole, else in Swift's shortest round-trip
    /// form; both are stable across runs and platforms.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "null" }
        if value.isInfinite { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func quote(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                        + String(scalar.value, radix: 16)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// Strict equality (`==` and `===` alike): same type and same value; arrays and objects
    /// compare by content, functions and streams never equal anything.
    public func strictlyEquals(_ other: SpecValue) -> Bool {
        switch (self, other) {
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.bool(a), .bool(b)): return a == b
        case (.null, .null): return true
        case let (.array(a), .array(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.strictlyEquals($1) }
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value.strictlyEquals($1.value) }
        default: return false
        }
    }
}

extension SpecValue: CustomStringConvertible, Encodable {
    /// The display form (what a trace shows as the value's text).
    public var description: String { display }

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Encodes the JSON the value stands for (functions and streams as their display strings).
    public func encode(to encoder: Encoder) throws {
        switch self {
        case let .number(value):
            var container = encoder.singleValueContainer()
            if !value.isFinite {
                try container.encodeNil()
            } else if value == value.rounded(), abs(value) < 1e15 {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case let .string(value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case let .bool(value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case let .array(items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item) }
        case let .object(pairs):
            var container = encoder.container(keyedBy: Key.self)
            for pair in pairs { try container.encode(pair.value, forKey: Key(pair.key)) }
        case .lambda, .stream:
            var container = encoder.singleValueContainer()
            try container.encode(display)
        }
    }
}

/// The error of a spec stream: `#` in a marble line, `throwError(v)`, or an operator's own
/// error (a timeout); it carries a value, `"error"` unless the spec says otherwise.
public struct SpecFailure: Error, Sendable, CustomStringConvertible, Encodable {
    public let value: SpecValue

    public init(_ value: SpecValue) { self.value = value }

    public var description: String { value.display }

    /// Encodes the error's value.
    public func encode(to encoder: Encoder) throws { try value.encode(to: encoder) }
}

/// A stream in a spec: a cold recipe, started anew by each subscriber (hot inputs are
/// producers that observe their running signal).
public struct SpecStream: Sendable {
    public let producer: SignalProducer<SpecValue, SpecFailure>
    /// Set only on a `catchError`'s `caught` argument, to the operator it starts again: a
    /// handler that returns it unchanged restarts that operator rather than nesting a new one.
    let caughtBy: SpecLateStream?

    public init(_ producer: SignalProducer<SpecValue, SpecFailure>) {
        self.producer = producer
        caughtBy = nil
    }

    init(caught producer: SignalProducer<SpecValue, SpecFailure>, by operator: SpecLateStream) {
        self.producer = producer
        caughtBy = `operator`
    }
}

/// A function written in a spec (`x => x * 10`), closed over its scope.
public final class SpecLambda: @unchecked Sendable {  // immutable after init; its captured scope is values only
    let parameters: [String]
    let body: SpecExpression
    let scope: [String: SpecValue]
    let location: SpecLocation

    init(parameters: [String], body: SpecExpression, scope: [String: SpecValue], location: SpecLocation) {
        self.parameters = parameters
        self.body = body
        self.scope = scope
        self.location = location
    }
}
