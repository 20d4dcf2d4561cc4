/// Plain-text marble lines for a terminal, in the RxJS notation: `-` time passing, a
/// character per value, `(ab)` values at one time, `|` completed, `#` failed, `!` interrupted
/// or disposed, `^` subscribed, `~` idle time cut out. Values longer than one character get
/// a letter, listed under the lines.
public enum MarbleText {
    private static let reserved: Set<Character> = ["-", "|", "#", "^", "!", "(", ")", "~", " "]

    /// The figure as marble lines, one per lane, operators between them.
    public static func render(_ figure: MarbleFigure) -> String {
        let lanes = figure.lanes
        let keys = assignKeys(lanes)
        var times: [Int64] = []
        for lane in lanes {
            times += lane.marbles.map(\.time)
            if let subscribed = lane.subscribed { times.append(subscribed) }
            if let end = lane.end { times.append(end.time) }
        }
        let slots = Array(Set(times)).sorted()
        let scale = TimeScale(times: slots, startX: 0, minWidth: Double(min(slots.count * 2, 60)), maxWidth: 100,
                              spacing: 2, breakWidth: 2)

        // A token per lane per time; a slot is as wide as its widest token.
        var tokens: [[Int64: String]] = []
        for lane in lanes {
            var byTime: [Int64: [String]] = [:]
            for marble in lane.marbles.enumerated().sorted(by: { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }) {
                byTime[marble.element.time, default: []].append(keys[marble.element.display] ?? "?")
            }
            if let end = lane.end {
                let symbol: String
                switch end {
                case .completed: symbol = "|"
                case .failed: symbol = "#"
                case .interrupted, .disposed: symbol = "!"
                }
                byTime[end.time, default: []].append(symbol)
            }
            if let subscribed = lane.subscribed, byTime[subscribed] == nil { byTime[subscribed] = ["^"] }
            tokens.append(byTime.mapValues { $0.count == 1 ? $0[0] : "(" + $0.joined() + ")" })
        }
        var columns: [Int64: Int] = [:]
        var next = 0
        var breakColumns: [Int] = []
        var breakIndex = 0
        for time in slots {
            while breakIndex < scale.breaks.count, scale.breaks[breakIndex].to <= time {
                breakColumns.append(next)
                next += 2
                breakIndex += 1
            }
            let column = max(next, Int(scale.x(time).rounded()))
            columns[time] = column
            let width = tokens.map { ($0[time] ?? "-").count }.max() ?? 1
            next = column + width + 1
        }
        let lineWidth = next + 1

        let titles = lanes.map { ($0.isInner ? "  " : "") + TextSafety.truncated(TextSafety.singleLine($0.title), to: 28) }
        let labelWidth = (titles.map(\.count).max() ?? 0) + 2
        var out: [String] = []
        if let title = figure.title { out.append(TextSafety.singleLine(title)); out.append("") }
        var laneIndex = 0
        for row in figure.rows {
            switch row {
            case let .operator(op):
                out.append(String(repeating: " ", count: labelWidth) + "[ " + TextSafety.singleLine(op.text) + " ]")
            case let .lane(lane):
                out.append(line(lane, title: titles[laneIndex], labelWidth: labelWidth, tokens: tokens[laneIndex],
                                columns: columns, breaks: breakColumns, width: lineWidth, threads: figure.threads))
                laneIndex += 1
            }
        }
        if let first = slots.first, let last = slots.last {
            var axis = "time \(TimeFormat.duration(first)) \u{2192} \(TimeFormat.duration(last))"
            if !scale.breaks.isEmpty { axis += "; ~ marks idle time cut out" }
            out.append("")
            out.append(axis)
        }
        let legend = keys.filter { $0.key.count != 1 || $0.value != $0.key }.sorted { $0.value < $1.value }
        if !legend.isEmpty {
            out.append("")
            for (display, key) in legend { out.append("  \(key) = \(TextSafety.singleLine(display))") }
        }
        return out.joined(separator: "\n") + "\n"
    }

    private static func line(_ lane: MarbleFigure.Lane, title: String, labelWidth: Int, tokens: [Int64: String],
                             columns: [Int64: Int], breaks: [Int], width: Int, threads: [String]) -> String {
        var cells = [Character](repeating: " ", count: width)
        let start = lane.subscribed.flatMap { columns[$0] } ?? 0
        let end = lane.end.flatMap { columns[$0.time] } ?? (width - 1)
        if start <= end {
            for column in start...end { cells[column] = "-" }
        }
        for column in breaks where column >= start && column + 1 <= end {
            cells[column] = "~"
            cells[column + 1] = "~"
        }
        for (time, token) in tokens {
            guard let column = columns[time] else { continue }
            for (offset, character) in token.enumerated() where column + offset < width {
                cells[column + offset] = character
            }
        }
        var text = title.padding(toLength: labelWidth, withPad: " ", startingAt: 0)
        text += String(cells).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        let used = Array(Set(lane.marbles.map(\.thread))).sorted().compactMap { threads.indices.contains($0) ? threads[$0] : nil }
        if !used.isEmpty { text += "   on " + used.map(TextSafety.singleLine).joined(separator: ", ") }
        return text
    }

    /// A one-character key per distinct display: itself when it is one plain character not
    /// otherwise used as a key, else the next free letter.
    private static func assignKeys(_ lanes: [MarbleFigure.Lane]) -> [String: String] {
        var displays: [String] = []
        var seen: Set<String> = []
        for lane in lanes {
            for marble in lane.marbles where seen.insert(marble.display).inserted { displays.append(marble.display) }
        }
        var keys: [String: String] = [:]
        var taken: Set<Character> = []
        for display in displays where display.count == 1 {
            if let character = display.first, !reserved.contains(character), character.isLetter || character.isNumber
                || character.isPunctuation || character.isSymbol {
                keys[display] = display
                taken.insert(character)
            }
        }
        var pool = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789").filter { !taken.contains($0) }.makeIterator()
        for display in displays where keys[display] == nil {
            keys[display] = pool.next().map(String.init) ?? "*"
        }
        return keys
    }
}
