import Locks
import Signals

/// The real world for an async pipeline: inputs are streams a script or a user sends into,
/// calls run the real (or simulated) service, and the clock is real, or a
/// `VirtualTimeDriver`'s in a test. A running recorder records every input's values and every
/// call's request and answer, which is what `ReplayAsyncEnvironment` serves back.
///
/// ```swift
/// let live = LiveAsyncEnvironment()
/// let lengths = live.input("typed", of: String.self).map(\.count)
/// try live.send("swift", to: "typed")
/// live.finishInputs()
/// for await length in lengths { print(length) }   // 5
/// ```
public final class LiveAsyncEnvironment: AsyncEnvironment, @unchecked Sendable {  // `inputs` under `lock`
    public let clock: EnvironmentClock
    private let lock = Lock()
    private var inputs: [String: AnyInputPipe] = [:]

    /// An environment on a real clock whose origin is now.
    public init() {
        clock = .real()
    }

    /// An environment on `clock`, the virtual clock of the `VirtualTimeDriver` it runs on: a
    /// recording made this way is deterministic, and replays to the same bytes.
    public init(clock: VirtualClock) {
        self.clock = .virtual(clock)
    }

    public func input<Value: Codable & Sendable>(_ label: String, of type: Value.Type, file: StaticString,
                                                 line: UInt) -> EnvironmentInput<Value> {
        lock.withLock {
            if let existing = inputs[label] as? InputPipe<Value> { return existing.input }
            let pipe = InputPipe<Value>(label: label, file: file, line: line)
            inputs[label] = pipe
            return pipe.input
        }
    }

    /// Sends `value` into the input `label` (what a user typing does), recorded as its event.
    ///
    /// - Throws: `InputError` when no input has that label (the pipeline has not asked for it
    ///   yet), when it takes another type, or when it was finished.
    public func send<Value: Codable & Sendable>(_ value: Value, to label: String) throws {
        let pipe: InputPipe<Value> = try lock.withLock {
            guard let input = inputs[label] else {
                throw InputError(label: label, reason: .unknownLabel(inputs: inputs.keys.sorted()))
            }
            guard let pipe = input as? InputPipe<Value> else {
                throw InputError(label: label, reason: .wrongType(expected: input.valueType, sent: "\(Value.self)"))
            }
            return pipe
        }
        guard pipe.send(value) else { throw InputError(label: label, reason: .completed) }
    }

    /// Finishes the input `label`: its iteration ends once the values sent are taken.
    ///
    /// - Throws: `InputError` when no input has that label.
    public func finish(_ label: String) throws {
        let pipe: AnyInputPipe = try lock.withLock {
            guard let input = inputs[label] else {
                throw InputError(label: label, reason: .unknownLabel(inputs: inputs.keys.sorted()))
            }
            return input
        }
        pipe.finish()
    }

    /// Finishes every input, in the order of their labels.
    public func finishInputs() {
        let pipes = lock.withLock { inputs.keys.sorted().compactMap { inputs[$0] } }
        pipes.forEach { $0.finish() }
    }

    public func timer(_ label: String, every interval: Duration, file: StaticString, line: UInt) -> EnvironmentTimer {
        EnvironmentTimer(node: .asyncTimer(label, every: interval, file: file, line: line), interval: interval,
                         clock: clock, recorded: nil)
    }

    public func call<Request: Codable & Equatable & Sendable, Value: Codable & Sendable>(
        _ label: String, request: Request, file: StaticString, line: UInt,
        _ perform: () async throws -> Value
    ) async throws -> Value {
        let node = Node.call(label, file: file, line: line)
        let subscription = BoundaryEvents.startCall(node, request: request)
        let outcome: Result<Value, any Error>
        do {
            outcome = .success(try await perform())
        } catch {
            outcome = .failure(error)
        }
        BoundaryEvents.endCall(node, subscription: subscription, outcome)
        return try outcome.get()
    }
}
