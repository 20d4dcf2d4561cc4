/// The decisions of `timeout`, free of clocks and schedulers: the upstream has until the
/// deadline to terminate; if it has not, the operator fails or switches to its fallback.
public struct TimeoutState: Equatable {
    /// Where the stream is.
    public enum Phase: Equatable, Sendable {
        /// Forwarding the upstream, deadline armed.
        case running
        /// The deadline passed first: the upstream is ignored.
        case timedOut
        /// The upstream terminated first: the deadline is ignored.
        case finished
    }

    /// Where the stream is now.
    public private(set) var phase: Phase = .running

    /// A race not yet decided.
    public init() {}

    /// An upstream event arrived; returns whether to forward it. A terminal event ends the
    /// race (cancel the deadline).
    public mutating func receive(isTerminating: Bool) -> Bool {
        guard phase == .running else { return false }
        if isTerminating { phase = .finished }
        return true
    }

    /// The deadline passed; returns whether it won the race (fail, or start the fallback).
    public mutating func deadlinePassed() -> Bool {
        guard phase == .running else { return false }
        phase = .timedOut
        return true
    }
}
