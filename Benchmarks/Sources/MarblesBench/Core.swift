import OpenCombine
import Signals
import TraceLog

/// The same work three ways, for each payload (`Payload`): map (incremented) → filter (key
/// even) → map (tripled) → scan (combined), each value sent from one thread, the scanned
/// value's key into a `Sink`.
///
/// The contenders are generic and never inlined: the release build specialises each for
/// every payload, as a user's code is for its own types, so a profile (`valgrind
/// --tool=callgrind`, `--only core --quick --runs 1 --payload string`) shows one function per
/// payload per contender (`generic specialization <Reading> of Core.marbles…`), whose
/// inclusive cost divided by the values sent is the cost per value.
enum Core {
    /// Builds the Marbles pipeline for `P` and returns its input.
    static func marblesPipeline<P: Payload>(_: P.Type, into sink: Sink) -> Signal<P, Never>.Observer {
        let (signal, input) = Signal<P, Never>.pipe(named: "numbers")
        signal
            .map { $0.incremented() }
            .filter { $0.key & 1 == 0 }
            .map { $0.tripled() }
            .scan(P.initial) { P.combine($0, $1) }
            .observeValues { sink.receive($0.key) }
        return input
    }

    /// The pipeline of integers (the drawing section's trace).
    static func marblesPipeline(into sink: Sink) -> Signal<Int, Never>.Observer {
        marblesPipeline(Int.self, into: sink)
    }

    /// Seconds to send `count` values through the Marbles pipeline (no recorder attached
    /// unless the caller attached one).
    @inline(never)
    static func marbles<P: Payload>(_ count: Int, _: P.Type, into sink: Sink) -> Double {
        let input = marblesPipeline(P.self, into: sink)
        let elapsed = seconds {
            for index in 0..<count { input.send(value: P.make(index)) }
        }
        input.sendCompleted()
        return elapsed
    }

    /// Seconds to send `count` values through the same chain of OpenCombine operators on a
    /// `PassthroughSubject`.
    @inline(never)
    static func openCombine<P: Payload>(_ count: Int, _: P.Type, into sink: Sink) -> Double {
        let subject = PassthroughSubject<P, Never>()
        let cancellable = subject
            .map { $0.incremented() }
            .filter { $0.key & 1 == 0 }
            .map { $0.tripled() }
            .scan(P.initial) { P.combine($0, $1) }
            .sink { sink.receive($0.key) }
        let elapsed = seconds {
            for index in 0..<count { subject.send(P.make(index)) }
        }
        subject.send(completion: .finished)
        cancellable.cancel()
        return elapsed
    }

    /// Seconds for a hand-written loop doing the same work: the floor set by the hardware,
    /// the payload's own work and the sink call.
    @inline(never)
    static func handLoop<P: Payload>(_ count: Int, _: P.Type, into sink: Sink) -> Double {
        seconds {
            var accumulated = P.initial
            for index in 0..<count {
                let incremented = P.make(index).incremented()
                if incremented.key & 1 != 0 { continue }
                accumulated = P.combine(accumulated, incremented.tripled())
                sink.receive(accumulated.key)
            }
        }
    }

    /// Runs the core figures for each payload in `payloads` (all when empty).
    static func measure(count: Int, runs: Int, payloads: [PayloadChoice], table: inout Table) throws {
        // Concrete types, one call each, so that every contender is specialised per payload.
        try measure(Int.self, count: count, runs: runs, payloads: payloads, table: &table)
        try measure(String.self, count: count, runs: runs, payloads: payloads, table: &table)
        try measure(Reading.self, count: count, runs: runs, payloads: payloads, table: &table)
        try measure(Message.self, count: count, runs: runs, payloads: payloads, table: &table)
        try measure(Int?.self, count: count, runs: runs, payloads: payloads, table: &table)
    }

    /// Runs the three `runs` times with `count` values of `P` each, checks they computed the
    /// same, and adds the medians and the medians of the per-run ratios to `table`.
    static func measure<P: Payload>(_: P.Type, count: Int, runs: Int, payloads: [PayloadChoice],
                                    table: inout Table) throws {
        guard payloads.isEmpty || payloads.contains(P.choice) else { return }
        var marblesTimes: [Double] = [], combineTimes: [Double] = [], loopTimes: [Double] = []
        var versusCombine: [Double] = [], versusLoop: [Double] = []
        for _ in 0..<runs {
            let loopSink = Sink(), marblesSink = Sink(), combineSink = Sink()
            let loop = handLoop(count, P.self, into: loopSink)
            let marbles = marbles(count, P.self, into: marblesSink)
            let combine = openCombine(count, P.self, into: combineSink)
            for (name, sink) in [("Marbles", marblesSink), ("OpenCombine", combineSink)]
            where sink.checksum != loopSink.checksum || sink.count != loopSink.count {
                throw BenchError("core, \(P.label): \(name) computed \(sink.count) values summing to \(sink.checksum), "
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
        let payload = P.label
        table.add(Row(section: section,
                      figure: "Marbles, no recorder: \(millions(Double(count))) \(payload), map→filter→map→scan",
                      value: "\(decimal(perValue(marblesTimes))) ns/value (\(millions(Double(count) / median(marblesTimes)))/s)"))
        table.add(Row(section: section, figure: "OpenCombine PassthroughSubject<\(payload)>, same chain",
                      value: "\(decimal(perValue(combineTimes))) ns/value (\(millions(Double(count) / median(combineTimes)))/s)"))
        let ratio = median(versusCombine)
        table.add(Row(section: section, figure: "\(payload): Marbles throughput ÷ OpenCombine's (same run)",
                      value: "\(decimal(ratio, 2))×", target: "≥ 2×", met: ratio >= 2))
        table.add(Row(section: section, figure: "\(payload): hand-written loop, same work",
                      value: "\(decimal(perValue(loopTimes), 2)) ns/value"))
        if P.self == Int.self {
            table.add(Row(section: section, figure: "\(payload): Marbles time ÷ hand loop's (same run)",
                          value: "\(decimal(median(versusLoop), 1))×"))
        }
    }
}
