// sample(with:), sample(on:) (RAC2: sample:) and withLatest(from:): one stream's latest value,
// read when another stream sends.

/// The effects around one sample instance's state machine: events of the source and the
/// sampler take a transition under the OperatorLock and perform its action. The latest value
/// carries, for the probe, the sequence number of the event that brought it.
final class SampleState<Value, Sample, Output, Error: Swift.Error>: @unchecked Sendable {  // mutable state only under the OperatorLock
    private let lock: OperatorLock<Output, Error>
    private let combine: (Value, Sample) -> Output
    private var machine = SampleStateMachine<(value: Value, cause: UInt64)>()

    init(output: Observer<Output, Error>, combine: @escaping (Value, Sample) -> Output) {
        lock = OperatorLock(output)
        self.combine = combine
    }

    func source(_ event: Signals.Event<Value, Error>) {
        lock.run {
            switch event {
            case let .value(value):
                machine.receive((value, Instrumentation.isAttached ? ProbeContext.current.cause : 0))
            case let .failed(error):
                perform(machine.terminate(), ending: .failed(error))
            case .interrupted:
                perform(machine.terminate(), ending: .interrupted)
            case .completed:
                perform(machine.sourceCompleted(), ending: .completed)
            }
        }
    }

    func sampler(_ event: Signals.Event<Sample, Never>) {
        lock.run {
            switch event {
            case let .value(sample):
                guard case let .emit(latest) = machine.sample() else { return }
                // The sampler's event is the primary cause; the sampled value is another.
                lock.send(combine(latest.value, sample), otherCauses: [latest.cause])
            case .interrupted:
                perform(machine.terminate(), ending: .interrupted)
            case .completed:
                perform(machine.samplerCompleted(), ending: .completed)
            }
        }
    }

    /// Performs a terminal transition's action: `event` is how the result ends, if it does.
    private func perform(_ action: SampleStateMachine<(value: Value, cause: UInt64)>.Action,
                         ending event: Signals.Event<Output, Error>) {
        switch action {
        case .complete, .forwardTermination: lock.terminate(event)
        case .none, .emit: return
        }
    }
}

/// The state of one withLatest instance: the samplee's latest value, read with each value
/// of the source. The source alone decides when the result ends.
final class WithLatestState<Value, Latest, Error: Swift.Error>: @unchecked Sendable {  // mutable state only under the OperatorLock
    private let lock: OperatorLock<(Value, Latest), Error>
    private var latest: Latest?
    private var latestCause: UInt64 = 0

    init(output: Observer<(Value, Latest), Error>) { lock = OperatorLock(output) }

    func source(_ event: Signals.Event<Value, Error>) {
        lock.run {
            guard !lock.isTerminated else { return }
            switch event {
            case let .value(value):
                if let latest { lock.send((value, latest), otherCauses: [latestCause]) }
            case let .failed(error):
                lock.terminate(.failed(error))
            case .completed:
                lock.terminate(.completed)
            case .interrupted:
                lock.terminate(.interrupted)
            }
        }
    }

    func samplee(_ event: Signals.Event<Latest, Never>) {
        guard case let .value(value) = event else { return }
        lock.run {
            latest = value
            if Instrumentation.isAttached { latestCause = ProbeContext.current.cause }
        }
    }
}

// MARK: Signal

extension Signal {
    func sample<T, U>(with sampler: Signal<T, Never>, node: Node, combine: @escaping (Value, T) -> U) -> Signal<U, Error> {
        Signal<U, Error>.combining(node) { output, lifetime in
            let state = SampleState(output: output, combine: combine)
            lifetime += self.observeInternally(state.source)
            lifetime += sampler.observeInternally(state.sampler)
        }
    }

    func withLatest<U>(from samplee: Signal<U, Never>, node: Node) -> Signal<(Value, U), Error> {
        Signal<(Value, U), Error>.combining(node) { output, lifetime in
            let state = WithLatestState<Value, U, Error>(output: output)
            lifetime += samplee.observeInternally(state.samplee)
            lifetime += self.observeInternally(state.source)
        }
    }

    /// Each time `sampler` sends, this signal's latest value with the sampler's value. Nothing
    /// is sent for a sampler value before this signal's first value; a value may be sampled
    /// many times. Completes when both have completed; fails when this signal fails; is
    /// interrupted when either is.
    public func sample<T>(with sampler: Signal<T, Never>, file: StaticString = #fileID, line: UInt = #line)
        -> Signal<(Value, T), Error> {
        let node = Node.operator("sample(with:)", (self.node, .data), (sampler.node, .sampler), file: file, line: line)
        return sample(with: sampler, node: node, combine: { ($0, $1) })
    }

    /// Each time `sampler` sends, this signal's latest value (ReactiveCocoa 2: `sample:`).
    /// Completes when both have completed; fails when this signal fails.
    public func sample(on sampler: Signal<(), Never>, file: StaticString = #fileID, line: UInt = #line)
        -> Signal<Value, Error> {
        let node = Node.operator("sample(on:)", (self.node, .data), (sampler.node, .sampler), file: file, line: line)
        return sample(with: sampler, node: node, combine: { value, _ in value })
    }

    /// Each value of this signal with the latest value of `samplee`; values before the
    /// samplee's first are dropped. Ends when this signal ends; the samplee's end is ignored.
    public func withLatest<U>(from samplee: Signal<U, Never>, file: StaticString = #fileID, line: UInt = #line)
        -> Signal<(Value, U), Error> {
        withLatest(from: samplee, node: .operator("withLatest(from:)", (node, .data), (samplee.node, .latest),
                                                   file: file, line: line))
    }

    /// Starts `samplee` and gives each value of this signal with the samplee's latest value.
    /// The samplee's start is interrupted when the result ends.
    public func withLatest<U>(from samplee: SignalProducer<U, Never>, file: StaticString = #fileID, line: UInt = #line)
        -> Signal<(Value, U), Error> {
        let node = Node.operator("withLatest(from:)", (node, .data), (samplee.node, .latest), file: file, line: line)
        return samplee.startWithSignal { signal, interrupter in
            let result = withLatest(from: signal, node: node)
            result.core.resources.add(interrupter)
            return result
        }
    }
}

// MARK: SignalProducer

extension SignalProducer {
    /// Each time `sampler` sends, this producer's latest value with the sampler's value.
    /// Completes when both have completed; fails when this producer fails.
    public func sample<T>(with sampler: SignalProducer<T, Never>, file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer<(Value, T), Error> {
        let node = Node.operator("sample(with:)", (self.node, .data), (sampler.node, .sampler), file: file, line: line)
        return lift(node, sampler) { $0.sample(with: $1, node: node, combine: { ($0, $1) }) }
    }

    /// Each time `sampler` sends, this producer's latest value (ReactiveCocoa 2: `sample:`).
    public func sample(on sampler: SignalProducer<(), Never>, file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer<Value, Error> {
        let node = Node.operator("sample(on:)", (self.node, .data), (sampler.node, .sampler), file: file, line: line)
        return lift(node, sampler) { $0.sample(with: $1, node: node, combine: { value, _ in value }) }
    }

    /// `sample(with:)` with a sampler of another kind: a signal or a property.
    @_disfavoredOverload
    public func sample<Sampler: SignalProducerConvertible>(with sampler: Sampler, file: StaticString = #fileID,
                                                           line: UInt = #line) -> SignalProducer<(Value, Sampler.Value), Error>
    where Sampler.Error == Never {
        sample(with: sampler.producer, file: file, line: line)
    }

    /// `sample(on:)` with a sampler of another kind: a signal or a property.
    @_disfavoredOverload
    public func sample<Sampler: SignalProducerConvertible>(on sampler: Sampler, file: StaticString = #fileID,
                                                           line: UInt = #line) -> SignalProducer
    where Sampler.Value == Void, Sampler.Error == Never {
        sample(on: sampler.producer, file: file, line: line)
    }

    /// Each value of this producer with the latest value of `samplee`, which is started
    /// first so that a value it has at once is there for this producer's first value.
    public func withLatest<U>(from samplee: SignalProducer<U, Never>, file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer<(Value, U), Error> {
        let node = Node.operator("withLatest(from:)", (self.node, .data), (samplee.node, .latest), file: file, line: line)
        return lift(node, samplee, otherFirst: true) { $0.withLatest(from: $1, node: node) }
    }

    /// Each value of this producer with the latest value of the (hot) `samplee`.
    public func withLatest<U>(from samplee: Signal<U, Never>, file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer<(Value, U), Error> {
        let node = Node.operator("withLatest(from:)", (self.node, .data), (samplee.node, .latest), file: file, line: line)
        return lift(node) { $0.withLatest(from: samplee, node: node) }
    }
}
