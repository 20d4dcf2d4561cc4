import Foundation
import Signals
import TestSupport

/// The failure every generated pipeline can carry: a service's refusal, a timeout.
struct Fault: Error, Codable, Equatable, CustomStringConvertible {
    var code: Int
    var description: String { "Fault(\(code))" }
}

/// A pipeline made from a seed: sources on several real threads and queues, environment
/// timers, calls with seeded latency, failures and retries, higher-order and multi-input
/// operators, and property bindings, all over `Int` values (`Fault` failures), as a list of
/// statements each of which makes one stream from earlier ones. Its `source` is the Swift a
/// user would write for it; `build` makes it for real (GeneratedPipelineBuilder).
struct GeneratedPipeline: CustomStringConvertible {
    /// An input of the environment, fed by a thread of its own: `(milliseconds after the
    /// previous send, value)`, then completed.
    struct Input {
        var label: String
        var sends: [(gap: Int, value: Int)]
    }

    /// An environment timer: its ticks counted (`scan`), `count` of them.
    struct Timer {
        var label: String
        var everyMilliseconds: Int
        var count: Int
        var queue: Int
    }

    /// A service called by a `flatMap`: answers `request * 7 % 97` after `latency(request,
    /// attempt)` milliseconds on the environment's scheduler `services`, or fails with
    /// `Fault(500 + request)` when `fails(request, attempt)`.
    struct Service {
        var label: String
        var baseLatency: Int
        var spread: Int
        /// Requests divisible by it fail (0: none do).
        var failEvery: Int
        /// Whether a failing request fails on every attempt, or only the first.
        var failsAlways: Bool

        func latency(request: Int, attempt: Int) -> Int {
            baseLatency + (request &* 31 &+ attempt &* 17) % (spread + 1)
        }

        func fails(request: Int, attempt: Int) -> Bool {
            failEvery > 0 && request % failEvery == 0 && (failsAlways || attempt == 1)
        }
    }

    indirect enum Operation {
        case input(Int)
        case timer(Int)
        case map(Int, multiply: Int, add: Int)
        case filter(Int, modulus: Int, remainder: Int)
        case scan(Int)
        case skipRepeats(Int, modulus: Int)
        case take(Int, count: Int)
        case skip(Int, count: Int)
        case combinePrevious(Int)
        case collect(Int, count: Int)
        case delay(Int, milliseconds: Int, queue: Int)
        case debounce(Int, milliseconds: Int, queue: Int)
        case throttle(Int, milliseconds: Int, queue: Int)
        case observeOn(Int, queue: Int)
        case timeout(Int, milliseconds: Int, queue: Int)
        case recover(Int, value: Int)
        case combineLatest(Int, Int)
        case zip(Int, Int)
        case merge(Int, Int)
        case withLatest(Int, from: Int)
        case sample(Int, on: Int)
        case takeUntil(Int, trigger: Int)
        case flatMap(Int, FlattenStrategy, service: Int, retries: Int)
        case bind(Int)
        case skipUntil(Int, trigger: Int)
        case takeUntilReplacement(Int, replacement: Int)
        /// `Property(initial: 0, then:)` of the stream (its failure ended), a property `map`
        /// of it (and a `combineLatest` of the two when `combined`), its producer.
        case property(Int, multiply: Int, combined: Bool)
        /// A `ValidatingProperty` bound to the stream, refusing multiples of `modulus`; its
        /// result's producer.
        case validating(Int, modulus: Int)
        /// An `Action` calling a service, applied to each value (`flatMap(.concat)`), a
        /// refusal or failure dropped.
        case action(Int, service: Int)

        /// The statements this one reads.
        var operands: [Int] {
            switch self {
            case .input, .timer: return []
            case let .map(a, _, _), let .filter(a, _, _), let .scan(a), let .skipRepeats(a, _), let .take(a, _),
                 let .skip(a, _), let .combinePrevious(a), let .collect(a, _), let .delay(a, _, _),
                 let .debounce(a, _, _), let .throttle(a, _, _), let .observeOn(a, _), let .timeout(a, _, _),
                 let .recover(a, _), let .flatMap(a, _, _, _), let .bind(a), let .property(a, _, _),
                 let .validating(a, _), let .action(a, _):
                return [a]
            case let .combineLatest(a, b), let .zip(a, b), let .merge(a, b), let .withLatest(a, b), let .sample(a, b),
                 let .takeUntil(a, b), let .skipUntil(a, b), let .takeUntilReplacement(a, b):
                return [a, b]
            }
        }

        /// The operator's name, for the coverage report.
        var name: String {
            switch self {
            case .input: return "input"
            case .timer: return "timer"
            case .map: return "map"
            case .filter: return "filter"
            case .scan: return "scan"
            case .skipRepeats: return "skipRepeats"
            case .take: return "take(first:)"
            case .skip: return "skip(first:)"
            case .combinePrevious: return "combinePrevious"
            case .collect: return "collect(count:)"
            case .delay: return "delay"
            case .debounce: return "debounce"
            case .throttle: return "throttle"
            case .observeOn: return "observe(on:)"
            case .timeout: return "timeout"
            case .recover: return "flatMapError"
            case .combineLatest: return "combineLatest"
            case .zip: return "zip"
            case .merge: return "merge"
            case .withLatest: return "withLatest(from:)"
            case .sample: return "sample(on:)"
            case .takeUntil: return "take(until:)"
            case let .flatMap(_, strategy, _, retries): return "flatMap(.\(strategy))" + (retries > 0 ? " + retry" : "")
            case .bind: return "<~ MutableProperty"
            case .skipUntil: return "skip(until:)"
            case .takeUntilReplacement: return "take(untilReplacement:)"
            case let .property(_, _, combined): return "Property(initial:then:) + map" + (combined ? " + combineLatest" : "")
            case .validating: return "ValidatingProperty"
            case .action: return "Action"
            }
        }
    }

    let seed: UInt64
    var inputs: [Input] = []
    var timers: [Timer] = []
    var services: [Service] = []
    /// Statement `i` makes stream `s<i>`; the last is the pipeline's output.
    var statements: [Operation] = []
    /// The queues (`environment.scheduler("q<i>")`) the pipeline uses.
    var queues = 0

    /// The first line number given to statements, so a node's call site (`line`) names its
    /// statement: statement `i` is at line `firstLine + i`.
    static let firstLine = 1000

    /// Which operators the generator draws from.
    struct Profile {
        /// Operators left out, by `Operation.name`'s first word (`throttle`, `debounce`).
        var excluded: Set<String> = []
        /// Every operator.
        static let full = Profile()
        /// The operators of the generator's first version, without those drawn from the
        /// second stream (`secondKinds`): the pipelines of the seeds found before those were
        /// added, exactly as they were.
        static let first = Profile(excluded: GeneratedPipeline.secondKinds)
    }

    /// The kinds of operator drawn from the generator's second stream (see `init`).
    static let secondKinds: Set<String> = ["skip(until:)", "take(untilReplacement:)", "property", "validating", "action"]

    init(seed: UInt64, profile: Profile = .full) {
        self.seed = seed
        var random = SplitMix(seed: seed &* 0x2545_F491_4F6C_DD1D &+ 1)
        queues = random.int(1...3)
        var open: [Int] = []  // streams not yet read by any statement
        func add(_ operation: Operation) -> Int {
            statements.append(operation)
            for operand in operation.operands { open.removeAll { $0 == operand } }
            open.append(statements.count - 1)
            return statements.count - 1
        }
        func source() -> Int {
            if random.chance(60) || timers.count >= 2 {
                var sends: [(Int, Int)] = []
                for _ in 0..<random.int(1...8) { sends.append((random.int(0...12), random.int(0...19))) }
                inputs.append(Input(label: "in\(inputs.count)", sends: sends))
                return add(.input(inputs.count - 1))
            }
            timers.append(Timer(label: "tick\(timers.count)", everyMilliseconds: random.int(2...9), count: random.int(1...6),
                                queue: random.int(0...(queues - 1))))
            return add(.timer(timers.count - 1))
        }
        /// An operand: mostly a stream nothing reads yet; sometimes one already read (the
        /// same producer started twice), sometimes a new source.
        func operand(excluding excluded: Int? = nil) -> Int {
            let candidates = open.filter { $0 != excluded }
            if candidates.isEmpty || random.chance(8) { return source() }
            if random.chance(10) { return random.int(0...(statements.count - 1)) }
            return random.pick(candidates)
        }
        // The operators added after the first version are drawn from a second stream of the
        // seed, before each statement of the first: a profile without them (`Profile.first`)
        // draws nothing from it, so a seed's pipeline is the one it was before they came.
        var second = SplitMix(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ 7)
        let secondKinds = Self.secondKinds.subtracting(profile.excluded).sorted()
        /// An operand drawn from the second stream: a stream nothing reads yet, else any.
        func secondOperand(excluding excluded: Int? = nil) -> Int {
            let candidates = open.filter { $0 != excluded }
            if candidates.isEmpty || second.chance(10) {
                let others = (0..<statements.count).filter { $0 != excluded }
                return others.isEmpty ? 0 : second.pick(others)
            }
            return second.pick(candidates)
        }
        _ = source()
        for _ in 0..<random.int(1...9) {
            if !secondKinds.isEmpty && second.chance(25) {
                let a = secondOperand()
                switch second.pick(secondKinds) {
                case "skip(until:)" where statements.count > 1:
                    _ = add(.skipUntil(a, trigger: secondOperand(excluding: a)))
                case "take(untilReplacement:)" where statements.count > 1:
                    _ = add(.takeUntilReplacement(a, replacement: secondOperand(excluding: a)))
                case "validating": _ = add(.validating(a, modulus: second.int(2...5)))
                case "action":
                    services.append(Service(label: "service\(services.count)", baseLatency: second.int(0...4),
                                            spread: second.int(0...6), failEvery: second.pick([0, 0, 2, 3]),
                                            failsAlways: second.chance(30)))
                    _ = add(.action(a, service: services.count - 1))
                default: _ = add(.property(a, multiply: second.int(1...5), combined: second.chance(40)))
                }
            }
            let queue = random.int(0...(queues - 1))
            let a = operand()
            var roll = random.int(0...99)
            while profile.excluded.contains(Self.kind(ofRoll: roll)) { roll = random.int(0...99) }
            switch roll {
            case 0..<10: _ = add(.map(a, multiply: random.int(1...5), add: random.int(0...9)))
            case 10..<17: _ = add(.filter(a, modulus: random.int(2...4), remainder: random.int(0...1)))
            case 17..<22: _ = add(.scan(a))
            case 22..<25: _ = add(.skipRepeats(a, modulus: random.int(2...3)))
            case 25..<29: _ = add(.take(a, count: random.int(1...5)))
            case 29..<32: _ = add(.skip(a, count: random.int(1...2)))
            case 32..<35: _ = add(.combinePrevious(a))
            case 35..<38: _ = add(.collect(a, count: random.int(1...3)))
            case 38..<43: _ = add(.delay(a, milliseconds: random.int(1...6), queue: queue))
            case 43..<48: _ = add(.debounce(a, milliseconds: random.int(1...6), queue: queue))
            case 48..<53: _ = add(.throttle(a, milliseconds: random.int(1...6), queue: queue))
            case 53..<58: _ = add(.observeOn(a, queue: queue))
            case 58..<61: _ = add(.timeout(a, milliseconds: random.int(20...80), queue: queue))
            case 61..<64: _ = add(.recover(a, value: random.int(0...9)))
            case 64..<69: _ = add(.combineLatest(a, operand(excluding: a)))
            case 69..<73: _ = add(.zip(a, operand(excluding: a)))
            case 73..<78: _ = add(.merge(a, operand(excluding: a)))
            case 78..<81: _ = add(.withLatest(a, from: operand(excluding: a)))
            case 81..<84: _ = add(.sample(a, on: operand(excluding: a)))
            case 84..<86: _ = add(.takeUntil(a, trigger: operand(excluding: a)))
            case 86..<96:
                services.append(Service(label: "service\(services.count)", baseLatency: random.int(0...4),
                                        spread: random.int(0...6), failEvery: random.pick([0, 0, 2, 3, 5]),
                                        failsAlways: random.chance(30)))
                let strategy: FlattenStrategy = random.pick([.latest, .merge, .concat])
                _ = add(.flatMap(a, strategy, service: services.count - 1, retries: random.pick([0, 0, 1, 2])))
            default: _ = add(.bind(a))
            }
        }
        // Every stream is read: what is left open is merged into the output.
        while open.count > 1 {
            let (a, b) = (open[open.count - 2], open[open.count - 1])
            _ = add(.merge(a, b))
        }
    }

    /// The kind of operator a roll of the generator's switch makes.
    static func kind(ofRoll roll: Int) -> String {
        switch roll {
        case 0..<38: return "pure"
        case 38..<43: return "delay"
        case 43..<48: return "debounce"
        case 48..<53: return "throttle"
        case 53..<58: return "observe(on:)"
        case 58..<61: return "timeout"
        case 61..<64: return "flatMapError"
        case 64..<86: return "joining"
        case 86..<96: return "flatMap"
        default: return "bind"
        }
    }

    /// The operators the pipeline uses, each once.
    var operatorNames: Set<String> { Set(statements.map(\.name)) }

    /// The Swift a user would write for this pipeline against an `Environment` (`services`
    /// and the input threads as the comments say), one statement a line, numbered by the
    /// line its nodes are recorded at.
    var source: String {
        var lines = ["// generated pipeline, seed \(seed): every stream is SignalProducer<Int, Fault>"]
        for (index, input) in inputs.enumerated() {
            let sends = input.sends.map { "+\($0.gap)ms: \($0.value)" }.joined(separator: ", ")
            lines.append("// in\(index): a thread of its own sends [\(sends)], then completes the input")
        }
        for service in services {
            lines.append("// \(service.label): answers request * 7 % 97 after \(service.baseLatency)"
                         + "+(request*31+attempt*17)%\(service.spread + 1) ms"
                         + (service.failEvery > 0
                            ? ", fails Fault(500+request) when request % \(service.failEvery) == 0"
                              + (service.failsAlways ? "" : " on the first attempt") : ""))
        }
        for (index, statement) in statements.enumerated() {
            lines.append("/* line \(Self.firstLine + index) */ let s\(index) = " + Self.code(statement, timers: timers, services: services))
        }
        lines.append("s\(statements.count - 1).start { sink($0) }")
        return lines.joined(separator: "\n")
    }

    var description: String { source }

    private static func code(_ operation: Operation, timers: [Timer], services: [Service]) -> String {
        switch operation {
        case let .input(index):
            return "SignalProducer(environment.input(\"in\(index)\", of: Int.self)).promoteError(Fault.self)"
        case let .timer(index):
            let timer = timers[index]
            return "environment.timer(\"\(timer.label)\", every: 0.00\(timer.everyMilliseconds), "
                + "on: environment.scheduler(\"q\(timer.queue)\")).take(first: \(timer.count))"
                + ".scan(0) { count, _ in count + 1 }.promoteError(Fault.self)"
        case let .map(a, multiply, add): return "s\(a).map { $0 * \(multiply) + \(add) }"
        case let .filter(a, modulus, remainder): return "s\(a).filter { $0 % \(modulus) != \(remainder) }"
        case let .scan(a): return "s\(a).scan(0) { ($0 + $1) % 1000 }"
        case let .skipRepeats(a, modulus): return "s\(a).map { $0 % \(modulus) }.skipRepeats()"
        case let .take(a, count): return "s\(a).take(first: \(count))"
        case let .skip(a, count): return "s\(a).skip(first: \(count))"
        case let .combinePrevious(a): return "s\(a).combinePrevious(0).map { $0 * 10 + $1 }"
        case let .collect(a, count): return "s\(a).collect(count: \(count)).map { $0.reduce(0, +) }"
        case let .delay(a, milliseconds, queue):
            return "s\(a).delay(0.00\(milliseconds), on: environment.scheduler(\"q\(queue)\"))"
        case let .debounce(a, milliseconds, queue):
            return "s\(a).debounce(0.00\(milliseconds), on: environment.scheduler(\"q\(queue)\"))"
        case let .throttle(a, milliseconds, queue):
            return "s\(a).throttle(0.00\(milliseconds), on: environment.scheduler(\"q\(queue)\"))"
        case let .observeOn(a, queue): return "s\(a).observe(on: environment.scheduler(\"q\(queue)\"))"
        case let .timeout(a, milliseconds, queue):
            return "s\(a).timeout(after: \(Double(milliseconds) / 1000), raising: Fault(code: 408), "
                + "on: environment.scheduler(\"q\(queue)\"))"
        case let .recover(a, value): return "s\(a).flatMapError { _ in SignalProducer(value: \(value)) }"
        case let .combineLatest(a, b): return "s\(a).combineLatest(with: s\(b)).map { ($0 * 31 + $1) % 1000 }"
        case let .zip(a, b): return "s\(a).zip(with: s\(b)).map { ($0 * 31 + $1) % 1000 }"
        case let .merge(a, b): return "SignalProducer.merge(s\(a), s\(b))"
        case let .withLatest(a, b): return "s\(a).withLatest(from: s\(b)).map { ($0 * 31 + $1) % 1000 }"
        case let .sample(a, b):
            return "s\(a).sample(on: s\(b).map { _ in () }.flatMapError { _ in SignalProducer<(), Never>.empty })"
        case let .takeUntil(a, b):
            return "s\(a).take(until: s\(b).map { _ in () }.flatMapError { _ in SignalProducer<(), Never>.empty })"
        case let .flatMap(a, strategy, service, retries):
            let call = "environment.call(\"\(services[service].label)\", request: $0) { \(services[service].label)($0) }"
            return "s\(a).flatMap(.\(strategy)) { \(call)\(retries > 0 ? ".retry(upTo: \(retries))" : "") }"
        case let .skipUntil(a, b):
            return "s\(a).skip(until: s\(b).materialize().map { _ in () })"
        case let .takeUntilReplacement(a, b): return "s\(a).take(untilReplacement: s\(b))"
        case let .property(a, multiply, combined):
            let mapped = "latest.map { $0 * \(multiply) % 1000 }"
            return "{ let latest = Property(initial: 0, then: s\(a).flatMapError { _ in .empty }); "
                + (combined ? "return \(mapped).combineLatest(with: latest).producer.promoteError(Fault.self)"
                   + ".map { ($0 * 31 + $1) % 1000 } }()"
                   : "return \(mapped).producer.promoteError(Fault.self) }()")
        case let .validating(a, modulus):
            return "{ let checked = ValidatingProperty(0) { $0 % \(modulus) == 1 ? .invalid(Fault(code: 422)) : .valid }; "
                + "let finished = MutableProperty(false); "
                + "checked <~ s\(a).on(terminated: { finished.value = true }).flatMapError { _ in .empty }; "
                + "return checked.result.producer.map { $0.value ?? 999 }"
                + ".take(until: finished.producer.filter { $0 }.map { _ in () }).promoteError(Fault.self) }()"
        case let .action(a, service):
            let label = services[service].label
            return "{ let action = Action<Int, Int, Fault> { environment.call(\"\(label)\", request: $0) { \(label)($0) } }; "
                + "return s\(a).flatMap(.concat) { action.apply($0).flatMapError { _ in SignalProducer<Int, Fault>.empty } } }()"
        case let .bind(a):
            return "{ let property = MutableProperty(0); let finished = MutableProperty(false); "
                + "property <~ s\(a).on(terminated: { finished.value = true }).flatMapError { _ in .empty }; "
                + "return property.producer.take(until: finished.producer.filter { $0 }.map { _ in () }).promoteError(Fault.self) }()"
        }
    }
}
