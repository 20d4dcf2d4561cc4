extension String {
    /// The text on one line of a report: a newline shown as `⏎`, a carriage return as `␍`, a
    /// tab as a space. A trace's names, labels, paths and values may hold any of them, and a
    /// report gives each node or difference one line (`TraceStats.text`, `TraceDiff.text`);
    /// other controls are the terminal's concern (the CLI escapes them when it prints).
    package var reportLine: String {
        guard contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" || $0 == "\t" }) else { return self }
        var out = ""
        for character in self {
            switch character {
            case "\n": out += "\u{23CE}"
            case "\r": out += "\u{240D}"
            case "\r\n": out += "\u{240D}\u{23CE}"
            case "\t": out += " "
            default: out.append(character)
            }
        }
        return out
    }
}
