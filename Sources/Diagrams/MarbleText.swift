/// Plain-text marble lines for a terminal, in the RxJS notation: `-` time passing, a
/// character per value, `(ab)` values at one time, `|` completed, `#` failed, `‖` interrupted,
/// `!` disposed (unsubscribed, as in an RxJS subscription line), `^` subscribed, `~` idle time
/// cut out: each symbol means what it means in `MarbleNotation`. Values longer than one
/// character get a letter, listed under the lines; past the 62 letters and digits, a number
/// in brackets (`[63]`), listed the same way.
///
/// Nothing is left out: every value, subscription and end of a lane is on its line, in time
/// order, however many share a column (they are one group, `(ab|)`), so a lane shows the
/// same symbols whichever other lanes are drawn with it.
public enum MarbleText {
    private static let reserved: Set<Character> = ["-", "|", "#", "^", "!", "\u{2016}", "(", ")", "~", "*", "?", " ", "[", "]"]
    static let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    static let letterOrder: [String: Int] = Dictionary(uniqueKeysWithValues: letters.enumerated().map { (String($0.element), $0.offset) })

    /// The figure as marble lines, one per lane, operators between them.
    public static func render(_ figure: MarbleFigure) -> String {
        let lanes = figure.lanes
        let keys = assignKeys(lanes)
        var times: [Int64] = []
        for lane in lanes {
            times += lane.marbles.map(\.time)
            if let subscribed = lane.subscribed { times.append(subscribed) }
            if let end = lane.end { times.append(end.time) }
            times += lane.marks.map(\.time)
        }
        let slots = Array(Set(times)).sorted()
        let scale = TimeScale(times: slots, startX: 0, minWidth: Double(min(slots.count * 2, 60)), maxWidth: 100,
                              spacing: 2, breakWidth: 2, cuts: figure.cutsIdleTime)

        // A token per lane per time: its values' keys, `(ab)` for several, then its end.
        var tokens: [[Int64: [String]]] = []
        for lane in lanes {
            var byTime: [Int64: [String]] = [:]
            for marble in lane.marbles.enumerated().sorted(by: { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }) {
                byTime[marble.element.time, default: []].append(keys.key[marble.element.display] ?? "?")
            }
            for mark in lane.marks {
                switch mark.kind {
                case let .subscribed(at): byTime[at, default: []].append("^")
                case let .ended(end): byTime[end.time, default: []].append(symbol(end))
                }
            }
            if let end = lane.end {
                byTime[end.time, default: []].append(symbol(end))
            }
            if let subscribed = lane.subscribed, byTime[subscribed] == nil { byTime[subscribed] = ["^"] }
            tokens.append(byTime)
        }

        // A column per frame, as wide as its widest token: times less than a column of the
        // scale after a frame's first time are in that frame (a recorded trace's events a few
        // microseconds apart, as an operator passes a value on, are drawn at one place), and a
        // lane's symbols in one frame are one group, `(ab)`, in time order. A frame holding
        // many of a lane's symbols is as wide as they are: none is dropped.
        var columns: [Int64: Int] = [:]
        var cells: [[Int: String]] = Array(repeating: [:], count: lanes.count)
        var breakColumns: [Int] = []
        var frames: [[Int64]] = []
        var frameX = -Double.infinity
        var breakIndex = 0
        for time in slots {
            let x = scale.x(time)
            var crossesBreak = false
            while breakIndex < scale.breaks.count, scale.breaks[breakIndex].to <= time {
                crossesBreak = true
                breakIndex += 1
            }
            if x - frameX < 1, !crossesBreak {
                frames[frames.count - 1].append(time)
            } else {
                frames.append([time])
                frameX = x
            }
        }
        var next = 0
        breakIndex = 0
        for frame in frames {
            let first = frame[0]
            while breakIndex < scale.breaks.count, scale.breaks[breakIndex].to <= first {
                breakColumns.append(next)
                next += 2
                breakIndex += 1
            }
            let column = max(next, Int(scale.x(first).rounded()))
            var width = 1
            for (index, byTime) in tokens.enumerated() {
                let symbols = frame.flatMap { byTime[$0] ?? [] }
                guard !symbols.isEmpty else { continue }
                let token = symbols.count == 1 ? symbols[0] : "(" + symbols.joined() + ")"
                cells[index][column] = token
                width = max(width, token.count)
            }
            for time in frame { columns[time] = column }
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
                out.append(line(lane, title: titles[laneIndex], labelWidth: labelWidth, cells: cells[laneIndex],
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
        // Every key the lines use for a value other than itself, in the order keys are given.
        let used = Set(tokens.flatMap { $0.values.joined() })
        let legend = keys.order.filter { $0.key != $0.display && used.contains($0.key) }
        if !legend.isEmpty {
            out.append("")
            for (display, key) in legend { out.append("  \(key) = \(TextSafety.singleLine(display))") }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// The marble-notation symbol of a lane's end.
    private static func symbol(_ end: MarbleFigure.End) -> String {
        switch end {
        case .completed: return "|"
        case .failed: return "#"
        case .interrupted: return "\u{2016}"
        case .disposed: return "!"
        }
    }

    private static func line(_ lane: MarbleFigure.Lane, title: String, labelWidth: Int, cells tokens: [Int: String],
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
        for (column, token) in tokens {
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

    /// A key per distinct display: itself when it is one plain character not otherwise used
    /// as a key, else the next free letter or digit, and past those `[63]`, `[64]`, … (never
    /// `?`: a value always has a key of its own). With the keys in the order they were given.
    private static func assignKeys(_ lanes: [MarbleFigure.Lane]) -> (key: [String: String], order: [(display: String, key: String)]) {
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
        var pool = letters.filter { !taken.contains($0) }.makeIterator()
        var order: [(display: String, key: String)] = []
        var numbered = letters.count
        for display in displays where keys[display] == nil {
            let key: String
            if let letter = pool.next() {
                key = String(letter)
            } else {
                numbered += 1
                key = "[\(numbered)]"
            }
            keys[display] = key
            order.append((display, key))
        }
        return (keys, order)
    }
}
