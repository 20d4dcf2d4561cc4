import Dispatch
import Signals

/// Moving values to another thread: `observe(on:)` onto a `QueueScheduler` against a bare
/// `DispatchQueue.async` per value, both timed until the last value has run on the queue,
/// in the CPU time of the whole process (the sending thread and the queue's).
enum Hops {
    static func observeOn(_ count: Int, into sink: Sink) -> Double {
        let scheduler = QueueScheduler(name: "bench-hops")
        let (signal, input) = Signal<Int, Never>.pipe(named: "hops")
        let done = DispatchSemaphore(value: 0)
        signal.observe(on: scheduler).observe { event in
            switch event {
            case let .value(value): sink.receive(value)
            case .completed, .interrupted: done.signal()
            }
        }
        return processSeconds {
            for value in 0..<count { input.send(value: value) }
            input.sendCompleted()
            done.wait()
        }
    }

    static func dispatch(_ count: Int, into sink: Sink) -> Double {
        let queue = DispatchQueue(label: "marbles.bench-dispatch")
        return processSeconds {
            for value in 0..<count { queue.async { sink.receive(value) } }
            queue.sync {}
        }
    }

    static func measure(count: Int, runs: Int, table: inout Table) throws {
        var hopTimes: [Double] = [], dispatchTimes: [Double] = [], ratios: [Double] = []
        for _ in 0..<runs {
            let hopSink = Sink(), dispatchSink = Sink()
            let dispatched = dispatch(count, into: dispatchSink)
            let hopped = observeOn(count, into: hopSink)
            guard hopSink.checksum == dispatchSink.checksum, hopSink.count == count else {
                throw BenchError("hops: observe(on:) delivered \(hopSink.count) of \(count) values")
            }
            hopTimes.append(hopped)
            dispatchTimes.append(dispatched)
            ratios.append(hopped / dispatched)
        }
        let section = "hops"
        table.add(Row(section: section, figure: "observe(on: QueueScheduler), \(millions(Double(count))) values",
                      value: "\(decimal(median(hopTimes) / Double(count) * 1e9)) ns CPU/value"))
        table.add(Row(section: section, figure: "bare DispatchQueue.async per value",
                      value: "\(decimal(median(dispatchTimes) / Double(count) * 1e9)) ns CPU/value"))
        let ratio = median(ratios)
        table.add(Row(section: section, figure: "observe(on:) ÷ DispatchQueue.async (same run)",
                      value: "\(decimal(ratio, 2))×", target: "≤ 1.2×", met: ratio <= 1.2))
    }
}
