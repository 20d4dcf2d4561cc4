import Foundation
import XCTest
import Signals
@testable import Recording

/// A live recording's ring events are stamped by the CPU's time-stamp counter where it is
/// usable (`TickClock`) and by `clock_gettime` otherwise; either way the trace holds the
/// monotonic clock's nanoseconds. Marks are stamped by `clock_gettime` under the recorder's
/// lock, so the events sent between two marks lie between their times on either clock.
final class RecorderClockTests: XCTestCase {
    func testRingEventsLieBetweenTheMarksAroundThemOnEitherClock() throws {
        for counterClock in [true, false] {
            let url = FileManager.default.temporaryDirectory
                .appendingPathComponent("marbles-clock-\(getpid())-\(counterClock).trace")
            defer { try? FileManager.default.removeItem(at: url) }
            // A tiny ring and a short interval: the writer converts over many rounds.
            let recorder = try Recorder(to: url, bufferCapacity: 4096, flushInterval: .milliseconds(1),
                                        counterClock: counterClock)
            recorder.start()
            let (signal, input) = Signal<Int, Never>.pipe(named: "clock")
            var received = 0
            signal.map { $0 + 1 }.observeValues { _ in received += 1 }
            for round in 0..<2_000 {
                recorder.mark("m\(round)")
                for value in 0..<5 { input.send(value: value) }
            }
            try recorder.stop()
            XCTAssertEqual(received, 10_000)

            let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
            var lastMark: Int64?
            var since: [Int64] = []  // the times of the events since the last mark
            var checked = 0
            var lastEvent: Int64 = 0
            for line in lines {
                let record = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                guard let time = (record["time"] as? NSNumber)?.int64Value else { continue }
                switch record["type"] as? String {
                case "mark":
                    if let lastMark {
                        for event in since {
                            XCTAssertTrue(lastMark <= event && event <= time,
                                          "an event at \(event) ns between marks at \(lastMark) and \(time) (counter \(counterClock))")
                            checked += 1
                        }
                    }
                    lastMark = time
                    since = []
                case "event":
                    XCTAssertGreaterThanOrEqual(time, lastEvent, "one thread's events in time order (counter \(counterClock))")
                    lastEvent = time
                    since.append(time)
                default:
                    break
                }
            }
            XCTAssertEqual(checked, 1_999 * 10)
        }
    }

    /// The counter stamps events only where /proc/cpuinfo's flags name both of its steady
    /// properties, as whole words (not as part of another flag).
    func testTheCounterIsUsableOnlyWithBothFlagsAsWords() {
        XCTAssertTrue(TickClock.countsSteadily(flags: "flags\t\t: fpu tsc constant_tsc rep_good nopl nonstop_tsc cpuid"))
        XCTAssertTrue(TickClock.countsSteadily(flags: "flags:nonstop_tsc constant_tsc"))
        XCTAssertFalse(TickClock.countsSteadily(flags: "flags\t\t: fpu tsc constant_tsc rep_good"))
        XCTAssertFalse(TickClock.countsSteadily(flags: "flags\t\t: fpu tsc nonstop_tsc"))
        XCTAssertFalse(TickClock.countsSteadily(flags: "flags\t\t: constant_tsc_x nonstop_tsc_y"))
        XCTAssertFalse(TickClock.countsSteadily(flags: ""))
    }
}
