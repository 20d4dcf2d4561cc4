/// The decisions of `SignalProducer.timer`: counts ticks and, once stopped, ignores a tick
/// that was already on its way (a timer disposed from inside its own action, or from another
/// thread while the scheduler was about to run it).
public struct TimerState: Equatable {
    /// Ticks sent so far.
    public private(set) var ticks: UInt64 = 0
    /// Whether the timer was disposed.
    public private(set) var stopped = false

    /// A running timer that has not ticked yet.
    public init() {}

    /// A tick arrived; returns whether to send it.
    public mutating func tick() -> Bool {
        guard !stopped else { return false }
        ticks += 1
        return true
    }

    /// The timer was disposed.
    public mutating func stop() {
        stopped = true
    }
}
