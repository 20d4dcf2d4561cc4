import Foundation
import CTimestamp

/// The clock a live recording to a file stamps its threads' ring events with: the CPU's
/// time-stamp counter where it runs at one rate on every core and through sleep states,
/// read in a few instructions, where `clock_gettime(CLOCK_MONOTONIC)` through the vDSO
/// costs about 30 ns an event here (an ordered counter read, a sequence lock, the scaling).
/// The events hold raw counter ticks; the writer thread turns them into the trace's
/// nanoseconds (`TickConverter`), so the trace reads as if stamped by the monotonic clock.
enum TickClock {
    /// Whether the counter can stamp events: an x86-64 CPU whose counter has a constant
    /// rate and keeps counting in sleep states (`constant_tsc` and `nonstop_tsc` among the
    /// flags of /proc/cpuinfo), on a kernel that itself keeps time by it (the `tsc`
    /// clocksource, which the kernel leaves when it finds the cores' counters out of step).
    /// Elsewhere events are stamped by `clock_gettime`.
    static let isUsable: Bool = {
        guard marbles_timestamp_counter_exists() != 0,
              firstLine(of: "/sys/devices/system/clocksource/clocksource0/current_clocksource",
                        where: { _ in true }) == "tsc",
              let flags = firstLine(of: "/proc/cpuinfo", where: { $0.hasPrefix("flags") }) else { return false }
        return countsSteadily(flags: flags)
    }()

    /// Whether a `flags` line of /proc/cpuinfo names both `constant_tsc` and `nonstop_tsc`.
    /// Its words are searched in an array: a `Set` of them would be the process's first use of
    /// that generic type, which the runtime looks up by name (about a million instructions).
    static func countsSteadily(flags: String) -> Bool {
        let words = flags.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == ":" })
        return words.contains { $0 == "constant_tsc" } && words.contains { $0 == "nonstop_tsc" }
    }

    /// The counter now.
    @inline(__always) static func read() -> Int64 {
        Int64(bitPattern: marbles_timestamp_counter())
    }

    /// A counter reading and the monotonic clock's nanoseconds taken together: the clock read
    /// between two counter reads, the counter counted half way, the tightest of a few tries
    /// (a try the thread was preempted in is passed over).
    static func pair() -> (ticks: Int64, nanoseconds: Int64) {
        var best = (ticks: Int64(0), nanoseconds: Int64(0), span: Int64.max)
        for _ in 0..<5 {
            let before = read()
            let nanoseconds = RecorderCore.monotonic()
            let after = read()
            if after - before < best.span { best = (before + (after - before) / 2, nanoseconds, after - before) }
        }
        return (best.ticks, best.nanoseconds)
    }

    /// The first line of the file at `path` that `matches`, without its newline; nil when
    /// the file cannot be read or no line matches. (/proc files report no size, so they are
    /// read line by line.)
    private static func firstLine(of path: String, where matches: (String) -> Bool) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            var text = String(cString: line)
            if text.hasSuffix("\n") { text.removeLast() }
            if matches(text) { return text }
        }
        return nil
    }
}

/// The writer's conversion of counter ticks into the trace's nanoseconds (from the
/// recording's origin). Each round of the writer takes a new pair of readings
/// (`TickClock.pair()`) and converts that round's events linearly between the pair of the
/// round before and the new one: an event lands within a pair's read error (tens of
/// nanoseconds) of where the monotonic clock would have put it, whatever rate adjustments the
/// system clock made between rounds.
struct TickConverter {
    private let origin: Int64
    /// The latest pair, and the one before it with the rate between them (nanoseconds a tick).
    private var latest: (ticks: Int64, nanoseconds: Int64)
    private var base: (ticks: Int64, nanoseconds: Int64)
    private var rate = 0.0

    /// A converter whose first round starts at `start` (taken when the recording started).
    init(start: (ticks: Int64, nanoseconds: Int64), origin: Int64) {
        self.origin = origin
        latest = start
        base = start
    }

    /// Takes a new pair: the events of the round starting now are converted between the
    /// latest pair and this one.
    mutating func advance() {
        let now = TickClock.pair()
        base = latest
        rate = Double(now.nanoseconds - base.nanoseconds) / Double(max(now.ticks - base.ticks, 1))
        latest = now
    }

    /// The nanoseconds since the origin at counter reading `ticks`.
    @inline(__always) func nanoseconds(_ ticks: Int64) -> Int64 {
        base.nanoseconds - origin + Int64((Double(ticks - base.ticks) * rate).rounded())
    }
}
