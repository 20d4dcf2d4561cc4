import AsyncMarbles
import Dispatch
import Foundation
import Recording

/// The `index`-th values of a payload, `count` of them, as a synchronous `AsyncSequence`: its
/// `next` never suspends, so a pull costs a few instructions and the tap's cost is not
/// drowned by an `AsyncStream`'s lock and continuation (issue 30).
struct Counting<P: Payload>: AsyncSequence {
    typealias Element = P
    typealias Failure = Never
    let count: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var index = 0
        let count: Int

        mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> P? {
            guard index < count else { return nil }
            defer { index += 1 }
            return P.make(index)
        }

        mutating func next() async -> P? { await next(isolation: nil) }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(count: count) }
}

/// `AsyncSequence` taps (`marbles(_:)`, issue 30): a bare `for await` over `Counting`, then
/// through `.map`, against the same loops with a tap on each stage and no recorder, and with a
/// recorder writing a file. Timed in the CPU time of the whole process (the loop runs on the
/// cooperative pool while the main thread waits; the recorder's writer is another thread).
enum AsyncTaps {
    /// Runs `body` to the end on the cooperative pool, blocking the calling thread.
    static func block(_ body: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            await body()
            done.signal()
        }
        done.wait()
    }

    static func bare<P: Payload>(_: P.Type, _ count: Int, mapped: Bool, into sink: Sink) {
        block {
            if mapped {
                for await value in Counting<P>(count: count).map({ $0.incremented() }) { sink.receive(value.key) }
            } else {
                for await value in Counting<P>(count: count) { sink.receive(value.key) }
            }
        }
    }

    static func tapped<P: Payload>(_: P.Type, _ count: Int, mapped: Bool, into sink: Sink) {
        block {
            let source = Counting<P>(count: count).marbles("source")
            if mapped {
                for await value in source.map({ $0.incremented() }).marbles("map") { sink.receive(value.key) }
            } else {
                for await value in source { sink.receive(value.key) }
            }
        }
    }

    /// Which loop `instructionLoop` runs: `Counting → map` bare, with both stages tapped and
    /// no recorder, or the map in a generic wrapper of the benchmark's own that only forwards
    /// `next(isolation:)` (what a tap with no recorder does, without the tap).
    enum Loop: String {
        case bare, off, forwarded
    }

    /// A sequence that forwards its base's elements, as a tap does with no recorder.
    struct Forwarding<Base: AsyncSequence>: AsyncSequence {
        typealias Element = Base.Element
        typealias Failure = Base.Failure
        let base: Base

        struct AsyncIterator: AsyncIteratorProtocol {
            var base: Base.AsyncIterator

            mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(Failure) -> Element? {
                try await base.next(isolation: actor)
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }
    }

    /// The loop callgrind counts for the taps' cost with no recorder (`--instruction-loop
    /// async-map:bare|off|forwarded`): `count` Ints through `Counting → map`.
    static func instructionLoop(_ loop: Loop, count: Int) {
        let sink = Sink()
        switch loop {
        case .bare: bare(Int.self, count, mapped: true, into: sink)
        case .off: tapped(Int.self, count, mapped: true, into: sink)
        case .forwarded:
            block {
                for await value in Forwarding(base: Counting<Int>(count: count).map({ $0.incremented() })) { sink.receive(value.key) }
            }
        }
        print("async-map \(loop.rawValue): \(sink.count) values, checksum \(sink.checksum)")
    }

    static func measure(count: Int, runs: Int, directory: URL, table: inout Table) throws {
        try measure(Int.self, count: count, runs: runs, directory: directory, table: &table)
        try measure(Reading.self, count: count, runs: runs, directory: directory, table: &table)
    }

    static func measure<P: Payload>(_: P.Type, count: Int, runs: Int, directory: URL, table: inout Table) throws {
        let url = directory.appendingPathComponent("marbles-bench-async.trace")
        defer { try? FileManager.default.removeItem(at: url) }
        for mapped in [false, true] {
            let stages = mapped ? 2 : 1
            var bareTimes: [Double] = [], offTimes: [Double] = [], onTimes: [Double] = []
            var offRatios: [Double] = [], perEvent: [Double] = []
            for _ in 0..<runs {
                let sinks = (Sink(), Sink(), Sink())
                let bareTime = processSeconds { bare(P.self, count, mapped: mapped, into: sinks.0) }
                let offTime = processSeconds { tapped(P.self, count, mapped: mapped, into: sinks.1) }
                try? FileManager.default.removeItem(at: url)  // a fresh file each run (see Recording)
                let recorder = try Recorder(to: url)
                var events: UInt64 = 0
                let onTime = try processSeconds {
                    recorder.start()
                    tapped(P.self, count, mapped: mapped, into: sinks.2)
                    events = try recorder.stop().events
                }
                guard sinks.0.count == count, sinks.1.checksum == sinks.0.checksum,
                      sinks.2.checksum == sinks.0.checksum, sinks.1.count == count, sinks.2.count == count else {
                    throw BenchError("async: the tapped loops received other values than the bare loop")
                }
                // Each stage records every element and its end: count + 1 events a stage.
                guard events >= UInt64(stages * (count + 1)) else {
                    throw BenchError("async: the recorder wrote \(events) events, expected at least \(stages * (count + 1))")
                }
                bareTimes.append(bareTime)
                offTimes.append(offTime)
                onTimes.append(onTime)
                offRatios.append(offTime / bareTime)
                perEvent.append((onTime - offTime) / Double(events) * 1e9)
            }
            let shape = mapped ? "Counting → map" : "Counting"
            let perElement = { (times: [Double]) in decimal(median(times) / Double(count) * 1e9) }
            table.add(Row(section: "async",
                          figure: "\(P.label): for await over \(shape), \(millions(Double(count))) elements: "
                              + "bare → \(stages) tap\(stages == 1 ? "" : "s") off → on (file)",
                          value: "\(perElement(bareTimes)) → \(perElement(offTimes)) → \(perElement(onTimes)) ns CPU/element"))
            table.add(Row(section: "async", figure: "\(P.label), \(shape): taps off ÷ bare (same run)",
                          value: "\(decimal(median(offRatios), 2))×"))
            table.add(Row(section: "async", figure: "\(P.label), \(shape): recording added per recorded event (same run)",
                          value: "\(decimal(median(perEvent))) ns CPU"))
        }
    }
}
