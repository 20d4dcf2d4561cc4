/// Deterministic formatting of times and durations: integer arithmetic only, so the same
/// nanoseconds always give the same bytes.
enum TimeFormat {
    /// A time unit for an axis: its name and its length in nanoseconds.
    struct Unit: Equatable {
        let name: String
        let nanoseconds: Int64

        static let ns = Unit(name: "ns", nanoseconds: 1)
        static let us = Unit(name: "\u{00B5}s", nanoseconds: 1_000)
        static let ms = Unit(name: "ms", nanoseconds: 1_000_000)
        static let s = Unit(name: "s", nanoseconds: 1_000_000_000)

        /// The largest unit not longer than `step`, so multiples of `step` print as integers.
        static func fitting(_ step: Int64) -> Unit {
            for unit in [s, ms, us] where step >= unit.nanoseconds && step % unit.nanoseconds == 0 {
                return unit
            }
            return ns
        }
    }

    /// Times figures work with: about 18 years either side of the origin. A trace is bad
    /// input like any other; clamping keeps the arithmetic on its times from overflowing.
    static let limit: Int64 = 1 << 59

    /// `time` within `-limit...limit`.
    static func clamped(_ time: Int64) -> Int64 {
        min(max(time, -limit), limit)
    }

    /// `850 ns`, `12.5 µs`, `4 ms`, `1.5 s`: at most one decimal, trailing `.0` dropped.
    static func duration(_ nanoseconds: Int64) -> String {
        let magnitude = nanoseconds.magnitude
        let sign = nanoseconds < 0 ? "-" : ""
        let unit: Unit
        if magnitude >= 1_000_000_000 { unit = .s } else if magnitude >= 1_000_000 { unit = .ms } else if magnitude >= 1_000 { unit = .us } else { unit = .ns }
        return sign + decimal(magnitude, per: UInt64(unit.nanoseconds)) + " " + unit.name
    }

    /// `value / per` with one decimal, rounded half up, `.0` dropped.
    static func decimal(_ value: UInt64, per: UInt64) -> String {
        let tenths = (value.multipliedReportingOverflow(by: 10).overflow ? value / per * 10 : (value * 10 + per / 2) / per)
        let whole = tenths / 10
        let fraction = tenths % 10
        return fraction == 0 ? "\(whole)" : "\(whole).\(fraction)"
    }

    /// A coordinate with at most one decimal: `12`, `12.5`, `-3.2`.
    static func coordinate(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let magnitude = tenths.magnitude
        return magnitude % 10 == 0 ? "\(sign)\(magnitude / 10)" : "\(sign)\(magnitude / 10).\(magnitude % 10)"
    }
}
