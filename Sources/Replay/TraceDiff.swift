import Foundation
import TraceLog

/// How two traces differ: nodes only in one, nodes changed, and per node the events that differ.
///
/// Nodes are aligned by the pipelines' structure (`NodeAlignment`): sources by kind and
/// label, every other node by operator name, label and edge role under its aligned upstream
/// nodes — never by numeric id, call site or parameters. An aligned node whose parameters or
/// call site differ is one *node changed* difference; its events are compared all the same,
/// and so is everything downstream of it. A node in one trace only (inserted, removed or
/// replaced) is transparent to the alignment of what it feeds.
///
/// Each aligned node's events (over all its subscriptions, in sequence order) are aligned as
/// sequences by a longest common subsequence on kind and payload; what is left between two
/// aligned events is paired up in order as *value differs* or *terminal differs*, and the
/// rest is *missing* (in A, not B) or *extra* (in B, not A). Aligned events are compared for
/// thread (the logical name: scheduler, else thread) and time.
///
/// Times: with a tolerance, a shift larger than it is a difference. Without one (nil), the
/// tolerance is 0 when both traces are virtual; when either is real (a live recording against
/// its replay), jitter is expected, so shifts are not differences but are summarised in
/// `timing` — by how much the times differ.
///
/// A node in one trace only is listed in `insideCalls`, not counted as a difference, when it
/// truly ran inside a boundary call both traces have (the service behind `Environment.call`,
/// which a replay does not run): every event it sent fed that call, it hangs from no aligned
/// node, and each of its subscriptions began inside a start of a call.
///
/// Differences are found in causal order, the first divergence first: an event of A by its
/// sequence number (a cause is always sent before its effects); an event of B only right
/// after the A event its causes (or, without causes, the B event before it) align with; a
/// node difference at its node's first event. They are then grouped by root cause
/// (`RootCauses`): a changed node, a node or call in one trace only, a race, or a changed
/// event nothing upstream explains, each followed by the differences downstream of it.
///
/// ```swift
/// let diff = try TraceDiff(contentsOf: URL(fileURLWithPath: "traces/search.trace"),
///                          URL(fileURLWithPath: "search.replay.trace"), nameA: "live", nameB: "replay")
/// if !diff.isSame {
///     print(diff.text)   // the differences grouped by root cause, the first divergence first
/// }
/// ```
public struct TraceDiff: Sendable {
    /// The kinds of difference.
    ///
    /// ```swift
    /// let diff = try TraceDiff(contentsOf: URL(fileURLWithPath: "a.trace"), URL(fileURLWithPath: "b.trace"))
    /// let changedValues = diff.differences.filter { $0.kind == .valueDiffers }
    /// ```
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// A node of A that B lacks.
        case nodeOnlyInA = "node-only-in-a"
        /// A node of B that A lacks.
        case nodeOnlyInB = "node-only-in-b"
        /// Aligned nodes whose parameters or call site differ.
        case nodeChanged = "node-changed"
        /// Two events in the same place carry different values (or errors).
        case valueDiffers = "value-differs"
        /// An event of A that B lacks.
        case missingInB = "missing-in-b"
        /// An event of B that A lacks.
        case extraInB = "extra-in-b"
        /// The streams ended differently (completed, failed, interrupted).
        case terminalDiffers = "terminal-differs"
        /// The same event, at times further apart than the tolerance.
        case timeShifted = "time-shifted"
        /// The same event, on another (logical) thread.
        case threadDiffers = "thread-differs"
        /// Starts of aligned boundary calls in the same place were made with different
        /// requests (`Environment.call(_:request:_:)`): the call answered another question.
        case requestDiffers = "request-differs"
        /// A start of an aligned boundary call, with its request, that B never made.
        case callOnlyInA = "call-only-in-a"
        /// A start of an aligned boundary call, with its request, that A never made.
        case callOnlyInB = "call-only-in-b"
        /// At an operator with several inputs (`combineLatest`, `zip`, `merge`, `sample`, …),
        /// the same place holds another value, delivered from another thread: the inputs met
        /// in another order, a race between threads the two runs decided differently, not a
        /// changed value.
        case orderDiffers = "order-differs"

        /// The kind in words, as the report counts it: `value differs`, `node only in A`.
        public var phrase: String {
            switch self {
            case .nodeOnlyInA: return "node only in A"
            case .nodeOnlyInB: return "node only in B"
            case .nodeChanged: return "node changed"
            case .valueDiffers: return "value differs"
            case .missingInB: return "missing in B"
            case .extraInB: return "extra in B"
            case .terminalDiffers: return "terminal differs"
            case .timeShifted: return "time shifted"
            case .threadDiffers: return "thread differs"
            case .requestDiffers: return "request differs"
            case .callOnlyInA: return "call only in A"
            case .callOnlyInB: return "call only in B"
            case .orderDiffers: return "inputs met in another order"
            }
        }

        /// Whether the difference is about the requests of a call's starts: its `a` and `b`
        /// hold requests, not events.
        public var comparesRequests: Bool { self == .requestDiffers || self == .callOnlyInA || self == .callOnlyInB }
    }

    /// One event of one side of a difference.
    public struct EventRef: Codable, Equatable, Sendable {
        public var seq: UInt64
        public var time: Int64
        public var kind: String
        /// The payload as JSON when recorded, else the display text.
        public var value: String?
        /// The logical thread name.
        public var thread: String
    }

    /// One side of a changed node: what may change without changing the node's identity.
    public struct NodeAttributes: Codable, Equatable, Sendable {
        public var parameters: String
        public var file: String
        public var line: UInt64
    }

    /// One difference.
    ///
    /// ```swift
    /// let diff = try TraceDiff(contentsOf: URL(fileURLWithPath: "a.trace"), URL(fileURLWithPath: "b.trace"))
    /// for cause in diff.rootCauses {
    ///     print(cause.kind.phrase, "at", cause.node, cause.a?.value ?? "-", "→", cause.b?.value ?? "-")
    /// }
    /// ```
    public struct Difference: Codable, Equatable, Sendable {
        public var kind: Kind
        /// The node, as `name(parameters) "label" @file:line` (A's, for aligned nodes).
        public var node: String
        /// The event's 1-based position among the node's events in A (or B, for an extra
        /// event); nil for a node difference.
        public var index: Int?
        /// A's event; nil for a node difference.
        public var a: EventRef?
        /// B's event; nil for a node difference.
        public var b: EventRef?
        /// B's time minus A's, for a time shift.
        public var shift: Int64?
        /// How many events the node has, for a node only in one trace.
        public var events: Int?
        /// A's parameters and call site, for a changed node (`"a"` in JSON).
        public var nodeA: NodeAttributes?
        /// B's parameters and call site, for a changed node (`"b"` in JSON).
        public var nodeB: NodeAttributes?
        /// A's request as recorded (JSON), for a request difference or a call only in A
        /// (`"a"` in JSON).
        public var requestA: String?
        /// B's request as recorded (JSON), for a request difference or a call only in B
        /// (`"b"` in JSON).
        public var requestB: String?
        /// For a consequence, the number (1-based position in `differences`) of the root
        /// cause that explains it; nil for a root cause (see `TraceDiff.differences`).
        public var consequenceOf: Int?
        /// For a root cause or the first divergence whose live event ran while another thread
        /// was delivering a cascade of its own: that race (see `Race`); nil otherwise.
        public var race: Race?

        public init(kind: Kind, node: String, index: Int? = nil, a: EventRef? = nil, b: EventRef? = nil,
                    shift: Int64? = nil, events: Int? = nil, nodeA: NodeAttributes? = nil, nodeB: NodeAttributes? = nil,
                    requestA: String? = nil, requestB: String? = nil) {
            self.kind = kind
            self.node = node
            self.index = index
            self.a = a
            self.b = b
            self.shift = shift
            self.events = events
            self.nodeA = nodeA
            self.nodeB = nodeB
            self.requestA = requestA
            self.requestB = requestB
        }

        private enum CodingKeys: String, CodingKey {
            case kind, node, index, a, b, shift, events, consequenceOf, race
        }

        /// `a` and `b` hold the events, for a changed node its attributes on each side, or for a
        /// request difference the two requests' JSON as strings.
        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            kind = try container.decode(Kind.self, forKey: .kind)
            node = try container.decode(String.self, forKey: .node)
            index = try container.decodeIfPresent(Int.self, forKey: .index)
            shift = try container.decodeIfPresent(Int64.self, forKey: .shift)
            events = try container.decodeIfPresent(Int.self, forKey: .events)
            consequenceOf = try container.decodeIfPresent(Int.self, forKey: .consequenceOf)
            race = try container.decodeIfPresent(Race.self, forKey: .race)
            if kind == .nodeChanged {
                nodeA = try container.decodeIfPresent(NodeAttributes.self, forKey: .a)
                nodeB = try container.decodeIfPresent(NodeAttributes.self, forKey: .b)
            } else if kind.comparesRequests {
                requestA = try container.decodeIfPresent(String.self, forKey: .a)
                requestB = try container.decodeIfPresent(String.self, forKey: .b)
            } else {
                a = try container.decodeIfPresent(EventRef.self, forKey: .a)
                b = try container.decodeIfPresent(EventRef.self, forKey: .b)
            }
        }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(kind, forKey: .kind)
            try container.encode(node, forKey: .node)
            try container.encodeIfPresent(index, forKey: .index)
            try container.encodeIfPresent(shift, forKey: .shift)
            try container.encodeIfPresent(events, forKey: .events)
            try container.encodeIfPresent(consequenceOf, forKey: .consequenceOf)
            try container.encodeIfPresent(race, forKey: .race)
            if kind == .nodeChanged {
                try container.encodeIfPresent(nodeA, forKey: .a)
                try container.encodeIfPresent(nodeB, forKey: .b)
            } else if kind.comparesRequests {
                try container.encodeIfPresent(requestA, forKey: .a)
                try container.encodeIfPresent(requestB, forKey: .b)
            } else {
                try container.encodeIfPresent(a, forKey: .a)
                try container.encodeIfPresent(b, forKey: .b)
            }
        }
    }

    /// How far apart the times of aligned events are.
    public struct Timing: Codable, Equatable, Sendable {
        /// Aligned event pairs compared.
        public var matched: Int
        /// The largest |B − A|, in nanoseconds.
        public var maxShift: Int64
        /// The mean |B − A|, in nanoseconds (rounded down).
        public var meanShift: Int64
        /// The node where the largest shift is, if any is non-zero.
        public var maxShiftNode: String?
    }

    /// One side's name and shape.
    public struct Side: Codable, Equatable, Sendable {
        public var name: String
        public var clock: String
        public var nodes: Int
        /// Every event, pulls included.
        public var events: Int
        /// How many of the events are pulls, when there are any (an AsyncSequence tap's
        /// demand; `stats` counts them apart from the events too).
        public var pulls: Int?
    }

    public let a: Side
    public let b: Side
    /// The tolerance applied, in nanoseconds; nil when shifts are only summarised.
    public let timeTolerance: Int64?
    /// Whether a node whose call site moved (to another line or another file), and nothing
    /// else, is left out of the differences.
    public let ignoresLineShifts: Bool
    /// The differences grouped by root cause (`RootCauses`): each root cause, then the
    /// differences downstream of it that it explains (their `consequenceOf` names it), in
    /// causal order; the first root cause first, the headline. With one root cause, causal order.
    public let differences: [Difference]
    /// The difference that happened first, in causal order (not always the root cause).
    public let firstDivergence: Difference?
    /// The differences nothing else explains, the first one the headline.
    public var rootCauses: [Difference] { differences.filter { $0.consequenceOf == nil } }
    /// With `ignoresLineShifts`: how many aligned nodes moved to another line of their file
    /// and were otherwise unchanged (not differences).
    public let linesMoved: Int
    /// With `ignoresLineShifts`: how many aligned nodes moved to another file (a function
    /// extracted into a file of its own, a type moved) and were otherwise unchanged (not
    /// differences).
    public let filesMoved: Int
    /// Nodes only in one trace that ran inside a boundary call whose node both traces have:
    /// the service behind an `Environment.call`, which a replay does not run. Listed, not
    /// counted as differences.
    public let insideCalls: [Difference]
    public let timing: Timing
    /// Which node of A is which node of B.
    public let alignment: NodeAlignment

    /// What the readers skipped, A's then B's: empty for traces given in memory (their own
    /// `warnings` say).
    public let warnings: [TraceWarning]

    /// True when nothing differs.
    public var isSame: Bool { differences.isEmpty }

    /// Compares `a` (expected) with `b` (actual). `timeTolerance` in nanoseconds; nil takes
    /// the default described on the type. With `ignoringLineShifts`, an aligned node whose
    /// only change is its call site (code moved within its file or to another file: the
    /// alignment knows a node by its place in the pipeline, not by where it was written) is
    /// not a difference; its events are compared as always.
    public init(_ a: Trace, _ b: Trace, nameA: String = "A", nameB: String = "B", timeTolerance: Int64? = nil,
                ignoringLineShifts: Bool = false) {
        let texts = DiffTexts()
        // Sides held in memory read no file, the only thing that can fail.
        self = try! TraceDiff(DiffSide(a, texts: texts), DiffSide(b, texts: texts), nameA: nameA, nameB: nameB,
                              timeTolerance: timeTolerance, ignoringLineShifts: ignoringLineShifts, window: Self.window)
    }

    /// Compares the traces at `a` (expected) and `b` (actual) as `init(_:_:…)` compares two
    /// `Trace`s, with the same result, without holding either in memory: each file is read
    /// as a stream (and read again where the diff needs every event at once), each node's
    /// events are kept in 32 bytes apiece, in a temporary file once there are many, and nodes
    /// are compared one pair at a time. A malformed trace is the same `TraceError`, at the same
    /// line, as `Trace(contentsOf:)` reports.
    public init(contentsOf a: URL, _ b: URL, nameA: String = "A", nameB: String = "B", timeTolerance: Int64? = nil,
                ignoringLineShifts: Bool = false) throws {
        try self.init(path: PathName(a.path), PathName(b.path), fileNames: (a.relativePath, b.relativePath), nameA: nameA,
                      nameB: nameB, timeTolerance: timeTolerance, ignoringLineShifts: ignoringLineShifts)
    }

    /// Compares the trace files at `a` and `b`, their bytes used as given (a name that is not
    /// UTF-8 too), as `init(contentsOf:_:)` does; `fileNames` name the files in a malformed
    /// trace's error (the paths as shown when nil).
    package init(path a: PathName, _ b: PathName, fileNames: (String, String)? = nil, nameA: String = "A",
                 nameB: String = "B", timeTolerance: Int64? = nil, ignoringLineShifts: Bool = false) throws {
        try self.init(path: a, b, fileNames: fileNames ?? (a.shown, b.shown), nameA: nameA, nameB: nameB,
                      timeTolerance: timeTolerance, ignoringLineShifts: ignoringLineShifts, spillLimit: EventSpill.limit,
                      window: Self.window)
    }

    /// How many events of each node of a pair are compared at a time while they agree.
    static let window = 1 << 16

    /// `spillLimit`: how many events of a side wait in memory before they go to its temporary
    /// file; `window`: how many events of each node are compared at a time while they agree.
    init(path a: PathName, _ b: PathName, fileNames: (String, String), nameA: String, nameB: String, timeTolerance: Int64?,
         ignoringLineShifts: Bool, spillLimit: Int, window: Int) throws {
        let texts = DiffTexts()
        let sideA = try DiffSide(path: a, name: fileNames.0, texts: texts, spillLimit: spillLimit)
        let sideB = try DiffSide(path: b, name: fileNames.1, texts: texts, spillLimit: spillLimit)
        try self.init(sideA, sideB, nameA: nameA, nameB: nameB, timeTolerance: timeTolerance,
                      ignoringLineShifts: ignoringLineShifts, window: window)
    }

    private init(_ a: DiffSide, _ b: DiffSide, nameA: String, nameB: String, timeTolerance: Int64?,
                 ignoringLineShifts: Bool, window: Int) throws {
        let tolerance = timeTolerance ?? (a.header.clock == .virtual && b.header.clock == .virtual ? 0 : nil)
        self.a = Side(name: nameA, clock: a.header.clock.rawValue, nodes: a.nodes.count, events: a.eventCount,
                      pulls: a.pullCount == 0 ? nil : a.pullCount)
        self.b = Side(name: nameB, clock: b.header.clock.rawValue, nodes: b.nodes.count, events: b.eventCount,
                      pulls: b.pullCount == 0 ? nil : b.pullCount)
        self.timeTolerance = tolerance
        ignoresLineShifts = ignoringLineShifts
        alignment = NodeAlignment(a.nodes, b.nodes)
        var builder = Builder(a: a, b: b, alignment: alignment, tolerance: tolerance,
                              ignoringLineShifts: ignoringLineShifts, window: window)
        try builder.run()
        let ordered = try builder.ordered()
        let downstream = try builder.downstream()
        var first = ordered.first?.difference
        var grouped = Self.grouped(ordered, downstream: downstream)
        if first != nil {
            try Self.nameRaces(&grouped, &first, a, b, callStarts: builder.callStarts)
        }
        firstDivergence = first
        differences = grouped
        linesMoved = builder.linesMoved
        filesMoved = builder.filesMoved
        insideCalls = builder.insideCalls
        timing = builder.timing()
        warnings = a.warnings + b.warnings
    }

    /// Whether the traces differ and the first divergence ran in a race between threads of a
    /// live trace (`Race`): a replay runs each cascade whole, so it cannot decide such a race
    /// as the live run did, and what follows may all be its consequence.
    public var divergesAtARace: Bool { firstDivergence?.race != nil }

    /// Names the race each root cause and the first divergence ran in, when a side is a live
    /// recording (the first such side; a virtual run has no races) and its event's cascade
    /// interleaved with another thread's (`Interleavings`).
    private static func nameRaces(_ differences: inout [Difference], _ first: inout Difference?,
                                  _ a: DiffSide, _ b: DiffSide, callStarts: [CallStart: Int64]) throws {
        let liveIsA = a.header.clock != .virtual
        guard liveIsA || b.header.clock != .virtual else { return }
        let live = liveIsA ? a : b
        let interleavings = try Interleavings(live)
        func describe(_ id: UInt64) -> String { live.node(id).map(TraceDiff.describe) ?? "node \(id)" }
        // The live nodes by the name a difference gives them (several nodes may share one).
        var liveNodes: [String: Set<UInt64>] = [:]
        for record in live.nodes { liveNodes[TraceDiff.describe(record), default: []].insert(record.id) }
        func race(of difference: Difference) -> Race? {
            if difference.kind == (liveIsA ? .nodeOnlyInA : .nodeOnlyInB) {
                // A node only the live run had (a call the replay never made, and the service's
                // stream inside it): the race its first event ran in.
                return interleavings.race(ofFirstEventOf: liveNodes[difference.node] ?? [], describe: describe)
            }
            if difference.kind.comparesRequests {
                // A call's start has no event of its own: the events around its time tell.
                let side = difference.kind == .callOnlyInB ? 1 : 0
                return callStarts[CallStart(node: difference.node, side: side, index: difference.index ?? 0)]
                    .flatMap { interleavings.race(atTime: $0, describe: describe) }
            }
            if let own = liveIsA ? difference.a : difference.b {
                return interleavings.race(atSequence: own.seq, describe: describe)
            }
            if let other = liveIsA ? difference.b : difference.a {
                return interleavings.race(atTime: other.time, describe: describe)
                    ?? interleavings.race(ofStartsOf: liveNodes[difference.node] ?? [], describe: describe)
            }
            return nil
        }
        for index in differences.indices where differences[index].consequenceOf == nil {
            differences[index].race = race(of: differences[index])
        }
        if let divergence = first {
            // Its own race, else the race of the root cause that explains it (a consequence
            // of a race is where the replay diverged because of it).
            var found = race(of: divergence)
            if found == nil,
               let same = differences.first(where: { $0.kind == divergence.kind && $0.node == divergence.node && $0.index == divergence.index }),
               let root = same.consequenceOf, differences.indices.contains(root - 1) {
                found = differences[root - 1].race
            }
            first?.race = found
        }
    }

    /// A start of a call a request difference names: the call node (as the difference names
    /// it, A's), the side (0 for A, 1 for B) and its 1-based number there.
    fileprivate struct CallStart: Hashable {
        var node: String
        var side: Int
        var index: Int
    }

    /// The differences in causal order regrouped: each root cause, then its consequences.
    private static func grouped(_ ordered: [(difference: Difference, node: UInt64)],
                                downstream: [UInt64: [UInt64]]) -> [Difference] {
        let movedOnly = ordered.map { $0.difference.kind == .nodeChanged && $0.difference.nodeA?.parameters == $0.difference.nodeB?.parameters }
        let causes = RootCauses(kinds: ordered.map(\.difference.kind), nodes: ordered.map(\.node), movedOnly: movedOnly,
                                downstream: downstream)
        var result: [Difference] = []
        result.reserveCapacity(ordered.count)
        for group in causes.groups {
            let number = result.count + 1
            result.append(ordered[group.root].difference)
            for index in group.consequences {
                var consequence = ordered[index].difference
                consequence.consequenceOf = number
                result.append(consequence)
            }
        }
        return result
    }

    // MARK: Building

    /// Where a difference goes in causal order, before the places of B's events are known.
    private enum Place {
        /// At A's event `sequence`, then by B's event `secondary` (0 for none).
        case inA(sequence: UInt64, secondary: UInt64)
        /// At B's event `sequence`: right after what its causes align with.
        case inB(sequence: UInt64)
        /// A node difference: where the node first sent an event or first received one from
        /// upstream, on either side, whichever is earlier.
        case node(NodeEvents)
    }

    /// A node's first event and the first event it received, on each side.
    private struct NodeEvents {
        var sentA: UInt64?
        var receivedA: UInt64?
        var sentB: UInt64?
        var receivedB: UInt64?
    }

    /// Causal position: an A event's sequence number (B's events placed among A's), then a
    /// tier — the events at that place, the nodes that diverge just after it, the events of
    /// B only caused by it — then B's sequence number, then discovery order.
    private struct Order: Comparable {
        var primary: UInt64
        var tier: Int
        var secondary: UInt64
        var serial: Int

        static func < (lhs: Order, rhs: Order) -> Bool {
            (lhs.primary, lhs.tier, lhs.secondary, lhs.serial) < (rhs.primary, rhs.tier, rhs.secondary, rhs.serial)
        }
    }

    /// Compares one pair of aligned nodes at a time: only those two nodes' events are in
    /// memory. Placing differences among B's events (an event only in B, a node difference)
    /// takes where every event of B aligns: the pairs' events are then aligned once more,
    /// recording that (9 bytes per event of B) and nothing else.
    private struct Builder {
        let a: DiffSide
        let b: DiffSide
        let alignment: NodeAlignment
        let tolerance: Int64?
        let ignoringLineShifts: Bool
        /// How many events of each node are compared at a time while they agree.
        let window: Int
        /// What was found, where it goes in causal order, and its node's key (`nodeKey`).
        var found: [(place: Place, difference: Difference, node: UInt64)] = []
        var linesMoved = 0
        var filesMoved = 0
        var insideCalls: [Difference] = []
        /// When each call start a request difference names was made (`compareRequests`).
        var callStarts: [CallStart: Int64] = [:]
        var matched = 0
        var totalShift: Int64 = 0
        var maxShift: Int64 = 0
        var maxShiftNode: String?
        /// Whether the walk over the pairs' events records differences (the first walk) or
        /// only where B's events align (`alignedB`, `isAlignedB`, `anchorB`: the second).
        var comparing = true
        /// The node (A's id) whose events `compareEvents` is comparing.
        var comparedNode: UInt64 = 0
        /// By position in B's events: the sequence number of the A event it is aligned or
        /// paired with, when `isAlignedB` says it is. Empty until the second walk.
        var alignedB: [UInt64] = []
        var isAlignedB: [Bool] = []
        /// B's events only in B within an aligned node, by position: → the sequence number of
        /// the A event aligned before them.
        var anchorB: [Int: UInt64] = [:]

        init(a: DiffSide, b: DiffSide, alignment: NodeAlignment, tolerance: Int64?, ignoringLineShifts: Bool, window: Int) {
            self.window = max(1, window)
            self.a = a
            self.b = b
            self.alignment = alignment
            self.tolerance = tolerance
            self.ignoringLineShifts = ignoringLineShifts
        }

        mutating func run() throws {
            for pair in alignment.pairs {
                guard let nodeA = a.node(pair.a), let nodeB = b.node(pair.b) else { continue }
                compareNodes(nodeA, nodeB)
                try compareEvents(nodeA, nodeB)
            }
            try compareRequests()
            // Only what is in one trace can be inside a call: the boundary is worked out
            // (another pass over the trace) only for a side that has such nodes.
            let insideA = alignment.onlyInA.isEmpty
                ? CallBoundary() : try CallBoundary(a, aligned: { alignment.partner(ofA: $0) != nil })
            let insideB = alignment.onlyInB.isEmpty
                ? CallBoundary() : try CallBoundary(b, aligned: { alignment.partner(ofB: $0) != nil })
            for id in alignment.onlyInA {
                guard let node = a.node(id) else { continue }
                if insideA.isInside(id) {
                    insideCalls.append(Difference(kind: .nodeOnlyInA, node: describe(node), events: a.eventCount(of: id)))
                } else {
                    let (sent, received) = events(of: node, a.firstSequence)
                    add(Difference(kind: .nodeOnlyInA, node: describe(node), events: a.eventCount(of: id)),
                        .node(NodeEvents(sentA: sent, receivedA: received)), node: id)
                }
            }
            for id in alignment.onlyInB {
                guard let node = b.node(id) else { continue }
                if insideB.isInside(id) {
                    insideCalls.append(Difference(kind: .nodeOnlyInB, node: describe(node), events: b.eventCount(of: id)))
                } else {
                    let (sent, received) = events(of: node, b.firstSequence)
                    add(Difference(kind: .nodeOnlyInB, node: describe(node), events: b.eventCount(of: id)),
                        .node(NodeEvents(sentB: sent, receivedB: received)), node: nodeKey(ofB: id))
                }
            }
        }

        func timing() -> Timing {
            Timing(matched: matched, maxShift: maxShift, meanShift: matched == 0 ? 0 : totalShift / Int64(matched),
                   maxShiftNode: maxShiftNode)
        }

        private mutating func add(_ difference: Difference, _ place: Place, node: UInt64) {
            if comparing { found.append((place, difference, node)) }
        }

        /// One key per node of either trace: an aligned node's and a node only in A's is its
        /// id in A; a node only in B's, its id in B with the top bit set.
        func nodeKey(ofB id: UInt64) -> UInt64 { alignment.partner(ofB: id) ?? (id | 1 << 63) }

        /// The operators that subscribe to their upstream again (`retry`, `repeat`).
        static let resubscribing: Set<String> = ["retry", "repeat"]

        /// For each node key, the keys of the nodes it feeds directly, in either trace: the
        /// nodes' upstream edges, and the inner streams of higher-order operators, which the
        /// node records do not hold. An inner stream (a subscription started by another's,
        /// its parent) is fed by what feeds its parent's node (the outer value that started
        /// it) and feeds that node (`flatMap` sends what its inner streams send). A `retry` or
        /// `repeat` feeds what it resubscribes to. Reads each
        /// side's subscriptions once more, only when there are differences to group.
        func downstream() throws -> [UInt64: [UInt64]] {
            var edges: [UInt64: Set<UInt64>] = [:]
            guard found.count > 1 else { return [:] }
            func addEdges(of side: DiffSide, key: (UInt64) -> UInt64) throws {
                var upstream: [UInt64: [UInt64]] = [:]
                var sinks = Set<UInt64>()
                for node in side.nodes {
                    upstream[node.id] = node.upstream.map(\.node)
                    if node.kind == .sink { sinks.insert(node.id) }
                    for edge in node.upstream { edges[key(edge.node), default: []].insert(key(node.id)) }
                }
                var nodeOf: [UInt64: UInt64] = [:]
                var inner = Set<[UInt64]>()
                try side.forEachSubscription { subscription in
                    nodeOf[subscription.id] = subscription.node
                    guard subscription.parent != 0, !sinks.contains(subscription.node),
                          let parent = nodeOf[subscription.parent], parent != subscription.node else { return }
                    inner.insert([subscription.node, parent])
                }
                // A resubscribing operator decides how many times what it observes runs: it
                // feeds every node upstream of it (a cycle, which the ranks break).
                for node in side.nodes where Self.resubscribing.contains(node.name) {
                    var seen = Set<UInt64>()
                    var stack = upstream[node.id] ?? []
                    while let next = stack.popLast() {
                        guard seen.insert(next).inserted else { continue }
                        edges[key(node.id), default: []].insert(key(next))
                        stack += upstream[next] ?? []
                    }
                }
                for pair in inner {
                    let (node, parent) = (pair[0], pair[1])
                    edges[key(node), default: []].insert(key(parent))
                    for feeding in upstream[parent] ?? [] { edges[key(feeding), default: []].insert(key(node)) }
                }
            }
            try addEdges(of: a) { $0 }
            try addEdges(of: b) { nodeKey(ofB: $0) }
            return edges.mapValues { $0.sorted() }
        }

        /// The differences in causal order, each with its node's key. Uses up `alignedB`.
        mutating func ordered() throws -> [(difference: Difference, node: UInt64)] {
            let (positions, sequencesB) = try positionsInB()
            func position(_ sequence: UInt64) -> UInt64 { sequencesB.position(of: sequence).map { positions[$0] } ?? .max }
            var orders: [(Order, Difference, UInt64)] = []
            for (serial, item) in found.enumerated() {
                let order: Order
                switch item.place {
                case let .inA(sequence, secondary):
                    order = Order(primary: sequence, tier: 0, secondary: secondary, serial: serial)
                case let .inB(sequence):
                    order = Order(primary: position(sequence), tier: 2, secondary: sequence, serial: serial)
                case let .node(events):
                    // Ahead of the node's own events' differences (found after it), behind
                    // those of the event that first reached it.
                    let candidates = [
                        events.sentA.map { Order(primary: $0, tier: 0, secondary: 0, serial: serial) },
                        events.receivedA.map { Order(primary: $0, tier: 1, secondary: 0, serial: serial) },
                        events.sentB.map { Order(primary: position($0), tier: 1, secondary: 0, serial: serial) },
                        events.receivedB.map { Order(primary: position($0), tier: 1, secondary: 0, serial: serial) },
                    ]
                    order = candidates.compactMap { $0 }.min() ?? Order(primary: .max, tier: 1, secondary: 0, serial: serial)
                }
                orders.append((order, item.difference, item.node))
            }
            return orders.sorted { $0.0 < $1.0 }.map { ($0.1, $0.2) }
        }

        /// Where `node` first sent and first received an event, given its trace's first events.
        private func events(of node: NodeRecord, _ first: [UInt64: UInt64]) -> (sent: UInt64?, received: UInt64?) {
            let received = node.upstream.compactMap { first[$0.node] }.min()
            return (first[node.id], received)
        }

        /// Each B event's place in A's causal order: its aligned A event's sequence number; for
        /// an event only in B, the latest place among the A event aligned before it in its
        /// node and its causes (without causes, the B event just before it).
        /// The places are by position in B's events, with B's positions by sequence number;
        /// both empty when no difference is placed among B's events.
        private mutating func positionsInB() throws -> ([UInt64], SequencePositions) {
            let needed = found.contains { item in
                switch item.place {
                case .inA: return false
                case .inB, .node: return true
                }
            }
            guard needed else { return ([], SequencePositions()) }
            comparing = false
            alignedB = [UInt64](repeating: 0, count: b.eventCount)
            isAlignedB = [Bool](repeating: false, count: b.eventCount)
            for pair in alignment.pairs {
                guard let nodeA = a.node(pair.a), let nodeB = b.node(pair.b) else { continue }
                try compareEvents(nodeA, nodeB)
            }
            var sequences = SequencePositions()
            var causes: [Int: [UInt64]] = [:]
            try b.forEachEvent { event in
                sequences.append(event.sequence)
                if !isAlignedB[event.position], !event.causes.isEmpty { causes[event.position] = Array(event.causes) }
            }
            // The aligned A events' sequence numbers become the places, position by position.
            var positions = alignedB
            alignedB = []
            var previous: UInt64 = 0
            func place(_ position: Int) {
                var place: UInt64
                if isAlignedB[position] {
                    place = positions[position]
                } else {
                    place = anchorB[position] ?? 0
                    if let causes = causes[position] {
                        for cause in causes {
                            place = max(place, sequences.position(of: cause).map { positions[$0] } ?? 0)
                        }
                    } else {
                        place = max(place, previous)
                    }
                }
                positions[position] = place
                previous = place
            }
            if b.ascending {
                for position in 0..<sequences.count { place(position) }
            } else {
                let order = (0..<sequences.count).sorted { sequences.sequence(at: $0) < sequences.sequence(at: $1) }
                for position in order { place(position) }
            }
            return (positions, sequences)
        }

        /// The starts of each aligned `call` node, A's against B's, aligned by their requests
        /// as events are by their values: a start whose request lines up with one of the other
        /// trace's is the same call made. Between two such, the starts left on both sides are
        /// paired in order, a pair whose requests differ one `requestDiffers` (the call asked
        /// another question); the rest are calls only one trace made (`callOnlyInA`,
        /// `callOnlyInB`: a filter changed, a retry). Each is placed just after its side's last
        /// event at or before the start (the event that asked, or one beside it), so ahead of
        /// the answers it changed. Starts without a request (format 1.0, or a call made without
        /// one) line up with each other and are not reported. Reads the subscriptions again
        /// only when both traces have aligned calls, and a side's event times once more only
        /// when a difference is placed among them.
        private mutating func compareRequests() throws {
            let calls = alignment.pairs.filter { a.node($0.a)?.name == "call" && b.node($0.b)?.name == "call" }
            guard !calls.isEmpty else { return }
            typealias Start = (request: String?, time: Int64)
            func starts(of side: DiffSide, _ nodes: [UInt64]) throws -> [UInt64: [Start]] {
                let wanted = Set(nodes)
                var starts: [UInt64: [Start]] = [:]
                try side.forEachSubscription { subscription in
                    if wanted.contains(subscription.node) {
                        starts[subscription.node, default: []].append((subscription.requestKey, subscription.time))
                    }
                }
                return starts
            }
            let startsA = try starts(of: a, calls.map(\.a)), startsB = try starts(of: b, calls.map(\.b))
            var inA: [(difference: Difference, time: Int64, node: UInt64)] = []
            var inB: [(difference: Difference, time: Int64, node: UInt64)] = []
            for pair in calls {
                guard let nodeA = a.node(pair.a) else { continue }
                let name = describe(nodeA)
                let listA = startsA[pair.a] ?? [], listB = startsB[pair.b] ?? []
                // Requests by number, shared by both sides; -1 for none.
                var numbers: [String: Int] = [:]
                func key(_ start: Start) -> Int {
                    guard let request = start.request else { return -1 }
                    if let number = numbers[request] { return number }
                    numbers[request] = numbers.count
                    return numbers.count - 1
                }
                let keysA = listA.map(key), keysB = listB.map(key)
                var pendingA: [Int] = [], pendingB: [Int] = []
                func flush() {
                    let paired = min(pendingA.count, pendingB.count)
                    for (i, j) in zip(pendingA, pendingB) {
                        guard let requestA = listA[i].request, let requestB = listB[j].request else { continue }
                        inA.append((Difference(kind: .requestDiffers, node: name, index: i + 1, requestA: requestA,
                                               requestB: requestB), listA[i].time, pair.a))
                    }
                    for i in pendingA.dropFirst(paired) {
                        guard let request = listA[i].request else { continue }
                        inA.append((Difference(kind: .callOnlyInA, node: name, index: i + 1, requestA: request), listA[i].time, pair.a))
                    }
                    for j in pendingB.dropFirst(paired) {
                        guard let request = listB[j].request else { continue }
                        inB.append((Difference(kind: .callOnlyInB, node: name, index: j + 1, requestB: request), listB[j].time, pair.a))
                    }
                    pendingA = []
                    pendingB = []
                }
                for step in Alignment.align(keysA, keysB) + [.end] {
                    switch step {
                    case let .onlyA(i): pendingA.append(i)
                    case let .onlyB(j): pendingB.append(j)
                    case .match, .end: flush()
                    }
                }
            }
            for (item, side) in inA.map({ ($0, 0) }) + inB.map({ ($0, 1) }) {
                callStarts[CallStart(node: item.difference.node, side: side, index: item.difference.index ?? 0)] = item.time
            }
            let placesA = try latestEvents(of: a, atOrBefore: inA.map(\.time))
            for (item, sequence) in zip(inA, placesA) { add(item.difference, .inA(sequence: sequence, secondary: .max), node: item.node) }
            let placesB = try latestEvents(of: b, atOrBefore: inB.map(\.time))
            for (item, sequence) in zip(inB, placesB) { add(item.difference, .inB(sequence: sequence), node: item.node) }
        }

        /// For each of `times`, the highest sequence number among `side`'s events at or before
        /// it (0 for none): each event counts for the first time not before it (found by
        /// binary search), then a running maximum. One pass over the events, none when
        /// `times` is empty.
        private func latestEvents(of side: DiffSide, atOrBefore times: [Int64]) throws -> [UInt64] {
            guard !times.isEmpty else { return [] }
            let sorted = Array(Set(times)).sorted()
            var latest = [UInt64](repeating: 0, count: sorted.count)
            try side.forEachEventTime { sequence, time in
                var low = 0, high = sorted.count
                while low < high {
                    let middle = (low + high) / 2
                    if sorted[middle] < time { low = middle + 1 } else { high = middle }
                }
                if low < sorted.count { latest[low] = max(latest[low], sequence) }
            }
            for index in latest.indices.dropFirst() { latest[index] = max(latest[index], latest[index - 1]) }
            let slots = Dictionary(uniqueKeysWithValues: sorted.enumerated().map { ($0.element, $0.offset) })
            return times.map { time in slots[time].map { latest[$0] } ?? 0 }
        }

        private mutating func compareNodes(_ nodeA: NodeRecord, _ nodeB: NodeRecord) {
            let sameSite = (nodeA.file == nodeB.file && nodeA.line == nodeB.line) || ignoringLineShifts
            guard nodeA.parameters != nodeB.parameters || !sameSite else {
                if nodeA.file != nodeB.file {
                    filesMoved += 1
                } else if nodeA.line != nodeB.line {
                    linesMoved += 1
                }
                return
            }
            add(Difference(kind: .nodeChanged, node: describe(nodeA),
                           nodeA: NodeAttributes(parameters: nodeA.parameters, file: nodeA.file, line: nodeA.line),
                           nodeB: NodeAttributes(parameters: nodeB.parameters, file: nodeB.file, line: nodeB.line)),
                .node(NodeEvents(sentA: a.firstSequence[nodeA.id], receivedA: events(of: nodeA, a.firstSequence).received,
                                 sentB: b.firstSequence[nodeB.id], receivedB: events(of: nodeB, b.firstSequence).received)),
                node: nodeA.id)
        }

        /// Aligns the events of two aligned nodes, all their subscriptions' in the order read.
        /// The common beginning is compared a window at a time (a node whose events agree is
        /// never held whole); what follows the first events that differ is aligned whole.
        private mutating func compareEvents(_ nodeA: NodeRecord, _ nodeB: NodeRecord) throws {
            let name = describe(nodeA)
            comparedNode = nodeA.id
            var anchor: UInt64 = 0
            var offset = 0
            while true {
                let windowA = try a.events(of: nodeA.id, from: offset, limit: window)
                let windowB = try b.events(of: nodeB.id, from: offset, limit: window)
                let common = min(windowA.count, windowB.count)
                var k = 0
                while k < common, windowA[k].key == windowB[k].key {
                    aligned(windowB[k], with: windowA[k])
                    if comparing { compareMatched(name, windowA[k], windowB[k], index: offset + k + 1) }
                    anchor = windowA[k].sequence
                    k += 1
                }
                offset += k
                if k < common || common == 0 { break }
            }
            let eventsA = try a.events(of: nodeA.id, from: offset), eventsB = try b.events(of: nodeB.id, from: offset)
            var pendingA: [Int] = [], pendingB: [Int] = []
            for step in Alignment.align(eventsA.map(\.key), eventsB.map(\.key)) + [.end] {
                switch step {
                case let .onlyA(i): pendingA.append(i)
                case let .onlyB(j): pendingB.append(j)
                case .match, .end:
                    flush(name, eventsA, eventsB, offset: offset, &pendingA, &pendingB, anchor: anchor,
                          merging: nodeA.upstream.count >= 2)
                    if case let .match(i, j) = step {
                        aligned(eventsB[j], with: eventsA[i])
                        if comparing { compareMatched(name, eventsA[i], eventsB[j], index: offset + i + 1) }
                        anchor = eventsA[i].sequence
                    }
                }
            }
        }

        private mutating func aligned(_ eventB: DiffEvent, with eventA: DiffEvent) {
            guard !comparing else { return }
            alignedB[Int(eventB.position)] = eventA.sequence
            isAlignedB[Int(eventB.position)] = true
        }

        /// Pairs up the unaligned events between two aligned ones: values with values,
        /// terminals with terminals, in order, each only with one answering the same request
        /// (`RequestContexts`: an answer to another question is not a changed answer); the
        /// rest are missing or extra.
        ///
        /// Pulls (a tapped `AsyncSequence`'s demand) never pair: two pulls that agree are
        /// aligned already. A pull missing or extra is a difference only when no value or end
        /// between the same two aligned events differs: each pull is answered by the next value
        /// or end of its subscription, so when elements differ the demand for them differs with
        /// them, and saying so again would double the differences. When only pulls differ, the
        /// demand itself changed (a consumer that stopped asking, or asked once more), and that
        /// is reported.
        /// `offset`: how many events of each node come before `eventsA` and `eventsB`.
        private mutating func flush(_ name: String, _ eventsA: [DiffEvent], _ eventsB: [DiffEvent], offset: Int,
                                    _ pendingA: inout [Int], _ pendingB: inout [Int], anchor: UInt64, merging: Bool) {
            if pendingA.contains(where: { eventsA[$0].kind.isSent }) || pendingB.contains(where: { eventsB[$0].kind.isSent }) {
                for j in pendingB where !eventsB[j].kind.isSent && !comparing {
                    anchorB[Int(eventsB[j].position)] = anchor
                }
                pendingA.removeAll { !eventsA[$0].kind.isSent }
                pendingB.removeAll { !eventsB[$0].kind.isSent }
            }
            var restA: [Int] = [], restB = pendingB
            for i in pendingA where eventsA[i].kind.isSent {
                let terminal = eventsA[i].kind != .value
                if let position = restB.firstIndex(where: {
                    eventsB[$0].kind.isSent && (eventsB[$0].kind != .value) == terminal
                        && eventsB[$0].request == eventsA[i].request
                }) {
                    let j = restB.remove(at: position)
                    aligned(eventsB[j], with: eventsA[i])
                    let refA = a.ref(eventsA[i]), refB = b.ref(eventsB[j])
                    let kind: Kind = terminal ? .terminalDiffers
                        : merging && refA.thread != refB.thread ? .orderDiffers : .valueDiffers
                    add(Difference(kind: kind, node: name, index: offset + i + 1, a: refA, b: refB),
                        .inA(sequence: eventsA[i].sequence, secondary: eventsB[j].sequence), node: comparedNode)
                } else {
                    restA.append(i)
                }
            }
            restA += pendingA.filter { !eventsA[$0].kind.isSent }
            for i in restA {
                add(Difference(kind: .missingInB, node: name, index: offset + i + 1, a: a.ref(eventsA[i])),
                    .inA(sequence: eventsA[i].sequence, secondary: 0), node: comparedNode)
            }
            for j in restB {
                if !comparing { anchorB[Int(eventsB[j].position)] = anchor }
                add(Difference(kind: .extraInB, node: name, index: offset + j + 1, b: b.ref(eventsB[j])),
                    .inB(sequence: eventsB[j].sequence), node: comparedNode)
            }
            pendingA = []
            pendingB = []
        }

        private mutating func compareMatched(_ name: String, _ eventA: DiffEvent, _ eventB: DiffEvent, index: Int) {
            let shift = eventB.time.saturatingSubtracting(eventA.time)
            let magnitude = shift.magnitude > UInt64(Int64.max) ? Int64.max : Int64(shift.magnitude)
            matched += 1
            totalShift = totalShift.addingReportingOverflow(magnitude).overflow ? Int64.max : totalShift + magnitude
            if magnitude > maxShift {
                maxShift = magnitude
                maxShiftNode = name
            }
            if let tolerance, magnitude > tolerance {
                add(Difference(kind: .timeShifted, node: name, index: index, a: a.ref(eventA), b: b.ref(eventB),
                               shift: shift),
                    .inA(sequence: eventA.sequence, secondary: eventB.sequence), node: comparedNode)
            }
            if eventA.thread != eventB.thread {
                add(Difference(kind: .threadDiffers, node: name, index: index, a: a.ref(eventA), b: b.ref(eventB)),
                    .inA(sequence: eventA.sequence, secondary: eventB.sequence), node: comparedNode)
            }
        }

        private func describe(_ node: NodeRecord) -> String {
            TraceDiff.describe(node)
        }
    }

    /// A node as differences name it: `name(parameters) "label" @file:line`.
    public static func describe(_ node: NodeRecord) -> String {
        let params = node.parameters.isEmpty || node.parameters == node.label ? "" : "(\(node.parameters))"
        let label = node.label.map { " \"\($0)\"" } ?? ""
        return "\(node.name)\(params)\(label) @\(node.file):\(node.line)"
    }
}

/// The nodes of a trace that ran inside boundary calls (`Environment.call`) the other trace
/// has too: the service's own streams, which a replay does not run.
///
/// A node is inside when all three hold:
/// - by causality: every event its events caused (as any of their causes) belongs to an aligned `call` node or to a
///   node inside (a node without events, a sink, is inside when all its upstream nodes are; a
///   source whose events caused nothing, a service interrupted before it answered, is left to
///   the subscription test);
/// - by structure: no node upstream of it, however far, is aligned with the other trace (an
///   operator inserted into the pipeline hangs from aligned nodes; a service does not);
/// - by subscription: each of its subscriptions began within a start of a call — as a child
///   of the call's subscription, a sibling started no earlier than it by the same parent, or
///   one the call's subscription observes (`observedBy`: a service started after its call
///   was interrupted has no parent around it) (a sink's subscriptions are those of what it
///   observes and are not checked).
///
/// Reads the side's events once (their nodes and first causes) and, when some node may be
/// inside, its subscriptions once, keeping those of the nodes in question and of the calls.
struct CallBoundary {
    private var inside = Set<UInt64>()

    /// Nothing inside.
    init() {}

    init(_ side: DiffSide, aligned: (UInt64) -> Bool) throws {
        let calls = Set(side.nodes.filter { $0.name == "call" && aligned($0.id) }.map(\.id))
        guard !calls.isEmpty else { return }
        let effects = try Self.effects(side)
        // Nodes come after their upstream nodes, so one pass in order sees every upstream
        // node's answer first.
        var hangsFromAligned = Set<UInt64>()
        for node in side.nodes {
            if node.upstream.contains(where: { aligned($0.node) || hangsFromAligned.contains($0.node) }) {
                hangsFromAligned.insert(node.id)
            }
        }
        // The largest set of nodes whose effects stay within the calls and the set: start from
        // every node that may be inside and take out, until none is left to take, each whose
        // events caused an event outside. A node whose events cause its own later events (a
        // service's answer, then its interruption when the call is no longer wanted) or a
        // cycle of such nodes stays in: a least fixed point would never admit them.
        var causallyInside = Set<UInt64>()
        for node in side.nodes where !calls.contains(node.id) {
            if let caused = effects[node.id], !caused.isEmpty {
                causallyInside.insert(node.id)
            } else if node.kind == .sink, !node.upstream.isEmpty {
                causallyInside.insert(node.id)
            } else if node.kind == .source, node.upstream.isEmpty {
                // A service's source whose events caused nothing (interrupted before it
                // answered, the call no longer wanted): the subscription test decides.
                causallyInside.insert(node.id)
            }
        }
        var changed = true
        while changed {
            changed = false
            for node in side.nodes where causallyInside.contains(node.id) {
                let stays: Bool
                if let caused = effects[node.id], !caused.isEmpty {
                    stays = caused.allSatisfy { calls.contains($0) || causallyInside.contains($0) }
                } else if node.kind == .sink {
                    stays = node.upstream.allSatisfy { causallyInside.contains($0.node) }
                } else {
                    stays = true
                }
                if !stays {
                    causallyInside.remove(node.id)
                    changed = true
                }
            }
        }
        let candidates = side.nodes.filter {
            causallyInside.contains($0.id) && !aligned($0.id) && !hangsFromAligned.contains($0.id)
        }
        guard !candidates.isEmpty else { return }
        let checked = Set(candidates.filter { $0.kind != .sink }.map(\.id))
        var callSubscriptions = Set<UInt64>()
        var earliestCallByParent: [UInt64: Int64] = [:]
        var subscriptionsByNode: [UInt64: [(parent: UInt64, time: Int64, observedBy: [UInt64])]] = [:]
        try side.forEachSubscription { subscription in
            if checked.contains(subscription.node) {
                subscriptionsByNode[subscription.node, default: []]
                    .append((subscription.parent, subscription.time, subscription.observedBy ?? []))
            }
            guard calls.contains(subscription.node) else { return }
            callSubscriptions.insert(subscription.id)
            earliestCallByParent[subscription.parent] = min(earliestCallByParent[subscription.parent] ?? .max,
                                                            subscription.time)
        }
        func startedInCall(_ node: NodeRecord) -> Bool {
            node.kind == .sink || (subscriptionsByNode[node.id] ?? []).allSatisfy { subscription in
                callSubscriptions.contains(subscription.parent)
                    || (earliestCallByParent[subscription.parent].map { $0 <= subscription.time } ?? false)
                    // Observed by a call's subscription (its record says so): a service whose
                    // start ran after its call was interrupted, with no parent around it.
                    || subscription.observedBy.contains(where: callSubscriptions.contains)
            }
        }
        for node in candidates where startedInCall(node) {
            inside.insert(node.id)
        }
    }

    /// Per node, the nodes whose events its events caused.
    private static func effects(_ side: DiffSide) throws -> [UInt64: Set<UInt64>] {
        var effects: [UInt64: Set<UInt64>] = [:]
        var sequences = SequencePositions()
        /// By position: the event's node's position in `side.nodes`.
        var nodes: [UInt32] = []
        // A cause is an earlier event, read earlier unless the file is out of sequence order:
        // those few wait until every event is known.
        var later: [(cause: UInt64, node: UInt64)] = []
        // Every cause, not only the primary: a call's answer is caused by the service's event
        // that delivered it and by the start that asked.
        try side.forEachEvent { event in
            sequences.append(event.sequence)
            nodes.append(UInt32(side.nodePosition(event.node) ?? 0))
            for cause in event.causes {
                if let origin = sequences.position(of: cause) {
                    effects[side.nodes[Int(nodes[origin])].id, default: []].insert(event.node)
                } else {
                    later.append((cause, event.node))
                }
            }
        }
        for (cause, node) in later {
            guard let origin = sequences.position(of: cause) else { continue }
            effects[side.nodes[Int(nodes[origin])].id, default: []].insert(node)
        }
        return effects
    }

    /// Whether `node` ran inside a call both traces have.
    func isInside(_ node: UInt64) -> Bool { inside.contains(node) }
}

/// Aligns two sequences by a longest common subsequence.
enum Alignment: Equatable {
    case match(Int, Int)
    case onlyA(Int)
    case onlyB(Int)
    case end

    /// Above this many cells the middle part is paired by position instead: an LCS table
    /// that large would cost more memory than the diff is worth.
    static let maxCells = 4_000_000

    static func align<Key: Equatable>(_ a: [Key], _ b: [Key]) -> [Alignment] {
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] {
            suffix += 1
        }
        var steps = (0..<prefix).map { Alignment.match($0, $0) }
        let midA = Array(a[prefix..<(a.count - suffix)]), midB = Array(b[prefix..<(b.count - suffix)])
        if midA.count * midB.count > maxCells {
            let common = min(midA.count, midB.count)
            for k in 0..<common {
                if midA[k] == midB[k] {
                    steps.append(.match(prefix + k, prefix + k))
                } else {
                    steps.append(.onlyA(prefix + k))
                    steps.append(.onlyB(prefix + k))
                }
            }
            steps += (common..<midA.count).map { .onlyA(prefix + $0) }
            steps += (common..<midB.count).map { .onlyB(prefix + $0) }
        } else {
            steps += lcs(midA, midB).map { step in
                switch step {
                case let .match(i, j): return .match(prefix + i, prefix + j)
                case let .onlyA(i): return .onlyA(prefix + i)
                case let .onlyB(j): return .onlyB(prefix + j)
                case .end: return .end
                }
            }
        }
        steps += (0..<suffix).map { .match(a.count - suffix + $0, b.count - suffix + $0) }
        return steps
    }

    private static func lcs<Key: Equatable>(_ a: [Key], _ b: [Key]) -> [Alignment] {
        let n = a.count, m = b.count
        guard n > 0, m > 0 else { return (0..<n).map { .onlyA($0) } + (0..<m).map { .onlyB($0) } }
        // lengths[i][j] = LCS of a[i...] and b[j...], flattened.
        var lengths = [UInt32](repeating: 0, count: (n + 1) * (m + 1))
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                lengths[i * (m + 1) + j] = a[i] == b[j]
                    ? lengths[(i + 1) * (m + 1) + j + 1] + 1
                    : max(lengths[(i + 1) * (m + 1) + j], lengths[i * (m + 1) + j + 1])
            }
        }
        var steps: [Alignment] = []
        var i = 0, j = 0
        while i < n, j < m {
            if a[i] == b[j] {
                steps.append(.match(i, j))
                i += 1
                j += 1
            } else if lengths[(i + 1) * (m + 1) + j] >= lengths[i * (m + 1) + j + 1] {
                steps.append(.onlyA(i))
                i += 1
            } else {
                steps.append(.onlyB(j))
                j += 1
            }
        }
        steps += (i..<n).map { .onlyA($0) }
        steps += (j..<m).map { .onlyB($0) }
        return steps
    }
}
