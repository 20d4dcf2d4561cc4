import Locks
import Signals

/// A timer across an async pipeline's boundary (`AsyncEnvironment.timer(_:every:)`): the
/// environment clock's instant every `interval`, the first one `interval` after the iteration
/// begins, for as long as it is iterated — what `AsyncTimerSequence(interval:clock:)` gives,
/// recorded as a `timer` node whose parameters carry the interval (a changed interval is a
/// changed node in a diff).
///
/// Each iterator is one start (a subscription of the node), each tick a value. Live, the
/// ticks are what the clock gives, late as a busy machine makes them; replayed
/// (`ReplayAsyncEnvironment`), the k-th iterator re-sends the ticks of the k-th recorded
/// start, their recorded instants at their recorded times, so a replay agrees with the live
/// run it replays; past them it ticks on at its interval in virtual time. A replay whose
/// code asks for another interval gets ticks at the new interval in virtual time instead (a
/// what-if replay), and the diff names the changed node.
/// An iteration that the consumer stops (a `prefix`) records no end; one whose task is
/// cancelled while it waits records its interruption.
///
/// ```swift
/// let live = LiveAsyncEnvironment()
/// let samples = live.timer("sensor", every: .milliseconds(100)).prefix(3).marbles("samples")
/// for await instant in samples { print(instant) }   // about 0.1, 0.2 and 0.3 seconds
/// ```
public struct EnvironmentTimer: AsyncSequence, Sendable, Tapped {
    /// A tick: the clock's instant when it came (replayed, the recorded one).
    public typealias Element = EnvironmentClock.Instant
    /// A timer never fails: it ends when its task is cancelled.
    public typealias Failure = Never

    /// The timer's node in a recording.
    public let node: Node
    /// The time between two ticks.
    public let interval: Duration
    let clock: EnvironmentClock
    /// Where a replay's iterators take their recorded ticks from; nil live.
    let recorded: RecordedTicks?
    var marblesNode: Node { node }

    public func makeAsyncIterator() -> Iterator {
        Iterator(timer: self)
    }

    /// One start of the timer.
    public struct Iterator: AsyncIteratorProtocol {
        let timer: EnvironmentTimer
        var subscription: UInt64 = 0
        var started = false
        var next: EnvironmentClock.Instant?
        /// A replay's recorded ticks of this start: (time from the replay's origin, instant).
        var ticks: [(time: Int64, instant: EnvironmentClock.Instant)]?
        var index = 0

        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Element? {
            if !started {
                started = true
                subscription = Instrumentation.newSubscription()
                Instrumentation.probe?.didSubscribe(timer.node, subscription: subscription, parent: 0)
                ticks = timer.recorded?.nextStart()
            }
            let instant: EnvironmentClock.Instant
            do {
                if let ticks, index < ticks.count {
                    let tick = ticks[index]
                    index += 1
                    let due = EnvironmentClock.Instant(offset: .nanoseconds(tick.time))
                    try await timer.clock.sleep(until: due)
                    // Past the recorded ticks (code that asks for more than the live run
                    // took), the timer goes on ticking at its interval in virtual time.
                    next = due.advanced(by: timer.interval)
                    instant = tick.instant
                } else {
                    let deadline = next ?? timer.clock.now.advanced(by: timer.interval)
                    try await timer.clock.sleep(until: deadline)
                    next = deadline.advanced(by: timer.interval)
                    instant = timer.clock.now
                }
            } catch {
                BoundaryEvents.report(timer.node, subscription: subscription, .interrupted, Element?.none)
                Instrumentation.probe?.didDispose(timer.node, subscription: subscription)
                return nil
            }
            Pull.current?.add(BoundaryEvents.report(timer.node, subscription: subscription, .value, instant), from: timer.node)
            return instant
        }
    }
}

/// A replay's recorded ticks of one timer: each start's, in the order the starts were recorded.
final class RecordedTicks: @unchecked Sendable {  // `starts` under `lock`
    private let lock = Lock()
    private var starts: [[(time: Int64, instant: EnvironmentClock.Instant)]]

    init(_ starts: [[(time: Int64, instant: EnvironmentClock.Instant)]]) {
        self.starts = starts
    }

    /// The next recorded start's ticks; none when every recorded start is taken.
    func nextStart() -> [(time: Int64, instant: EnvironmentClock.Instant)] {
        lock.withLock { starts.isEmpty ? [] : starts.removeFirst() }
    }
}

extension EnvironmentClock.Instant: Codable {
    /// An instant is its offset from the clock's origin in nanoseconds.
    public init(from decoder: any Decoder) throws {
        self.init(offset: .nanoseconds(try decoder.singleValueContainer().decode(Int64.self)))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(VirtualClock.Instant.nanoseconds(of: offset))
    }
}

extension Node {
    /// The node of an async environment timer: `timer`, labelled, its interval a parameter
    /// written as a `Signals` environment timer's is.
    static func asyncTimer(_ label: String, every interval: Duration, file: StaticString, line: UInt) -> Node {
        let (seconds, attoseconds) = interval.components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return .timer(label, after: value, repeating: value, file: file, line: line)
    }
}
