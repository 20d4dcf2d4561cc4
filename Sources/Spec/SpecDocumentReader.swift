import MarbleNotation
import Foundation

/// What the statements of a spec say, as read line by line: the validation pass
/// (`SpecDocument.validate(_:)`) ties them together.
struct SpecStatements {
    /// A `hot`, `cold` or `unsubscribe` line: its marbles are parsed once the frame is known.
    struct MarbleLine {
        let name: String
        let hot: Bool
        /// The marbles, without a trailing comment.
        let text: String
        let line: Int
        /// The 0-based column where the marbles start.
        let column: Int
        /// Where the stream's name is.
        let location: SpecLocation
    }

    /// How long one frame lasts, in nanoseconds.
    var frame: Int64 = MarbleNotation.millisecond
    /// Where the `frame` line is, once read.
    var frameLocation: SpecLocation?
    /// Where each input and derived stream is named.
    var names: [String: SpecLocation] = [:]
    var inputs: [MarbleLine] = []
    var unsubscribes: [MarbleLine] = []
    var derived: [SpecDocument.Derived] = []
    var values: [String: [(key: String, value: SpecValue)]] = [:]
    /// Where each `values` line names its input, in the order written.
    var valueLines: [(name: String, location: SpecLocation)] = []
    var errors: [String: SpecValue] = [:]
    /// Where each `error` line names its input, in the order written.
    var errorLines: [(name: String, location: SpecLocation)] = []
}

/// Reads the statements of a spec, one line at a time (an expression or JSON value with an
/// unclosed bracket continues on the next lines). Checks what one line can tell; the
/// validation pass checks what needs the whole spec.
struct SpecDocumentReader {
    private let lines: [String]
    /// The index of the line being read; continuation lines move it on.
    private var offset = -1
    private var statements = SpecStatements()

    /// The statements of `lines`.
    static func read(_ lines: [String]) throws -> SpecStatements {
        var reader = SpecDocumentReader(lines: lines)
        while reader.offset + 1 < lines.count {
            reader.offset += 1
            try reader.readLine()
        }
        return reader.statements
    }

    private init(lines: [String]) { self.lines = lines }

    private mutating func readLine() throws {
        var cursor = SpecLineCursor(lines[offset], line: offset + 1)
        cursor.skipSpaces()
        if cursor.isAtEnd || cursor.current == "#" { return }
        guard let (first, firstLocation) = cursor.word() else {
            throw SpecSyntaxError(location: cursor.here,
                                  message: "expected a definition (NAME = expression), an input (hot/cold NAME = marbles), values, error, unsubscribe or frame")
        }
        cursor.skipSpaces()
        if cursor.isAtAssignment {
            cursor.index += 1
            return try readDefinition(first, at: firstLocation, cursor)
        }
        switch first {
        case "frame":
            try readFrame(at: firstLocation, cursor)
        case "hot", "cold", "values", "error", "unsubscribe":
            try readNamedLine(first, at: firstLocation, cursor)
        default:
            throw SpecSyntaxError(location: cursor.here,
                                  message: "expected '=' after '\(first)' (or one of hot, cold, values, error, unsubscribe, frame)")
        }
    }

    /// `NAME = expression`, the cursor after the `=`.
    private mutating func readDefinition(_ name: String, at location: SpecLocation, _ cursor: SpecLineCursor) throws {
        try declare(name, location)
        let tokens = try continued(try SpecLexer.tokens(cursor.characters, line: cursor.line, from: cursor.index))
        if tokens.count == 1 {
            throw SpecSyntaxError(location: tokens[0].location, message: "expected an expression after '='")
        }
        statements.derived.append(SpecDocument.Derived(name: name, expression: try SpecExpressionParser.parse(tokens),
                                                       location: location, source: source(of: tokens)))
    }

    /// `frame DURATION`, the cursor after `frame`.
    private mutating func readFrame(at location: SpecLocation, _ cursor: SpecLineCursor) throws {
        if let first = statements.frameLocation {
            throw SpecSyntaxError(location: location, message: "expected one 'frame' line (the first is on line \(first.line))")
        }
        statements.frameLocation = location
        let tokens = try SpecLexer.tokens(cursor.characters, line: cursor.line, from: cursor.index)
        guard tokens.count == 2, case let .number(milliseconds) = tokens[0].kind else {
            throw SpecSyntaxError(location: tokens[0].location, message: "expected a duration such as 1ms, 10 or 0.5s after 'frame'")
        }
        let nanoseconds = (milliseconds * 1e6).rounded()
        guard nanoseconds >= 1, nanoseconds < 1e15 else {
            throw SpecSyntaxError(location: tokens[0].location, message: "expected a frame duration of at least 1ns")
        }
        statements.frame = Int64(nanoseconds)
    }

    /// `KEYWORD NAME = ...` for the keywords hot, cold, unsubscribe (marbles follow), values
    /// and error (a JSON value follows); the cursor after the keyword.
    private mutating func readNamedLine(_ keyword: String, at keywordLocation: SpecLocation,
                                        _ start: SpecLineCursor) throws {
        var cursor = start
        guard let (name, nameLocation) = cursor.word() else {
            throw SpecSyntaxError(location: cursor.here, message: "expected a stream name after '\(keyword)'")
        }
        try cursor.expectAssignment(after: "'\(keyword) \(name)'")
        switch keyword {
        case "hot", "cold":
            try declare(name, nameLocation)
            statements.inputs.append(Self.marbleLine(name, hot: keyword == "hot", at: nameLocation, cursor))
        case "unsubscribe":
            statements.unsubscribes.append(Self.marbleLine(name, hot: false, at: nameLocation, cursor))
        default:
            let value = try readConstant(cursor)
            if keyword == "values" {
                try recordValues(value, for: name, at: nameLocation, keywordLocation, valueLocation: cursor.here)
            } else {
                try recordError(value, for: name, at: nameLocation, keywordLocation)
            }
        }
    }

    /// The marbles from the cursor to the end of the line, for the stream `name` named at
    /// `location`.
    private static func marbleLine(_ name: String, hot: Bool, at location: SpecLocation,
                                   _ cursor: SpecLineCursor) -> SpecStatements.MarbleLine {
        SpecStatements.MarbleLine(name: name, hot: hot, text: stripMarbleComment(cursor.rest),
                                  line: cursor.line, column: cursor.index, location: location)
    }

    /// The JSON value from the cursor on (possibly over several lines).
    private mutating func readConstant(_ cursor: SpecLineCursor) throws -> SpecValue {
        let tokens = try continued(try SpecLexer.tokens(cursor.characters, line: cursor.line, from: cursor.index))
        if tokens.count == 1 {
            throw SpecSyntaxError(location: cursor.here, message: "expected a JSON value after '='")
        }
        return try SpecExpressionParser.constant(try SpecExpressionParser.parse(tokens))
    }

    private mutating func recordValues(_ value: SpecValue, for name: String, at nameLocation: SpecLocation,
                                       _ keywordLocation: SpecLocation, valueLocation: SpecLocation) throws {
        guard case let .object(pairs) = value else {
            throw SpecSyntaxError(location: valueLocation,
                                  message: "expected a JSON object mapping characters to values, found \(value.typeName)")
        }
        if statements.values[name] != nil {
            throw SpecSyntaxError(location: keywordLocation, message: "expected one 'values' line for '\(name)'")
        }
        statements.values[name] = pairs
        statements.valueLines.append((name, nameLocation))
    }

    private mutating func recordError(_ value: SpecValue, for name: String, at nameLocation: SpecLocation,
                                      _ keywordLocation: SpecLocation) throws {
        if statements.errors[name] != nil {
            throw SpecSyntaxError(location: keywordLocation, message: "expected one 'error' line for '\(name)'")
        }
        statements.errors[name] = value
        statements.errorLines.append((name, nameLocation))
    }

    /// Records the name of an input or derived stream; a name is defined once.
    private mutating func declare(_ name: String, _ location: SpecLocation) throws {
        if let previous = statements.names[name] {
            throw SpecSyntaxError(location: location,
                                  message: "expected a new stream name: '\(name)' is already defined on line \(previous.line)")
        }
        statements.names[name] = location
    }

    /// `first`, extended with the tokens of the next lines while a bracket is still open.
    private mutating func continued(_ first: [SpecToken]) throws -> [SpecToken] {
        var tokens = first
        var depth = Self.bracketDepth(first)
        while depth > 0, offset + 1 < lines.count {
            offset += 1
            tokens.removeLast()
            let more = try SpecLexer.tokens(Array(lines[offset]), line: offset + 1, from: 0)
            depth += Self.bracketDepth(more)
            tokens += more
        }
        return tokens
    }

    /// Opening brackets minus closing ones.
    private static func bracketDepth(_ tokens: [SpecToken]) -> Int {
        tokens.reduce(0) { total, token in
            switch token.kind {
            case .symbol("("), .symbol("["), .symbol("{"): return total + 1
            case .symbol(")"), .symbol("]"), .symbol("}"): return total - 1
            default: return total
            }
        }
    }

    /// The text the tokens were read from, up to the end of the expression (before a comment).
    private func source(of tokens: [SpecToken]) -> String {
        guard let first = tokens.first, let end = tokens.last else { return "" }
        var parts: [String] = []
        for line in first.location.line...end.location.line {
            let characters = Array(lines[line - 1])
            let from = line == first.location.line ? first.location.column - 1 : 0
            let to = line == end.location.line ? min(end.location.column - 1, characters.count) : characters.count
            if from < to { parts.append(String(characters[from..<to]).trimmingCharacters(in: .whitespaces)) }
        }
        return parts.filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// In a marble line `#` is an error event; a comment starts at a `#` with whitespace on
    /// both sides (so `--a-- #` still ends in an error).
    private static func stripMarbleComment(_ text: String) -> String {
        let characters = Array(text)
        for index in characters.indices where characters[index] == "#" && index > 0 && index + 1 < characters.count {
            if characters[index - 1].isWhitespace && characters[index + 1].isWhitespace {
                return String(characters[..<index])
            }
        }
        return text
    }
}

/// A position in one line of a spec, for reading its statement's leading words.
struct SpecLineCursor {
    let characters: [Character]
    /// The 1-based line number.
    let line: Int
    /// The 0-based index of the next character.
    var index = 0

    init(_ text: String, line: Int) {
        characters = Array(text)
        self.line = line
    }

    var isAtEnd: Bool { index == characters.count }
    /// The next character; only when not at the end.
    var current: Character { characters[index] }
    var here: SpecLocation { SpecLocation(line: line, column: index + 1) }
    /// The text from the cursor to the end of the line.
    var rest: String { String(characters[index...]) }
    /// Whether the cursor is at an `=` that is not `==`.
    var isAtAssignment: Bool {
        index < characters.count && characters[index] == "="
            && (index + 1 >= characters.count || characters[index + 1] != "=")
    }

    mutating func skipSpaces() {
        while index < characters.count, characters[index] == " " || characters[index] == "\t" { index += 1 }
    }

    /// The name at the cursor (letters, `_`, `$`, then digits too) and where it starts.
    mutating func word() -> (String, SpecLocation)? {
        let start = index
        while index < characters.count, characters[index] == "_" || characters[index] == "$" || characters[index].isLetter
                || (index > start && characters[index].isASCII && characters[index].isNumber) {
            index += 1
        }
        return index > start ? (String(characters[start..<index]), SpecLocation(line: line, column: start + 1)) : nil
    }

    /// Moves past spaces, an `=` and spaces; `after` names what the `=` must follow.
    mutating func expectAssignment(after: String) throws {
        skipSpaces()
        guard isAtAssignment else {
            throw SpecSyntaxError(location: here, message: "expected '=' after \(after)")
        }
        index += 1
        skipSpaces()
    }
}
