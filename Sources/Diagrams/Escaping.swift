/// Turning arbitrary text (recorded values, user labels, file names) into text that is safe
/// in every output: XML, Graphviz labels, a terminal.
enum TextSafety {
    /// The text with characters XML cannot hold replaced by visible stand-ins: C0 controls
    /// other than newline and tab become their Unicode control pictures (U+2400...), DEL
    /// becomes U+2421, and the non-characters U+FFFE/U+FFFF become U+FFFD.
    static func printable(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A, 0x09: out.append(scalar)
            case 0x00..<0x20: out.append(Unicode.Scalar(0x2400 + scalar.value) ?? "\u{FFFD}")
            case 0x7F: out.append("\u{2421}")
            case 0xFFFE, 0xFFFF: out.append("\u{FFFD}")
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// One line: `printable`, with newlines and tabs shown as `⏎` and a space.
    static func singleLine(_ text: String) -> String {
        printable(text).replacingOccurrences(of: "\n", with: "\u{23CE}").replacingOccurrences(of: "\t", with: " ")
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
    /// `\n`... as escapes), newlines as Graphviz's centred line break `\n`.
    static func graphviz(_ text: String) -> String {
        var out = ""
        for character in printable(text) {
            switch character {
            case "\\": out += "\\\\"
            case "\n", "\r\n": out += "\\n"
            case "\t": out += " "
            default: out.append(character)
            }
        }
        return out
    }

    /// Cuts text to at most `limit` characters, ending with `…` when cut.
    static func truncated(_ text: String, to limit: Int) -> String {
        guard text.count > limit, limit > 1 else { return text }
        return String(text.prefix(limit - 1)) + "\u{2026}"
    }
}
