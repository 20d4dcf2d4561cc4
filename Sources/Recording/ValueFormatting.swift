import Foundation
import Signals
import TraceLog

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
            // At most maxTextLength bytes means at most that many characters: no counting. Past
            // that, only the first maxTextLength + 1 characters are walked, however long the text.
            let cut = text.utf8.count <= Recorder.maxTextLength
                ? nil : text.index(text.startIndex, offsetBy: Recorder.maxTextLength, limitedBy: text.endIndex)
            if let cut, cut < text.endIndex {
                line.field("text", String(text[..<cut]) + "…")
                line.field("truncated", true)
            } else {
                line.field("text", text)
            }
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
            return .success(bytes.count > limit ? .omitted(size: bytes.count) : .bytes(bytes))
        } catch {
            return .failure(EncodingFailure(description: String(describing: error)))
        }
    }

    /// What a value's `encode(to:)` threw, described.
    struct EncodingFailure: Error {
        let description: String
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
        case let encodable as Encodable:
            switch json(of: encodable, limit: Recorder.maxJSONLength) {
            case let .success(.bytes(json)):
                return .other(text: ValueDescription.describe(value), json: String(decoding: json, as: UTF8.self))
            case let .success(.omitted(size)): return .omitted(text: ValueDescription.describe(value), size: size)
            case let .failure(failure): return .other(text: ValueDescription.describe(value), json: nil, jsonError: failure.description)
            }
        default:
            return .other(text: ValueDescription.describe(value), json: nil)
        }
    }
}
