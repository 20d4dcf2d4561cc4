import MarbleNotation

// Reading a spec: the statement reader (SpecDocumentReader.swift) reads it line by line,
// with the lexer (SpecLexer.swift) and the expression parser (SpecExpressionParser.swift)
// for expressions and JSON values; then the validation pass (SpecValidation.swift) checks
// what needs the whole spec and makes the document.

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
            try document.validate(try SpecDocumentReader.read(lines))
        } catch let error as SpecSyntaxError {
            throw document.error(error.location, error.message)
        } catch let error as MarbleSyntaxError {
            throw document.error(SpecLocation(line: error.line, column: error.column), error.message)
        }
        return document
    }
}

extension String {
    /// The string without trailing spaces and tabs.
    var trimmingTrailingSpaces: String {
        var copy = self
        while let last = copy.last, last == " " || last == "\t" { copy.removeLast() }
        return copy
    }
}
