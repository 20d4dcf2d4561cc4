import MarbleNotation
extension SpecResult {
    /// Milliseconds from nanoseconds: whole numbers print bare, fractions in shortest form.
    static func milliseconds(_ nanoseconds: Int64) -> String {
        nanoseconds % 1_000_000 == 0 ? String(nanoseconds / 1_000_000) : SpecValue.format(Double(nanoseconds) / 1e6)
    }

    /// The run as JSON: `{"streams": {NAME: {"events": [{"t", "kind", "value"}]}},
    /// "subscriptions": {INPUT: [{"subscribe", "unsubscribe"}]}}`, streams in spec order
    /// (inputs first), times in virtual milliseconds. A `complete` event has no value.
    public func json() -> String {
        var out = "{\n  \"streams\": {"
        for (index, stream) in streams.enumerated() {
            let events = stream.events.map { event -> String in
                var item = "{\"t\": \(Self.milliseconds(event.time)), \"kind\": \"\(event.kind.rawValue)\""
                if let value = event.value { item += ", \"value\": \(value.json)" }
                return item + "}"
            }
            out += (index == 0 ? "\n" : ",\n") + "    \(SpecValue.quote(stream.name)): {\"events\": [" + events.joined(separator: ", ") + "]}"
        }
        out += streams.isEmpty ? "},\n" : "\n  },\n"
        out += "  \"subscriptions\": {"
        for (index, entry) in subscriptions.enumerated() {
            let items = entry.subscriptions.map { subscription in
                "{\"subscribe\": \(Self.milliseconds(subscription.subscribe)), \"unsubscribe\": "
                    + (subscription.unsubscribe.map(Self.milliseconds) ?? "null") + "}"
            }
            out += (index == 0 ? "\n" : ",\n") + "    \(SpecValue.quote(entry.name)): [" + items.joined(separator: ", ") + "]"
        }
        out += subscriptions.isEmpty ? "}\n}\n" : "\n  }\n}\n"
        return out
    }

    /// The run as an aligned marble diagram for a terminal: each input (with a line per
    /// subscription under it), then each derived stream, frame 0 in one column; then a legend
    /// for input values, error values, and derived values longer than one character.
    public func diagram() -> String {
        let derivedTexts = streams.filter { !$0.isInput }.flatMap { stream in
            stream.events.compactMap { $0.kind == .next ? $0.value?.display : nil }
        }
        let inputSymbols = Set(streams.filter(\.isInput).flatMap { stream in
            stream.marbleEvents.compactMap { event -> String? in
                if case let .value(symbol) = event.kind { return symbol }
                return nil
            }
        })
        let legend = MarbleLegend(derivedTexts, reserving: inputSymbols)
        var rows: [(label: String, line: String, zero: Int)] = []
        for stream in streams {
            if stream.isInput {
                let line = inputLine(stream)
                let zero = stream.isHot ? Array(line).firstIndex(of: "^") ?? 0 : 0
                rows.append((stream.name, line, zero))
                for subscription in subscriptions.first(where: { $0.name == stream.name })?.subscriptions ?? [] {
                    rows.append(("", subscriptionLine(subscription), 0))
                }
            } else {
                let events = stream.events.map { event -> MarbleNotation.Event in
                    switch event.kind {
                    case .next: return .init(time: event.time, kind: .value(legend.symbol(for: event.value?.display ?? "null")))
                    case .error: return .init(time: event.time, kind: .error)
                    case .complete: return .init(time: event.time, kind: .complete)
                    }
                }
                rows.append((stream.name, MarbleNotation.print(events, frame: frame), 0))
            }
        }
        let width = (rows.map(\.label.count).max() ?? 0) + 2
        let lead = rows.map(\.zero).max() ?? 0
        var out = ""
        for row in rows {
            let label = row.label + String(repeating: " ", count: width - row.label.count)
            out += (label + String(repeating: " ", count: lead - row.zero) + row.line).trimmingTrailingSpaces + "\n"
        }
        var notes: [String] = []
        for stream in streams {
            var parts: [String] = []
            if stream.isInput {
                var seen = Set<String>()
                for event in stream.marbleEvents {
                    guard case let .value(symbol) = event.kind, seen.insert(symbol).inserted else { continue }
                    if let value = stream.events.first(where: { $0.time == event.time && $0.kind == .next })?.value,
                       value.display != symbol || !isString(value) {
                        parts.append("\(symbol) = \(value.json)")
                    }
                }
            }
            if let error = stream.events.first(where: { $0.kind == .error })?.value, !error.strictlyEquals(.string("error")) {
                parts.append("# = \(error.json)")
            }
            if !parts.isEmpty { notes.append("\(stream.name): " + parts.joined(separator: ", ")) }
        }
        if !legend.entries.isEmpty {
            notes.append("values: " + legend.entries.map { "\($0.symbol) = \($0.text)" }.joined(separator: ", "))
        }
        if !notes.isEmpty { out += "\n" + notes.joined(separator: "\n") + "\n" }
        return out
    }

    /// An input as written without its spaces, when that says the same thing (it keeps a hot
    /// line's lead-in before the first event); otherwise the events printed anew.
    private func inputLine(_ stream: Stream) -> String {
        let compact = stream.marbles.filter { $0 != " " && $0 != "\t" }
        if let reparsed = try? MarbleNotation.parse(compact, frame: frame, hot: stream.isHot),
           reparsed.elementsEqual(stream.marbleEvents, by: { $0.time == $1.time && $0.kind == $1.kind }) {
            return compact
        }
        return MarbleNotation.print(stream.marbleEvents, frame: frame, hot: stream.isHot)
    }

    private func isString(_ value: SpecValue) -> Bool {
        if case .string = value { return true }
        return false
    }

    /// `^` where a subscription began and `!` where it ended, in frames.
    private func subscriptionLine(_ subscription: Subscription) -> String {
        let start = subscription.subscribe / frame
        let lead = MarbleNotation.gap(start, frame: frame)
        guard let unsubscribe = subscription.unsubscribe else { return lead + "^" }
        let end = unsubscribe / frame
        if end == start { return lead + "(^!)" }
        return lead + "^" + MarbleNotation.gap(max(0, end - start - 1), frame: frame) + "!"
    }
}
