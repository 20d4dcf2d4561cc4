import Foundation
import Signals
import TraceLog

/// The recorder's clocks and the header it writes first: the origin, the wall clock at it
/// in ISO 8601, the process and the host.
extension RecorderCore {
    /// In line on the send path: a virtual clock's reading is one call to its scheduler.
    @inline(__always) func now() -> Int64 {
        guard let virtualScheduler else { return Self.monotonic() - origin }
        return virtualScheduler._withUnsafeGuaranteedRef { $0.now }
    }

    static func monotonic() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    var isVirtual: Bool {
        if case .virtual = clock { return true }
        return false
    }

    func makeHeader() -> TraceHeader {
        guard !isVirtual else { return TraceHeader(clock: .virtual) }
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let wall = Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
        let elapsed = Self.monotonic() - origin
        return TraceHeader(clock: .real, wallClock: Self.iso8601(nanoseconds: wall - elapsed),
                           wallClockNanoseconds: wall - elapsed, pid: Int64(getpid()),
                           process: ProcessInfo.processInfo.processName, host: Self.hostName())
    }

    static func hostName() -> String {
        var raw = [CChar](repeating: 0, count: 256)
        guard gethostname(&raw, raw.count - 1) == 0 else { return "unknown" }
        return raw.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// `2026-11-21T22:36:04.123456789Z`.
    static func iso8601(nanoseconds: Int64) -> String {
        var seconds = time_t(nanoseconds / 1_000_000_000)
        let fraction = nanoseconds % 1_000_000_000
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))T"
            + "\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2))."
            + "\(pad(Int(fraction), 9))Z"
    }
}
