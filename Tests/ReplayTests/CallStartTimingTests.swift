import Foundation
import MarbleStreams
import Recording
import Replay
import Signals
import TraceLog
import XCTest

/// When a replayed call answers that a live run started later than the replay does: during the
/// pipeline's setup. The live generated pipelines (issue 27, seed 8) found it: an answer counted
/// from the replay's start overtook another thread's input that came first live.
final class CallStartTimingTests: XCTestCase {
    /// `merge(call "c", input "i")`: the call answers `1` after 20 ms on `services`; the input
    /// sends `2`.
    private func build(_ environment: Environment, into seen: Seen<Int>) -> Disposable {
        let services = environment.scheduler("services")
        func service(_ answer: Int) -> SignalProducer<Int, Never> {
            SignalProducer { observer, lifetime in
                lifetime += services.schedule(after: services.currentDate.addingTimeInterval(0.020)) {
                    observer.send(value: answer)
                    observer.sendCompleted()
                }
            }
        }
        let calls = environment.call("c", request: 1) { service(1) }
        let input = SignalProducer(environment.input("i", of: Int.self))
        return SignalProducer.merge(calls, input).start { event in
            if case let .value(value) = event { seen.values.append(value) }
        }
    }

    /// Records the pipeline in virtual time, the input sending `2` at `inputAt` ms.
    private func record(inputAt: Double) throws -> [UInt8] {
        let scheduler = TestScheduler()
        let recorder = Recorder(clock: .virtual(scheduler))
        recorder.start()
        let environment = VirtualEnvironment(scheduler: scheduler)
        let seen = Seen<Int>()
        let disposable = build(environment, into: seen)
        let driver = environment.scheduler("driver")
        driver.schedule(after: driver.currentDate.addingTimeInterval(inputAt / 1000)) { try? environment.send(2, to: "i") }
        _ = scheduler.run()
        disposable.dispose()
        try recorder.stop()
        return recorder.bytes
    }

    /// The recording as a live one would read, had setting the pipeline up taken `delay` ns: a
    /// real clock, and every record that late.
    private func asLive(_ recorded: [UInt8], delayedBy delay: Int64) throws -> Trace {
        var lines: [String] = []
        for line in String(decoding: recorded, as: UTF8.self).split(separator: "\n").map(String.init) {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
            var edited = line.replacingOccurrences(of: #""clock":"virtual""#, with: #""clock":"real""#)
            if let time = (object["time"] as? NSNumber)?.int64Value {
                edited = edited.replacingOccurrences(of: #""time":\#(time),"#, with: #""time":\#(time + delay),"#)
            }
            lines.append(edited)
        }
        return try Trace(bytes: Array((lines.joined(separator: "\n") + "\n").utf8), name: "live")
    }

    private func replay(_ trace: Trace) throws -> (Seen<Int>, Trace) {
        let seen = Seen<Int>()
        let result = try Replayer(trace: trace).replay { environment in
            self.build(environment, into: seen)
        }
        return (seen, result.trace)
    }

    /// Live, setting the pipeline up took 10 ms: the call started at 10 ms and answered at
    /// 30 ms, after the input's 25 ms. The replay sets up in no time; answering 20 ms after its
    /// own start (20 ms) would put the answer first.
    func testACallStartedDuringSetupAnswersAtItsRecordedTime() throws {
        let live = try asLive(try record(inputAt: 15), delayedBy: 10_000_000)
        let (seen, replayed) = try replay(live)
        XCTAssertEqual(seen.values, [2, 1])
        let diff = TraceDiff(live, replayed, nameA: "live", nameB: "replay")
        XCTAssertTrue(diff.isSame, diff.text)
    }
}
