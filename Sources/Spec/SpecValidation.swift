import MarbleNotation

extension SpecDocument {
    /// The validation pass: makes the document from the statements read, checking what needs
    /// the whole spec — marbles parsed with the final frame, `values` and `error` lines naming
    /// inputs, one-character value keys, `unsubscribe` lines naming derived streams, at least
    /// one stream, and no stream referring to itself.
    mutating func validate(_ statements: SpecStatements) throws {
        frame = statements.frame
        derived = statements.derived
        values = statements.values
        errors = statements.errors
        for line in statements.inputs {
            try addInput(line)
        }
        try checkValueAndErrorLines(statements)
        for line in statements.unsubscribes {
            try addUnsubscribe(line)
        }
        if inputs.isEmpty && derived.isEmpty {
            throw SpecSyntaxError(location: SpecLocation(line: 1, column: 1),
                                  message: "expected at least one stream (a 'hot NAME = ...', 'cold NAME = ...' or 'NAME = EXPRESSION' line)")
        }
        try checkReferences()
    }

    /// A `hot` or `cold` line, its marbles parsed with the final frame: an RxJS input is never
    /// interrupted.
    private mutating func addInput(_ line: SpecStatements.MarbleLine) throws {
        let events = try MarbleNotation.parse(line.text, frame: frame, hot: line.hot, line: line.line,
                                              columnOffset: line.column)
        if let interruption = events.first(where: { $0.kind == .interrupted }) {
            throw SpecSyntaxError(location: SpecLocation(line: line.line, column: interruption.column),
                                  message: "expected a value, '-', '|' or '#': an RxJS input cannot be interrupted "
                                    + "('‖' is Signals' interruption; end a derived stream early with an 'unsubscribe' line)")
        }
        inputs.append(Input(name: line.name, hot: line.hot, marbles: line.text.trimmingTrailingSpaces,
                            events: events, location: line.location))
    }

    /// `values` and `error` lines name inputs; value keys are single characters.
    private func checkValueAndErrorLines(_ statements: SpecStatements) throws {
        let inputNames = Set(inputs.map(\.name))
        for (name, location) in statements.valueLines + statements.errorLines where !inputNames.contains(name) {
            throw SpecSyntaxError(location: location, message: "expected the name of a hot or cold input, found '\(name)'")
        }
        for (name, location) in statements.valueLines {
            for pair in values[name] ?? [] where pair.key.count != 1 {
                throw SpecSyntaxError(location: location,
                                      message: "expected one-character keys in 'values \(name)', found \(SpecValue.quote(pair.key))")
            }
        }
    }

    /// An `unsubscribe` line: a derived stream, once, with a `!` and no `^`.
    private mutating func addUnsubscribe(_ line: SpecStatements.MarbleLine) throws {
        guard derivedNames.contains(line.name) else {
            throw SpecSyntaxError(location: line.location, message: "expected the name of a derived stream, found '\(line.name)'")
        }
        if unsubscribe[line.name] != nil {
            throw SpecSyntaxError(location: line.location, message: "expected one 'unsubscribe' line for '\(line.name)'")
        }
        let subscription = try MarbleNotation.parseSubscription(line.text, frame: frame, line: line.line,
                                                                columnOffset: line.column)
        guard let time = subscription.unsubscribe else {
            throw SpecSyntaxError(location: SpecLocation(line: line.line, column: line.column + 1),
                                  message: "expected '!' marking when '\(line.name)' is unsubscribed")
        }
        if subscription.subscribe != nil {
            throw SpecSyntaxError(location: SpecLocation(line: line.line, column: line.column + 1),
                                  message: "expected no '^': derived streams are subscribed at frame 0")
        }
        unsubscribe[line.name] = (time, line.location)
    }
}
