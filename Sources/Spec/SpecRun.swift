import Foundation
import MarbleNotation
import MarbleStreams
import Signals

/// What running a spec produced: every stream's events in virtual time, and every
/// subscription to each input.
public struct SpecResult {
    /// The kind of a recorded event, as RxJS names it.
    public enum Kind: String, Sendable {
        case next, error, complete
    }

    /// One event of a stream.
    public struct Event {
        /// Virtual nanoseconds from frame 0.
        public let time: Int64
        public let kind: Kind
        /// The value of `next`, the error value of `error`; nil for `complete`.
        public let value: SpecValue?
    }

    /// One stream's events. Inputs come as written (a hot input's early events have negative
    /// times, a cold input's times are from its subscription); derived streams as observed
    /// by their subscription at frame 0.
    public struct Stream {
        public let name: String
        public let isInput: Bool
        public let isHot: Bool
        /// The input's marble line as written (empty for derived streams).
        public let marbles: String
        /// The input's marbles, parsed (empty for derived streams).
        public let marbleEvents: [MarbleNotation.Event]
        /// The derived stream's expression as written (empty for inputs).
        public let expression: String
        /// When an `unsubscribe` line disposed the derived stream before it ended by itself.
        public var unsubscribed: Int64? = nil
        public let events: [Event]
    }

    /// One subscription to an input.
    public struct Subscription: Equatable {
        /// Virtual nanoseconds from frame 0.
        public let subscribe: Int64
        /// When it ended (completion, error or unsubscription), nil if it was still active.
        public let unsubscribe: Int64?

        public init(subscribe: Int64, unsubscribe: Int64?) {
            self.subscribe = subscribe
            self.unsubscribe = unsubscribe
        }
    }

    /// How long one frame lasts, in nanoseconds.
    public let frame: Int64
    /// Inputs, then derived streams, in the order the spec writes them.
    public let streams: [Stream]
    /// Per input, in spec order: its subscriptions in the order they began.
    public let subscriptions: [(name: String, subscriptions: [Subscription])]

    /// The stream with this name.
    public func stream(_ name: String) -> Stream? { streams.first { $0.name == name } }
}

extension SpecDocument {
    /// The most scheduled actions a run may take; a periodic timer over a stream that never
    /// ends would otherwise run forever.
    public static let actionLimit = 200_000

    /// How many frames after the last time the spec names (a marble, an unsubscription) its
    /// streams may take to settle.
    public static let settleFrames: Int64 = 1_000

    /// How many actions may run after the streams' `settleFrames` before the run is stopped
    /// as one that does not settle.
    public static let pastSettleLimit = 1_000

    /// How many actions may run at one instant of virtual time before the run is a loop that
    /// takes no time (a timer with a period of 0). A `retry` or `catchError` restarting at one
    /// instant is stopped sooner, at its operator (`SpecInterpreter.restartsPerInstant`). It
    /// was 1,000 while each turn of such a loop nested a subscription, and a spec of 3,000
    /// inputs sending at frame 0 was taken for a loop.
    public static let sameInstantLimit = 50_000

    /// Runs the spec on a virtual-time scheduler with the real Signals operators: hot inputs
    /// send at their times, cold inputs on each subscription, every derived stream is
    /// subscribed at frame 0 (and unsubscribed where an `unsubscribe` line says).
    ///
    /// - Parameter scheduler: the virtual clock, at time 0; pass one to attach a recorder
    ///   that uses it as its clock.
    /// - Throws: `SpecError` for an expression that cannot be built, an error raised inside a
    ///   lambda while the streams ran, or streams that do not settle.
    public func run(on scheduler: TestScheduler = TestScheduler()) throws -> SpecResult {
        let interpreter = SpecInterpreter(document: self, scheduler: scheduler)
        defer { interpreter.streams = [:] }
        var hotInputs: [HotMarbles<SpecValue, SpecFailure>] = []
        var subscriptions: [String: MarbleSubscriptions] = [:]
        for input in inputs {
            let timeline = input.events.map { (time: $0.time, event: self.event($0, of: input.name)) }
            let stream: SpecProducer
            if input.hot {
                let pipe = Node.make(.source, "pipe", label: input.name, file: #fileID, line: UInt(input.location.line))
                let hot = scheduler.hot(timeline, node: pipe)
                hotInputs.append(hot)
                stream = hot.producer(node: inputNode(input))
                subscriptions[input.name] = hot.subscriptions
            } else {
                let cold = scheduler.cold(timeline, node: inputNode(input))
                stream = cold.producer
                subscriptions[input.name] = cold.subscriptions
            }
            interpreter.streams[input.name] = SpecStream(stream.named(input.name))
        }
        var outputs: [(Derived, SpecProducer)] = []
        do {
            for item in derived {
                let value = try interpreter.evaluate(item.expression, scope: [:])
                guard case let .stream(stream) = value else {
                    throw SpecSyntaxError(location: item.expression.location,
                                          message: "expected an expression that makes a stream, found \(value.typeName)")
                }
                let named = stream.producer.named(item.name)
                interpreter.streams[item.name] = SpecStream(named)
                outputs.append((item, named))
            }
        } catch let error as SpecSyntaxError {
            throw self.error(error.location, error.message)
        }

        // Unsubscriptions are scheduled before any input event, so at the same frame they
        // come first, as in RxJS's TestScheduler.
        var disposables: [SerialDisposable] = []
        for (item, _) in outputs {
            let serial = SerialDisposable()
            disposables.append(serial)
            if let (time, _) = unsubscribe[item.name] {
                scheduler.schedule(atNanoseconds: time) { serial.dispose() }
            }
        }
        for hot in hotInputs { hot.scheduleEvents() }
        var recorded: [[SpecResult.Event]] = Array(repeating: [], count: outputs.count)
        var ended = Array(repeating: false, count: outputs.count)
        for (index, (_, producer)) in outputs.enumerated() {
            disposables[index].inner = producer.start { event in
                switch event {
                case let .value(value): recorded[index].append(.init(time: scheduler.now, kind: .next, value: value))
                case let .failed(failure): recorded[index].append(.init(time: scheduler.now, kind: .error, value: failure.value))
                case .completed: recorded[index].append(.init(time: scheduler.now, kind: .complete, value: nil))
                case .interrupted: break
                }
                if event.isTerminating { ended[index] = true }
            }
        }
        // Run until nothing waits, at most `actionLimit` actions. Past `settleFrames` frames
        // after the last time the spec itself names, at most `pastSettleLimit` more actions
        // run: a far-off delay still arrives, but a stream that resubscribes without end (a
        // catchError returning the caught stream over inputs that fail again) or a timer left
        // running is stopped there and named, not run for ever.
        let named = inputs.flatMap { $0.events.map(\.time) } + unsubscribe.values.map(\.0)
        let (span, spanOverflow) = frame.multipliedReportingOverflow(by: Self.settleFrames)
        let (end, endOverflow) = (named.max() ?? 0).addingReportingOverflow(spanOverflow ? .max : span)
        let horizon = spanOverflow || endOverflow ? Int64.max : end
        var actions = 0
        var pastSettle = 0
        while actions < Self.actionLimit {
            let instant = scheduler.now
            let beyond = (scheduler.nextDue() ?? 0) > horizon
            if beyond && pastSettle >= Self.pastSettleLimit { break }
            let budget = min(Self.sameInstantLimit, Self.actionLimit - actions,
                             beyond ? Self.pastSettleLimit - pastSettle : Int.max)
            let ran = scheduler.run(until: beyond ? Int64.max : horizon, limit: budget)
            if ran == 0 { break }
            actions += ran
            if beyond { pastSettle += ran }
            if ran == Self.sameInstantLimit && scheduler.now == instant {
                // Every action of this batch ran at one instant: a loop that takes no time.
                let looping = outputs.indices.first { !ended[$0] }
                for disposable in disposables { disposable.dispose() }
                throw self.error(looping.map { outputs[$0].0.location } ?? SpecLocation(line: 1, column: 1),
                                 "expected the streams to settle, but \(looping.map { "stream \(outputs[$0].0.name)" } ?? "a stream") "
                                    + "ran \(Self.sameInstantLimit) actions at \(SpecResult.milliseconds(instant))ms without time "
                                    + "passing: a timer with a period of 0, or a stream that subscribes again at once, loops for ever")
            }
        }
        let settled = scheduler.isEmpty
        // Read before disposing: disposal interrupts every stream still running.
        let stillRunning = outputs.indices.first { !ended[$0] }
        for disposable in disposables { disposable.dispose() }
        if let failure = interpreter.runtimeError {
            throw self.error(failure.location, failure.message)
        }
        guard settled else {
            // The limit can be reached by the inputs' own events (a very long marble line):
            // then no 'unsubscribe' line would help, and saying timers were left would mislead.
            let now = scheduler.now
            let location = stillRunning.map { outputs[$0].0.location } ?? SpecLocation(line: 1, column: 1)
            // An input subscribed again and again is a resubscription loop, not a timer.
            let resubscribed = inputs.map { ($0.name, subscriptions[$0.name]?.all.count ?? 0) }.max { $0.1 < $1.1 }
            if let (input, count) = resubscribed, count > Self.settleFrames / 10 {
                let stream = stillRunning.map { "stream \(outputs[$0].0.name)" } ?? "a stream"
                throw self.error(location, "expected the streams to settle, but \(stream) was still running at "
                    + "\(SpecResult.milliseconds(now))ms, having subscribed to \(input) \(count) times: it resubscribes "
                    + "without end (a catchError, retry or repeat over an input that fails again); add an 'unsubscribe' "
                    + "line for this stream")
            }
            let unsent = inputs.first { input in
                guard let last = input.events.map(\.time).max() else { return false }
                if input.hot { return last > now }
                // A cold input sends from each subscription's start; one cut off by the
                // disposal above ended at `now`.
                return Self.specSubscriptions(subscriptions[input.name]).contains { subscription in
                    let (due, overflow) = subscription.subscribe.addingReportingOverflow(last)
                    return !overflow && due > now && (subscription.unsubscribe ?? now) >= now
                }
            }
            if let input = unsent {
                throw self.error(input.location, "expected a run of at most \(Self.actionLimit) scheduled actions, but the limit was reached at \(SpecResult.milliseconds(now))ms with events of this input still to send; shorten the marble lines")
            }
            throw self.error(location, "expected the streams to settle, but timers were still running at "
                + "\(SpecResult.milliseconds(now))ms (\(Self.settleFrames) frames after the last marble and \(Self.pastSettleLimit) "
                + "actions more, or \(Self.actionLimit) actions in all); add an 'unsubscribe' line for this stream")
        }

        var streams: [SpecResult.Stream] = inputs.map { input in
            SpecResult.Stream(name: input.name, isInput: true, isHot: input.hot, marbles: input.marbles, marbleEvents: input.events, expression: "",
                              events: input.events.map { marble in
                                  switch self.event(marble, of: input.name) {
                                  case let .value(value): return .init(time: marble.time, kind: .next, value: value)
                                  case let .failed(failure): return .init(time: marble.time, kind: .error, value: failure.value)
                                  default: return .init(time: marble.time, kind: .complete, value: nil)
                                  }
                              })
        }
        for (index, (item, _)) in outputs.enumerated() {
            var stream = SpecResult.Stream(name: item.name, isInput: false, isHot: false, marbles: "",
                                           marbleEvents: [], expression: item.source, events: recorded[index])
            if let (time, _) = unsubscribe[item.name], !recorded[index].contains(where: { $0.kind != .next && $0.time <= time }) {
                stream.unsubscribed = time
            }
            streams.append(stream)
        }
        return SpecResult(frame: frame, streams: streams,
                          subscriptions: inputs.map { ($0.name, Self.specSubscriptions(subscriptions[$0.name])) })
    }

    /// An input's subscriptions as the result reports them (each has begun).
    private static func specSubscriptions(_ log: MarbleSubscriptions?) -> [SpecResult.Subscription] {
        (log?.all ?? []).map { SpecResult.Subscription(subscribe: $0.subscribe ?? 0, unsubscribe: $0.unsubscribe) }
    }

    /// An input's source node, at the input's line in the spec (so each input is its own node).
    func inputNode(_ input: Input) -> Node {
        Node.make(.source, input.hot ? "hot" : "cold", parameters: input.marbles, file: file, line: UInt(input.location.line))
    }

    /// The Signals event a marble stands for, with the input's values and error value.
    func event(_ marble: MarbleNotation.Event, of input: String) -> Event<SpecValue, SpecFailure> {
        switch marble.kind {
        case let .value(character):
            let value = values[input]?.first { $0.key == character }?.value ?? .string(character)
            return .value(value)
        case .error: return .failed(SpecFailure(errors[input] ?? .string("error")))
        case .complete: return .completed
        case .interrupted: return .interrupted
        }
    }
}
