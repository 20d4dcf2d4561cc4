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

    /// The tokens of `text` from index `start`, ending with an `.end` token; `line` is the
    /// 1-based line number the locations carry.
    static func tokens(_ text: [Character], line: Int, from start: Int) throws -> [SpecToken] {
        var tokens: [SpecToken] = []
        var index = start
        while index < text.count {
            let character = text[index]
            let location = SpecLocation(line: line, column: index + 1)
            if character == " " || character == "\t" || character == "\r" {
                index += 1
                continue
            }
            if character == "#" { break }
            let kind: SpecToken.Kind
            if isDigit(character) {
                (kind, index) = try number(text, from: index, line: line)
            } else if character == "\"" || character == "'" {
                (kind, index) = try string(text, from: index, line: line)
            } else if character == "_" || character == "$" || character.isLetter {
                (kind, index) = identifier(text, from: index)
            } else if let symbol = symbols.first(where: { matches($0, text, at: index) }) {
                (kind, index) = (.symbol(symbol), index + symbol.count)
            } else {
                throw SpecSyntaxError(location: location, message: "unexpected character '\(character)'")
            }
            tokens.append(SpecToken(kind: kind, location: location))
        }
        tokens.append(SpecToken(kind: .end, location: SpecLocation(line: line, column: index + 1)))
        return tokens
    }

    private static func isDigit(_ character: Character) -> Bool { character.isASCII && character.isNumber }

    private static func matches(_ symbol: String, _ text: [Character], at index: Int) -> Bool {
        let characters = Array(symbol)
        guard index + characters.count <= text.count else { return false }
        return Array(text[index..<index + characters.count]) == characters
    }

    /// A name: letters, `_`, `$`, and digits after the first character.
    private static func identifier(_ text: [Character], from start: Int) -> (SpecToken.Kind, Int) {
        var index = start
        while index < text.count, text[index] == "_" || text[index] == "$" || text[index].isLetter || isDigit(text[index]) {
            index += 1
        }
        return (.identifier(String(text[start..<index])), index)
    }

    /// Appends the digits from `index` on to `digits`, moving `index` past them.
    private static func scanDigits(_ text: [Character], _ index: inout Int, into digits: inout String) {
        while index < text.count, isDigit(text[index]) {
            digits.append(text[index])
            index += 1
        }
    }

    /// A number, optionally with a duration unit (`20ms`, `0.5s`, `2m`), always in milliseconds.
    private static func number(_ text: [Character], from start: Int, line: Int) throws -> (SpecToken.Kind, Int) {
        var index = start
        var digits = ""
        scanDigits(text, &index, into: &digits)
        if index + 1 < text.count, text[index] == ".", isDigit(text[index + 1]) {
            digits.append(".")
            index += 1
            scanDigits(text, &index, into: &digits)
        }
        if index < text.count, text[index] == "e" || text[index] == "E" {
            var exponent = "e"
            var next = index + 1
            if next < text.count, text[next] == "+" || text[next] == "-" {
                exponent.append(text[next])
                next += 1
            }
            if next < text.count, isDigit(text[next]) {
                scanDigits(text, &next, into: &exponent)
                digits += exponent
                index = next
            }
        }
        guard let value = Double(digits) else {
            throw SpecSyntaxError(location: SpecLocation(line: line, column: start + 1), message: "expected a number")
        }
        return try withUnit(value, text, from: index, line: line)
    }

    /// The number `value` scaled by the duration unit written from `index` on, if any.
    private static func withUnit(_ value: Double, _ text: [Character], from index: Int,
                                 line: Int) throws -> (SpecToken.Kind, Int) {
        var unit = ""
        var end = index
        while end < text.count, text[end].isLetter || text[end] == "_" {
            unit.append(text[end])
            end += 1
        }
        switch unit {
        case "": return (.number(value), index)
        case "ms": return (.number(value), end)
        case "s": return (.number(value * 1000), end)
        case "m": return (.number(value * 60_000), end)
        default:
            throw SpecSyntaxError(location: SpecLocation(line: line, column: index + 1),
                                  message: "expected a duration unit 'ms', 's' or 'm' after the number, found '\(unit)'")
        }
    }

    /// A string in single or double quotes, with `\n`, `\t`, `\r`, `\uXXXX` and `\`-escaped
    /// characters.
    private static func string(_ text: [Character], from start: Int, line: Int) throws -> (SpecToken.Kind, Int) {
        let quote = text[start]
        var index = start + 1
        var value = ""
        while index < text.count {
            let character = text[index]
            if character == quote { return (.string(value), index + 1) }
            guard character == "\\" else {
                value.append(character)
                index += 1
                continue
            }
            guard index + 1 < text.count else { break }
            index = try escape(text, at: index, line: line, into: &value)
        }
        throw SpecSyntaxError(location: SpecLocation(line: line, column: start + 1),
                              message: "expected \(quote) to close the string started here")
    }

    /// Appends the character that the escape at `index` (a backslash followed by at least one
    /// character) stands for; returns the index after the escape.
    private static func escape(_ text: [Character], at index: Int, line: Int, into value: inout String) throws -> Int {
        switch text[index + 1] {
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
            return index + 6
        case let escaped: value.append(escaped)
        }
        return index + 2
    }
}
