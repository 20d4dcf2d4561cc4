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

        /// The unit an axis with ticks every `step` up to `largest` is labelled in: the
        /// step's unit, or a larger one when labels would run past four digits (an axis of a
        /// window late in a trace reads `952.35 … 3621.7 ms`, not `952350 … 3621700 µs`).
        static func axis(step: Int64, largest: UInt64) -> (unit: Unit, decimals: Int) {
            var unit = fitting(step)
            let larger = [ns, us, ms, s]
            while largest / UInt64(unit.nanoseconds) >= 10_000, let index = larger.firstIndex(of: unit), index + 1 < larger.count {
                unit = larger[index + 1]
            }
            var decimals = 0
            var scaled = step
            while scaled % unit.nanoseconds != 0, decimals < 3, !scaled.multipliedReportingOverflow(by: 10).overflow {
                scaled *= 10
                decimals += 1
            }
            return (unit, decimals)
        }
    }

    /// `time` in `unit` with exactly `decimals` decimals (truncated): `952.35`.
    static func fixed(_ time: Int64, unit: Unit, decimals: Int) -> String {
        let sign = time < 0 ? "-" : ""
        let magnitude = time.magnitude
        let per = UInt64(unit.nanoseconds)
        guard decimals > 0 else { return sign + String(magnitude / per) }
        var factor: UInt64 = 1
        for _ in 0..<decimals { factor *= 10 }
        let fraction = (magnitude % per) / max(1, per / factor)
        let digits = String(fraction)
        return sign + "\(magnitude / per)." + String(repeating: "0", count: max(0, decimals - digits.count)) + digits
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
