/// How an operator is written in figures: `filter(length > 2)`, `throttle(0.5s)`.
enum OperatorText {
    /// The name with its parameters. A name that already spells its argument labels, like
    /// `observe(on:)`, takes the parameters inside: `observe(on: main)`, not
    /// `observe(on:)(main)`.
    static func format(name: String, parameters: String) -> String {
        guard !parameters.isEmpty else { return name }
        if name.hasSuffix(":)"), let open = name.firstIndex(of: "(") {
            let base = name[..<open]
            let labels = name[name.index(after: open)..<name.index(before: name.endIndex)]
            let firstLabel = labels.split(separator: ":").first.map(String.init) ?? ""
            if parameters.hasPrefix(firstLabel + ":") { return "\(base)(\(parameters))" }
            return "\(base)(\(firstLabel): \(parameters))"
        }
        return "\(name)(\(parameters))"
    }
}
