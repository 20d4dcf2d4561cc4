import MarbleNotation
import Foundation

/// A token of the expression language.
struct SpecToken {
    enum Kind: Equatable {
        case identifier(String)
        case number(Double)
        case string(String)
        case symbol(String)
        case end
    }

    let kind: Kind
    let location: SpecLocation
}

/// Splits one line of expression text into tokens; `#` outside a string ends the line.
struct SpecLexer {
    private static let symbols = ["===", "!==", "=>", "==", "!=", "<=", ">=", "&&", "||",
                                  "(", ")", "[", "]", "{", "}", ",", ":", ".", "+", "-", "*", "/", "%",
                                  "!", "?", "<", ">", "="]

    static func tokens(_ text: [Character], line: Int, from start: Int) throws -> [SpecToken] {
        var tokens: [SpecToken] = []
        var index = start
        while index < text.count {
            let character = text[index]
            let location = SpecLocation(line: line, column: index + 1)
            if character == " " || character == "\t" || character == "\r" {
                index += 1
            } else if character == "#" {
                break
            } else if character.isASCII && character.isNumber {
                let (value, next) = try number(text, from: index, line: line)
                tokens.append(SpecToken(kind: .number(value), location: location))
                index = next
            } else if character == "\"" || character == "'" {
                let (value, next) = try string(text, from: index, line: line)
                tokens.append(SpecToken(kind: .string(value), location: location))
                index = next
            } else if character == "_" || character == "$" || (character.isLetter) {
                var name = ""
                while index < text.count, text[index] == "_" || text[index] == "$" || text[index].isLetter
                        || (text[index].isASCII && text[index].isNumber) {
                    name.append(text[index])
                    index += 1
                }
                tokens.append(SpecToken(kind: .identifier(name), location: location))
            } else if let symbol = symbols.first(where: { matches($0, text, at: index) }) {
                tokens.append(SpecToken(kind: .symbol(symbol), location: location))
                index += symbol.count
            } else {
                throw SpecSyntaxError(location: location, message: "unexpected character '\(character)'")
            }
        }
        tokens.append(SpecToken(kind: .end, location: SpecLocation(line: line, column: index + 1)))
        return tokens
    }

    private static func matches(_ symbol: String, _ text: [Character], at index: Int) -> Bool {
        let characters = Array(symbol)
        guard index + characters.count <= text.count else { return false }
        return Array(text[index..<index + characters.count]) == characters
    }

    /// A number, optionally with a duration unit (`20ms`, `0.5s`, `2m`), always in milliseconds.
    private static func number(_ text: [Character], from start: Int, line: Int) throws -> (Double, Int) {
        var index = start
        var digits = ""
        func take(_ predicate: (Character) -> Bool) {
            while index < text.count, predicate(text[index]) {
                digits.append(text[index])
                index += 1
            }
        }
        let isDigit: (Character) -> Bool = { $0.isASCII && $0.isNumber }
        take(isDigit)
        if index + 1 < text.count, text[index] == ".", isDigit(text[index + 1]) {
            digits.append(".")
            index += 1
            take(isDigit)
        }
        if index < text.count, text[index] == "e" || text[index] == "E" {
            let save = (index, digits)
            digits.append("e")
            index += 1
            if index < text.count, text[index] == "+" || text[index] == "-" {
                digits.append(text[index])
                index += 1
            }
            if index < text.count, isDigit(text[index]) { take(isDigit) } else { (index, digits) = save }
        }
        guard var value = Double(digits) else {
            throw SpecSyntaxError(location: SpecLocation(line: line, column: start + 1), message: "expected a number")
        }
        var unit = ""
        var end = index
        while end < text.count, text[end].isLetter || text[end] == "_" {
            unit.append(text[end])
            end += 1
        }
        switch unit {
        case "": break
        case "ms": index = end
        case "s": value *= 1000; index = end
        case "m": value *= 60_000; index = end
        default:
            throw SpecSyntaxError(location: SpecLocation(line: line, column: index + 1),
                                  message: "expected a duration unit 'ms', 's' or 'm' after the number, found '\(unit)'")
        }
        return (value, index)
    }

    private static func string(_ text: [Character], from start: Int, line: Int) throws -> (String, Int) {
        let quote = text[start]
        var index = start + 1
        var value = ""
        while index < text.count {
            let character = text[index]
            if character == quote { return (value, index + 1) }
            if character == "\\" {
                guard index + 1 < text.count else { break }
                let escaped = text[index + 1]
                switch escaped {
                case "n": value.append("\n")
                case "t": value.append("\t")
                case "r": value.append("\r")
                case "u":
                    let hex = index + 6 <= text.count ? String(text[index + 2..<index + 6]) : ""
                    guard hex.count == 4, let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else {
                        throw SpecSyntaxError(location: SpecLocation(line: line, column: index + 1),
                                              message: "expected four hex digits after '\\u'")
                    }
                    value.unicodeScalars.append(scalar)
                    index += 6
                    continue
                default: value.append(escaped)
                }
                index += 2
                continue
            }
            value.append(character)
            index += 1
        }
        throw SpecSyntaxError(location: SpecLocation(line: line, column: start + 1),
                              message: "expected \(quote) to close the string started here")
    }
}

/// Recursive-descent parser of one expression.
struct SpecExpressionParser {
    private let tokens: [SpecToken]
    private var position = 0
    private var depth = 0
    /// Parsing, evaluating and freeing an expression all recurse over its tree: a bound on
    /// its depth keeps a hostile spec (`((((…` or a chain of thousands of calls) from
    /// overflowing the stack.
    static let maxDepth = 200

    init(tokens: [SpecToken]) { self.tokens = tokens }

    /// Parses the whole token list as one expression.
    static func parse(_ tokens: [SpecToken]) throws -> SpecExpression {
        var parser = SpecExpressionParser(tokens: tokens)
        let expression = try parser.expression()
        guard case .end = parser.current.kind else {
            throw SpecSyntaxError(location: parser.current.location,
                                  message: "expected an operator or the end of the line, found \(describe(parser.current))")
        }
        return expression
    }

    private var current: SpecToken { tokens[min(position, tokens.count - 1)] }

    private func peek(_ offset: Int) -> SpecToken { tokens[min(position + offset, tokens.count - 1)] }

    private static func describe(_ token: SpecToken) -> String {
        switch token.kind {
        case let .identifier(name): return "'\(name)'"
        case let .number(value): return "number \(SpecValue.format(value))"
        case let .string(value): return "string \(SpecValue.quote(value))"
        case let .symbol(symbol): return "'\(symbol)'"
        case .end: return "the end of the line"
        }
    }

    private func isSymbol(_ symbol: String, _ token: SpecToken? = nil) -> Bool {
        (token ?? current).kind == .symbol(symbol)
    }

    private mutating func expect(_ symbol: String, _ what: String) throws -> SpecToken {
        guard isSymbol(symbol) else {
            throw SpecSyntaxError(location: current.location, message: "expected \(what), found \(Self.describe(current))")
        }
        defer { position += 1 }
        return current
    }

    private mutating func identifier(_ what: String) throws -> String {
        guard case let .identifier(name) = current.kind else {
            throw SpecSyntaxError(location: current.location, message: "expected \(what), found \(Self.describe(current))")
        }
        position += 1
        return name
    }

    mutating func expression() throws -> SpecExpression {
        try nest()
        defer { depth -= 1 }
        if let lambda = try lambda() { return lambda }
        return try conditional()
    }

    private mutating func nest(by levels: Int = 1) throws {
        depth += levels
        guard depth <= Self.maxDepth else {
            throw SpecSyntaxError(location: current.location,
                                  message: "expected an expression nested at most \(Self.maxDepth) levels deep")
        }
    }

    /// `x => body`, `(a, b) => body` or `() => body`, recognised by looking ahead for `=>`.
    private mutating func lambda() throws -> SpecExpression? {
        let start = current.location
        if case let .identifier(name) = current.kind, isSymbol("=>", peek(1)) {
            position += 2
            return .lambda([name], try expression(), start)
        }
        guard isSymbol("(") else { return nil }
        var offset = 1
        var names: [String] = []
        while true {
            let token = peek(offset)
            if isSymbol(")", token) { break }
            guard case let .identifier(name) = token.kind else { return nil }
            names.append(name)
            offset += 1
            if isSymbol(",", peek(offset)) { offset += 1 } else if !isSymbol(")", peek(offset)) { return nil }
        }
        guard isSymbol("=>", peek(offset + 1)) else { return nil }
        position += offset + 2
        return .lambda(names, try expression(), start)
    }

    private mutating func conditional() throws -> SpecExpression {
        let condition = try binary(level: 0)
        guard isSymbol("?") else { return condition }
        let location = current.location
        position += 1
        let then = try expression()
        _ = try expect(":", "':' of the conditional '?:'")
        let otherwise = try expression()
        return .conditional(condition, then, otherwise, location)
    }

    private static let levels: [[String]] = [["||"], ["&&"], ["==", "===", "!=", "!=="], ["<", "<=", ">", ">="],
                                             ["+", "-"], ["*", "/", "%"]]

    private mutating func binary(level: Int) throws -> SpecExpression {
        if level == Self.levels.count { return try unary() }
        var left = try binary(level: level + 1)
        var links = 0
        defer { depth -= links }
        while case let .symbol(symbol) = current.kind, Self.levels[level].contains(symbol) {
            let location = current.location
            links += 1
            try nest()
            position += 1
            let right = try binary(level: level + 1)
            left = .binary(symbol, left, right, location)
        }
        return left
    }

    private mutating func unary() throws -> SpecExpression {
        if case let .symbol(symbol) = current.kind, ["!", "-", "+"].contains(symbol) {
            let location = current.location
            position += 1
            try nest()
            defer { depth -= 1 }
            return .unary(symbol, try unary(), location)
        }
        return try postfix()
    }

    private mutating func postfix() throws -> SpecExpression {
        var base = try primary()
        var links = 0
        defer { depth -= links }
        while true {
            let location = current.location
            if isSymbol(".") || isSymbol("(") || isSymbol("[") {
                links += 1
                try nest()
            }
            if isSymbol(".") {
                position += 1
                let nameLocation = current.location
                base = .member(base, try identifier("a method or property name after '.'"), nameLocation)
            } else if isSymbol("(") {
                position += 1
                base = .call(base, try arguments(), location)
            } else if isSymbol("[") {
                position += 1
                let index = try expression()
                _ = try expect("]", "']'")
                base = .index(base, index, location)
            } else {
                return base
            }
        }
    }

    private mutating func arguments() throws -> [SpecArgument] {
        var arguments: [SpecArgument] = []
        if isSymbol(")") {
            position += 1
            return arguments
        }
        while true {
            if case let .identifier(label) = current.kind, isSymbol(":", peek(1)) {
                position += 2
                arguments.append(SpecArgument(label: label, value: try expression()))
            } else {
                if let last = arguments.last, last.label != nil {
                    throw SpecSyntaxError(location: current.location,
                                          message: "expected a named argument (name: value) after named arguments")
                }
                arguments.append(SpecArgument(label: nil, value: try expression()))
            }
            if isSymbol(",") {
                position += 1
                continue
            }
            _ = try expect(")", "',' or ')' in the argument list")
            return arguments
        }
    }

    private mutating func primary() throws -> SpecExpression {
        let token = current
        let location = token.location
        switch token.kind {
        case let .number(value):
            position += 1
            return .number(value, location)
        case let .string(value):
            position += 1
            return .string(value, location)
        case let .identifier(name):
            position += 1
            switch name {
            case "true": return .bool(true, location)
            case "false": return .bool(false, location)
            case "null", "undefined": return .null(location)
            default: return .name(name, location)
            }
        case .symbol(".") where { if case .identifier = peek(1).kind { return true } else { return false } }():
            // Swift's `.latest` spelling of a flatMap strategy: the name as a string.
            position += 1
            let name = try identifier("a name after '.'")
            return .string(name, location)
        case .symbol("("):
            position += 1
            let inner = try expression()
            _ = try expect(")", "')'")
            return inner
        case .symbol("["):
            position += 1
            var items: [SpecExpression] = []
            if !isSymbol("]") {
                while true {
                    items.append(try expression())
                    if isSymbol(",") { position += 1; continue }
                    break
                }
            }
            _ = try expect("]", "',' or ']' in the array")
            return .array(items, location)
        case .symbol("{"):
            position += 1
            var pairs: [(String, SpecExpression)] = []
            if !isSymbol("}") {
                while true {
                    let key: String
                    switch current.kind {
                    case let .string(value), let .identifier(value): key = value
                    default:
                        throw SpecSyntaxError(location: current.location,
                                              message: "expected a key (a string or a name), found \(Self.describe(current))")
                    }
                    position += 1
                    _ = try expect(":", "':' after the key")
                    pairs.append((key, try expression()))
                    if isSymbol(",") { position += 1; continue }
                    break
                }
            }
            _ = try expect("}", "',' or '}' in the object")
            return .object(pairs, location)
        default:
            throw SpecSyntaxError(location: location, message: "expected a value, a name or '(', found \(Self.describe(token))")
        }
    }
}

extension SpecDocument {
    /// Reads a spec. Errors name the file, line and column and show the line with a caret.
    ///
    /// - Parameters:
    ///   - text: the spec's text.
    ///   - file: the name errors report (`-` for standard input is shown as `<stdin>`).
    public static func parse(_ text: String, file: String = "<spec>") throws -> SpecDocument {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }
        var document = SpecDocument(file: file, lines: lines)
        do {
            try document.read()
        } catch let error as SpecSyntaxError {
            throw document.error(error.location, error.message)
        } catch let error as MarbleSyntaxError {
            throw document.error(SpecLocation(line: error.line, column: error.column), error.message)
        }
        if document.inputs.isEmpty && document.derived.isEmpty {
            throw document.error(SpecLocation(line: 1, column: 1),
                                 "expected at least one stream (a 'hot NAME = ...', 'cold NAME = ...' or 'NAME = EXPRESSION' line)")
        }
        return document
    }

    private struct PendingMarbles {
        let name: String
        let hot: Bool
        let text: String
        let line: Int
        let column: Int
        let location: SpecLocation
    }

    private mutating func read() throws {
        var pending: [PendingMarbles] = []
        var pendingUnsubscribe: [PendingMarbles] = []
        var valueLines: [(String, SpecLocation)] = []
        var errorLines: [(String, SpecLocation)] = []
        var frameLocation: SpecLocation?
        var names: [String: SpecLocation] = [:]

        func declare(_ name: String, _ location: SpecLocation) throws {
            if let previous = names[name] {
                throw SpecSyntaxError(location: location,
                                      message: "expected a new stream name: '\(name)' is already defined on line \(previous.line)")
            }
            names[name] = location
        }

        var offset = -1
        // An expression or JSON value with an unclosed bracket continues on the next lines.
        func continued(_ first: [SpecToken]) throws -> [SpecToken] {
            var tokens = first
            func depth() -> Int {
                tokens.reduce(0) { total, token in
                    switch token.kind {
                    case .symbol("("), .symbol("["), .symbol("{"): return total + 1
                    case .symbol(")"), .symbol("]"), .symbol("}"): return total - 1
                    default: return total
                    }
                }
            }
            while depth() > 0, offset + 1 < lines.count {
                offset += 1
                tokens.removeLast()
                tokens += try SpecLexer.tokens(Array(lines[offset]), line: offset + 1, from: 0)
            }
            return tokens
        }
        while offset + 1 < lines.count {
            offset += 1
            let line = lines[offset]
            let number = offset + 1
            let characters = Array(line)
            var index = 0
            func skipSpaces() { while index < characters.count, characters[index] == " " || characters[index] == "\t" { index += 1 } }
            func word() -> (String, SpecLocation)? {
                let start = index
                while index < characters.count, characters[index] == "_" || characters[index] == "$" || characters[index].isLetter
                        || (index > start && characters[index].isASCII && characters[index].isNumber) {
                    index += 1
                }
                return index > start ? (String(characters[start..<index]), SpecLocation(line: number, column: start + 1)) : nil
            }
            func here() -> SpecLocation { SpecLocation(line: number, column: index + 1) }
            func expectEquals(_ after: String) throws {
                skipSpaces()
                guard index < characters.count, characters[index] == "=",
                      index + 1 >= characters.count || characters[index + 1] != "=" else {
                    throw SpecSyntaxError(location: here(), message: "expected '=' after \(after)")
                }
                index += 1
                skipSpaces()
            }

            skipSpaces()
            if index == characters.count || characters[index] == "#" { continue }
            guard let (first, firstLocation) = word() else {
                throw SpecSyntaxError(location: here(),
                                      message: "expected a definition (NAME = expression), an input (hot/cold NAME = marbles), values, error, unsubscribe or frame")
            }
            skipSpaces()
            if index < characters.count, characters[index] == "=",
               index + 1 >= characters.count || characters[index + 1] != "=" {
                index += 1
                try declare(first, firstLocation)
                let tokens = try continued(try SpecLexer.tokens(characters, line: number, from: index))
                if tokens.count == 1 {
                    throw SpecSyntaxError(location: tokens[0].location, message: "expected an expression after '='")
                }
                derived.append(Derived(name: first, expression: try SpecExpressionParser.parse(tokens), location: firstLocation,
                                       source: source(of: tokens)))
                continue
            }
            switch first {
            case "frame":
                if let frameLocation {
                    throw SpecSyntaxError(location: firstLocation, message: "expected one 'frame' line (the first is on line \(frameLocation.line))")
                }
                frameLocation = firstLocation
                let tokens = try SpecLexer.tokens(characters, line: number, from: index)
                guard tokens.count == 2, case let .number(milliseconds) = tokens[0].kind else {
                    throw SpecSyntaxError(location: tokens[0].location, message: "expected a duration such as 1ms, 10 or 0.5s after 'frame'")
                }
                let nanoseconds = (milliseconds * 1e6).rounded()
                guard nanoseconds >= 1, nanoseconds < 1e15 else {
                    throw SpecSyntaxError(location: tokens[0].location, message: "expected a frame duration of at least 1ns")
                }
                frame = Int64(nanoseconds)
            case "hot", "cold", "values", "error", "unsubscribe":
                guard let (name, nameLocation) = word() else {
                    throw SpecSyntaxError(location: here(), message: "expected a stream name after '\(first)'")
                }
                try expectEquals("'\(first) \(name)'")
                let rest = String(characters[index...])
                let textLocation = SpecLocation(line: number, column: index + 1)
                switch first {
                case "hot", "cold":
                    try declare(name, nameLocation)
                    pending.append(PendingMarbles(name: name, hot: first == "hot", text: Self.stripMarbleComment(rest),
                                                  line: number, column: index, location: nameLocation))
                case "unsubscribe":
                    pendingUnsubscribe.append(PendingMarbles(name: name, hot: false, text: Self.stripMarbleComment(rest),
                                                             line: number, column: index, location: nameLocation))
                default:
                    let tokens = try continued(try SpecLexer.tokens(characters, line: number, from: index))
                    if tokens.count == 1 {
                        throw SpecSyntaxError(location: textLocation, message: "expected a JSON value after '='")
                    }
                    let value = try Self.constant(try SpecExpressionParser.parse(tokens))
                    if first == "values" {
                        guard case let .object(pairs) = value else {
                            throw SpecSyntaxError(location: textLocation,
                                                  message: "expected a JSON object mapping characters to values, found \(value.typeName)")
                        }
                        if values[name] != nil {
                            throw SpecSyntaxError(location: firstLocation, message: "expected one 'values' line for '\(name)'")
                        }
                        values[name] = pairs
                        valueLines.append((name, nameLocation))
                    } else {
                        if errors[name] != nil {
                            throw SpecSyntaxError(location: firstLocation, message: "expected one 'error' line for '\(name)'")
                        }
                        errors[name] = value
                        errorLines.append((name, nameLocation))
                    }
                }
            default:
                throw SpecSyntaxError(location: here(),
                                      message: "expected '=' after '\(first)' (or one of hot, cold, values, error, unsubscribe, frame)")
            }
        }

        for item in pending {
            let events = try MarbleNotation.parse(item.text, frame: frame, hot: item.hot, line: item.line, columnOffset: item.column)
            if let interruption = events.first(where: { $0.kind == .interrupted }) {
                throw SpecSyntaxError(location: SpecLocation(line: item.line, column: interruption.column),
                                      message: "expected a value, '-', '|' or '#': an RxJS input cannot be interrupted "
                                        + "('‖' is Signals' interruption; end a derived stream early with an 'unsubscribe' line)")
            }
            inputs.append(Input(name: item.name, hot: item.hot, marbles: item.text.trimmingTrailingSpaces,
                                events: events, location: item.location))
        }
        let inputNames = Set(inputs.map(\.name))
        for (name, location) in valueLines + errorLines where !inputNames.contains(name) {
            throw SpecSyntaxError(location: location, message: "expected the name of a hot or cold input, found '\(name)'")
        }
        for (name, pairs) in values {
            for pair in pairs where pair.key.count != 1 {
                let location = valueLines.first { $0.0 == name }?.1 ?? SpecLocation(line: 1, column: 1)
                throw SpecSyntaxError(location: location, message: "expected one-character keys in 'values \(name)', found \(SpecValue.quote(pair.key))")
            }
        }
        let derivedNames = Set(derived.map(\.name))
        for item in pendingUnsubscribe {
            guard derivedNames.contains(item.name) else {
                throw SpecSyntaxError(location: item.location, message: "expected the name of a derived stream, found '\(item.name)'")
            }
            if unsubscribe[item.name] != nil {
                throw SpecSyntaxError(location: item.location, message: "expected one 'unsubscribe' line for '\(item.name)'")
            }
            let subscription = try MarbleNotation.parseSubscription(item.text, frame: frame, line: item.line, columnOffset: item.column)
            guard let time = subscription.unsubscribe else {
                throw SpecSyntaxError(location: SpecLocation(line: item.line, column: item.column + 1),
                                      message: "expected '!' marking when '\(item.name)' is unsubscribed")
            }
            if subscription.subscribe != nil {
                throw SpecSyntaxError(location: SpecLocation(line: item.line, column: item.column + 1),
                                      message: "expected no '^': derived streams are subscribed at frame 0")
            }
            unsubscribe[item.name] = (time, item.location)
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
    static func stripMarbleComment(_ text: String) -> String {
        let characters = Array(text)
        for index in characters.indices where characters[index] == "#" && index > 0 && index + 1 < characters.count {
            if characters[index - 1].isWhitespace && characters[index + 1].isWhitespace {
                return String(characters[..<index])
            }
        }
        return text
    }

    /// The JSON value an expression writes, or an error at the first part that is not JSON.
    static func constant(_ expression: SpecExpression) throws -> SpecValue {
        switch expression {
        case let .number(value, _): return .number(value)
        case let .string(value, _): return .string(value)
        case let .bool(value, _): return .bool(value)
        case .null: return .null
        case let .array(items, _): return .array(try items.map(constant))
        case let .object(pairs, _): return .object(try pairs.map { ($0.0, try constant($0.1)) })
        case let .unary("-", .number(value, _), _): return .number(-value)
        default:
            throw SpecSyntaxError(location: expression.location, message: "expected a JSON value (number, string, true, false, null, array or object)")
        }
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var copy = self
        while let last = copy.last, last == " " || last == "\t" { copy.removeLast() }
        return copy
    }
}
