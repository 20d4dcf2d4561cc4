import Foundation

/// Nanoseconds of `clock`.
func nanoseconds(_ clock: clockid_t) -> UInt64 {
    var spec = timespec()
    clock_gettime(clock, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// The CPU seconds the calling thread spent in `body` (user and system). Single-threaded
/// figures use this rather than wall time: the machine is shared, and time spent descheduled
/// while others build is not the code's cost.
@inline(never)
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = nanoseconds(CLOCK_THREAD_CPUTIME_ID)
    try body()
    return Double(nanoseconds(CLOCK_THREAD_CPUTIME_ID) - start) / 1e9
}

/// The CPU seconds the whole process (every thread) spent while `body` ran, for figures
/// that span threads: what moving the work cost, however the scheduler interleaved it.
@inline(never)
func processSeconds(_ body: () throws -> Void) rethrows -> Double {
    let start = nanoseconds(CLOCK_PROCESS_CPUTIME_ID)
    try body()
    return Double(nanoseconds(CLOCK_PROCESS_CPUTIME_ID) - start) / 1e9
}

/// The median of `values` (the mean of the middle two for an even count).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Where every pipeline's values end. `receive` is never inlined, so the optimiser cannot
/// fold a pipeline's stages away, and every contender pays the same call per value.
final class Sink: @unchecked Sendable {
    private(set) var count = 0
    private(set) var checksum = 0

    @inline(never)
    func receive(_ value: Int) {
        count &+= 1
        checksum &+= value
    }
}

/// A benchmark failed in a way that makes its figures meaningless (a wrong checksum, an
/// unwritable file).
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The peak resident set of this process in KiB (`VmHWM`), or nil when /proc does not say.
func peakResidentKiB() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let digits = line.dropFirst("VmHWM:".count).filter(\.isNumber)
        return Int(digits)
    }
    return nil
}

/// A fixed-point decimal rendering, for the table.
func decimal(_ value: Double, _ places: Int = 1) -> String {
    guard value.isFinite else { return "-" }
    return String(format: "%.\(places)f", value)
}

/// Millions, with one decimal.
func millions(_ value: Double) -> String { decimal(value / 1e6, 2) + " M" }

/// Runs this benchmark again as a child process with `arguments` (one of its hidden child
/// modes) and returns what it printed, trimmed; a child that fails is an error of `section`.
func runThisBenchmark(_ arguments: [String], section: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let output = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    guard process.terminationStatus == 0 else {
        throw BenchError("\(section): the child process exited with status \(process.terminationStatus): \(output)")
    }
    return output
}
