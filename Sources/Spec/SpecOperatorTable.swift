import Foundation
import Signals

// The spec's operators beyond map and filter, each a Signals operator or a thin composition
// of Signals operators. Durations are milliseconds in the spec and seconds in Signals.

typealias SpecSignal = Signal<SpecValue, SpecFailure>

extension SpecOperators {
    static let file = SpecCall.file

    /// A stream that cannot fail, for the trigger of Signals' `take(until:)`: its error is
    /// dropped, because that trigger cannot carry one.
    static func unfailing(_ producer: SpecProducer) -> SignalProducer<SpecValue, Never> {
        producer.flatMapError(file: file, line: 0) { _ in SignalProducer<SpecValue, Never>.empty }
    }

    /// The streams of a variadic call (`merge(a, b)`, `combineLatest([a, b])`), with a
    /// trailing lambda (a projector) or number (a concurrency limit) returned apart.
    static func streamList(_ call: SpecCall, receiver: Bool) throws -> (streams: [SpecProducer], trailing: SpecCall.Argument?) {
        var arguments = call.positional
        var trailing: SpecCall.Argument?
        if let last = arguments.last {
            switch last.value {
            case .lambda, .number:
                trailing = last
                arguments.removeLast()
            default: break
            }
        }
        if arguments.count == 1, case let .array(items) = arguments[0].value, !receiver {
            return (try items.map { try SpecCall.stream($0, arguments[0].location) }, trailing)
        }
        var streams = receiver ? [call.stream] : []
        streams += try arguments.map { try SpecCall.stream($0.value, $0.location) }
        return (streams, trailing)
    }

    /// Applies a projector lambda to an array of values, spreading them as its arguments.
    static func projector(_ call: SpecCall, _ argument: SpecCall.Argument?) throws -> ([SpecValue]) -> SpecValue {
        guard let argument else { return { .array($0) } }
        guard case let .lambda(lambda) = argument.value else {
            throw SpecSyntaxError(location: argument.location, message: "expected a projector function, found \(argument.value.typeName)")
        }
        let interpreter = call.interpreter
        return { interpreter.invoke(lambda, $0) }
    }

    static func strategy(_ call: SpecCall, _ index: Int) throws -> FlattenStrategy {
        guard let argument = call.argument(index) else {
            throw SpecSyntaxError(location: call.location, message: "expected a strategy (latest, merge, concat, race or throttle) for '\(call.name)'")
        }
        switch argument.value {
        case .string("latest"): return .latest
        case .string("merge"): return .merge
        case .string("concat"): return .concat
        case .string("race"): return .race
        case .string("throttle"): return .throttle
        case let .number(limit) where limit >= 1 && limit == limit.rounded():
            return limit > Double(UInt32.max) ? .merge : .concurrent(limit: UInt(limit))
        default:
            throw SpecSyntaxError(location: argument.location,
                                  message: "expected a strategy: latest, merge, concat, race, throttle or a concurrency limit")
        }
    }

    /// `flatMap` with a strategy, passing each value and its index to the lambda (RxJS style).
    /// With `projectOnStart` the lambda is called when its inner stream is started, as RxJS's
    /// `exhaustMap` does: a value ignored while an inner stream runs is never projected and
    /// takes no index.
    static func flatMapping(_ call: SpecCall, _ strategy: FlattenStrategy, lambda index: Int,
                            projectOnStart: Bool = false) throws -> SpecValue {
        let transform = try call.streamFunction(index)
        guard projectOnStart else {
            return stream(indexed(call, name: "flatMap") { signal, next in
                signal.flatMap(strategy, file: file, line: call.line) { value in transform([value, .number(Double(next()))]) }
            })
        }
        let project = Node.make(.source, "project", file: file, line: call.line)
        return stream(indexed(call, name: "flatMap") { signal, next in
            signal.flatMap(strategy, file: file, line: call.line) { value in
                SpecProducer(node: project) { observer, lifetime in
                    lifetime += transform([value, .number(Double(next()))]).start(observer)
                }
            }
        })
    }

    static func limit(_ call: SpecCall, _ argument: SpecCall.Argument?) throws -> FlattenStrategy {
        guard let argument else { return .merge }
        guard case let .number(value) = argument.value, value >= 1, value == value.rounded() else {
            throw SpecSyntaxError(location: argument.location, message: "expected a concurrency limit (a whole number of at least 1)")
        }
        return value.isInfinite || value > Double(UInt32.max) ? .merge : .concurrent(limit: UInt(value))
    }

    // MARK: Operators on a stream

    /// RxJS's `distinctUntilChanged(comparator?, keySelector?)`: each value's key is compared
    /// with the last sent value's key (`null` as the comparator: strict equality).
    static let distinctUntilChanged: Implementation = { call in
        try call.expectArguments(0...2)
        var compare: ([SpecValue]) -> Bool = { $0[0].strictlyEquals($0[1]) }
        if let argument = call.argument(0), !argument.value.isNull { compare = try call.predicate(0) }
        guard call.positional.count == 2 else {
            return stream(call.stream.skipRepeats(file: file, line: call.line) { compare([$0, $1]) })
        }
        let key = try call.function(1)
        return stream(call.stream.skipRepeats(file: file, line: call.line) { compare([key([$0]), key([$1])]) })
    }

    /// A count as RxJS's `take` and `skip` read it: a whole number, and one below 0 is 0.
    static func rxjsCount(_ call: SpecCall) throws -> Int {
        let value = try call.number(0)
        guard value == value.rounded() else {
            throw SpecSyntaxError(location: call.positional[0].location, message: "expected a whole number, found \(SpecValue.format(value))")
        }
        return Int(max(0, min(value, Double(Int.max / 2))))
    }

    static let take: Implementation = { call in
        try call.expectArguments(1)
        let count = try rxjsCount(call)
        // RxJS's take(0) is EMPTY: the source is not even started.
        guard count > 0 else { return stream(.empty) }
        return stream(call.stream.take(first: count, file: file, line: call.line))
    }

    static let skip: Implementation = { call in
        try call.expectArguments(1)
        return stream(call.stream.skip(first: try rxjsCount(call), file: file, line: call.line))
    }

    /// RxJS's `delay`: values later, completion not delayed but after the values on their way.
    static let rxjsDelay: Implementation = { call in
        try call.expectArguments(1)
        return stream(call.stream.delayValues(try call.duration(0), on: call.scheduler, file: file, line: call.line))
    }

    /// RxJS's `catchError((error, caught) => ...)`: `caught` is this very stream, error handling
    /// included, so returning it starts it again. Returned unchanged, it restarts the upstream
    /// under this same operator (`flatMapError(restartingOnNil:)`), so a handler that answers
    /// `caught` to a stream failing at once loops in constant stack until the run's limits
    /// end it; a stream built from `caught` (`caught.take(1)`) is started as any other.
    static let catchError: Implementation = { call in
        try call.expectArguments(1)
        let handler = try call.function(0)
        let location = call.argument(0, nil)?.location ?? call.location
        let interpreter = call.interpreter
        let caught = interpreter.lateStream()
        let result = call.restartableStream.flatMapError(file: file, line: call.line, restartingOnNil: { [weak caught] failure -> SpecProducer? in
            guard let caught, let producer = caught.producer else { return .empty }
            let answer = handler([failure.value, .stream(SpecStream(caught: producer, by: caught))])
            if case let .stream(stream) = answer, stream.caughtBy === caught { return nil }
            do {
                return try SpecCall.stream(answer, location)
            } catch {
                interpreter.fail(location, "expected the function to return a stream, found \(answer.typeName)")
                return .empty
            }
        })
        caught.producer = result
        return stream(result)
    }

    static let rxjs: [String: Implementation] = [
        "scan": { call in
            try call.expectArguments(1...2)
            let accumulate = try call.function(0)
            let stream = call.stream
            if call.positional.count == 2 {
                let seed = call.positional[1].value
                return .stream(SpecStream(stream.scan(file: file, line: call.line, into: (seed, 0)) { state, value in
                    state = (accumulate([state.0, value, .number(Double(state.1))]), state.1 + 1)
                }.map(file: file, line: call.line) { $0.0 }))
            }
            // Without a seed RxJS sends the first value as it is and accumulates from it.
            return .stream(SpecStream(stream.scan(file: file, line: call.line, into: (SpecValue?.none, 0)) { state, value in
                state = (state.0.map { accumulate([$0, value, .number(Double(state.1))]) } ?? value, state.1 + 1)
            }.map(file: file, line: call.line) { $0.0 ?? .null }))
        },
        "take": take,
        "skip": skip,
        "distinctUntilChanged": distinctUntilChanged,
        "startWith": { call in
            try call.expectArguments(0...Int.max)
            var result = call.stream
            for argument in call.positional.reversed() {
                result = result.startWith(argument.value, file: file, line: call.line)
            }
            return stream(result)
        },
        "debounceTime": { call in
            try call.expectArguments(1)
            return stream(call.stream.debounceFlushing(try call.duration(0), on: call.scheduler, file: file, line: call.line))
        },
        "throttleTime": { call in
            try call.expectArguments(1...3, labels: ["leading", "trailing"])
            var call = call
            // RxJS 7's throttleTime(d, scheduler, {leading, trailing}), with null for the
            // scheduler (a spec has one); the configuration is read as the named arguments.
            if call.positional.count > 1 {
                let scheduler = call.positional[1], configuration = call.positional[call.positional.count - 1]
                guard call.positional.count == 3, scheduler.value.isNull, call.arguments.count == 3,
                      case let .object(entries) = configuration.value else {
                    throw SpecSyntaxError(location: scheduler.location,
                                          message: "expected throttleTime(duration, null, {leading, trailing}), null for the scheduler")
                }
                if let unknown = entries.first(where: { $0.key != "leading" && $0.key != "trailing" }) {
                    throw SpecSyntaxError(location: configuration.location,
                                          message: "expected a configuration with 'leading', 'trailing' for 'throttleTime', found '\(unknown.key)'")
                }
                call = SpecCall(name: call.name, location: call.location, receiver: call.receiver,
                                arguments: [call.positional[0]] + entries.map {
                                    SpecCall.Argument(label: $0.key, value: $0.value, location: configuration.location)
                                },
                                interpreter: call.interpreter)
            }
            let leading = call.argument(nil, "leading") == nil ? true : try call.bool(nil, "leading")
            let trailing = call.argument(nil, "trailing") == nil ? false : try call.bool(nil, "trailing")
            return stream(call.stream.throttle(try call.duration(0), leading: leading, trailing: trailing, on: call.scheduler,
                                               file: file, line: call.line))
        },
        "auditTime": { call in
            try call.expectArguments(1)
            return stream(call.stream.audit(try call.duration(0), on: call.scheduler, file: file, line: call.line))
        },
        "sampleTime": { call in
            try call.expectArguments(1)
            let period = try call.duration(0)
            // Virtual time counts whole nanoseconds: a shorter period would round to a
            // timer that never advances the clock.
            let nanoseconds = (period * 1e9).rounded()
            guard nanoseconds >= 1 else {
                throw SpecSyntaxError(location: call.positional[0].location,
                                      message: "expected a period of at least 0.000001ms (1ns), found \(SpecValue.format(period * 1000))ms")
            }
            // A period past the end of virtual time (Int64 nanoseconds) never ticks.
            let ticks = SignalProducer<Date, Never>.timer(interval: .nanoseconds(Int(min(nanoseconds, 9.2e18))),
                                                          on: call.scheduler, file: file, line: call.line)
            return stream(call.stream.sampleLatest(on: ticks, file: file, line: call.line))
        },
        "sample": { call in
            try call.expectArguments(1)
            return stream(call.stream.sampleLatest(on: try call.stream(0), file: file, line: call.line))
        },
        "delay": rxjsDelay,
        "merge": { call in
            let (streams, trailing) = try streamList(call, receiver: true)
            return stream(try merged(call, streams, trailing))
        },
        "mergeWith": { call in
            let (streams, _) = try streamList(call, receiver: true)
            return stream(SpecProducer.merge(streams, file: file, line: call.line))
        },
        "concat": { call in
            let (streams, _) = try streamList(call, receiver: true)
            return stream(SignalProducer<SpecProducer, SpecFailure>(streams).flatten(.concat, file: file, line: call.line))
        },
        "combineLatest": { call in
            let (streams, trailing) = try streamList(call, receiver: true)
            let project = try projector(call, trailing)
            return stream(SpecProducer.combineLatest(streams, file: file, line: call.line, reduce: project))
        },
        "zip": { call in
            let (streams, trailing) = try streamList(call, receiver: true)
            let project = try projector(call, trailing)
            return stream(SpecProducer.zip(streams, file: file, line: call.line).map(file: file, line: call.line, project))
        },
        "withLatestFrom": { call in
            // RxJS: withLatestFrom(a, b, ..., project?); the others start first, their
            // completion changes nothing, a value waits until every other has one.
            try call.expectArguments(1...Int.max)
            var arguments = call.positional
            var projectArgument: SpecCall.Argument?
            if case .lambda = arguments[arguments.count - 1].value { projectArgument = arguments.removeLast() }
            guard !arguments.isEmpty else {
                throw SpecSyntaxError(location: call.location, message: "expected a stream before the projector of 'withLatestFrom'")
            }
            let others = try arguments.map { try SpecCall.stream($0.value, $0.location) }
            let project = try projector(call, projectArgument)
            if others.count == 1 {
                return stream(call.stream.withLatest(from: others[0], file: file, line: call.line)
                    .map(file: file, line: call.line) { project([$0.0, $0.1]) })
            }
            let latest = SpecProducer.combineLatest(others, file: file, line: call.line)
            return stream(call.stream.withLatest(from: latest, file: file, line: call.line)
                .map(file: file, line: call.line) { project([$0.0] + $0.1) })
        },
        "switchMap": { call in
            try call.expectArguments(1)
            return try flatMapping(call, .latest, lambda: 0)
        },
        "mergeMap": { call in
            try call.expectArguments(1...2)
            return try flatMapping(call, try limit(call, call.positional.count == 2 ? call.positional[1] : nil), lambda: 0)
        },
        "concatMap": { call in
            try call.expectArguments(1)
            return try flatMapping(call, .concat, lambda: 0)
        },
        "exhaustMap": { call in
            try call.expectArguments(1)
            return try flatMapping(call, .throttle, lambda: 0, projectOnStart: true)
        },
        "takeUntil": { call in
            try call.expectArguments(1)
            return stream(call.stream.take(untilValueFrom: try call.stream(0), file: file, line: call.line))
        },
        "catchError": catchError,
        "retry": { call in
            try call.expectArguments(0...1, labels: ["count", "delay", "resetOnSuccess"])
            // RxJS 7's retry(count) or retry({count, delay, resetOnSuccess}); the spec's named
            // arguments too. `delay` is milliseconds or a function (error, retries) => notifier.
            let call = try call.spreadingConfiguration(["count", "delay", "resetOnSuccess"])
            var count = Int.max
            if call.argument(0, "count") != nil {
                let value = try call.number(0, "count")
                count = value <= 0 ? 0 : value >= Double(Int.max / 2) ? Int.max : try call.count(0, "count")
            }
            // RxJS: a count of 0 or less leaves the stream as it is.
            guard count > 0 else { return stream(call.stream) }
            let reset = call.argument(nil, "resetOnSuccess") == nil ? false : try call.bool(nil, "resetOnSuccess")
            if let delay = call.argument(nil, "delay"), case .lambda = delay.value {
                let notifier = try call.streamFunction(nil, "delay")
                return stream(call.restartableStream.retry(upTo: count, resettingOnValue: reset, file: file, line: call.line) { failure, retries in
                    notifier([failure.value, .number(Double(retries))])
                })
            }
            if call.argument(nil, "delay") != nil {
                let interval = try call.duration(nil, "delay")
                guard !reset else {
                    // Signals' timed retry has no reset; a timer notifier does the same.
                    let scheduler = call.scheduler
                    return stream(call.restartableStream.retry(upTo: count, resettingOnValue: true, file: file, line: call.line) { _, _ in
                        SpecProducer(value: .null).delay(interval, on: scheduler)
                    })
                }
                return stream(call.restartableStream.retry(upTo: count, interval: interval, on: call.scheduler, file: file, line: call.line))
            }
            if reset { return stream(call.restartableStream.retry(upTo: count, resettingOnValue: true, file: file, line: call.line)) }
            return stream(call.restartableStream.retry(upTo: count, file: file, line: call.line))
        },
        "timeout": { call in
            try call.expectArguments(0...1, labels: ["each", "first", "with"])
            // RxJS 7: timeout(n) is timeout({each: n}); timeout({first, each, with}).
            let call = try call.spreadingConfiguration(["each", "first", "with"])
            let first = call.argument(nil, "first") == nil ? nil : try call.duration(nil, "first")
            let each = call.argument(0, "each") == nil ? nil : try call.duration(0, "each")
            guard first != nil || each != nil else {
                throw SpecSyntaxError(location: call.location, message: "expected 'each' or 'first' for 'timeout'")
            }
            guard let with = call.argument(nil, "with") else {
                return stream(call.stream.timeout(first: first, each: each, raising: SpecFailure(.string("TimeoutError")),
                                                  on: call.scheduler, file: file, line: call.line))
            }
            let fallback: SpecProducer
            if case .lambda = with.value {
                // RxJS's `with` is a factory, called when the deadline passes.
                let factory = try call.streamFunction(nil, "with")
                fallback = SpecProducer(node: Node.make(.source, "with", file: file, line: call.line)) { observer, lifetime in
                    lifetime += factory([]).start(observer)
                }
            } else {
                fallback = try call.stream(nil, "with")
            }
            return stream(call.stream.timeout(first: first, each: each, switchingTo: fallback, on: call.scheduler,
                                              file: file, line: call.line))
        },
    ]

    static func merged(_ call: SpecCall, _ streams: [SpecProducer], _ trailing: SpecCall.Argument?) throws -> SpecProducer {
        if let trailing, case .lambda = trailing.value {
            throw SpecSyntaxError(location: trailing.location, message: "expected a stream or a concurrency limit, found function")
        }
        let strategy = try limit(call, trailing)
        if strategy == .merge { return SpecProducer.merge(streams, file: file, line: call.line) }
        return SignalProducer<SpecProducer, SpecFailure>(streams).flatten(strategy, file: file, line: call.line)
    }

    /// The scheduler lane an `on: "name"` argument names.
    static func lane(_ call: SpecCall) throws -> TestScheduler.Lane {
        guard let argument = call.argument(nil, "on"), case let .string(lane) = argument.value else {
            throw SpecSyntaxError(location: call.location, message: "expected 'on:' with a scheduler name such as \"main\"")
        }
        return call.scheduler.lane(lane)
    }

    /// The Swift API's names, calling the Signals operators directly.
    static let swift: [String: Implementation] = [
        "skipRepeats": distinctUntilChanged,
        "take": { call in
            if call.argument(nil, "until") != nil {
                try call.expectArguments(0, labels: ["until"])
                return stream(call.stream.take(until: unfailing(try call.stream(nil, "until")), file: file, line: call.line))
            }
            if call.argument(nil, "first") != nil {
                try call.expectArguments(0, labels: ["first"])
                return stream(call.stream.take(first: try call.count(nil, "first"), file: file, line: call.line))
            }
            return try take(call)
        },
        "skip": { call in
            if call.argument(nil, "first") != nil {
                try call.expectArguments(0, labels: ["first"])
                return stream(call.stream.skip(first: try call.count(nil, "first"), file: file, line: call.line))
            }
            return try skip(call)
        },
        "throttle": { call in
            try call.expectArguments(1)
            return stream(call.stream.throttle(try call.duration(0), on: call.scheduler, file: file, line: call.line))
        },
        "debounce": { call in
            try call.expectArguments(1)
            return stream(call.stream.debounce(try call.duration(0), on: call.scheduler, file: file, line: call.line))
        },
        "flatMap": { call in
            try call.expectArguments(2)
            return try flatMapping(call, try strategy(call, 0), lambda: 1)
        },
        "flatMapError": catchError,
        "observe": { call in
            try call.expectArguments(0, labels: ["on"])
            return stream(call.stream.observe(on: try lane(call), file: file, line: call.line))
        },
        "withLatest": { call in
            try call.expectArguments(0, labels: ["from"])
            return stream(call.stream.withLatest(from: try call.stream(nil, "from"), file: file, line: call.line)
                .map(file: file, line: call.line) { .array([$0.0, $0.1]) })
        },
        "delay": { call in
            // Signals' `delay(_:on:)` (completion shifted too) when a scheduler lane is named.
            guard call.argument(nil, "on") != nil else { return try rxjsDelay(call) }
            try call.expectArguments(1, labels: ["on"])
            return stream(call.stream.delay(try call.duration(0), on: try lane(call), file: file, line: call.line))
        },
        "then": { call in
            try call.expectArguments(1)
            return stream(call.stream.then(try call.stream(0), file: file, line: call.line))
        },
        "collect": { call in
            try call.expectArguments(0)
            return stream(call.stream.collect(file: file, line: call.line).map(file: file, line: call.line) { .array($0) })
        },
    ]

    // MARK: Functions that combine streams

    static let combining: [String: Implementation] = [
        "merge": { call in
            let (streams, trailing) = try streamList(call, receiver: false)
            return stream(try merged(call, streams, trailing))
        },
        "concat": { call in
            let (streams, _) = try streamList(call, receiver: false)
            return stream(SignalProducer<SpecProducer, SpecFailure>(streams).flatten(.concat, file: file, line: call.line))
        },
        "combineLatest": { call in
            // RxJS 7's dictionary form, combineLatest({a: s, b: t}), sends objects with those keys.
            if call.positional.count == 1, case let .object(entries) = call.positional[0].value {
                let location = call.positional[0].location
                let streams = try entries.map { try SpecCall.stream($0.value, location) }
                let keys = entries.map(\.key)
                return stream(SpecProducer.combineLatest(streams, file: file, line: call.line) { values in
                    .object(Array(zip(keys, values)).map { (key: $0.0, value: $0.1) })
                })
            }
            let (streams, trailing) = try streamList(call, receiver: false)
            let project = try projector(call, trailing)
            return stream(SpecProducer.combineLatest(streams, file: file, line: call.line, reduce: project))
        },
        "zip": { call in
            let (streams, trailing) = try streamList(call, receiver: false)
            let project = try projector(call, trailing)
            return stream(SpecProducer.zip(streams, file: file, line: call.line).map(file: file, line: call.line, project))
        },
    ]
}
