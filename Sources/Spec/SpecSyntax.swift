import MarbleNotation
/// A place in a spec file: 1-based line and column.
public struct SpecLocation: Equatable, Sendable {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
}

/// A spec that cannot be read or run: where, and what was expected.
///
/// `description` is the compiler-style report: `file:line:column: error: message`, then the
/// line itself and a caret under the column.
public struct SpecError: Error, Equatable, CustomStringConvertible {
    /// The file name shown in the report.
    public var file: String
    public var location: SpecLocation
    public var message: String
    /// The text of the offending line (empty when unknown).
    public var sourceLine: String

    public init(file: String, location: SpecLocation, message: String, sourceLine: String) {
        self.file = file
        self.location = location
        self.message = message
        self.sourceLine = sourceLine
    }

    /// The most characters of the offending line a report quotes: a longer line is cut
    /// around the column, with `…` where it was cut.
    public static let quotedLineLimit = 200

    public var description: String {
        // The file's name on the line it begins (a newline in it shows as ⏎).
        let name = file.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\u{23CE}")
        var out = "\(name):\(location.line):\(location.column): error: \(message)"
        if !sourceLine.isEmpty {
            let (quoted, caretColumn) = Self.quote(sourceLine, column: location.column)
            // Tabs stay tabs under the caret so it lines up in any terminal.
            let prefix = quoted.prefix(max(0, caretColumn - 1)).map { $0 == "\t" ? "\t" : " " }.joined()
            out += "\n" + quoted + "\n" + prefix + "^"
        }
        return out
    }

    /// The line, or at most `quotedLineLimit` characters of it around `column`, and the
    /// column the caret goes under in what is quoted.
    static func quote(_ line: String, column: Int) -> (text: String, column: Int) {
        let limit = quotedLineLimit
        guard line.utf8.count > limit, line.count > limit else { return (line, column) }
        let characters = Array(line)
        let caret = min(max(column - 1, 0), characters.count)
        // The window keeps the column near its middle, shifted to stay inside the line; two
        // characters are left for the marks of the cuts.
        let width = limit - 2
        var start = max(0, caret - width / 2)
        start = min(start, characters.count - width)
        let end = start + width
        var text = String(characters[start..<end])
        var shown = caret - start + 1
        if start > 0 {
            text = "\u{2026}" + text
            shown += 1
        }
        if end < characters.count { text += "\u{2026}" }
        return (text, shown)
    }
}

/// An error found while reading one line, before the file and line text are attached.
struct SpecSyntaxError: Error {
    let location: SpecLocation
    let message: String
}

/// An expression of the spec language.
indirect enum SpecExpression {
    case number(Double, SpecLocation)
    case string(String, SpecLocation)
    case bool(Bool, SpecLocation)
    case null(SpecLocation)
    case array([SpecExpression], SpecLocation)
    case object([(String, SpecExpression)], SpecLocation)
    case name(String, SpecLocation)
    case member(SpecExpression, String, SpecLocation)
    case index(SpecExpression, SpecExpression, SpecLocation)
    case call(SpecExpression, [SpecArgument], SpecLocation)
    case lambda([String], SpecExpression, SpecLocation)
    case unary(String, SpecExpression, SpecLocation)
    case binary(String, SpecExpression, SpecExpression, SpecLocation)
    case conditional(SpecExpression, SpecExpression, SpecExpression, SpecLocation)

    var location: SpecLocation {
        switch self {
        case let .number(_, l), let .string(_, l), let .bool(_, l), let .null(l), let .array(_, l),
             let .object(_, l), let .name(_, l), let .member(_, _, l), let .index(_, _, l), let .call(_, _, l),
             let .lambda(_, _, l), let .unary(_, _, l), let .binary(_, _, _, l), let .conditional(_, _, _, l):
            return l
        }
    }
}

/// A call argument, positional or named (`count: 2`).
struct SpecArgument {
    let label: String?
    let value: SpecExpression
}

/// A parsed `.marbles` spec, before it runs.
public struct SpecDocument {
    /// An input stream written in marble notation.
    public struct Input {
        public let name: String
        public let hot: Bool
        public let marbles: String
        public let events: [MarbleNotation.Event]
        public let location: SpecLocation
    }

    /// A derived stream: a name and the expression that makes it.
    struct Derived {
        let name: String
        let expression: SpecExpression
        let location: SpecLocation
        /// The expression as written (continuation lines joined by a space).
        let source: String
    }

    /// The file name errors report.
    public let file: String
    /// The spec's lines, for error reports.
    let lines: [String]
    /// How long one frame lasts, in nanoseconds.
    public internal(set) var frame: Int64 = MarbleNotation.millisecond
    /// The inputs in the order written.
    public internal(set) var inputs: [Input] = []
    var derived: [Derived] = []
    /// Per input: the JSON values its characters stand for.
    var values: [String: [(key: String, value: SpecValue)]] = [:]
    /// Per input: the value its `#` carries.
    var errors: [String: SpecValue] = [:]
    /// Per derived stream: when it is unsubscribed.
    var unsubscribe: [String: (time: Int64, location: SpecLocation)] = [:]

    /// The names of the derived streams, in the order written.
    public var derivedNames: [String] { derived.map(\.name) }

    func error(_ location: SpecLocation, _ message: String) -> SpecError {
        let text = location.line >= 1 && location.line <= lines.count ? lines[location.line - 1] : ""
        return SpecError(file: file, location: location, message: message, sourceLine: text)
    }
}
