import Foundation
import Locks
import Signals

/// How many values crossed an edge, counted where the downstream operator runs its closure:
/// a `map`, `filter` or `scan` calls it once per value it receives, a `flatMap` its
/// transform once per outer value. So the counts are taken by the code that ran, not read
/// from the trace, and a figure's edge labels can be checked against them.
final class CrossingCounts: @unchecked Sendable {  // `counts` only under `lock`
    struct Key: Hashable, Comparable, CustomStringConvertible {
        var line: UInt
        var name: String
        static func < (a: Key, b: Key) -> Bool { (a.line, a.name) < (b.line, b.name) }
        var description: String { "\(name) at line \(line)" }
    }

    private let lock = Lock()
    private var counts: [Key: Int] = [:]
    private var frozen = false

    func count(_ name: String, line: UInt) {
        lock.withLock { if !frozen { counts[Key(line: line, name: name), default: 0] += 1 } }
    }

    /// Counts nothing more: called as the recording stops, since a live pipeline may run on
    /// after it (a property keeps its source, and so a timer's ticks, going), and the trace
    /// cannot show what its closures did then.
    func freeze() {
        lock.withLock { frozen = true }
    }

    /// Declares an edge checked even if nothing crosses it.
    func expect(_ name: String, line: UInt) {
        lock.withLock { _ = counts[Key(line: line, name: name), default: 0] }
    }

    var all: [Key: Int] { lock.withLock { counts } }
}

/// Makes a `GeneratedPipeline` for real against an environment: live (a `LiveEnvironment`,
/// whose calls run the seeded services on a queue of their own) or replayed (whose calls
/// answer from the recording). Each statement's nodes are made at line `firstLine + index`.
final class GeneratedPipelineBuilder: @unchecked Sendable {  // `attempts` only under `lock`
    typealias Stream = SignalProducer<Int, Fault>

    let pipeline: GeneratedPipeline
    let environment: Environment
    let crossings = CrossingCounts()
    private let lock = Lock()
    private var attempts: [String: Int] = [:]
    /// What the built pipeline keeps alive: its properties and their bindings.
    private var kept: [AnyObject] = []
    private var bindings: [Disposable] = []

    init(_ pipeline: GeneratedPipeline, environment: Environment) {
        self.pipeline = pipeline
        self.environment = environment
    }

    func build() -> Stream {
        var streams: [Stream] = []
        for (index, operation) in pipeline.statements.enumerated() {
            streams.append(make(operation, line: UInt(GeneratedPipeline.firstLine + index), streams))
        }
        return streams[streams.count - 1]
    }

    /// Ends the bindings the pipeline made.
    func dispose() {
        bindings.forEach { $0.dispose() }
    }

    private func scheduler(_ queue: Int) -> DateScheduler { environment.scheduler("q\(queue)") }

    private func make(_ operation: GeneratedPipeline.Operation, line: UInt, _ s: [Stream]) -> Stream {
        let crossings = self.crossings
        func counted(_ name: String) -> () -> Void {
            crossings.expect(name, line: line)
            return { crossings.count(name, line: line) }
        }
        /// `stream`'s values as triggers that never fail.
        func triggers(_ stream: Stream) -> SignalProducer<(), Never> {
            let count = counted("map")
            return stream.map(line: line) { _ in count() }.flatMapError(line: line) { _ in SignalProducer<(), Never>.empty }
        }
        switch operation {
        case let .input(index):
            let input = pipeline.inputs[index]
            return SignalProducer(environment.input(input.label, of: Int.self, line: line), line: line)
                .promoteError(Fault.self, line: line)
        case let .timer(index):
            let timer = pipeline.timers[index]
            return environment.timer(timer.label, every: Double(timer.everyMilliseconds) / 1000, on: scheduler(timer.queue),
                                     line: line)
                .take(first: timer.count, line: line)
                .scan(line: line, 0) { count, _ in count + 1 }
                .promoteError(Fault.self, line: line)
        case let .map(a, multiply, add):
            let count = counted("map")
            return s[a].map(line: line) { count(); return $0 &* multiply &+ add }
        case let .filter(a, modulus, remainder):
            let count = counted("filter")
            return s[a].filter(line: line) { count(); return $0 % modulus != remainder }
        case let .scan(a):
            let count = counted("scan")
            return s[a].scan(line: line, 0) { count(); return ($0 &+ $1) % 1000 }
        case let .skipRepeats(a, modulus):
            let count = counted("map")
            return s[a].map(line: line) { count(); return $0 % modulus }.skipRepeats(line: line)
        case let .take(a, count): return s[a].take(first: count, line: line)
        case let .skip(a, count): return s[a].skip(first: count, line: line)
        case let .combinePrevious(a):
            let count = counted("map")
            return s[a].combinePrevious(0, line: line).map(line: line) { count(); return ($0 &* 10 &+ $1) % 1000 }
        case let .collect(a, size):
            let count = counted("map")
            return s[a].collect(count: size, line: line).map(line: line) { count(); return $0.reduce(0, &+) % 1000 }
        case let .delay(a, milliseconds, queue):
            return s[a].delay(Double(milliseconds) / 1000, on: scheduler(queue), line: line)
        case let .debounce(a, milliseconds, queue):
            return s[a].debounce(Double(milliseconds) / 1000, on: scheduler(queue), line: line)
        case let .throttle(a, milliseconds, queue):
            return s[a].throttle(Double(milliseconds) / 1000, on: scheduler(queue), line: line)
        case let .observeOn(a, queue):
            return s[a].observe(on: scheduler(queue), line: line)
        case let .timeout(a, milliseconds, queue):
            return s[a].timeout(after: Double(milliseconds) / 1000, raising: Fault(code: 408), on: scheduler(queue), line: line)
        case let .recover(a, value):
            return s[a].flatMapError(line: line) { _ in SignalProducer<Int, Fault>(value: value, line: line) }
        case let .combineLatest(a, b):
            let count = counted("map")
            return s[a].combineLatest(with: s[b], line: line).map(line: line) { count(); return ($0 &* 31 &+ $1) % 1000 }
        case let .zip(a, b):
            let count = counted("map")
            return s[a].zip(with: s[b], line: line).map(line: line) { count(); return ($0 &* 31 &+ $1) % 1000 }
        case let .merge(a, b):
            return SignalProducer.merge(s[a], s[b], line: line)
        case let .withLatest(a, b):
            let count = counted("map")
            return s[a].withLatest(from: s[b], line: line).map(line: line) { count(); return ($0 &* 31 &+ $1) % 1000 }
        case let .sample(a, b):
            return s[a].sample(on: triggers(s[b]), line: line)
        case let .takeUntil(a, b):
            return s[a].take(until: triggers(s[b]), line: line)
        case let .flatMap(a, strategy, index, retries):
            let count = counted("flatMap")
            let service = pipeline.services[index]
            return s[a].flatMap(strategy, line: line) { [self] request -> Stream in
                count()
                let call = environment.call(service.label, request: request, line: line) { self.perform(service, request) }
                return retries > 0 ? call.retry(upTo: retries, line: line) : call
            }
        case let .skipUntil(a, b):
            // Every event of the trigger's stream opens it, its interruption too: a skip(until:)
            // whose trigger is interrupted before it sends never ends (seed 15000047, live).
            let count = counted("map")
            let opens = s[b].materialize(line: line).map(line: line) { _ in count() }
            return s[a].skip(until: opens, line: line)
        case let .takeUntilReplacement(a, b):
            return s[a].take(untilReplacement: s[b], line: line)
        case let .property(a, multiply, combined):
            // A composed property starts its stream at once, and its producer ends when the
            // stream has ended.
            let latest = Property(initial: 0, then: s[a].flatMapError(line: line) { _ in SignalProducer<Int, Never>.empty },
                                  line: line)
            kept.append(latest)
            let count = counted("map")
            let mapped = latest.map(line: line) { count(); return $0 &* multiply % 1000 }
            kept.append(mapped)
            guard combined else { return mapped.producer.promoteError(Fault.self, line: line) }
            let both = mapped.combineLatest(with: latest, line: line)
            kept.append(both)
            return both.producer.promoteError(Fault.self, line: line).map(line: line + 500) { ($0 &* 31 &+ $1) % 1000 }
        case let .validating(a, modulus):
            let checked = ValidatingProperty<Int, Fault>(0, line: line) { $0 % modulus == 1 ? .invalid(Fault(code: 422)) : .valid }
            let finished = MutableProperty(false, line: line)
            let source = s[a].on(terminated: { finished.value = true }, line: line)
                .flatMapError(line: line) { _ in SignalProducer<Int, Never>.empty }
            if let binding = checked <~ source { bindings.append(binding) }
            kept.append(checked)
            kept.append(finished)
            let ended = finished.producer.filter(line: line) { $0 }.map(line: line + 500) { _ in () }
            let count = counted("map")
            return checked.result.producer.map(line: line) { count(); return $0.value ?? 999 }
                .take(until: ended, line: line).promoteError(Fault.self, line: line)
        case let .action(a, index):
            let service = pipeline.services[index]
            let action = Action<Int, Int, Fault>(line: line) { [self] request in
                environment.call(service.label, request: request, line: line) { self.perform(service, request) }
            }
            kept.append(action)
            let count = counted("flatMap")
            return s[a].flatMap(.concat, line: line) { request -> Stream in
                count()
                return action.apply(request, line: line).flatMapError(line: line) { _ in Stream.empty }
            }
        case let .bind(a):
            // The property's stream ends when its source has ended, whenever it is started:
            // `finished` holds that, and a property's producer sends its current value first.
            let property = MutableProperty(0, line: line)
            let finished = MutableProperty(false, line: line)
            let source = s[a].on(terminated: { finished.value = true }, line: line)
                .flatMapError(line: line) { _ in SignalProducer<Int, Never>.empty }
            if let binding = property <~ source { bindings.append(binding) }
            kept.append(property)
            kept.append(finished)
            let ended = finished.producer.filter(line: line) { $0 }.map(line: line) { _ in () }
            return property.producer.take(until: ended, line: line).promoteError(Fault.self, line: line)
        }
    }

    /// The live service: its answer after its latency on a queue of its own, or its failure.
    private func perform(_ service: GeneratedPipeline.Service, _ request: Int) -> Stream {
        let attempt: Int = lock.withLock {
            attempts["\(service.label) \(request)", default: 0] += 1
            return attempts["\(service.label) \(request)"]!
        }
        // The environment's scheduler `services`: a queue of its own live, a lane of the
        // virtual clock in a virtual run.
        let scheduler = environment.scheduler("services")
        let latency = Double(service.latency(request: request, attempt: attempt)) / 1000
        return SignalProducer { observer, lifetime in
            lifetime += scheduler.schedule(after: scheduler.currentDate.addingTimeInterval(latency)) {
                if service.fails(request: request, attempt: attempt) {
                    observer.send(error: Fault(code: 500 + request))
                } else {
                    observer.send(value: request &* 7 % 97)
                    observer.sendCompleted()
                }
            }
        }
    }
}
