import TraceLog

/// When each recorded event's consequences reached the operator where they met another
/// thread's: the time a replay delivers a boundary event (an input's value, a timer's tick)
/// so that a multi-input operator hears its inputs in the order it heard them live.
///
/// Live, a tick on one queue may reach `combineLatest` after a tick another queue sent later,
/// because the first queue's chain took longer. A replay runs each chain in no time, at its
/// source's recorded time, and so would flip that order. The trace records the arrival: the
/// multi-input operator's own event, on the same thread, in the source event's synchronous
/// cascade (the events whose first cause leads back to it on its thread). When another thread
/// recorded an event between the source event and that arrival — a race the arrival decided —
/// the source event is delivered at its arrival time instead, and every later source event of
/// its thread no earlier, so each thread keeps its own order. Without such a race, and always
/// in a virtual trace (where a cascade takes no time), the recorded time stands.
struct DecisionTimes {
    /// The delivery time of the event at each position of the trace's events.
    private let times: [Int64]
    /// How many events are delivered later than recorded.
    let moved: Int

    init(trace: Trace) {
        let events = trace.events
        let count = events.count
        let merging = Set(trace.nodes.filter { $0.upstream.count >= 2 }.map(\.id))
        // In virtual time a cascade takes none: every race was decided at the recorded times.
        guard !merging.isEmpty, count > 0, trace.header.clock != .virtual else {
            times = (0..<count).map { events.time(at: $0) }
            moved = 0
            return
        }
        // The earliest arrival at a merging node in each event's same-thread cascade, found
        // from the last event back (an event's consequences follow it in sequence order).
        var arrival = [Int64?](repeating: nil, count: count)
        for position in stride(from: count - 1, through: 0, by: -1) {
            let own = merging.contains(events.node(at: position)) ? events.time(at: position) : arrival[position]
            guard let own, let cause = events.firstCause(at: position), let parent = trace.eventPosition(sequence: cause),
                  parent < position, events.thread(at: parent) == events.thread(at: position) else { continue }
            arrival[parent] = min(arrival[parent] ?? own, own)
        }
        // Every event's time by time, and for each the next (by time) on another thread than
        // its own, to find another thread's event in a window at once.
        let byTime = (0..<count).sorted { events.time(at: $0) < events.time(at: $1) }
        let sortedTimes = byTime.map { events.time(at: $0) }
        var nextOtherThread = [Int](repeating: count, count: count)
        for index in stride(from: count - 2, through: 0, by: -1) {
            nextOtherThread[index] = events.thread(at: byTime[index + 1]) != events.thread(at: byTime[index])
                ? index + 1 : nextOtherThread[index + 1]
        }
        var delivered = [Int64](repeating: 0, count: count)
        var latest: [UInt64: Int64] = [:]
        var moved = 0
        for position in 0..<count {
            let time = events.time(at: position)
            let thread = events.thread(at: position)
            // Only what the environment delivers (an event nothing in the trace caused) moves,
            // and only it holds back its thread's later deliveries.
            guard events.firstCause(at: position) == nil else {
                delivered[position] = time
                continue
            }
            var due = time
            if let reached = arrival[position], reached > time,
               Self.otherThread(than: thread, in: time, reached, sortedTimes: sortedTimes, byTime: byTime,
                                nextOtherThread: nextOtherThread, events: events) {
                due = reached
                moved += 1
            }
            due = max(due, latest[thread] ?? due)
            latest[thread] = due
            delivered[position] = due
        }
        times = delivered
        self.moved = moved
    }

    /// The time to deliver the event at `position`.
    func time(at position: Int) -> Int64 { times[position] }

    /// Whether a thread other than `thread` recorded an event after `start` and no later
    /// than `end`.
    private static func otherThread(than thread: UInt64, in start: Int64, _ end: Int64, sortedTimes: [Int64],
                                    byTime: [Int], nextOtherThread: [Int], events: TraceEvents) -> Bool {
        // The first event after `start`, by binary search.
        var low = 0, high = sortedTimes.count
        while low < high {
            let middle = (low + high) / 2
            if sortedTimes[middle] <= start { low = middle + 1 } else { high = middle }
        }
        guard low < sortedTimes.count, sortedTimes[low] <= end else { return false }
        if events.thread(at: byTime[low]) != thread { return true }
        // The first event after it on another thread than its, which is `thread`.
        let other = nextOtherThread[low]
        return other < sortedTimes.count && sortedTimes[other] <= end
    }
}
