import TraceLog

/// Turning arbitrary text (recorded values, user labels, file names) into text that is safe
/// in every output: XML, Graphviz labels, a terminal.
enum TextSafety {
    /// The text with characters XML cannot hold replaced by visible stand-ins: C0 controls
    /// other than newline and tab become their Unicode control pictures (U+2400...), DEL
    /// becomes U+2421, and the non-characters U+FFFE/U+FFFF become U+FFFD. The bidi controls
    /// (embeddings, overrides, isolates, the invisible direction marks) are written as the
    /// CLI writes them to a terminal, `\u{202E}`: a browser's SVG and Graphviz would obey an
    /// override and show a label reversed (`peaks` as `skaep`), cairo's PNG would not, so the
    /// same label would read differently in two figures of one trace.
    static func printable(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A, 0x09: out.append(scalar)
            case 0x00..<0x20: out.append(Unicode.Scalar(0x2400 + scalar.value) ?? "\u{FFFD}")
            case 0x7F: out.append("\u{2421}")
            case 0xFFFE, 0xFFFF: out.append("\u{FFFD}")
            case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// One line: `printable`, with newlines and tabs shown as `⏎` and a space, as a report's
    /// line shows them (`reportLine`).
    static func singleLine(_ text: String) -> String {
        printable(text.reportLine)
    }

    /// Escapes text for XML character data and attribute values.
    static func xml(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in printable(text) {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }

    /// A Graphviz plain label or tooltip: backslashes doubled (Graphviz reads `\N`, `\G`,
    /// `\n`... as escapes), newlines as Graphviz's centred line break `\n`, and `&` as
    /// `&amp;`: Graphviz decodes entities in labels, so the text `&#x1b;` would otherwise become
    /// a raw ESC in the SVG, which no XML parser accepts.
    static func graphviz(_ text: String) -> String {
        var out = ""
        for character in printable(text) {
            switch character {
            case "\\": out += "\\\\"
            case "&": out += "&amp;"
            case "\n", "\r\n": out += "\\n"
            case "\t": out += " "
            default: out.append(character)
            }
        }
        return out
    }

    /// Cuts text to at most `limit` characters, ending with `…` when cut. It reads at most
    /// `limit` characters, so a text of many megabytes costs no more than a short one.
    static func truncated(_ text: String, to limit: Int) -> String {
        // A character is at least one UTF-8 byte: no more bytes than the limit, nothing to cut.
        guard limit > 1, text.utf8.count > limit,
              let end = text.index(text.startIndex, offsetBy: limit, limitedBy: text.endIndex),
              end != text.endIndex else { return text }
        return String(text[..<text.index(before: end)]) + "\u{2026}"
    }

    /// The most characters of a trace's event text a figure draws in a marble.
    static let displayLimit = 120
    /// The most characters of a trace's event text a figure keeps for hovering (an SVG `<title>`).
    static let fullLimit = 2000
}
