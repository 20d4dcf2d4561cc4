import OpenCombine
import Signals
import TraceLog

/// The same work three ways: map (+1) → filter (even) → map (×3) → scan (running sum),
/// each value sent from one thread into a `Sink`.
enum Core {
    /// Builds the Marbles pipeline and returns its input.
    static func marblesPipeline(into sink: Sink) -> Signal<Int, Never>.Observer {
        let (signal, input) = Signal<Int, Never>.pipe(named: "numbers")
        signal
            .map { $0 &+ 1 }
            .filter { $0 & 1 == 0 }
            .map { $0 &* 3 }
            .scan(0) { $0 &+ $1 }
            .observeValues { sink.receive($0) }
        return input
    }

    /// Seconds to send `count` values through the Marbles pipeline (no recorder attached
    /// unless the caller attached one). Never inlined, like its two peers, so that a profile
    /// (`valgrind --tool=callgrind`) shows each one's inclusive cost.
    @inline(never)
    static func marbles(_ count: Int, into sink: Sink) -> Double {
        let input = marblesPipeline(into: sink)
        let elapsed = seconds {
            for value in 0..<count { input.send(value: value) }
        }
        input.sendCompleted()
        return elapsed
    }

    /// Seconds to send `count` values through the same chain of OpenCombine operators on a
    /// `PassthroughSubject`.
    @inline(never)
    static func openCombine(_ count: Int, into sink: Sink) -> Double {
        let subject = PassthroughSubject<Int, Never>()
        let cancellable = subject
            .map { $0 &+ 1 }
            .filter { $0 & 1 == 0 }
            .map { $0 &* 3 }
            .scan(0) { $0 &+ $1 }
            .sink { sink.receive($0) }
        let elapsed = seconds {
            for value in 0..<count { subject.send(value) }
        }
        subject.send(completion: .finished)
        cancellable.cancel()
        return elapsed
    }

    /// Seconds for a hand-written loop doing the same work: the floor set by the hardware
    /// and the sink call.
    @inline(never)
    static func handLoop(_ count: Int, into sink: Sink) -> Double {
        seconds {
            var sum = 0
            for value in 0..<count {
                let incremented = value &+ 1
                if incremented & 1 != 0 { continue }
                sum &+= incremented &* 3
                sink.receive(sum)
            }
        }
    }

    /// Runs the three `runs` times with `count` values each, checks they computed the same,
    /// and adds the medians and the medians of the per-run ratios to `table`.
    static func measure(count: Int, runs: Int, table: inout Table) throws {
        var marblesTimes: [Double] = [], combineTimes: [Double] = [], loopTimes: [Double] = []
        var versusCombine: [Double] = [], versusLoop: [Double] = []
        for _ in 0..<runs {
            let loopSink = Sink(), marblesSink = Sink(), combineSink = Sink()
            let loop = handLoop(count, into: loopSink)
            let marbles = marbles(count, into: marblesSink)
            let combine = openCombine(count, into: combineSink)
            for (name, sink) in [("Marbles", marblesSink), ("OpenCombine", combineSink)]
            where sink.checksum != loopSink.checksum || sink.count != loopSink.count {
                throw BenchError("core: \(name) computed \(sink.count) values summing to \(sink.checksum), "
                    + "the hand loop \(loopSink.count) summing to \(loopSink.checksum)")
            }
            marblesTimes.append(marbles)
            combineTimes.append(combine)
            loopTimes.append(loop)
            versusCombine.append(combine / marbles)
            versusLoop.append(marbles / loop)
        }
        let perValue = { (times: [Double]) in median(times) / Double(count) * 1e9 }
        let section = "core"
        let label = "\(millions(Double(count))) ints, map→filter→map→scan"
        table.add(Row(section: section, figure: "Marbles, no recorder: \(label)",
                      value: "\(decimal(perValue(marblesTimes))) ns/value (\(millions(Double(count) / median(marblesTimes)))/s)"))
        table.add(Row(section: section, figure: "OpenCombine PassthroughSubject, same chain",
                      value: "\(decimal(perValue(combineTimes))) ns/value (\(millions(Double(count) / median(combineTimes)))/s)"))
        table.add(Row(section: section, figure: "hand-written loop, same work",
                      value: "\(decimal(perValue(loopTimes), 2)) ns/value"))
        let ratio = median(versusCombine)
        table.add(Row(section: section, figure: "Marbles throughput ÷ OpenCombine's (same run)",
                      value: "\(decimal(ratio, 2))×", target: "≥ 2×", met: ratio >= 2))
        table.add(Row(section: section, figure: "Marbles time ÷ hand loop's (same run)",
                      value: "\(decimal(median(versusLoop), 1))×"))
    }
}
