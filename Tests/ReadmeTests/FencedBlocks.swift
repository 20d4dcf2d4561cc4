import Foundation

/// The Swift a document shows, and the Swift a test file compiles for it: what
/// `ReadmeExampleTests` and `FirstPipelineGuideTests` compare line for line.
enum FencedBlocks {
    /// The blocks fenced as ```language in the document at `url`, in order.
    static func blocks(in url: URL, language: String) throws -> [[String]] {
        let lines = try String(contentsOf: url, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return blocks(inLines: lines, language: language)
    }

    /// The blocks fenced as ```language in `lines` (a document's, or a doc comment's without
    /// its `///`), in order.
    static func blocks(inLines lines: [String], language: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in lines {
            if line == "```\(language)" { current = [] } else if line == "```", let block = current {
                blocks.append(block)
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The lines of the file at `path` between `// BEGIN tag n` and `// END tag n`, without
    /// those ending in `marker` (the lines a test adds only to compile them).
    static func marked(_ number: Int, tag: String, skipping marker: String, in path: String) throws -> [String] {
        let lines = try String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let begin = lines.firstIndex(of: "// BEGIN \(tag) \(number)"),
              let end = lines.firstIndex(of: "// END \(tag) \(number)") else { return [] }
        return lines[(begin + 1)..<end].filter { !$0.hasSuffix(marker) }
    }
}
