/// Text a user's pipeline can hand a figure as a title or a value, each hard to measure or to
/// draw in its own way: a run too long for any column, emoji, right-to-left scripts, a bidi
/// override with CJK, controls and an escape sequence, combining marks with no base.
enum HostileText {
    static let samples = [
        String(repeating: "W", count: 300),
        String(repeating: "\u{1F680}", count: 40),
        "\u{05E9}\u{05DC}\u{05D5}\u{05DD} \u{05E2}\u{05D5}\u{05DC}\u{05DD} " + String(repeating: "\u{0645}\u{0631}\u{062D}\u{0628}\u{0627} ", count: 12),
        "\u{202E}reversed\u{202C} " + String(repeating: "\u{6F22}\u{5B57}", count: 30),
        "a\nb\tc\u{1B}[31m" + String(repeating: "m", count: 60),
        "\u{0301}\u{0301}\u{0301}" + String(repeating: "e\u{0301}", count: 80),
    ]
}
