import Foundation
import TraceLog

/// How two traces differ: nodes only in one, and per node the events that differ.
///
/// Nodes are aligned by stable identity — kind, name, parameters, label, call site and the
/// identities of their upstream nodes (their position in the graph) — never by numeric id;
/// the k-th node of one identity in A goes with the k-th in B. Each aligned node's events
/// (over all its subscriptions, in sequence order) are aligned as sequences by a longest
/// common subsequence on kind and payload; what is left between two aligned events is paired
/// up in order as *value differs* or *terminal differs*, and the rest is *missing* (in A,
/// not B) or *extra* (in B, not A). Aligned events are compared for thread (the logical
/// name: scheduler, else thread) and time.
///
/// Times: with a tolerance, a shift larger than it is a difference. Without one (nil), the
/// tolerance is 0 when both traces are virtual; when either is real (a live recording against
/// its replay), jitter is expected, so shifts are not differences but are summarised in
/// `timing` — by how much the times differ.
///
/// Nodes only in one trace that run inside a boundary call both traces have (the service a
/// replay does not run) are listed in `insideCalls`, not counted as differences.
///
/// Differences are listed in causal order: by the sequence number of A's event (a cause is
/// always sent before its effects), an event only in B placed after the A event aligned just
/// before it.
public struct TraceDiff: Sendable {
    /// The kinds of difference.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// A node of A that B lacks.
        case nodeOnlyInA = "node-only-in-a"
        /// A node of B that A lacks.
        case nodeOnlyInB = "node-only-in-b"
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

    /// One difference.
    public struct Difference: Codable, Equatable, Sendable {
        public var kind: Kind
        /// The node, as `name(parameters) "label" @file:line`.
        public var node: String
        /// The event's 1-based position among the node's events in A (or B, for an extra
        /// event); nil for a node difference.
        public var index: Int?
        public var a: EventRef?
        public var b: EventRef?
        /// B's time minus A's, for a time shift.
        public var shift: Int64?
        /// How many events the node has, for a node only in one trace.
        public var events: Int?
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
        public var events: Int
    }

    public let a: Side
    public let b: Side
    /// The tolerance applied, in nanoseconds; nil when shifts are only summarised.
    public let timeTolerance: Int64?
    /// The differences in causal order.
    public let differences: [Difference]
    /// Nodes only in one trace that run inside a boundary call whose node both traces have:
    /// the service behind an `Environment.call`, which a replay does not run. Listed, not
    /// counted as differences.
    public let insideCalls: [Difference]
    public let timing: Timing

    /// True when nothing differs.
    public var isSame: Bool { differences.isEmpty }

    /// Compares `a` (expected) with `b` (actual). `timeTolerance` in nanoseconds; nil takes
    /// the default described on the type.
    public init(_ a: Trace, _ b: Trace, nameA: String = "A", nameB: String = "B", timeTolerance: Int64? = nil) {
        let tolerance = timeTolerance ?? (a.header.clock == .virtual && b.header.clock == .virtual ? 0 : nil)
        self.a = Side(name: nameA, clock: a.header.clock.rawValue, nodes: a.nodes.count, events: a.events.count)
        self.b = Side(name: nameB, clock: b.header.clock.rawValue, nodes: b.nodes.count, events: b.events.count)
        self.timeTolerance = tolerance
        var builder = Builder(a: a, b: b, tolerance: tolerance)
        builder.run()
        differences = builder.found.sorted { $0.order < $1.order }.map(\.difference)
        insideCalls = builder.insideCalls
        timing = builder.timing()
    }

    // MARK: Building

    private struct Ordered {
        var order: Order
        var difference: Difference
    }

    /// Causal position: A's sequence number (or the aligned A event before a B-only one),
    /// then B's, then discovery order.
    private struct Order: Comparable {
        var primary: UInt64
        var secondary: UInt64
        var serial: Int

        static func < (lhs: Order, rhs: Order) -> Bool {
            (lhs.primary, lhs.secondary, lhs.serial) < (rhs.primary, rhs.secondary, rhs.serial)
        }
    }

    private struct Builder {
        let a: Trace
        let b: Trace
        let tolerance: Int64?
        var found: [Ordered] = []
        var insideCalls: [Difference] = []
        var matched = 0
        var totalShift: Int64 = 0
        var maxShift: Int64 = 0
        var maxShiftNode: String?

        init(a: Trace, b: Trace, tolerance: Int64?) {
            self.a = a
            self.b = b
            self.tolerance = tolerance
        }

        mutating func run() {
            let keysA = NodeIdentity(a), keysB = NodeIdentity(b)
            var unmatchedB: [String: [NodeRecord]] = [:]
            for node in b.nodes { unmatchedB[keysB.key(node.id), default: []].append(node) }
            var onlyA: [NodeRecord] = []
            var matchedKeysA = Set<String>()
            for node in a.nodes {
                let key = keysA.key(node.id)
                if var candidates = unmatchedB[key], !candidates.isEmpty {
                    let other = candidates.removeFirst()
                    unmatchedB[key] = candidates
                    matchedKeysA.insert(key)
                    compareEvents(node, other)
                } else {
                    onlyA.append(node)
                }
            }
            let insideA = CallBoundary(a), insideB = CallBoundary(b)
            for node in onlyA {
                let calls = insideA.calls(fed: node.id).map(keysA.key)
                if !calls.isEmpty, calls.allSatisfy(matchedKeysA.contains) {
                    insideCalls.append(Difference(kind: .nodeOnlyInA, node: describe(node), events: a.events(of: node.id).count))
                } else {
                    nodeOnly(node, in: a, kind: .nodeOnlyInA)
                }
            }
            for node in b.nodes where unmatchedB[keysB.key(node.id)]?.contains(where: { $0.id == node.id }) == true {
                let calls = insideB.calls(fed: node.id).map(keysB.key)
                if !calls.isEmpty, calls.allSatisfy(matchedKeysA.contains) {
                    insideCalls.append(Difference(kind: .nodeOnlyInB, node: describe(node), events: b.events(of: node.id).count))
                } else {
                    nodeOnly(node, in: b, kind: .nodeOnlyInB)
                }
            }
        }

        func timing() -> Timing {
            Timing(matched: matched, maxShift: maxShift, meanShift: matched == 0 ? 0 : totalShift / Int64(matched),
                   maxShiftNode: maxShiftNode)
        }

        private mutating func add(_ difference: Difference, primary: UInt64, secondary: UInt64) {
            found.append(Ordered(order: Order(primary: primary, secondary: secondary, serial: found.count),
                                 difference: difference))
        }

        private mutating func nodeOnly(_ node: NodeRecord, in trace: Trace, kind: Kind) {
            let events = trace.events(of: node.id)
            let first = events.first?.sequence ?? UInt64.max
            add(Difference(kind: kind, node: describe(node), events: events.count),
                primary: kind == .nodeOnlyInA ? first : UInt64.max, secondary: kind == .nodeOnlyInB ? first : 0)
        }

        private mutating func compareEvents(_ nodeA: NodeRecord, _ nodeB: NodeRecord) {
            let eventsA = a.events(of: nodeA.id), eventsB = b.events(of: nodeB.id)
            let name = describe(nodeA)
            let keysA = eventsA.map(payloadKey), keysB = eventsB.map(payloadKey)
            var anchor: UInt64 = 0
            var pendingA: [Int] = [], pendingB: [Int] = []
            for step in Alignment.align(keysA, keysB) + [.end] {
                switch step {
                case let .onlyA(i): pendingA.append(i)
                case let .onlyB(j): pendingB.append(j)
                case .match, .end:
                    flush(name, eventsA, eventsB, &pendingA, &pendingB, anchor: anchor)
                    if case let .match(i, j) = step {
                        compareMatched(name, eventsA[i], eventsB[j], index: i + 1)
                        anchor = eventsA[i].sequence
                    }
                }
            }
        }

        /// Pairs up the unaligned events between two aligned ones: values with values,
        /// terminals with terminals, in order; the rest are missing or extra.
        private mutating func flush(_ name: String, _ eventsA: [EventRecord], _ eventsB: [EventRecord],
                                    _ pendingA: inout [Int], _ pendingB: inout [Int], anchor: UInt64) {
            var restA: [Int] = [], restB = pendingB
            for i in pendingA {
                let terminal = eventsA[i].kind != .value
                if let position = restB.firstIndex(where: { (eventsB[$0].kind != .value) == terminal }) {
                    let j = restB.remove(at: position)
                    add(Difference(kind: terminal ? .terminalDiffers : .valueDiffers, node: name, index: i + 1,
                                   a: ref(eventsA[i], a), b: ref(eventsB[j], b)),
                        primary: eventsA[i].sequence, secondary: eventsB[j].sequence)
                } else {
                    restA.append(i)
                }
            }
            for i in restA {
                add(Difference(kind: .missingInB, node: name, index: i + 1, a: ref(eventsA[i], a)),
                    primary: eventsA[i].sequence, secondary: 0)
            }
            for j in restB {
                add(Difference(kind: .extraInB, node: name, index: j + 1, b: ref(eventsB[j], b)),
                    primary: anchor, secondary: eventsB[j].sequence)
            }
            pendingA = []
            pendingB = []
        }

        private mutating func compareMatched(_ name: String, _ eventA: EventRecord, _ eventB: EventRecord, index: Int) {
            let shift = eventB.time - eventA.time
            let magnitude = shift.magnitude > UInt64(Int64.max) ? Int64.max : Int64(shift.magnitude)
            matched += 1
            totalShift = totalShift.addingReportingOverflow(magnitude).overflow ? Int64.max : totalShift + magnitude
            if magnitude > maxShift {
                maxShift = magnitude
                maxShiftNode = name
            }
            if let tolerance, magnitude > tolerance {
                add(Difference(kind: .timeShifted, node: name, index: index, a: ref(eventA, a), b: ref(eventB, b),
                               shift: shift),
                    primary: eventA.sequence, secondary: eventB.sequence)
            }
            if a.logicalThreadName(eventA.thread) != b.logicalThreadName(eventB.thread) {
                add(Difference(kind: .threadDiffers, node: name, index: index, a: ref(eventA, a), b: ref(eventB, b)),
                    primary: eventA.sequence, secondary: eventB.sequence)
            }
        }

        private func payloadKey(_ event: EventRecord) -> String {
            "\(event.kind.rawValue) \(event.json ?? event.text ?? "")"
        }

        private func ref(_ event: EventRecord, _ trace: Trace) -> EventRef {
            EventRef(seq: event.sequence, time: event.time, kind: event.kind.rawValue, value: event.json ?? event.text,
                     thread: trace.logicalThreadName(event.thread))
        }

        private func describe(_ node: NodeRecord) -> String {
            let params = node.parameters.isEmpty || node.parameters == node.label ? "" : "(\(node.parameters))"
            let label = node.label.map { " \"\($0)\"" } ?? ""
            return "\(node.name)\(params)\(label) @\(node.file):\(node.line)"
        }
    }
}

/// The nodes of a trace that run inside boundary calls (`Environment.call`): the service's
/// own streams, found by causality. A node is inside when every event its events caused
/// belongs to a `call` node or to a node inside; a node without events (a sink) is inside when
/// all its upstream nodes are.
struct CallBoundary {
    private var feeds: [UInt64: Set<UInt64>] = [:]

    init(_ trace: Trace) {
        var effects: [UInt64: Set<UInt64>] = [:]
        for event in trace.events {
            guard let cause = event.causes.first, let origin = trace.event(sequence: cause) else { continue }
            effects[origin.node, default: []].insert(event.node)
        }
        let calls = Set(trace.nodes.filter { $0.name == "call" }.map(\.id))
        guard !calls.isEmpty else { return }
        var changed = true
        while changed {
            changed = false
            for node in trace.nodes where !calls.contains(node.id) && feeds[node.id] == nil {
                var fed = Set<UInt64>()
                var inside = true
                if let caused = effects[node.id], !caused.isEmpty {
                    for effect in caused {
                        if calls.contains(effect) {
                            fed.insert(effect)
                        } else if let further = feeds[effect] {
                            fed.formUnion(further)
                        } else {
                            inside = false
                            break
                        }
                    }
                } else if node.kind == .sink, !node.upstream.isEmpty {
                    for edge in node.upstream {
                        guard let further = feeds[edge.node] else {
                            inside = false
                            break
                        }
                        fed.formUnion(further)
                    }
                } else {
                    inside = false
                }
                if inside {
                    feeds[node.id] = fed
                    changed = true
                }
            }
        }
    }

    /// The call nodes `node` runs inside (sorted), or none.
    func calls(fed node: UInt64) -> [UInt64] {
        (feeds[node] ?? []).sorted()
    }
}

/// Stable identities of a trace's nodes: kind, name, parameters, label, call site and the
/// upstream nodes' identities with their roles.
struct NodeIdentity {
    private var keys: [UInt64: String] = [:]

    init(_ trace: Trace) {
        // Nodes come after their upstream nodes (the format guarantees it), so one pass in id
        // order finds every upstream key already made.
        for node in trace.nodes {
            let upstream = node.upstream.map { "\($0.role):\(keys[$0.node] ?? "?")" }.joined(separator: ",")
            keys[node.id] = "\(node.kind) \(node.name)(\(node.parameters)) [\(node.label ?? "")] "
                + "@\(node.file):\(node.line) <- {\(upstream)}"
        }
    }

    func key(_ id: UInt64) -> String { keys[id] ?? "?" }
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

    static func align(_ a: [String], _ b: [String]) -> [Alignment] {
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

    private static func lcs(_ a: [String], _ b: [String]) -> [Alignment] {
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
