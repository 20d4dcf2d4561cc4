extension Int64 {
    /// `self - other`, clamped to `Int64`'s range instead of trapping.
    ///
    /// Trace times are integers read from a file: a hostile or corrupt trace may hold times at
    /// both ends of the range, and a latency or wait between them must not trap a reader.
    public func saturatingSubtracting(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return difference }
        return other < 0 ? .max : .min
    }

    /// `self + other`, clamped to `Int64`'s range instead of trapping.
    public func saturatingAdding(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other < 0 ? .min : .max
    }
}
