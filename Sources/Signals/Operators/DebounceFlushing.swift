import Foundation

// debounceFlushing (RxJS debounceTime): a debounce whose completion sends the pending value
// at once, instead of dropping it or waiting for its timer.

/// The decisions of `debounceFlushing`, free of clocks: `DebounceState`'s, except at
/// completion, which sends the pending value at once.
public struct DebounceFlushingState<Value> {
    private var debounce: DebounceState<Value>

    /// The quiet period, in seconds.
    public var interval: TimeInterval { debounce.interval }

    /// A flushing debounce of `interval` seconds.
    public init(interval: TimeInterval) { debounce = DebounceState(interval: interval) }

    /// A value arrived at `now`: it replaces any pending one; arm a timer for the request.
    public mutating func receive(_ value: Value, now: Date) -> TimerRequest? {
        debounce.receive(value, now: now)
    }

    /// The timer of `token` fired: the value to send, if it is still current.
    public mutating func fire(_ token: UInt64) -> Value? {
        // Never `.sendThenComplete`: `completeFlushing()` ends the stream without waiting.
        guard case let .send(value) = debounce.fire(token) else { return nil }
        return value
    }

    /// The upstream completed: whether to complete, and the pending value to send first.
    public mutating func complete() -> (complete: Bool, flush: Value?) {
        debounce.completeFlushing()
    }

    /// The upstream failed or was interrupted: whether to forward it (the pending value is dropped).
    public mutating func terminate() -> Bool {
        debounce.terminate()
    }
}

extension Signal {
    /// RxJS's `debounceTime`: sends a value once `interval` seconds pass without another;
    /// when the upstream completes, a pending value is sent at once, then completion. Contrast
    /// `debounce(_:on:discardWhenCompleted:)`, which drops it or waits for its timer.
    public func debounceFlushing(_ interval: TimeInterval, on scheduler: DateScheduler,
                                 file: StaticString = #fileID, line: UInt = #line) -> Signal<Value, Error> {
        debounceFlushing(interval, on: scheduler,
                         node: .operator("debounceFlushing", parameters: intervalParameters(interval, on: scheduler),
                                         (node, .data), file: file, line: line))
    }

    func debounceFlushing(_ interval: TimeInterval, on scheduler: DateScheduler, node: Node) -> Signal<Value, Error> {
        timed(node, on: scheduler, DebounceFlushingState<Value>(interval: interval),
              receive: { TimedEffect(arm: $0.receive($1, now: $2)) },
              fire: { TimedEffect(send: $0.fire($1.token)) },
              complete: { state in
                  let decision = state.complete()
                  return TimedEffect(send: decision.flush, complete: decision.complete)
              },
              terminate: { $0.terminate() })
    }
}

extension SignalProducer {
    /// See `Signal.debounceFlushing(_:on:)` (RxJS's `debounceTime`).
    public func debounceFlushing(_ interval: TimeInterval, on scheduler: DateScheduler,
                                 file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Error> {
        let node = Node.operator("debounceFlushing", parameters: intervalParameters(interval, on: scheduler),
                                 (self.node, .data), file: file, line: line)
        return lift(node) { $0.debounceFlushing(interval, on: scheduler, node: node) }
    }
}
