/// Text from traces and specs made safe to show in a terminal. A label or value may hold
/// anything: an ESC or OSC sequence would restyle or retitle the terminal, a bidi override
/// would reorder what is shown. Every text the CLI prints, and every text figure it writes,
/// passes through here.
enum TerminalText {
    /// Whether a terminal would act on `scalar` instead of showing it: C0 controls other than
    /// newline and tab, DEL, C1 controls, and the bidi controls (embeddings, overrides,
    /// isolates and the invisible direction marks).
    static func acts(on scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: return false
        case 0x00..<0x20, 0x7F..<0xA0: return true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// `text` with each such character shown as a visible Swift-style escape: ESC as
    /// `\u{1B}`, NUL as `\u{0}`, RIGHT-TO-LEFT OVERRIDE as `\u{202E}`. Any other text is
    /// returned unchanged, byte for byte.
    static func escaped(_ text: String) -> String {
        escape(text) { "\\u{" + String($0.value, radix: 16, uppercase: true) + "}" }
    }

    /// A JSON document with the same characters written as JSON escapes (`\u001b`), so the
    /// document decodes to the same values. JSON requires C0 controls inside strings to be
    /// escaped already; DEL, C1 and bidi controls it allows raw.
    static func escapedJSON(_ json: String) -> String {
        escape(json) { scalar in
            let hex = String(scalar.value, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
    }

    private static func escape(_ text: String, _ visible: (Unicode.Scalar) -> String) -> String {
        guard text.unicodeScalars.contains(where: acts(on:)) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if acts(on: scalar) {
                out.append(contentsOf: visible(scalar).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}
