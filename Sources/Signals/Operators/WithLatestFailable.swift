// withLatest(from:) with a samplee that can fail (RxJS withLatestFrom): the samplee's failure
// fails the result.

/// The state of one failable `withLatest(from:)` instance. Its end is sent once the lock is
/// let go (`OperatorLock`), as `withLatest(from:)`'s with a samplee that cannot fail: ending
/// while holding it could wait for an upstream delivering into this operator on another
/// thread (a `delay` sending under its own lock), which waits for this lock (live seed
/// 32000229 hung so).
final class WithLatestFailableState<Value, Sample, Error: Swift.Error>: @unchecked Sendable {  // mutable state only under the OperatorLock
    private let lock: OperatorLock<(Value, Sample), Error>
    private var latest: Sample?
    private var latestCause: UInt64 = 0

    init(output: Observer<(Value, Sample), Error>) { lock = OperatorLock(output) }

    func source(_ event: Signals.Event<Value, Error>) {
        lock.run {
            guard !lock.isTerminated else { return }
            switch event {
            case let .value(value):
                // The source's value is the primary cause; the samplee's latest is another.
                if let latest { lock.send((value, latest), otherCauses: [latestCause]) }
            case let .failed(error): terminate(.failed(error))
            case .completed: terminate(.completed)
            case .interrupted: terminate(.interrupted)
            }
        }
    }

    func samplee(_ event: Signals.Event<Sample, Error>) {
        lock.run {
            guard !lock.isTerminated else { return }
            switch event {
            case let .value(sample):
                latest = sample
                if Instrumentation.isAttached { latestCause = ProbeContext.current.cause }
            case let .failed(error): terminate(.failed(error))
            case .completed, .interrupted: break
            }
        }
    }

    private func terminate(_ event: Signals.Event<(Value, Sample), Error>) {
        latest = nil
        lock.terminate(event)
    }
}

extension Signal {
    /// Each value of this signal with the latest value of `samplee` (values before the samplee
    /// has one are dropped). Unlike the `Never` variant, the samplee may fail, and its failure
    /// fails the result, as in RxJS's `withLatestFrom`; its completion changes nothing.
    @_disfavoredOverload
    public func withLatest<U>(from samplee: Signal<U, Error>, file: StaticString = #fileID, line: UInt = #line)
        -> Signal<(Value, U), Error> {
        withLatestFailable(from: samplee, node: .operator("withLatest(from:)", (node, .data), (samplee.node, .latest),
                                                          file: file, line: line))
    }

    func withLatestFailable<U>(from samplee: Signal<U, Error>, node: Node) -> Signal<(Value, U), Error> {
        Signal<(Value, U), Error>.combining(node) { observer, lifetime in
            let state = WithLatestFailableState<Value, U, Error>(output: observer)
            lifetime += samplee.observeInternally(state.samplee)
            lifetime += self.observeInternally(state.source)
        }
    }
}

extension SignalProducer {
    /// See `Signal.withLatest(from:)` for a samplee that can fail. The samplee is started
    /// first, so a value it has at once is there for this producer's first value.
    @_disfavoredOverload
    public func withLatest<U>(from samplee: SignalProducer<U, Error>, file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer<(Value, U), Error> {
        let node = Node.operator("withLatest(from:)", (self.node, .data), (samplee.node, .latest), file: file, line: line)
        return lift(node, samplee, otherFirst: true) { $0.withLatestFailable(from: $1, node: node) }
    }
}
