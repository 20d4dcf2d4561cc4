import MarbleNotation

/// Plain-text marble lines for a terminal, in the RxJS notation: `-` time passing, a
/// character per value, `(ab)` values at one time, `|` completed, `#` failed, `‖` interrupted,
/// `!` disposed (unsubscribed, as in an RxJS subscription line), `^` subscribed, and idle
/// time cut out written as a time progression (` 480ms `): each means what it means in
/// `MarbleNotation`. Values longer than one
/// character get a letter, listed under the lines; past the 62 letters and digits, a number
/// in brackets (`[63]`), listed the same way.
///
/// Nothing is left out: every value, subscription and end of a lane is on its line, in time
/// order, however many share a column (they are one group, `(ab|)`), so a lane shows the
/// same symbols whichever other lanes are drawn with it.
public enum MarbleText {
    private static let reserved: Set<Character> = ["-", "|", "#", "^", "!", "\u{2016}", "(", ")", "~", "*", "?", " ", "[", "]"]
    static let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")

    /// The figure as marble lines, one per lane, operators between them.
    ///
    /// Time is uniform: one frame per column, the same frame in every lane (the axis line
    /// names it), so events the same time apart are the same number of columns apart
    /// wherever they are, and a lane's line parses back with `MarbleNotation.parse` (at that
    /// frame) to the times its events are drawn at. A time is drawn at its frame (rounded
    /// down); a lane's events in one frame are one group, `(ab)`. A group, or a `[63]` key,
    /// takes a frame per character, as the notation reads it: an event less than that after
    /// it is drawn later, and every lane with it, so the columns stay aligned. With cuts, an
    /// idle stretch of every lane is written as a time progression, ` 480ms `, which the
    /// notation reads as that much time.
    public static func render(_ figure: MarbleFigure) -> String {
        let lanes = figure.lanes
        let (keys, symbols, times, layout) = laidOut(figure)

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
                let text = layout.line(laneIndex, lane: lane)
                var line = titles[laneIndex].padding(toLength: labelWidth, withPad: " ", startingAt: 0) + text
                let used = Array(Set(lane.marbles.map(\.thread))).sorted()
                    .compactMap { figure.threads.indices.contains($0) ? figure.threads[$0] : nil }
                if !used.isEmpty { line += "   on " + used.map(TextSafety.singleLine).joined(separator: ", ") }
                out.append(line)
                laneIndex += 1
            }
        }
        if let first = times.first, let last = times.last {
            var axis = "frame \(TimeFormat.duration(layout.frame)): one column each; time \(TimeFormat.duration(first)) \u{2192} \(TimeFormat.duration(last))"
            if layout.hasCuts { axis += "; a time such as ` 480ms ` is idle time cut out" }
            out.append("")
            out.append(axis)
        }
        // Every key the lines use for a value other than itself, in the order keys are given.
        let used = Set(symbols.flatMap { $0.map(\.symbol) })
        let legend = keys.order.filter { $0.key != $0.display && used.contains($0.key) }
        if !legend.isEmpty {
            out.append("")
            for (display, key) in legend { out.append("  \(key) = \(TextSafety.singleLine(display))") }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// Each lane's marble line as `render` writes it (without its title and threads), with
    /// the frame and, per lane, each symbol's column and the time it is drawn at (its
    /// frame's time, later where a wider group before it pushed it): what the notation must
    /// read back from the line (`MarbleNotation.parse` at `frame`, relative to the lane's `^`).
    public static func drawing(_ figure: MarbleFigure) -> Drawing {
        let lanes = figure.lanes
        let layout = laidOut(figure).layout
        return Drawing(frame: layout.frame, start: layout.start, lanes: lanes.indices.map { index in
            Drawing.Lane(text: layout.line(index, lane: lanes[index]), symbols: layout.placed[index])
        })
    }

    /// What `drawing(_:)` gives.
    public struct Drawing: Sendable {
        /// One column's duration, in nanoseconds.
        public var frame: Int64
        /// The time of column 0.
        public var start: Int64
        /// The lanes, top to bottom.
        public var lanes: [Lane]

        /// One lane of the drawing: its marble line and where each symbol of it falls.
        public struct Lane: Sendable {
            /// The marble line.
            public var text: String
            /// Each symbol in the order written: its column in `text`, the time it is drawn
            /// at, and the symbol (a key, `^`, `|`, `#`, `‖` or `!`).
            public var symbols: [(column: Int, time: Int64, symbol: String)]
        }
    }

    /// What does not read back: each lane that is one stream of the notation (one `^` at
    /// most, one end at most: a lane merging several subscriptions, an inner chain that a
    /// `retry` restarted, is not) must parse (`MarbleNotation.parse` at the drawing's frame,
    /// hot when it has a `^`) to exactly its symbols at the times they are drawn at, relative
    /// to its `^` or to column 0; a disposal `!` is read from the same line as a subscription
    /// line. Empty when everything reads back. Lanes are named by index and title.
    public static func roundTripProblems(_ figure: MarbleFigure) -> [String] {
        let drawing = drawing(figure)
        let ends = TextLayout.ends
        var problems: [String] = []
        for (index, lane) in drawing.lanes.enumerated() where !lane.text.isEmpty {
            let name = "lane \(index) (\(figure.lanes[index].title))"
            let carets = lane.symbols.filter { $0.symbol == "^" }
            guard carets.count <= 1, lane.symbols.filter({ ends.contains($0.symbol) }).count <= 1 else { continue }
            let origin = carets.first?.time ?? drawing.start
            // The event line: `!` read as time passing (a group of nothing else as frames,
            // `(^!)` as a `^` and frames); the subscription line: only `^`, `!` and the groups'
            // parentheses.
            let events = lane.text.map { $0 == "!" ? "-" : String($0) }.joined()
                .replacingOccurrences(of: "\\((-*)\\)", with: "-$1-", options: .regularExpression)
                .replacingOccurrences(of: "\\(\\^(-*)\\)", with: "^-$1-", options: .regularExpression)
            let expected = lane.symbols.filter { $0.symbol != "^" && $0.symbol != "!" }.map { symbol in
                "\(symbol.time - origin) " + symbol.symbol
            }
            do {
                let parsed = try MarbleNotation.parse(events, frame: drawing.frame, hot: !carets.isEmpty).map {
                    "\($0.time) " + $0.kind.symbol
                }
                if parsed != expected {
                    problems.append("\(name): \(lane.text) reads back as \(parsed), drawn as \(expected)")
                }
                if let disposed = lane.symbols.first(where: { $0.symbol == "!" }) {
                    var cells = Array(lane.text)
                    for symbol in lane.symbols where symbol.symbol != "^" && symbol.symbol != "!" {
                        for offset in 0..<symbol.symbol.count where symbol.column + offset < cells.count {
                            cells[symbol.column + offset] = "-"
                        }
                    }
                    let subscriptionLine = String(cells)
                    let read = try MarbleNotation.parseSubscription(subscriptionLine, frame: drawing.frame)
                    let readOrigin = read.subscribe ?? 0
                    if read.unsubscribe.map({ $0 - readOrigin }) != disposed.time - origin {
                        problems.append("\(name): \(lane.text): its '!' reads back at \(read.unsubscribe.map { $0 - readOrigin } ?? -1), "
                                        + "drawn at \(disposed.time - origin)")
                    }
                }
            } catch {
                problems.append("\(name): \(lane.text) does not parse: \(error)")
            }
        }
        return problems
    }

    /// The figure's keys, each lane's symbols, the distinct times, and where they go.
    private static func laidOut(_ figure: MarbleFigure)
        -> (keys: (key: [String: String], order: [(display: String, key: String)]),
            symbols: [[(time: Int64, order: Int, symbol: String)]], times: [Int64], layout: TextLayout) {
        let keys = assignKeys(figure.lanes)
        let symbols = laneSymbols(figure.lanes, keys: keys.key)
        let times = Array(Set(symbols.flatMap { $0.map(\.time) })).sorted()
        return (keys, symbols, times, TextLayout.best(times: times, symbols: symbols, cuts: figure.cutsIdleTime))
    }

    /// Per lane, its symbols in the order they are written: time, then `^` before values
    /// before ends at one time.
    static func laneSymbols(_ lanes: [MarbleFigure.Lane], keys: [String: String]) -> [[(time: Int64, order: Int, symbol: String)]] {
        lanes.map { lane in
            var list: [(time: Int64, order: Int, symbol: String)] = []
            for marble in lane.marbles { list.append((marble.time, 1, keys[marble.display] ?? "?")) }
            for mark in lane.marks {
                switch mark.kind {
                case let .subscribed(at): list.append((at, 0, "^"))
                case let .ended(end): list.append((end.time, 2, symbol(end)))
                }
            }
            if let end = lane.end { list.append((end.time, 2, symbol(end))) }
            if let subscribed = lane.subscribed, !list.contains(where: { $0.time == subscribed && $0.symbol == "^" }) {
                list.append((subscribed, 0, "^"))
            }
            return list.enumerated()
                .sorted { ($0.element.time, $0.element.order, $0.offset) < ($1.element.time, $1.element.order, $1.offset) }
                .map(\.element)
        }
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

/// Where a text figure's symbols go: one frame per column for every lane, groups and wide
/// keys pushing what follows them (in every lane), idle stretches cut into time progressions.
struct TextLayout {
    let frame: Int64
    /// The time of column 0: the figure's first time.
    var start: Int64 = 0
    /// Per lane, each symbol's column, drawn time and text, in order.
    var placed: [[(column: Int, time: Int64, symbol: String)]]
    /// The cut-out stretches: first column, the text written there (` 480ms `).
    var cuts: [(column: Int, text: String)] = []
    var width = 0
    /// How many frames events are in, after the first: the waits between them.
    var waits = 0
    var hasCuts: Bool { !cuts.isEmpty }
    /// The symbols that end a lane's stream.
    static let ends: Set<String> = ["|", "#", "\u{2016}", "!"]

    /// The widest a figure is made, in columns, when a frame can keep it so.
    static let targetWidth = 100
    /// An idle stretch of every lane longer than this many frames is cut (with cuts on).
    static let cutFrames: Int64 = 12
    /// The frames tried, in nanoseconds: 1, 2 and 5 times each power of ten from 1 ns (up
    /// to the whole range of virtual time, so any trace fits).
    static let frames: [Int64] = (0...18).flatMap { power -> [Int64] in
        let unit = (0..<power).reduce(Int64(1)) { value, _ in value * 10 }
        return [unit, 2 * unit, 5 * unit]
    }

    /// The finest frame that keeps the figure within `targetWidth` columns and cuts only
    /// idle stretches (at most one wait in ten between the frames events are in: a frame so
    /// fine that every wait is cut out would show no time at all). When no frame keeps it
    /// that narrow (a lane with more events than columns), the allowance doubles until one
    /// does: a busy lane gets wider, never one frame for everything.
    static func best(times: [Int64], symbols: [[(time: Int64, order: Int, symbol: String)]], cuts: Bool) -> TextLayout {
        // A frame under a trillionth of the span would draw no figure anyone can read (and
        // frame numbers must stay within 64 bits): the finer ones are not tried.
        let span = UInt64(bitPattern: (times.last ?? 0) &- (times.first ?? 0))
        let layouts = frames.filter { span / UInt64($0) < 1 << 40 }
            .map { TextLayout(frame: $0, times: times, symbols: symbols, cuts: cuts) }
        var allowed = targetWidth
        while allowed < 1 << 24 {
            if let fitting = layouts.first(where: { $0.width <= allowed && $0.cuts.count <= max(1, $0.waits / 10) }) {
                return fitting
            }
            allowed *= 2
        }
        return layouts.min { $0.width < $1.width } ?? TextLayout(frame: frames[0], times: times, symbols: symbols, cuts: cuts)
    }

    init(frame: Int64, times: [Int64], symbols: [[(time: Int64, order: Int, symbol: String)]], cuts: Bool) {
        self.frame = frame
        placed = Array(repeating: [], count: symbols.count)
        guard let first = times.first else { return }
        start = first
        // Per lane, symbols grouped by frame; the frames anything happens in, in order.
        var groups: [[Int64: [String]]] = Array(repeating: [:], count: symbols.count)
        var frames = Set<Int64>()
        for (lane, list) in symbols.enumerated() {
            for item in list {
                // Times run from `first` up: their distance fits in an unsigned 64 bits.
                let index = Int64(UInt64(bitPattern: item.time &- first) / UInt64(frame))
                // Several subscriptions in one frame (the nodes of an inner chain) are one `^`.
                if item.symbol == "^", groups[lane][index]?.contains("^") == true { continue }
                groups[lane][index, default: []].append(item.symbol)
                frames.insert(index)
            }
        }
        var column = 0
        var drawn = first      // the time of `column`
        let (product, overflow) = Self.cutFrames.multipliedReportingOverflow(by: frame)
        let longestWait = overflow ? Int64.max : product
        waits = max(0, frames.count - 1)
        for index in frames.sorted() {
            let target = first &+ index &* frame      // at most the time it came from
            let gap = Self.difference(target, drawn)
            if cuts && gap > longestWait {
                let text = MarbleNotation.progression(gap)
                self.cuts.append((column, text))
                column += text.count
                drawn = target
            } else if gap > 0 {
                column += Int(gap / frame)
                drawn = target
            }
            var widest = 1
            for lane in groups.indices {
                guard let list = groups[lane][index] else { continue }
                let token = list.count == 1 ? list[0] : "(" + list.joined() + ")"
                var offset = list.count == 1 ? 0 : 1
                for symbol in list {
                    placed[lane].append((column + offset, drawn, symbol))
                    offset += list.count == 1 ? 0 : symbol.count
                }
                widest = max(widest, token.count)
            }
            column += widest
            drawn = Self.sum(drawn, Int64(widest) &* frame)
        }
        width = column
    }

    /// `a + b`, at most `Int64.max`.
    static func sum(_ a: Int64, _ b: Int64) -> Int64 {
        let (result, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : result
    }

    /// `a - b`, within the range of `Int64`.
    static func difference(_ a: Int64, _ b: Int64) -> Int64 {
        let (result, overflow) = a.subtractingReportingOverflow(b)
        return overflow ? (a > b ? .max : .min) : result
    }

    /// Lane `index`'s line: `-` for each frame from its start (column 0, or its first `^`)
    /// to its end, its symbols (groups in parentheses), the cuts' progressions where it is
    /// running, spaces elsewhere.
    func line(_ index: Int, lane: MarbleFigure.Lane) -> String {
        var cells = [Character](repeating: " ", count: width + 1)
        let list = placed[index]
        guard !list.isEmpty || lane.subscribed == nil else { return "" }
        let start = lane.subscribed == nil ? 0 : (list.first { $0.symbol == "^" }?.column ?? 0)
        let ends = Self.ends
        // Running between a subscription and its end; idle between an end and the next `^`.
        var running: [ClosedRange<Int>] = []
        var from: Int? = start
        for item in list {
            if item.symbol == "^", from == nil { from = item.column }
            if ends.contains(item.symbol), let begin = from {
                running.append(begin...max(begin, item.column))
                from = nil
            }
        }
        if let begin = from { running.append(begin...max(begin, width)) }
        for range in running {
            for column in range where column < cells.count { cells[column] = "-" }
        }
        for cut in cuts where running.contains(where: { $0.contains(cut.column) && $0.contains(cut.column + cut.text.count - 1) }) {
            for (offset, character) in cut.text.enumerated() { cells[cut.column + offset] = character }
        }
        // Symbols drawn at one time are one group, written `(` … `)` around their columns.
        var index = 0
        while index < list.count {
            var next = index + 1
            while next < list.count, list[next].time == list[index].time { next += 1 }
            let group = list[index..<next]
            if group.count == 1 {
                write(group.first!.symbol, at: group.first!.column, into: &cells)
            } else {
                let open = group.first!.column - 1
                cells[open] = "("
                var column = group.first!.column
                for item in group {
                    write(item.symbol, at: column, into: &cells)
                    column += item.symbol.count
                }
                cells[column] = ")"
            }
            index = next
        }
        return String(cells).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
    }

    private func write(_ symbol: String, at column: Int, into cells: inout [Character]) {
        for (offset, character) in symbol.enumerated() where column + offset < cells.count {
            cells[column + offset] = character
        }
    }
}
