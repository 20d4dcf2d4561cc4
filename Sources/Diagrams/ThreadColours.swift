import TraceLog

/// The colours figures and `marbles view` give the threads of a trace: the one place that
/// decides them, so a thread has one colour in the marble figure, the pipeline figure and the
/// viewer of the same trace.
///
/// The well-known names keep their colour in every trace (`main` blue, `background` orange,
/// `network` bluish green, `ui` sky blue, `test` vermilion, the virtual clock of a spec's run:
/// Okabe–Ito). Every other name takes the next colour of a list in the order the trace first
/// names it: the rest of Okabe–Ito (reddish purple, yellow), then the colours of Paul Tol's
/// muted scheme that differ from those (indigo, wine, olive, teal, rose); both are readable by
/// colour-blind readers. Past those, further colours are made by turning round the colour
/// wheel, none a grey and none repeated. So no two threads of one trace share a colour, and
/// none gets the grey of marbles delivered on several threads (`several`).
public enum ThreadColours {
    /// A thread's colour: the fill of its marbles and the text colour that reads on it.
    public struct Colour: Sendable, Equatable, Hashable {
        /// `#rrggbb`.
        public var fill: String
        /// `#000000` or `#ffffff`, whichever reads on `fill`.
        public var text: String

        public init(fill: String, text: String) {
            self.fill = fill
            self.text = text
        }
    }

    /// The colours of the well-known thread names, the same in every trace.
    public static let wellKnown: [String: Colour] = [
        "main": .init(fill: "#0072B2", text: "#ffffff"), "background": .init(fill: "#E69F00", text: "#000000"),
        "network": .init(fill: "#009E73", text: "#ffffff"), "ui": .init(fill: "#56B4E9", text: "#000000"),
        "test": .init(fill: "#D55E00", text: "#ffffff"),
    ]

    /// The colours other names take in order of first appearance, before made ones.
    static let listed: [Colour] = [
        .init(fill: "#CC79A7", text: "#000000"), .init(fill: "#F0E442", text: "#000000"),
        .init(fill: "#332288", text: "#ffffff"), .init(fill: "#882255", text: "#ffffff"),
        .init(fill: "#999933", text: "#000000"), .init(fill: "#44AA99", text: "#000000"),
        .init(fill: "#CC6677", text: "#000000"),
    ]

    /// The grey of a marble that merges values delivered on several threads: never a
    /// thread's colour.
    public static let several = Colour(fill: "#bdbdbd", text: "#000000")

    /// The name figures show for `thread`: its scheduler when it has one, else its own name.
    /// Threads with one name share a colour (a scheduler's work on several OS threads).
    public static func name(of thread: ThreadRecord) -> String {
        ThreadLabel.of(thread)
    }

    /// The names of the threads of `traces`, each once, in the order the traces first name
    /// them (the first trace's threads, then the second's new ones).
    public static func names(of traces: [Trace]) -> [String] {
        var seen: Set<String> = []
        var names: [String] = []
        for trace in traces {
            for thread in trace.threads where seen.insert(name(of: thread)).inserted { names.append(name(of: thread)) }
        }
        return names
    }

    /// A colour for each of `names` (given in order of first appearance; repeats are ignored):
    /// a well-known name its own, the others the listed colours in order, then made ones. Two
    /// different names never get one colour.
    public static func assign(_ names: [String]) -> [String: Colour] {
        var colours: [String: Colour] = [:]
        var used: Set<String> = []
        for name in names {
            if let fixed = wellKnown[name] {
                colours[name] = fixed
                used.insert(fixed.fill)
            }
        }
        // Listed colours first; reserved ones stay reserved for their names.
        var next = 0
        var made = 0
        for name in names where colours[name] == nil {
            var colour: Colour?
            while colour == nil {
                let candidate: Colour
                if next < listed.count {
                    candidate = listed[next]
                    next += 1
                } else {
                    candidate = Self.made(made)
                    made += 1
                }
                if !used.contains(candidate.fill), !reserved.contains(candidate.fill) { colour = candidate }
            }
            colours[name] = colour
            used.insert(colour!.fill)
        }
        return colours
    }

    /// The colours of the threads of `traces` (see `names(of:)` and `assign(_:)`), by name.
    public static func colours(of traces: [Trace]) -> [String: Colour] {
        assign(names(of: traces))
    }

    /// Fills no made colour may take: the well-known ones, the grey of several threads and
    /// the figures' greys.
    private static let reserved: Set<String> = Set(wellKnown.values.map(\.fill))
        .union([several.fill, "#777777", "#222222", "#ffffff"])

    /// The `index`th made colour: hues 137.5° apart (the golden angle, so neighbours differ
    /// most), at two lightnesses in turn, saturated enough never to be a grey.
    static func made(_ index: Int) -> Colour {
        let hue = (Double(index) * 137.507_764).truncatingRemainder(dividingBy: 360)
        let lightness = index % 2 == 0 ? 0.42 : 0.62
        let saturation = 0.75
        let chroma = (1 - abs(2 * lightness - 1)) * saturation
        let h = hue / 60
        let x = chroma * (1 - abs(h.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double)
        switch Int(h) {
        case 0: (r, g, b) = (chroma, x, 0)
        case 1: (r, g, b) = (x, chroma, 0)
        case 2: (r, g, b) = (0, chroma, x)
        case 3: (r, g, b) = (0, x, chroma)
        case 4: (r, g, b) = (x, 0, chroma)
        default: (r, g, b) = (chroma, 0, x)
        }
        let m = lightness - chroma / 2
        let channels = [r, g, b].map { Int((($0 + m) * 255).rounded()) }
        let hex = "#" + channels.map { channel in
            let digits = String(min(max(channel, 0), 255), radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
        // Relative luminance decides the text: black on light fills, white on dark ones.
        let luminance = 0.2126 * Double(channels[0]) + 0.7152 * Double(channels[1]) + 0.0722 * Double(channels[2])
        return Colour(fill: hex, text: luminance > 140 ? "#000000" : "#ffffff")
    }
}
