/// Operators that hold values on purpose (by the name before any `(`): a debounce's quiet
/// period, a throttle's or audit's interval, a delay, a timeout's watch, a sample's hold until
/// its trigger. Their stage latency is the wait they were asked for, not work: the pipeline
/// figure's heat scale and `stats`' slowest stage leave them out.
public enum IntendedWaits {
    public static let names: Set<String> = [
        "debounce", "debounceFlushing", "throttle", "audit", "delay", "delayValues", "timeout", "sample", "sampleLatest",
    ]

    /// Whether an operator named `name` (`throttle(quietPeriod:)`, `sample(on:)`) waits on purpose.
    public static func contains(_ name: String) -> Bool {
        names.contains(String(name.prefix { $0 != "(" }))
    }
}
