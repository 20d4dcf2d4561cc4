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
        let derived = streams.filter { !$0.isInput }.map { stream in
            stream.events.map { event -> MarbleNotation.Event in
                switch event.kind {
                case .next: return .init(time: event.time, kind: .value(legend.symbol(for: event.value?.display ?? "null")))
                case .error: return .init(time: event.time, kind: .error)
                case .complete: return .init(time: event.time, kind: .complete)
                }
            }
        }
        let shown = printingFrame(derived)
        var rows: [(label: String, line: String, zero: Int)] = []
        var derivedIndex = 0
        for stream in streams {
            if stream.isInput {
                let line = inputLine(stream, frame: shown)
                // Frame 0 is the caret's column, or its group's when it opens one, `(^a)`.
                let characters = Array(line)
                var zero = stream.isHot ? characters.firstIndex(of: "^") ?? 0 : 0
                if zero > 0, characters[zero - 1] == "(" { zero -= 1 }
                rows.append((stream.name, line, zero))
                for subscription in subscriptions.first(where: { $0.name == stream.name })?.subscriptions ?? [] {
                    rows.append(("", subscriptionLine(subscription, frame: shown), 0))
                }
            } else {
                rows.append((stream.name, MarbleNotation.print(derived[derivedIndex], frame: shown), 0))
                derivedIndex += 1
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
        if shown != frame {
            notes.append("frame \(Self.milliseconds(shown))ms: the spec's \(Self.milliseconds(frame))ms split in \(frame / shown), "
                + "so that every event is printed at its own frame")
        }
        if !notes.isEmpty { out += "\n" + notes.joined(separator: "\n") + "\n" }
        return out
    }

    /// The frame the diagram is printed at: the spec's, unless a derived stream has an event
    /// closer after a group than the group is wide (`(de)` at 2 ms and `e` at 4 ms), which the
    /// notation can only print late (`(de)e` puts the `e` at 6 ms); then the spec's frame split
    /// in the fewest parts (up to 100) at which every derived line parses back to the frames
    /// of its events. A split that cannot help leaves the spec's frame.
    private func printingFrame(_ lines: [[MarbleNotation.Event]]) -> Int64 {
        func exact(_ frame: Int64) -> Bool {
            lines.allSatisfy { events in
                guard let parsed = try? MarbleNotation.parse(MarbleNotation.print(events, frame: frame), frame: frame) else { return false }
                return parsed.count == events.count && zip(parsed, events).allSatisfy { read, event in
                    read.kind == event.kind && read.time == Self.frameStart(event.time, frame: frame)
                }
            }
        }
        for parts: Int64 in [1, 2, 4, 5, 10, 20, 25, 50, 100] where frame % parts == 0 && exact(frame / parts) {
            return frame / parts
        }
        return frame
    }

    /// The start of the frame holding `time`.
    private static func frameStart(_ time: Int64, frame: Int64) -> Int64 {
        (time >= 0 ? time / frame : -((-time + frame - 1) / frame)) * frame
    }

    /// An input as written without its spaces, when that says the same thing at `frame` (it
    /// keeps a hot line's lead-in before the first event); otherwise the events printed anew.
    private func inputLine(_ stream: Stream, frame: Int64) -> String {
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
    private func subscriptionLine(_ subscription: Subscription, frame: Int64) -> String {
        let start = subscription.subscribe / frame
        let lead = MarbleNotation.gap(start, frame: frame)
        guard let unsubscribe = subscription.unsubscribe else { return lead + "^" }
        let end = unsubscribe / frame
        if end == start { return lead + "(^!)" }
        return lead + "^" + MarbleNotation.gap(max(0, end - start - 1), frame: frame) + "!"
    }
}
