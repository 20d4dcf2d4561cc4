/// The decisions of `SignalProducer.timer`: counts ticks and, once stopped, ignores a tick
/// that was already on its way (a timer disposed from inside its own action, or from another
/// thread while the scheduler was about to run it).
public struct TimerStateMachine: Equatable, Sendable {
    /// Where the timer is.
    public enum State: Equatable, Sendable {
        /// Ticking; `ticks` sent so far.
        case running(ticks: UInt64)
        /// Disposed after `ticks` ticks: a tick still on its way is ignored.
        case stopped(ticks: UInt64)
    }

    /// What to do after a transition.
    public enum Action: Equatable, Sendable {
        /// Nothing.
        case none
        /// Send the tick.
        case emitTick
        /// Cancel the repeating timer.
        case cancelTimer
    }

    /// Where the timer is now.
    public private(set) var state = State.running(ticks: 0)

    /// A running timer that has not ticked yet.
    public init() {}

    /// A tick arrived.
    public mutating func tick() -> Action {
        guard case let .running(ticks) = state else { return .none }
        state = .running(ticks: ticks + 1)
        return .emitTick
    }

    /// The timer was disposed.
    public mutating func stop() -> Action {
        guard case let .running(ticks) = state else { return .none }
        state = .stopped(ticks: ticks)
        return .cancelTimer
    }
}
