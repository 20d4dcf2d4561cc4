/// Percentiles of a stream of durations in bounded memory: exact for the first
/// `exactLimit` samples, then a log-linear histogram (128 sub-buckets per power of two,
/// so a percentile is at most 0.8% below the true value). The maximum is always exact.
public struct LatencyDistribution: Sendable {
    static let exactLimit = 4096
    private static let subBuckets = 128

    public private(set) var count = 0
    public private(set) var max: Int64 = 0
    private var samples: [Int64] = []
    private var histogram: [Int: Int] = [:]

    public init() {}

    public mutating func add(_ value: Int64) {
        let value = Swift.max(0, value)
        count += 1
        max = Swift.max(max, value)
        if histogram.isEmpty && samples.count < Self.exactLimit {
            samples.append(value)
            return
        }
        if !samples.isEmpty {
            for sample in samples { histogram[Self.bucket(sample), default: 0] += 1 }
            samples = []
        }
        histogram[Self.bucket(value), default: 0] += 1
    }

    private static func bucket(_ value: Int64) -> Int {
        if value < Int64(subBuckets) { return Int(value) }
        let exponent = 63 - value.leadingZeroBitCount
        let shift = exponent - 7
        let mantissa = Int(value >> Int64(shift)) - subBuckets
        return (shift + 1) * subBuckets + mantissa
    }

    private static func lowerBound(_ bucket: Int) -> Int64 {
        if bucket < subBuckets { return Int64(bucket) }
        let shift = bucket / subBuckets - 1
        let mantissa = bucket % subBuckets + subBuckets
        return Int64(mantissa) << Int64(shift)
    }

    /// The nearest-rank percentile (`p` in 0...100), or nil with no samples.
    public func percentile(_ p: Double) -> Int64? {
        guard count > 0 else { return nil }
        let rank = Swift.max(1, Int((p / 100 * Double(count)).rounded(.up)))
        if histogram.isEmpty {
            return samples.sorted()[Swift.min(rank, samples.count) - 1]
        }
        var seen = 0
        for bucket in histogram.keys.sorted() {
            seen += histogram[bucket] ?? 0
            if seen >= rank { return Swift.min(Self.lowerBound(bucket), max) }
        }
        return max
    }

    /// p50, p95, p99 and max, or nil with no samples.
    public var summary: LatencySummary? {
        guard count > 0, let p50 = percentile(50), let p95 = percentile(95), let p99 = percentile(99) else { return nil }
        return LatencySummary(count: count, p50: p50, p95: p95, p99: p99, max: max)
    }
}

/// The percentiles of a set of durations, in nanoseconds.
public struct LatencySummary: Equatable, Sendable {
    public var count: Int
    public var p50: Int64
    public var p95: Int64
    public var p99: Int64
    public var max: Int64

    public init(count: Int, p50: Int64, p95: Int64, p99: Int64, max: Int64) {
        self.count = count
        self.p50 = p50
        self.p95 = p95
        self.p99 = p99
        self.max = max
    }
}

/// Formats nanoseconds for people: `0 ns`, `850 ns`, `12.500 µs`, `3.250 ms`, `1.000 s`.
/// Integer arithmetic only, so the text is the same on every machine.
public func formatDuration(_ nanoseconds: Int64) -> String {
    let magnitude = nanoseconds.magnitude
    let sign = nanoseconds < 0 ? "-" : ""
    func scaled(_ unit: UInt64, _ name: String) -> String {
        let whole = magnitude / unit
        let fraction = (magnitude % unit) * 1000 / unit
        let digits = String(fraction)
        return "\(sign)\(whole).\(String(repeating: "0", count: 3 - digits.count))\(digits) \(name)"
    }
    if magnitude < 1_000 { return "\(sign)\(magnitude) ns" }
    if magnitude < 1_000_000 { return scaled(1_000, "µs") }
    if magnitude < 1_000_000_000 { return scaled(1_000_000, "ms") }
    return scaled(1_000_000_000, "s")
}
