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
            return .array(try arrayItems(), location)
        case .symbol("{"):
            position += 1
            return .object(try objectPairs(), location)
        default:
            throw SpecSyntaxError(location: location, message: "expected a value, a name or '(', found \(Self.describe(token))")
        }
    }

    /// The items of an array literal after its `[`, up to and including the `]`.
    private mutating func arrayItems() throws -> [SpecExpression] {
        var items: [SpecExpression] = []
        if !isSymbol("]") {
            while true {
                items.append(try expression())
                if isSymbol(",") { position += 1; continue }
                break
            }
        }
        _ = try expect("]", "',' or ']' in the array")
        return items
    }

    /// The key-value pairs of an object literal after its `{`, up to and including the `}`.
    private mutating func objectPairs() throws -> [(String, SpecExpression)] {
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
        return pairs
    }
}

extension SpecExpressionParser {
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
