/// Marble notation, the RxJS TestScheduler grammar in "run mode", parsed and printed: the one
/// grammar of every marble line in Marbles (tests, `expectMarbles`, `.marbles` specs).
///
/// Frame 0 is the first character. `-` is one frame; any other character is a value and takes
/// one frame; `|` completes; `#` fails; `(ab|)` puts all its events at the frame of `(` while
/// every character, parentheses included, still takes a frame; `^` marks frame 0 of a hot
/// stream (earlier events get negative times), and may open a group, `(^a|)`, for events at the
/// subscription's frame (as `marbles draw` prints a lane subscribed when it sent); spaces are ignored, except that a time
/// progression such as `10ms `, `1.5s ` or `2m `, at the start or after a space and followed by
/// a space, advances the clock by that much. Subscription lines use `^` (subscribe) and `!`
/// (unsubscribe); `!` means nothing else.
///
/// A bracketed key, `[63]`, is one value named by the whole key (each of its characters
/// still takes a frame): how `marbles draw` names values past the 62 letters and digits.
///
/// One symbol is added to RxJS's: `‖` (U+2016 DOUBLE VERTICAL LINE, the double bar the
/// figures draw) is *interrupted*, the third terminal event of Signals' grammar
/// `value* (failed | completed | interrupted)?`: the stream was cancelled before it ended by
/// itself. RxJS has no such event (an unsubscribed observable just stops), so RxJS lines never
/// contain it and a spec's inputs may not use it.
///
/// Times are virtual nanoseconds, so a line can be parsed with any frame duration.
///
/// ```swift
/// let events = try MarbleNotation.parse("-a-(bc)-|")   // times in nanoseconds, 1 ms a frame
/// print(events.map { "\($0.kind.symbol)@\($0.time / MarbleNotation.millisecond)" })
/// // ["a@1", "b@3", "c@3", "|@8"]
/// print(MarbleNotation.print(events))                  // "-a-(bc)-|"
/// ```
public enum MarbleNotation {
    /// What happens at a point of a marble line.
    ///
    /// ```swift
    /// let failures = try MarbleNotation.parse("--#").filter { $0.kind == .error }
    /// print(failures.map(\.time))   // [2000000]: the failure, at frame 2
    /// ```
    public enum Kind: Equatable, Sendable {
        /// A value, named by its character (or, when printing, by any symbol).
        case value(String)
        /// `#`: the stream fails.
        case error
        /// `|`: the stream completes.
        case complete
        /// `‖`: the stream is interrupted (cancelled before it ended by itself).
        case interrupted

        /// How a line writes it: the value's name, `#`, `|` or `‖`.
        public var symbol: String {
            switch self {
            case let .value(name): return name
            case .error: return "#"
            case .complete: return "|"
            case .interrupted: return String(MarbleNotation.interruptedSymbol)
            }
        }
    }

    /// One event of a marble line at a virtual time.
    ///
    /// ```swift
    /// let line = MarbleNotation.print([MarbleNotation.Event(time: 2_000_000, kind: .value("x")),
    ///                                  MarbleNotation.Event(time: 3_000_000, kind: .complete)])
    /// print(line)   // "--x|"
    /// ```
    public struct Event: Equatable, Sendable {
        /// Nanoseconds from frame 0 (negative before a hot stream's `^`).
        public var time: Int64
        public var kind: Kind
        /// The 1-based column of the event's character in the parsed text (0 when printed).
        public var column: Int

        public init(time: Int64, kind: Kind, column: Int = 0) {
            self.time = time
            self.kind = kind
            self.column = column
        }
    }

    /// A subscription line: when a subscriber subscribes and unsubscribes, if it does.
    ///
    /// ```swift
    /// let subscription = try MarbleNotation.parseSubscription("--^---!")
    /// print(subscription.subscribe ?? -1, subscription.unsubscribe ?? -1)   // 2000000 6000000
    /// ```
    public struct Subscription: Equatable, Sendable {
        /// Nanoseconds of the `^`, if there is one.
        public var subscribe: Int64?
        /// Nanoseconds of the `!`, if there is one.
        public var unsubscribe: Int64?

        public init(subscribe: Int64?, unsubscribe: Int64?) {
            self.subscribe = subscribe
            self.unsubscribe = unsubscribe
        }
    }

    /// `‖`, the interruption mark (not part of RxJS's grammar).
    public static let interruptedSymbol: Character = "\u{2016}"

    /// One millisecond in nanoseconds, the default frame (as in RxJS run mode).
    public static let millisecond: Int64 = 1_000_000

    /// A token of a marble line: the characters that matter, with columns and frame advances.
    private enum Token {
        case dash, open, close, caret, bang, complete, error, interrupted
        /// A value: one character, or a bracketed key such as `[63]` (one value, a frame per character).
        case value(String, width: Int)
        case progression(Int64)
    }

    private static func tokens(_ text: String, line: Int, columnOffset: Int) throws -> [(token: Token, column: Int)] {
        let characters = Array(text)
        var result: [(Token, Int)] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let column = index + 1
            if character == " " || character == "\t" {
                index += 1
                continue
            }
            if character.isASCII, character.isNumber, index == 0 || characters[index - 1] == " " || characters[index - 1] == "\t",
               let (nanoseconds, length) = progression(characters, from: index) {
                guard nanoseconds < Self.longest else {
                    throw MarbleSyntaxError(line: line, column: column + columnOffset,
                                            message: "expected a time progression shorter than 292 years (Int64 nanoseconds)")
                }
                result.append((.progression(Int64(nanoseconds)), column))
                index += length
                continue
            }
            switch character {
            case "-": result.append((.dash, column))
            case "(": result.append((.open, column))
            case ")": result.append((.close, column))
            case "^": result.append((.caret, column))
            case "!": result.append((.bang, column))
            case "|": result.append((.complete, column))
            case "#": result.append((.error, column))
            case Self.interruptedSymbol: result.append((.interrupted, column))
            case "[":
                // `[63]`: one value named by the whole key, as `marbles draw` prints values
                // past the 62 letters and digits.
                guard let close = characters[index...].firstIndex(of: "]"), close > index + 1,
                      !characters[(index + 1)..<close].contains(where: { " \t[()".contains($0) }) else {
                    throw MarbleSyntaxError(line: line, column: column + columnOffset,
                                            message: "expected a key such as [63] closed by ']' on its line")
                }
                let width = close - index + 1
                result.append((.value(String(characters[index...close]), width: width), column))
                index += width
                continue
            default: result.append((.value(String(character), width: 1), column))
            }
            index += 1
        }
        return result
    }

    /// Virtual time is integer nanoseconds: a line may not reach past `Int64.max`.
    private static let longest = 9.2e18

    /// Adds `duration` to `time`, or fails when the line would run past the end of virtual time.
    private static func later(_ time: Int64, by duration: Int64, line: Int, column: Int) throws -> Int64 {
        let (sum, overflow) = time.addingReportingOverflow(duration)
        guard !overflow else {
            throw MarbleSyntaxError(line: line, column: column,
                                    message: "expected the line to end within 292 years of virtual time (Int64 nanoseconds)")
        }
        return sum
    }

    /// Reads `10ms `, `1.5s `, `2m ` (the trailing space or end of line is required) as nanoseconds.
    private static func progression(_ characters: [Character], from start: Int) -> (Double, Int)? {
        var index = start
        var digits = ""
        while index < characters.count, characters[index].isASCII, characters[index].isNumber || characters[index] == "." {
            digits.append(characters[index])
            index += 1
        }
        var unit = ""
        while index < characters.count, characters[index] == "m" || characters[index] == "s" {
            unit.append(characters[index])
            index += 1
        }
        guard index == characters.count || characters[index] == " " || characters[index] == "\t" else { return nil }
        guard let amount = Double(digits), digits.first != ".", digits.last != "." else { return nil }
        let scale: Double
        switch unit {
        case "ms": scale = 1e6
        case "s": scale = 1e9
        case "m": scale = 60e9
        default: return nil
        }
        return ((amount * scale).rounded(), index - start)
    }

    /// Parses a stream's marble line into its events, in order.
    ///
    /// - Parameters:
    ///   - text: the marble line.
    ///   - frame: how long one frame lasts, in nanoseconds.
    ///   - hot: whether `^` may mark the subscription point (cold lines may not have one).
    ///   - line: the line number reported in errors.
    ///   - columnOffset: added to columns in errors and events (where the text starts in its line).
    public static func parse(_ text: String, frame: Int64 = millisecond, hot: Bool = false,
                             line: Int = 1, columnOffset: Int = 0) throws -> [Event] {
        var events: [Event] = []
        var time: Int64 = 0
        var groupStart: Int64?
        var groupColumn = 0
        var groupHasEvents = false
        var subscription: Int64?
        var terminal: Int?
        func fail(_ column: Int, _ message: String) -> MarbleSyntaxError {
            MarbleSyntaxError(line: line, column: column + columnOffset, message: message)
        }
        for (token, column) in try tokens(text, line: line, columnOffset: columnOffset) {
            switch token {
            case .dash:
                time = try later(time, by: frame, line: line, column: column + columnOffset)
            case let .progression(duration):
                if groupStart != nil { throw fail(column, "expected ')' before a time progression") }
                time = try later(time, by: duration, line: line, column: column + columnOffset)
            case .open:
                if groupStart != nil { throw fail(column, "expected ')' before '(' (groups do not nest)") }
                groupStart = time
                groupColumn = column
                groupHasEvents = false
                time = try later(time, by: frame, line: line, column: column + columnOffset)
            case .close:
                if groupStart == nil { throw fail(column, "expected '(' before ')'") }
                if !groupHasEvents { throw fail(column, "expected an event inside '(' ... ')'") }
                groupStart = nil
                time = try later(time, by: frame, line: line, column: column + columnOffset)
            case .caret:
                if !hot { throw fail(column, "expected no '^': only hot streams have a subscription point") }
                if subscription != nil { throw fail(column, "expected one '^' at most") }
                // `(^a)`: subscribed at the group's frame, where its values are. Only first in
                // the group, so nothing in a group happens before the subscription it shares.
                if groupStart != nil && groupHasEvents { throw fail(column, "expected '^' first in its group") }
                subscription = groupStart ?? time
                time = try later(time, by: frame, line: line, column: column + columnOffset)
            case .bang:
                throw fail(column, "expected a value, '-', '|', '#' or '‖' ('!' belongs in an unsubscribe line)")
            case .complete, .error, .interrupted, .value:
                if let terminal {
                    throw fail(column, "expected nothing after the terminal event at column \(terminal + columnOffset)")
                }
                let kind: Kind
                switch token {
                case .complete: kind = .complete; terminal = column
                case .error: kind = .error; terminal = column
                case .interrupted: kind = .interrupted; terminal = column
                case let .value(name, _): kind = .value(name)
                default: continue
                }
                events.append(Event(time: groupStart ?? time, kind: kind, column: column + columnOffset))
                groupHasEvents = true
                var width = 1
                if case let .value(_, characters) = token { width = characters }
                for _ in 0..<width { time = try later(time, by: frame, line: line, column: column + columnOffset) }
            }
        }
        if groupStart != nil { throw fail(groupColumn, "expected ')' to close the group opened here") }
        if let subscription {
            for index in events.indices { events[index].time -= subscription }
        }
        return events
    }

    /// Parses a subscription line: `^` subscribes, `!` unsubscribes (`(^!)` does both at once).
    public static func parseSubscription(_ text: String, frame: Int64 = millisecond,
                                         line: Int = 1, columnOffset: Int = 0) throws -> Subscription {
        var result = Subscription(subscribe: nil, unsubscribe: nil)
        var time: Int64 = 0
        var groupStart: Int64?
        func fail(_ column: Int, _ message: String) -> MarbleSyntaxError {
            MarbleSyntaxError(line: line, column: column + columnOffset, message: message)
        }
        for (token, column) in try tokens(text, line: line, columnOffset: columnOffset) {
            switch token {
            case .dash: time = try later(time, by: frame, line: line, column: column + columnOffset)
            case let .progression(duration): time = try later(time, by: duration, line: line, column: column + columnOffset)
            case .open:
                if groupStart != nil { throw fail(column, "expected ')' before '(' (groups do not nest)") }
                groupStart = time
                time = try later(time, by: frame, line: line, column: column + columnOffset)
            case .close:
                if groupStart == nil { throw fail(column, "expected '(' before ')'") }
                groupStart = nil
                time = try later(time, by: frame, line: line, column: column + columnOffset)
            case .caret:
                if result.subscribe != nil { throw fail(column, "expected one '^' at most") }
                if result.unsubscribe != nil { throw fail(column, "expected '^' before '!'") }
                result.subscribe = groupStart ?? time
                time = try later(time, by: frame, line: line, column: column + columnOffset)
            case .bang:
                if result.unsubscribe != nil { throw fail(column, "expected one '!' at most") }
                result.unsubscribe = groupStart ?? time
                time = try later(time, by: frame, line: line, column: column + columnOffset)
            default:
                throw fail(column, "expected '-', '^', '!', '(' or ')' in a subscription line")
            }
        }
        return result
    }

    /// Prints events as a marble line, one frame per character: events in the same frame
    /// become a group `(ab|)`. A group is as wide as its characters, so an event closer after
    /// it than that width is printed at the first free position (as late as the grammar forces).
    /// When any event is before time 0, or `hot` is set, the line starts at the earliest event
    /// and `^` marks time 0.
    /// A gap longer than ``longestDashRun`` frames prints as a time progression (` 1000ms `),
    /// so a line stays short however far apart its events are.
    ///
    /// - Parameters:
    ///   - events: the events, in time order (ties keep their order).
    ///   - frame: the frame duration; times round down to their frame.
    ///   - hot: whether to mark time 0 with `^`.
    public static func print(_ events: [Event], frame: Int64 = millisecond, hot: Bool = false) -> String {
        func frameOf(_ time: Int64) -> Int64 {
            time >= 0 ? time / frame : -((-time + frame - 1) / frame)
        }
        var groups: [(frame: Int64, symbols: [String])] = []
        for event in events {
            let symbol = event.kind.symbol
            let at = frameOf(event.time)
            if let last = groups.last, last.frame == at {
                groups[groups.count - 1].symbols.append(symbol)
            } else {
                groups.append((at, [symbol]))
            }
        }
        let caret = hot || groups.contains { $0.frame < 0 }
        var out = ""
        var cursor = min(0, groups.first?.frame ?? 0)
        var caretPending = caret
        for var group in groups {
            if caretPending && group.frame >= 0 {
                out += gap(max(0, 0 - cursor), frame: frame)
                cursor = 0
                caretPending = false
                if group.frame == 0 {
                    // Events at frame 0 share the caret's frame: `(^a)`, as `^a` reads `a` at 1.
                    group.symbols.insert("^", at: 0)
                } else {
                    out += "^"
                    cursor = 1
                }
            }
            if group.frame > cursor {
                out += gap(group.frame - cursor, frame: frame)
                cursor = group.frame
            }
            if group.symbols.count == 1 {
                out += group.symbols[0]
                cursor += 1
            } else {
                out += "(" + group.symbols.joined() + ")"
                cursor += Int64(group.symbols.count + 2)
            }
        }
        if caretPending {
            out += gap(max(0, 0 - cursor), frame: frame) + "^"
        }
        return out
    }

    /// The most frames ``print(_:frame:hot:)`` and ``gap(_:frame:)`` write as dashes; a longer
    /// gap is a time progression. A delay of 1e308 ms would otherwise ask for terabytes of dashes.
    public static let longestDashRun: Int64 = 1000

    /// `frames` frames of silence: that many dashes, or when there are more than
    /// ``longestDashRun``, a time progression surrounded by spaces (` 1500ms `) that parses
    /// back to the same duration.
    public static func gap(_ frames: Int64, frame: Int64 = millisecond) -> String {
        guard frames > longestDashRun else { return String(repeating: "-", count: Int(max(0, frames))) }
        let (nanoseconds, overflow) = frames.multipliedReportingOverflow(by: frame)
        // Past Int64 nanoseconds no line could be parsed back anyway; say the most there is.
        return progression(overflow ? Int64.max : nanoseconds)
    }

    /// A time progression of exactly `nanoseconds` (at least 0), surrounded by spaces
    /// (` 1500ms `, ` 1.25ms `), which parses back to that duration.
    public static func progression(_ nanoseconds: Int64) -> String {
        let whole = nanoseconds / 1_000_000
        let fraction = nanoseconds % 1_000_000
        guard fraction != 0 else { return " \(whole)ms " }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 6 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return " \(whole).\(digits)ms "
    }
}

/// A marble line that does not follow the grammar: where, and what was expected.
///
/// ```swift
/// do {
///     _ = try MarbleNotation.parse("-a-|-b")
/// } catch let error as MarbleSyntaxError {
///     print(error)   // 1:6: … (line:column: what is wrong: here, a value after the completion)
/// }
/// ```
public struct MarbleSyntaxError: Error, Equatable, CustomStringConvertible {
    /// 1-based line number.
    public let line: Int
    /// 1-based column.
    public let column: Int
    /// What was expected there.
    public let message: String

    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { "\(line):\(column): \(message)" }
}

/// One-character names for values in marble lines, with a legend for the rest.
///
/// A value whose display text is one printable character that means nothing else in the
/// grammar keeps it; every other value gets the first free letter or digit. Names are given
/// in the order values are first seen, so the same inputs always get the same names.
///
/// ```swift
/// let legend = MarbleLegend(["a", "swift", "7", "swim"])
/// print(legend.symbol(for: "swift"), legend.symbol(for: "a"))   // "b a": a long value gets a free letter
/// print(legend.entries.map { "\($0.symbol) = \($0.text)" })     // ["b = swift", "c = swim"]
/// ```
public struct MarbleLegend: Sendable {
    /// Each named value's display text and its symbol, in the order first seen.
    public private(set) var entries: [(symbol: String, text: String)] = []
    private var symbolByText: [String: String] = [:]

    /// Names the given display texts (all texts a diagram will print, in order), never
    /// giving a long value a symbol from `reserved` (characters that mean something else
    /// in the same figure).
    public init<S: Sequence>(_ texts: S, reserving reserved: Set<String> = []) where S.Element == String {
        let all = Array(texts)
        var used = reserved
        for text in all where Self.isPlain(text) && symbolByText[text] == nil {
            symbolByText[text] = text
            used.insert(text)
        }
        let pool = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".map(String.init)
        var next = pool.makeIterator()
        for text in all where symbolByText[text] == nil {
            var symbol = next.next()
            while let candidate = symbol, used.contains(candidate) { symbol = next.next() }
            // Past 62 distinct long values the pool is exhausted; fall back to '*' (shared).
            let chosen = symbol ?? "*"
            used.insert(chosen)
            symbolByText[text] = chosen
            entries.append((chosen, text))
        }
    }

    /// The symbol for a display text (the text's own character when it is plain).
    public func symbol(for text: String) -> String {
        symbolByText[text] ?? "*"
    }

    /// Whether a display text can stand for itself in a marble line.
    public static func isPlain(_ text: String) -> Bool {
        guard text.count == 1, let character = text.first else { return false }
        return !"-()|#^!\u{2016} \t".contains(character) && !character.isWhitespace && character.isASCII
            && (character.isLetter || character.isNumber || character.isPunctuation || character.isSymbol)
    }
}
