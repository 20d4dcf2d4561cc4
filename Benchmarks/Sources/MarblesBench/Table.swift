/// One line of the benchmark's table.
struct Row {
    /// The section (core, recording, hops, ...).
    var section: String
    /// What was measured.
    var figure: String
    /// The measured value with its unit, or why there is none.
    var value: String
    /// The target for this figure, or empty.
    var target: String = ""
    /// Whether the target was met; nil when there is no target or nothing was measured.
    var met: Bool? = nil

    var verdict: String {
        switch met {
        case true?: return "met"
        case false?: return "MISSED"
        case nil: return ""
        }
    }
}

/// The rows so far, printed as one Markdown table (readable in a terminal, pasted as is into
/// BENCHMARKS.md).
struct Table {
    private(set) var rows: [Row] = []

    mutating func add(_ row: Row) {
        rows.append(row)
    }

    var markdown: String {
        let header = ["section", "figure", "value", "target", "verdict"]
        let cells = rows.map { [$0.section, $0.figure, $0.value, $0.target, $0.verdict] }
        var widths = header.map(\.count)
        for line in cells {
            for (index, cell) in line.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func render(_ line: [String]) -> String {
            let padded = line.enumerated().map { index, cell in
                cell + String(repeating: " ", count: widths[index] - cell.count)
            }
            return "| " + padded.joined(separator: " | ") + " |"
        }
        var out = render(header) + "\n"
        out += "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|\n"
        for line in cells { out += render(line) + "\n" }
        return out
    }
}
