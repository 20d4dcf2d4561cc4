import Foundation
import Signals
import TraceLog

/// A value that stands in for one a trace recorded, whose type a trace cannot make again (a
/// replayed call's failure of any `Error` type): recorded as that value was, with its text
/// and JSON as written, so that a replay records what the live run did (an error that was
/// not `Encodable` live has no `json` in the replay either).
package protocol RecordedStandIn {
    /// What the trace recorded for the value it stands in for.
    var recordedForm: RecordedForm { get }
}

/// A recorded value's text and JSON as its event carries them (FORMAT.md: `text`, `json`,
/// `jsonOmitted`, `jsonError`).
package struct RecordedForm: Sendable, Equatable {
    package var text: String
    package var json: String?
    package var omittedJSONBytes: Int?
    package var jsonError: String?

    package init(text: String, json: String?, omittedJSONBytes: Int? = nil, jsonError: String? = nil) {
        self.text = text
        self.json = json
        self.omittedJSONBytes = omittedJSONBytes
        self.jsonError = jsonError
    }
}

extension RecorderCore {
    /// A value made ready to write. Integers and strings, the most common values, are kept
    /// as they are and written straight into the buffer (no intermediate strings).
    enum FormattedValue {
        case integer(Int64)
        case string(String)
        /// `json` is at most `Recorder.maxJSONLength` bytes (a larger one is `omitted`);
        /// `jsonError` says what the value's `encode(to:)` threw, when it threw.
        case other(text: String, json: String?, jsonError: String? = nil)
        /// A value whose JSON would take `size` bytes, over `Recorder.maxJSONLength`.
        case omitted(text: String, size: Int)

        /// Writes `text`, `truncated`, `json` and `jsonOmitted` as FORMAT.md orders them.
        func write(to line: inout JSONLine) {
            switch self {
            case let .integer(value):
                line.field("text", decimal: value)
                line.field("json", value)
            case let .string(string):
                writeText(string, to: &line)
                let size = string.utf8.count
                if size > Recorder.maxJSONLength {
                    line.field("jsonOmitted", Int64(size))
                } else {
                    line.field("json", string)
                }
            case let .other(text, json, jsonError):
                writeText(text, to: &line)
                guard let json else {
                    line.field("jsonError", ifPresent: jsonError)
                    return
                }
                line.field("json", rawJSON: json)
            case let .omitted(text, size):
                writeText(text, to: &line)
                line.field("jsonOmitted", Int64(size))
            }
        }

        private func writeText(_ text: String, to line: inout JSONLine) {
            let (written, truncated) = Self.textField(text)
            line.field("text", written)
            if truncated { line.field("truncated", true) }
        }

        /// A value's `text` as an event carries it: cut after `Recorder.maxTextLength`
        /// characters, with an ellipsis, when longer (`truncated`).
        static func textField(_ text: String) -> (text: String, truncated: Bool) {
            // At most maxTextLength bytes means at most that many characters: no counting. Past
            // that, only the first maxTextLength + 1 characters are walked, however long the text.
            let cut = text.utf8.count <= Recorder.maxTextLength
                ? nil : text.index(text.startIndex, offsetBy: Recorder.maxTextLength, limitedBy: text.endIndex)
            if let cut, cut < text.endIndex { return (String(text[..<cut]) + "…", true) }
            return (text, false)
        }
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// No value, or exactly an `Int`, as the binary record stores it (the outer optional is
    /// nil for any other value). The type is told by comparing type metadata, where `as? Int`
    /// on an `Any` goes through the runtime's general cast (about 260 instructions), and the
    /// value is read in place, not copied out of its existential box.
    @inline(__always)
    static func integerOrNone(_ value: Any?) -> Int64?? {
        guard let value else { return .some(nil) }
        func exactInteger<T>(_ value: T) -> Int64? {
            T.self == Int.self ? Int64(unsafeBitCast(value, to: Int.self)) : nil
        }
        if let integer = _openExistential(value, do: exactInteger) { return .some(integer) }
        return nil
    }

    /// The JSON of an `Encodable` value exactly as `encoder` writes it, when it takes at most
    /// `limit` bytes, else its size (a huge string in it measured, not copied), or what
    /// encoding it threw: by `DirectJSONEncoder`, several times cheaper, and through `encoder`
    /// only for the values that encoder hands back.
    static func json(of value: some Encodable, limit: Int) -> Result<DirectJSONEncoder.Encoded, EncodingFailure> {
        do {
            if let encoded = try DirectJSONEncoder.encode(value, limit: limit) { return .success(encoded) }
            let bytes = Array(try encoder.encode(value))
            return .success(bytes.count > limit ? .omitted(size: bytes.count) : .json(String(decoding: bytes, as: UTF8.self)))
        } catch {
            return .failure(EncodingFailure(description: String(describing: error)))
        }
    }

    /// What a value's `encode(to:)` threw, described.
    struct EncodingFailure: Error {
        let description: String
    }

    /// How a value of type `T` is made ready to write, decided once for the type: as `format`
    /// does for a value of it, without the casts `format` asks the runtime for at every value.
    /// That holds for a struct, an enum or a tuple (other than `Optional` and `AnyHashable`,
    /// which casts look inside): such a value casts to `Int`, `String`, `Double` or `Bool` only
    /// when it is one, and to `Encodable` when its type conforms. Any other type (a class, an
    /// existential, an optional, a function) is left to `format`.
    static func formatter<T>(of type: T.Type) -> (T) -> FormattedValue {
        if let optional = type as? any FormattedOptional.Type {
            func formatter<O: FormattedOptional>(_: O.Type) -> (T) -> FormattedValue {
                let format = O.optionalFormatter()
                return { format(unsafeBitCast($0, to: O.self)) }
            }
            return _openExistential(optional, do: formatter)
        }
        guard isPlainValue(type) else { return { format($0) } }
        if type == Int.self { return { .integer(Int64(unsafeBitCast($0, to: Int.self))) } }
        if type == String.self { return { .string(unsafeBitCast($0, to: String.self)) } }
        if type == Double.self || type == Bool.self { return { format($0) } }
        let describe = ValueDescription.describer(of: T.self)
        guard let encodable = type as? any Encodable.Type else {
            return { value in withUnsafePointer(to: value) { .other(text: describe($0), json: nil) } }
        }
        func encoder<E: Encodable>(_: E.Type) -> (UnsafeRawPointer) -> Result<DirectJSONEncoder.Encoded, EncodingFailure> {
            { json(of: $0.load(as: E.self), limit: Recorder.maxJSONLength) }
        }
        let encode = _openExistential(encodable, do: encoder)
        return { value in
            withUnsafePointer(to: value) { formatted(json: encode(UnsafeRawPointer($0)), text: describe($0)) }
        }
    }

    /// An encodable value ready to write, from what encoding it gave and its text.
    private static func formatted(json: Result<DirectJSONEncoder.Encoded, EncodingFailure>, text: String) -> FormattedValue {
        switch json {
        case let .success(.json(json)): return .other(text: text, json: json)
        case let .success(.omitted(size)): return .omitted(text: text, size: size)
        case let .failure(failure): return .other(text: text, json: nil, jsonError: failure.description)
        }
    }

    /// Whether `T` is a struct, an enum or a tuple other than `Optional` and `AnyHashable`:
    /// a type whose values cast only to what they are.
    static func isPlainValue<T>(_ type: T.Type) -> Bool {
        [MetadataKind.structure, MetadataKind.enumeration, MetadataKind.tuple].contains(metadataKind(type))
            && type != AnyHashable.self
    }

    /// The value ready to write: fast paths for the common scalar types; other `Encodable`
    /// values as `JSONEncoder` with sorted keys writes them; anything else as its description
    /// only.
    static func format(_ value: Any) -> FormattedValue {
        // Exactly an `Int` first, as `integerOrNone` tells it.
        if case let .some(.some(integer)) = integerOrNone(value) { return .integer(integer) }
        switch value {
        case let integer as Int:
            return .integer(Int64(integer))
        case let string as String:
            return .string(string)
        case let double as Double:
            let text = String(double)
            return .other(text: text, json: double.isFinite ? text : nil)
        case let bool as Bool:
            let text = bool ? "true" : "false"
            return .other(text: text, json: text)
        case let standIn as any RecordedStandIn:
            let recorded = standIn.recordedForm
            if let size = recorded.omittedJSONBytes { return .omitted(text: recorded.text, size: size) }
            return .other(text: recorded.text, json: recorded.json, jsonError: recorded.jsonError)
        case let encodable as Encodable:
            return formatted(json: json(of: encodable, limit: Recorder.maxJSONLength), text: ValueDescription.describe(value))
        default:
            return .other(text: ValueDescription.describe(value), json: nil)
        }
    }
}

/// An optional, whose formatter `RecorderCore.formatter(of:)` asks for.
protocol FormattedOptional {
    static func optionalFormatter() -> (Self) -> RecorderCore.FormattedValue
}

extension Optional: FormattedOptional {
    /// An optional `Int`, `String`, `Double` or `Bool`: a value formatted as the value it holds
    /// (a cast through `Any` unwraps it, as `format` finds), `nil` as `format` formats it,
    /// found once. Any other optional is left to `format`: it is described with its
    /// `Optional(…)`.
    static func optionalFormatter() -> (Self) -> RecorderCore.FormattedValue {
        guard Wrapped.self == Int.self || Wrapped.self == String.self || Wrapped.self == Double.self
                || Wrapped.self == Bool.self else { return { RecorderCore.format($0 as Any) } }
        let some = RecorderCore.formatter(of: Wrapped.self)
        let none = RecorderCore.format(Self.none as Any)
        return { $0.map(some) ?? none }
    }
}
