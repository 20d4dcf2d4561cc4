import TraceLog

extension TraceDiff {
    /// Why a difference may be a race a replay cannot reproduce: in the live trace, the event
    /// ran while another thread was in the middle of delivering a cascade of its own.
    ///
    /// A *cascade* is what one event the environment delivered (an input's value, a timer's
    /// tick, a service's answer, a teardown) set off synchronously on its thread: the events
    /// whose first cause leads back to it on that thread. A replay runs each cascade whole, at
    /// its recorded time, on one thread. Live, two threads' cascades can interleave: one thread's
    /// value crosses an operator that another thread is tearing down, or reaches
    /// `combineLatest` while the other's value is on its way there. When a difference's live
    /// event belongs to a cascade that interleaved with another thread's (another thread
    /// recorded an event between its cascade's first and last events, or its cascade began
    /// while the other's was still running), or to a start that read what another thread had
    /// set, the replay could not have decided that race the same way, and the report names
    /// it: which threads, and where the other cascade began.
    ///
    /// This is evidence, not proof: the interleaving is where the race could be decided, and
    /// a difference there is reported as a race even when something else also changed.
    public struct Race: Codable, Equatable, Sendable {
        /// The thread of the live event that differs.
        public var thread: String
        /// The other thread, whose cascade was being delivered meanwhile.
        public var otherThread: String
        /// The event the other thread's cascade began with (its sequence number in the live trace).
        public var otherSeq: UInt64
        /// That event's node, as a difference names nodes.
        public var otherNode: String
    }
}

/// The cascades of a live trace, to tell whether an event ran while another thread's cascade
/// was in progress (`TraceDiff.Race`). A cascade lasts from its first event (or from the start
/// of the hop that began it, within `gap` before it) to the last thing
/// its thread recorded before the thread's next cascade began: its events, and the subscribe
/// and dispose records in between (a `flatMap(.latest)` switching to a new inner stream
/// records only those), each within `gap` of what the cascade did before. An interruption
/// caused on another thread but recorded on this one, within `gap` of this thread's cascade,
/// belongs to that cascade: `Signals` leaves an interruption it cannot deliver at once to the
/// thread holding its signal, which delivers it when its own delivery ends. Two cascades of
/// different threads race when those spans overlap, and a cascade that got such an
/// interruption, caused by another thread's event (recorded with the cause of the disposal
/// that left it), races that event's cascade whatever the times: the other thread ended the
/// signal while this one was delivering on it, even where this one's events were recorded
/// after the other's last (live seed 34000147: a tick recorded 46 µs after the teardown's last
/// record, though its delivery held the timer's signal when the teardown came).
///
/// A *start that read another thread's value* races that thread's cascade, whatever the
/// times: the first value of a subscription, sent by the thread that subscribed it outside any
/// delivery (a property's producer sending the value it read, while the thread set up a
/// pipeline), whose recorded cause is an event of another thread (the event that set what it
/// read, which the recorder writes: FORMAT.md, `causes`). A replay sets up at once,
/// before any other thread's work, and reads what was there then. For the same reason a
/// *start recorded after another thread's event* races the cascade of the latest such event,
/// by the order of sequence numbers alone: a start's first value, caused by nothing, sent by
/// the thread that subscribed it, of a node that is no source (a source's first value is what
/// the environment sends, which a replay sends at its recorded time). Each race the trace records so is named
/// from both sides: the other cascade's events name it too. A value only the replay sent as a
/// start's first, where the live subscription of its node was interrupted by another thread's
/// cascade before it sent anything (the setup had not reached that start yet, live seed
/// 37000318), is named with that cascade: a replay runs the start at once. What a start sends
/// after its first value with nothing to cause it but the start (a property's producer
/// completing at once, its property having ended) belongs to the start's cascade and race.
///
/// Built from two passes over the side; it keeps about 48 bytes an event, so a side of more
/// than `limit` events is not examined.
struct Interleavings {
    /// The most events examined: past it, no difference is named a race.
    static let limit = 2_000_000
    /// The longest pause, in nanoseconds, between two things a cascade did: a subscribe or
    /// dispose record later than this after the cascade's last one is not part of it.
    static let gap: Int64 = 1_000_000
    /// How far (in events) the search for another thread's cascade goes.
    static let reach = 10_000

    private var sequence: [UInt64] = []
    /// Each event's thread as the trace numbers it: two threads that serve one queue in turn
    /// have one logical name but never run at once, so only these tell a race.
    private var threadID: [UInt64] = []
    /// Each event's logical thread, for the report.
    private var thread: [UInt32] = []
    private var time: [Int64] = []
    private var node: [UInt64] = []
    /// The position of the event each event's cascade began with.
    private var root: [Int32] = []
    /// For a cascade's first event, when the cascade began and when it ended; else unused.
    private var start: [Int64] = []
    private var end: [Int64] = []
    /// The races the trace records (see the type's note): a start that read another thread's
    /// value, a cascade that got an interruption another thread's work left, a start recorded
    /// after another thread's event. By the first event of each cascade of such a pair, an
    /// event of the other cascade.
    private var recorded: [Int32: Int32] = [:]
    /// The positions of the starts that raced (see the type's note).
    private var racingStarts: [Int32] = []
    /// The first events of subscriptions another thread interrupted before they sent anything
    /// (see the type's note), by position, each with the thread that subscribed it.
    private var overtakenStarts: [(position: Int32, subscriber: UInt64)] = []
    /// Each thread's logical thread, as its events name it.
    private var logicalThread: [UInt64: UInt32] = [:]
    private var positions = SequencePositions()
    private let side: DiffSide?

    init(_ side: DiffSide) throws {
        guard side.eventCount <= Self.limit else {
            self.side = nil
            return
        }
        self.side = side
        // Every thread's subscribe and dispose records, by thread and time.
        var changes: [(thread: UInt64, time: Int64)] = []
        try side.forEachSubscriptionChange { threadID, instant in changes.append((threadID, instant)) }
        changes.sort { ($0.thread, $0.time) < ($1.thread, $1.time) }
        // When each subscription's hops (an `observe(on:)`'s, an operator timer's) started, and
        // on which thread: a cascade that such a hop began started then, before its first event.
        var hopStarts: [UInt64: [(thread: UInt64, time: Int64)]] = [:]
        try side.forEachHopStart { subscription, threadID, started in hopStarts[subscription, default: []].append((threadID, started)) }
        // Each thread's cascades, by their first events' positions, in order.
        var cascades: [UInt64: [Int32]] = [:]
        // The subscriptions that sent an event already.
        var sent: Set<UInt64> = []
        // Each thread's latest event, by position.
        var lastEvent: [UInt64: Int32] = [:]
        // The cascade each subscription's latest event belonged to, by its first event's position.
        var cascadeOfSubscription: [UInt64: Int32] = [:]
        try side.forEachEvent { event in
            let position = event.position, threadID = event.threadID, time = event.time
            positions.append(event.sequence)
            sequence.append(event.sequence)
            self.threadID.append(threadID)
            thread.append(event.thread)
            self.time.append(time)
            node.append(event.node)
            var origin = Int32(position)
            let parent = event.causes.first.flatMap { positions.position(of: $0) }.flatMap { $0 < position ? $0 : nil }
            let firstOfItsSubscription = sent.insert(event.subscription).inserted
            logicalThread[threadID] = event.thread
            if firstOfItsSubscription, event.kind == .interrupted, parent != nil,
               let subscriber = event.subscribed?.threadID, subscriber != threadID, side.node(event.node)?.kind != .source {
                overtakenStarts.append((Int32(position), subscriber))
            }
            if let parent, self.threadID[parent] == threadID {
                origin = root[parent]
            } else if event.causes.isEmpty, !firstOfItsSubscription, event.subscribed?.threadID == threadID,
                      let previous = cascadeOfSubscription[event.subscription], cascades[threadID]?.last == previous,
                      time.saturatingSubtracting(end[Int(previous)]) <= Self.gap {
                // More of a start's own work, with nothing to cause it but the start: a
                // property's producer that completes right after the value it read, because
                // the property had ended (live seed 43000461). It belongs to the start's
                // cascade, and to its race.
                origin = previous
            } else if parent != nil || event.causes.isEmpty, event.kind == .interrupted, let current = cascades[threadID]?.last,
                      time.saturatingSubtracting(end[Int(current)]) <= Self.gap {
                // An interruption caused on another thread but delivered on this one was left
                // for this thread, which held its signal (Signals' deferred interruptions): it
                // belongs to the cascade this thread was delivering, not to one of its own. So
                // does one that came with no cause at all just after it (a timer's, delivered
                // on its queue once the tick that held it let go).
                origin = current
                if let parent { noteRace(current, Int32(parent)) }
            } else {
                // A start that read what another thread set: its first cause is that event,
                // there being no delivery on this thread to cause it.
                if let parent, firstOfItsSubscription, event.kind == .value, event.subscribed?.threadID == threadID {
                    noteRace(origin, Int32(parent))
                    racingStarts.append(origin)
                } else if event.causes.isEmpty, firstOfItsSubscription, event.kind == .value, event.subscribed?.threadID == threadID,
                          side.node(event.node)?.kind != .source,
                          let other = lastEvent.filter({ $0.key != threadID }).values.max() {
                    // A start recorded after another thread's event: a replay runs the code
                    // that starts pipelines at once, before any other thread's work, so the
                    // two were ordered otherwise live.
                    noteRace(origin, other)
                    racingStarts.append(origin)
                }
                cascades[threadID, default: []].append(origin)
            }
            var began = time
            if Int(origin) == position, let starts = hopStarts[event.subscription] {
                // Begun by a hop that started on this thread just before: a timer's send that
                // waited on a signal another thread was tearing down (live seed 50000010) was
                // running from the hop's start, though its event was recorded after the teardown.
                let latest = starts.lazy.filter { $0.thread == threadID && $0.time <= time }.map(\.time).max()
                if let latest, time.saturatingSubtracting(latest) <= Self.gap { began = latest }
            }
            lastEvent[threadID] = Int32(position)
            cascadeOfSubscription[event.subscription] = origin
            root.append(origin)
            start.append(began)
            end.append(time)
            end[Int(origin)] = max(end[Int(origin)], time)
        }
        // The subscribe and dispose records a thread made during a cascade (after its first
        // event, before the thread's next cascade) extend it, each no later than `gap` after
        // what the cascade did last: a thread that went idle and later disposed of something
        // (the end of the run) did not stay in the cascade all along.
        for (threadID, instant) in changes where cascades[threadID] != nil {
            guard let starts = cascades[threadID] else { continue }
            var low = 0, high = starts.count
            while low < high {
                let middle = (low + high) / 2
                if self.time[Int(starts[middle])] <= instant { low = middle + 1 } else { high = middle }
            }
            guard low > 0 else { continue }
            let origin = Int(starts[low - 1])
            if instant > end[origin], instant.saturatingSubtracting(end[origin]) <= Self.gap { end[origin] = instant }
        }
    }

    /// Notes that the cascade beginning at `origin` raced the one of the event at `other`,
    /// both ways (each keeps the first race noted).
    private mutating func noteRace(_ origin: Int32, _ other: Int32) {
        let otherOrigin = root[Int(other)]
        if recorded[origin] == nil { recorded[origin] = other }
        if recorded[otherOrigin] == nil { recorded[otherOrigin] = origin }
    }

    /// The race the event numbered `sequence` ran in, if its cascade overlapped another
    /// thread's; `describe` names a node by its id.
    func race(atSequence sequence: UInt64, describe: (UInt64) -> String) -> TraceDiff.Race? {
        guard side != nil, let position = positions.position(of: sequence) else { return nil }
        return race(at: position, describe: describe)
    }

    /// The race of the events that straddle `instant` (the last one recorded at or before it,
    /// and the next), for a difference with no live event of its own: an event only the
    /// replay has, at the time it has it.
    func race(atTime instant: Int64, describe: (UInt64) -> String) -> TraceDiff.Race? {
        guard side != nil, !time.isEmpty else { return nil }
        var before: Int?
        for position in time.indices where time[position] <= instant {
            if before.map({ time[position] >= time[$0] }) ?? true { before = position }
        }
        let candidates = [before, before.map { $0 + 1 } ?? 0].compactMap { $0 }.filter { $0 < time.count }
        for position in candidates {
            if let race = race(at: position, describe: describe) { return race }
        }
        return nil
    }

    /// The race of a start of one of `nodes` that read another thread's value, if one did:
    /// for a difference with no live event of its own (a value only the replay sent as a
    /// start's first, where the live start read what another thread had set).
    func race(ofStartsOf nodes: Set<UInt64>, describe: (UInt64) -> String) -> TraceDiff.Race? {
        guard side != nil else { return nil }
        for position in racingStarts where nodes.contains(node[Int(position)]) {
            if let race = race(at: Int(position), describe: describe) { return race }
        }
        for (position, subscriber) in overtakenStarts where nodes.contains(node[Int(position)]) {
            guard let side, let number = logicalThread[subscriber] else { continue }
            let other = Int(root[Int(position)])
            return TraceDiff.Race(thread: side.threadName(number), otherThread: side.threadName(thread[Int(position)]),
                                  otherSeq: sequence[other], otherNode: describe(node[other]))
        }
        return nil
    }

    /// The race the first event of any of `nodes` ran in, if it did: for a node only the
    /// live run had.
    func race(ofFirstEventOf nodes: Set<UInt64>, describe: (UInt64) -> String) -> TraceDiff.Race? {
        guard side != nil, !nodes.isEmpty, let position = node.firstIndex(where: nodes.contains) else { return nil }
        return race(at: position, describe: describe)
    }

    private func race(at position: Int, describe: (UInt64) -> String) -> TraceDiff.Race? {
        guard let side else { return nil }
        let origin = Int(root[position]), own = threadID[position]
        // A start that read what another thread set, or a cascade that delivered on a signal
        // another thread's work interrupted meanwhile: it raced that thread, whatever the times.
        if let racing = recorded[Int32(origin)].map(Int.init) {
            let other = Int(root[racing])
            return TraceDiff.Race(thread: side.threadName(thread[position]), otherThread: side.threadName(thread[racing]),
                                  otherSeq: sequence[other], otherNode: describe(node[other]))
        }
        let span = start[origin]...max(time[origin], end[origin])
        // The cascades of other threads that began within reach, before or after this one.
        var index = max(0, origin - Self.reach)
        while index < min(time.count, origin + Self.reach) {
            defer { index += 1 }
            guard threadID[index] != own, Int(root[index]) == index else { continue }
            if span.overlaps(start[index]...max(time[index], end[index])) {
                return TraceDiff.Race(thread: side.threadName(thread[position]), otherThread: side.threadName(thread[index]),
                                      otherSeq: sequence[index], otherNode: describe(node[index]))
            }
        }
        return nil
    }
}
