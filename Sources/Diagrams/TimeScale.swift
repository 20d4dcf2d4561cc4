/// Maps trace times onto a horizontal extent: linear, except that long idle gaps are
/// compressed to a fixed width and marked with a break.
///
/// A gap is compressed when it is both more than ten times the median gap between event
/// times and more than a quarter of the whole span: then it is idle time that would squeeze
/// every event into a corner, not part of the rhythm of the stream. With `cuts` false no gap
/// is: every wait is drawn at its true length (a 50/100/200 ms backoff stays 1:2:4).
struct TimeScale {
    /// A stretch drawn linearly: times `start...end` at `x` onwards, `scale` pixels per ns.
    struct Stretch {
        var start: Int64
        var end: Int64
        var x: Double
        var scale: Double
    }

    /// A compressed gap: where its break mark is drawn and the times it hides.
    struct Break {
        var x: Double
        var from: Int64
        var to: Int64
    }

    private(set) var stretches: [Stretch] = []
    private(set) var breaks: [Break] = []
    /// The x of the first time and of the last.
    let startX: Double
    private(set) var endX: Double

    /// - Parameters:
    ///   - times: every time the figure shows (events, subscriptions, ends); any order.
    ///   - startX: where the first time is drawn.
    ///   - minWidth, maxWidth: bounds on the width between the first and the last time.
    ///   - spacing: the distance wanted between the two closest times, within the bounds.
    ///   - breakWidth: the width a compressed gap takes.
    ///   - cuts: whether long idle gaps may be compressed.
    init(times: [Int64], startX: Double, minWidth: Double, maxWidth: Double, spacing: Double, breakWidth: Double,
         cuts: Bool = true) {
        self.startX = startX
        // Sorted in place and without repeats: a set of a long trace's times cost more than the
        // figure's marbles.
        var sorted = times.map(TimeFormat.clamped)
        sorted.sort()
        var kept = 0
        for index in sorted.indices where index == 0 || sorted[index] != sorted[kept - 1] {
            sorted[kept] = sorted[index]
            kept += 1
        }
        sorted.removeSubrange(kept...)
        guard let first = sorted.first, let last = sorted.last, last > first else {
            let time = sorted.first ?? 0
            stretches = [Stretch(start: time, end: time, x: startX + minWidth / 2, scale: 0)]
            endX = startX + minWidth
            return
        }
        // Differences saturate: a hostile trace may hold times from Int64.min to Int64.max.
        func distance(_ from: Int64, _ to: Int64) -> Int64 {
            let (difference, overflow) = to.subtractingReportingOverflow(from)
            return overflow ? Int64.max : difference
        }
        let gaps = zip(sorted.dropFirst(), sorted).map { distance($1, $0) }
        let median = gaps.sorted()[gaps.count / 2]
        let span = distance(first, last)
        let compress = gaps.map { cuts && gaps.count >= 3 && median <= Int64.max / 10 && $0 > median * 10 && $0 > span / 4 }
        let compressedTotal = zip(gaps, compress).reduce(Int64(0)) { total, gap in
            guard gap.1 else { return total }
            let (sum, overflow) = total.addingReportingOverflow(gap.0)
            return overflow ? Int64.max : sum
        }
        let linear = (Double(span) - Double(compressedTotal))
        let breakCount = Double(compress.filter { $0 }.count)
        let available = max(minWidth, maxWidth - breakCount * breakWidth)
        let smallest = zip(gaps, compress).filter { !$0.1 }.map(\.0).min() ?? span
        var scale = min(spacing / Double(max(smallest, 1)), available / max(linear, 1))
        scale = max(scale, (minWidth - breakCount * breakWidth) / max(linear, 1))

        var x = startX
        var stretchStart = first
        for index in gaps.indices where compress[index] {
            let time = sorted[index]
            stretches.append(Stretch(start: stretchStart, end: time, x: x, scale: scale))
            x += (Double(time) - Double(stretchStart)) * scale
            breaks.append(Break(x: x + breakWidth / 2, from: time, to: sorted[index + 1]))
            x += breakWidth
            stretchStart = sorted[index + 1]
        }
        stretches.append(Stretch(start: stretchStart, end: last, x: x, scale: scale))
        endX = x + (Double(last) - Double(stretchStart)) * scale
    }

    /// The x of `time`. Times inside a compressed gap go to its break; times before the first
    /// or after the last extend the nearest stretch.
    func x(_ time: Int64) -> Double {
        let time = TimeFormat.clamped(time)
        guard let first = stretches.first, let last = stretches.last else { return startX }
        if time <= first.end { return first.x + (Double(time) - Double(first.start)) * first.scale }
        for (index, stretch) in stretches.enumerated().dropFirst() {
            if time < stretch.start { return breaks[index - 1].x }
            if time <= stretch.end {
                return stretch.x + (Double(time) - Double(stretch.start)) * stretch.scale
            }
        }
        return last.x + (Double(time) - Double(last.start)) * last.scale
    }

    /// A tick step of 1, 2 or 5 times a power of ten nanoseconds, at least `minimum` pixels
    /// apart, and the ticks at its multiples within the stretches.
    func ticks(minimum: Double) -> (step: Int64, times: [Int64]) {
        let scale = stretches.map(\.scale).max() ?? 0
        guard scale > 0 else { return (1, stretches.first.map { [$0.start] } ?? []) }
        let raw = minimum / scale
        var step: Int64 = 1
        search: while step < Int64.max / 10 {
            for factor: Int64 in [1, 2, 5] where Double(step * factor) >= raw {
                step *= factor
                break search
            }
            step *= 10
        }
        var times: [Int64] = []
        for stretch in stretches {
            // Added with overflow checks: a trace may hold times up to Int64.max.
            let rounded = stretch.start / step * step
            var tick: (partialValue: Int64, overflow: Bool) = rounded < stretch.start ? rounded.addingReportingOverflow(step) : (rounded, false)
            while !tick.overflow, tick.partialValue <= stretch.end {
                times.append(tick.partialValue)
                tick = tick.partialValue.addingReportingOverflow(step)
            }
        }
        return (step, times)
    }
}
