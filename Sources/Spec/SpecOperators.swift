import Foundation
import Signals

/// The operators and functions a spec can call, each built on the real Signals operator of
/// the same meaning (or a thin composition of Signals operators).
///
/// RxJS names keep RxJS semantics (`throttleTime` is leading-only by default, `scan` without a
/// seed starts from the first value, `map` passes the index); the Swift API's names
/// (`skipRepeats`, `flatMap(latest, f)`, `take(until: s)`) call the Signals operator directly.
enum SpecOperators {
    typealias Implementation = @Sendable (SpecCall) throws -> SpecValue

    /// Operators called on a stream: `e1.map(x => x * 2)`.
    static let methods: [String: Implementation] = {
        var table: [String: Implementation] = [:]
        for (name, implementation) in transforming { table[name] = implementation }
        for (name, implementation) in rxjs { table[name] = implementation }
        for (name, implementation) in swift { table[name] = implementation }
        return table
    }()

    /// Functions called by name: `merge(e1, e2)`, `of(1, 2)`, `String(x)`.
    static let functions: [String: Implementation] = {
        var table: [String: Implementation] = [:]
        for (name, implementation) in creating { table[name] = implementation }
        for (name, implementation) in combining { table[name] = implementation }
        for (name, implementation) in conversions { table[name] = implementation }
        return table
    }()

    /// " (did you mean 'x'?)" for a misspelt name, when a known name is close.
    static func suggestion<S: Sequence>(_ name: String, among names: S) -> String where S.Element == String {
        let best = names.sorted().map { ($0, distance($0.lowercased(), name.lowercased())) }.min { $0.1 < $1.1 }
        guard let (candidate, cost) = best, cost <= max(1, name.count / 3) else { return "" }
        return " (did you mean '\(candidate)'?)"
    }

    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let saved = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = saved
            }
        }
        return row[b.count]
    }

    static func stream(_ producer: SpecProducer) -> SpecValue { .stream(SpecStream(producer)) }

    // MARK: One value in, at most one out

    private static let transforming: [String: Implementation] = [
        "map": { call in
            try call.expectArguments(1)
            let project = try call.function(0)
            return stream(indexed(call, name: "map") { signal, next in
                signal.map(file: SpecCall.file, line: call.line) { value in project([value, .number(Double(next()))]) }
            })
        },
        "filter": { call in
            try call.expectArguments(1)
            let predicate = try call.predicate(0)
            return stream(indexed(call, name: "filter") { signal, next in
                signal.filter(file: SpecCall.file, line: call.line) { value in predicate([value, .number(Double(next()))]) }
            })
        },
    ]

    /// Lifts a Signals operator that needs a per-subscription counter (RxJS passes each
    /// value's index): every start of the stream gets its own count from 0.
    static func indexed(
        _ call: SpecCall, name: String,
        _ body: @escaping (Signal<SpecValue, SpecFailure>, @escaping () -> Int) -> Signal<SpecValue, SpecFailure>
    ) -> SpecProducer {
        let upstream = call.stream
        let node = Node.operator(name, (upstream.node, .data), file: SpecCall.file, line: call.line)
        return upstream.lift(node) { signal in
            var index = -1
            return body(signal) {
                index += 1
                return index
            }
        }
    }

    // MARK: Creating streams

    private static let creating: [String: Implementation] = [
        "of": { call in
            try call.expectArguments(0...Int.max)
            return stream(SpecProducer(call.positional.map(\.value)))
        },
        "from": { call in
            try call.expectArguments(1)
            return stream(try call.stream(0))
        },
        "empty": { call in
            try call.expectArguments(0)
            return stream(.empty)
        },
        "never": { call in
            try call.expectArguments(0)
            return stream(.never)
        },
        "throwError": { call in
            try call.expectArguments(1)
            // RxJS 7's form is a factory, throwError(() => error), called on each start.
            guard case .lambda = call.positional[0].value else {
                return stream(SpecProducer(error: SpecFailure(call.positional[0].value)))
            }
            let factory = try call.function(0)
            return stream(SpecProducer(node: Node.make(.source, "throwError", file: SpecCall.file, line: call.line)) { observer, _ in
                observer.send(error: SpecFailure(factory([])))
            })
        },
        "timer": { call in
            // RxJS 7: timer(due) sends 0 after `due` ms and completes; timer(due, period) then
            // sends 1, 2, … every `period` ms and never completes. A negative due is 0, a
            // negative period is none. (For a retry's or a repeat's backoff:
            // retry({delay: (e, n) => timer(n * 100)}).)
            try call.expectArguments(1...2)
            let due = max(0, try call.number(0)) / 1000
            let period = call.positional.count < 2 ? nil : try call.number(1)
            let every = period.flatMap { $0 < 0 ? nil : $0 / 1000 }
            let scheduler = call.scheduler
            let parameters = [due, every].compactMap { $0 }.map { SpecValue.format($0 * 1000) + "ms" }.joined(separator: ", ")
            let node = Node.make(.source, "timer", parameters: parameters, file: SpecCall.file, line: call.line)
            return stream(SpecProducer(node: node) { observer, lifetime in
                let pending = SerialDisposable()
                lifetime += pending
                let start = scheduler.currentDate
                func tick(_ index: Int) {
                    // Each tick's time from the start, so periods add up without drift.
                    let offset = due + Double(index) * (every ?? 0)
                    pending.inner = scheduler.schedule(after: start.addingTimeInterval(offset)) {
                        observer.send(value: .number(Double(index)))
                        if every == nil {
                            observer.sendCompleted()
                        } else {
                            tick(index + 1)
                        }
                    }
                }
                tick(0)
            })
        },
        "stream": { call in
            try call.expectArguments(1)
            let argument = call.positional[0]
            guard case let .string(name) = argument.value else {
                throw SpecSyntaxError(location: argument.location, message: "expected a stream name (a string), found \(argument.value.typeName)")
            }
            return stream(try call.interpreter.named(name, argument.location))
        },
    ]

    // MARK: Conversions

    private static let conversions: [String: Implementation] = [
        "String": { call in
            try call.expectArguments(1)
            return .string(call.positional[0].value.text)
        },
        "Number": { call in
            try call.expectArguments(1)
            return .number(try call.interpreter.number(call.positional[0].value, call.positional[0].location))
        },
        "parseInt": { call in
            try call.expectArguments(1...2)
            let radix = call.positional.count == 2 ? try call.count(1, minimum: 2) : 10
            guard radix <= 36 else {
                throw SpecSyntaxError(location: call.positional[1].location, message: "expected a radix from 2 to 36")
            }
            return .number(parseInt(call.positional[0].value.text, radix: radix))
        },
    ]

    /// JavaScript's `parseInt`: leading whitespace and sign, then the longest run of digits
    /// in the radix; NaN when there are none.
    static func parseInt(_ text: String, radix: Int) -> Double {
        var characters = Substring(text.trimmingCharacters(in: .whitespaces))
        var sign = 1.0
        if let first = characters.first, first == "-" || first == "+" {
            sign = first == "-" ? -1 : 1
            characters = characters.dropFirst()
        }
        var result = 0.0
        var digits = 0
        for character in characters {
            guard let ascii = character.asciiValue else { break }
            let lower = ascii | 0x20
            let digit = ascii >= 48 && ascii <= 57 ? Int(ascii) - 48 : (lower >= 97 && lower <= 122 ? Int(lower) - 87 : radix)
            guard digit < radix else { break }
            result = result * Double(radix) + Double(digit)
            digits += 1
        }
        return digits == 0 ? .nan : sign * result
    }
}

extension SpecInterpreter {
    /// The stream with this name, at run time (`stream(name)`); an unknown name is an error.
    func named(_ name: String, _ location: SpecLocation) throws -> SpecProducer {
        if let stream = streams[name] { return stream.producer }
        // A derived stream defined further down exists by the time the streams run: look it
        // up when the stream is started rather than now.
        guard document.derivedNames.contains(name) else {
            throw SpecSyntaxError(location: location, message: "expected the name of a stream, found unknown stream '\(name)'")
        }
        return SpecProducer { [weak self] observer, lifetime in
            guard let self else { return }
            guard let stream = self.streams[name] else {
                self.fail(location, "expected the stream '\(name)' to be defined before it is started")
                observer.sendCompleted()
                return
            }
            // Starting a stream that is still being started by a reference to it would start
            // it again, without end. `checkReferences` finds the cycles of names as written
            // before the run; this finds those through a name computed (`stream(String('out'))`).
            guard self.beginStarting(name, location) else {
                observer.sendCompleted()
                return
            }
            defer { self.endStarting() }
            lifetime += stream.producer.start(observer)
        }
    }

    /// Notes that `stream(name)` at `location` is being started; when that stream is being
    /// started already (further up this start), records the cycle as the run's error and
    /// returns false.
    private func beginStarting(_ name: String, _ location: SpecLocation) -> Bool {
        let cycle: [(name: String, location: SpecLocation)]? = lockedStarting { starting in
            if let first = starting.firstIndex(where: { $0.name == name }) {
                return Array(starting[first...]) + [(name, location)]
            }
            starting.append((name, location))
            return nil
        }
        guard let cycle else { return true }
        let through = cycle.dropFirst().map { "stream('\($0.name)') on line \($0.location.line)" }
        fail(cycle[0].location, "expected a stream that does not refer to itself; stream '\(name)' refers to itself "
             + "through \(through.joined(separator: ", then ")) (found as the streams started)")
        return false
    }

    private func endStarting() {
        lockedStarting { starting in _ = starting.removeLast() }
    }
}
