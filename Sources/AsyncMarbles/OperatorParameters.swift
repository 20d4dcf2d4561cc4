import Signals

extension MarbledSequence {
    /// The parameters of the operator a tap is on, as its node shows them: the durations and
    /// counts its sequence stores, by their names, in the order it declares them
    /// (`AsyncDebounceSequence` → `interval: 0.5s`, `AsyncChunksOfCountSequence` →
    /// `count: 3`, `AsyncTimerSequence` → `interval: 1.0s`). So a tap on a
    /// `debounce(for:clock:)` whose interval changed between two recordings is another node,
    /// as a `Signals` debounce is, and `diff` names the change as its root cause instead of
    /// leaving it to the times. Nothing else is read: a closure, a clock or an upstream is no
    /// parameter, and an interval left out (`tolerance: nil`) is not shown.
    static func operatorParameters(of base: Base) -> String {
        guard !(base is Tapped) else { return "" }
        return Mirror(reflecting: base).children.compactMap { child -> String? in
            guard var label = child.label, !label.hasPrefix("base") else { return nil }
            while label.first == "_" { label.removeFirst() }
            switch child.value {
            case let duration as Duration:
                let (seconds, attoseconds) = duration.components
                return "\(label): " + formatInterval(Double(seconds) + Double(attoseconds) * 1e-18)
            case let count as Int:
                return "\(label): \(count)"
            default:
                return nil
            }
        }.joined(separator: ", ")
    }
}
