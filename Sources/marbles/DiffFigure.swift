import Diagrams
import Foundation
import Replay
import TraceLog

/// The marble figure of a diff: each lane of A followed by the lane of B that the diff
/// aligned with it (by node, through `TraceDiff.alignment`; lanes whose node cannot be told
/// are paired by title, call site and order), so the two runs sit on neighbouring lines;
/// lanes and marbles that differ are marked `≠`. A changed node shows both parameter lists:
/// in its operator box (`debounce(0.3s → 0.5s)`) and in the titles of its two lanes. Lanes
/// in only one trace come last.
enum DiffFigure {
    static let mark = "\u{2260}"

    static func make(_ a: Trace, _ b: Trace, diff: TraceDiff) throws -> MarbleFigure {
        let figureA = try MarbleFigure(trace: a), figureB = try MarbleFigure(trace: b)
        var differingA = Set<UInt64>(), differingB = Set<UInt64>()
        for difference in diff.differences {
            if let event = difference.a { differingA.insert(event.seq) }
            if let event = difference.b { differingB.insert(event.seq) }
        }
        let changed = changedNodes(a, b, diff: diff)
        var threads = figureA.threads
        let threadMapB = figureB.threads.map { name -> Int in
            if let index = threads.firstIndex(of: name) { return index }
            threads.append(name)
            return threads.count - 1
        }
        var lanesB: [Int] = Array(figureB.lanes.indices)
        let nodesB = figureB.lanes.map { node(of: $0, in: b) }

        var rows: [MarbleFigure.Row] = []
        for row in figureA.rows {
            switch row {
            case var .operator(box):
                if let node = operatorNode(box, in: a), let change = changed[node.id], change.a.parameters != change.b.parameters {
                    box.parameters = "\(change.a.parameters) \u{2192} \(change.b.parameters)"
                }
                rows.append(.operator(box))
            case let .lane(laneA):
                let nodeA = node(of: laneA, in: a)
                let partner: Int?
                if let nodeA {
                    let nodeB = diff.alignment.partner(ofA: nodeA.id)
                    partner = lanesB.firstIndex { nodeB != nil && nodesB[$0]?.id == nodeB }
                } else {
                    partner = lanesB.firstIndex { nodesB[$0] == nil && key(figureB.lanes[$0]) == key(laneA) }
                }
                let marked = marked(laneA, differing: differingA, threadMap: nil)
                guard let partner else {
                    rows.append(.lane(titled(marked.lane, "A only", different: true)))
                    continue
                }
                let laneB = figureB.lanes[lanesB.remove(at: partner)]
                let markedB = Self.marked(laneB, differing: differingB, threadMap: threadMapB)
                let change = nodeA.flatMap { changed[$0.id] }
                let different = marked.changed || markedB.changed || change != nil
                    || endsDiffer(laneA.end, laneB.end, tolerance: diff.timeTolerance)
                let showsParameters = change.map { $0.a.parameters != $0.b.parameters } ?? false
                rows.append(.lane(titled(marked.lane, "A", different: different, node: change?.a,
                                         showsParameters: showsParameters)))
                rows.append(.lane(titled(markedB.lane, "B", different: different, node: change?.b,
                                         showsParameters: showsParameters)))
            }
        }
        for index in lanesB {
            let lane = marked(figureB.lanes[index], differing: differingB, threadMap: threadMapB).lane
            rows.append(.lane(titled(lane, "B only", different: true)))
        }
        // Coloured as `marbles view` colours the two traces: A's threads, then B's new ones.
        let colours = ThreadColours.colours(of: [a, b])
        return MarbleFigure(title: "\(diff.a.name) (A) vs \(diff.b.name) (B)", rows: rows, threads: threads,
                            threadColours: threads.map { colours[$0] ?? ThreadColours.several })
    }

    /// The aligned nodes the diff reports as changed, by A's id, with both sides' attributes.
    private static func changedNodes(_ a: Trace, _ b: Trace,
                                     diff: TraceDiff) -> [UInt64: (a: TraceDiff.NodeAttributes, b: TraceDiff.NodeAttributes)] {
        var reported: [String: (a: TraceDiff.NodeAttributes, b: TraceDiff.NodeAttributes)] = [:]
        for difference in diff.differences where difference.kind == .nodeChanged {
            if let nodeA = difference.nodeA, let nodeB = difference.nodeB { reported[difference.node] = (nodeA, nodeB) }
        }
        var changed: [UInt64: (a: TraceDiff.NodeAttributes, b: TraceDiff.NodeAttributes)] = [:]
        for pair in diff.alignment.pairs {
            guard let node = a.node(pair.a), let change = reported[TraceDiff.describe(node)] else { continue }
            changed[pair.a] = change
        }
        return changed
    }

    /// The node a lane draws: the node of its first marble's event, else the node with its
    /// title and call site when exactly one has them.
    private static func node(of lane: MarbleFigure.Lane, in trace: Trace) -> NodeRecord? {
        if let marble = lane.marbles.first, let event = trace.event(sequence: marble.id) { return trace.node(event.node) }
        let candidates = trace.nodes.filter { "\($0.file):\($0.line)" == lane.detail && $0.displayName == lane.title }
        return candidates.count == 1 ? candidates[0] : nil
    }

    /// The node an operator box stands for, when exactly one node has its name, parameters
    /// and call site.
    private static func operatorNode(_ box: MarbleFigure.Operator, in trace: Trace) -> NodeRecord? {
        let candidates = trace.nodes.filter {
            $0.name == box.name && $0.parameters == box.parameters && "\($0.file):\($0.line)" == box.detail
        }
        return candidates.count == 1 ? candidates[0] : nil
    }

    /// Whether two lanes ended differently: another way, or (when times are judged) at times
    /// further apart than the tolerance.
    private static func endsDiffer(_ a: MarbleFigure.End?, _ b: MarbleFigure.End?, tolerance: Int64?) -> Bool {
        switch (a, b) {
        case (nil, nil): return false
        case let (a?, b?):
            let sameKind: Bool
            switch (a, b) {
            case (.completed, .completed), (.failed, .failed), (.interrupted, .interrupted), (.disposed, .disposed):
                sameKind = true
            default:
                sameKind = false
            }
            guard sameKind else { return true }
            guard let tolerance else { return false }
            return (a.time - b.time).magnitude > tolerance.magnitude
        default:
            return true
        }
    }

    private static func key(_ lane: MarbleFigure.Lane) -> String {
        "\(lane.isInner) \(lane.title) \(lane.detail ?? "")"
    }

    /// The longest lane title a figure shows whole.
    static let titleLimit = 26

    /// `≠ A: title`; for a changed node, its side's call site on hover and, when the
    /// parameters changed, its side's parameters in the title: `≠ B: debounce(0.5s)`, or
    /// `≠ B: 0.5s, on: main` when that would be cut (the operator box above names the node).
    private static func titled(_ lane: MarbleFigure.Lane, _ side: String, different: Bool,
                               node: TraceDiff.NodeAttributes? = nil, showsParameters: Bool = false) -> MarbleFigure.Lane {
        var lane = lane
        let prefix = "\(different ? mark + " " : "")\(side): "
        var title = prefix + lane.title
        if let node {
            lane.detail = "\(node.file):\(node.line)"
            if showsParameters {
                let whole = "\(lane.title)(\(node.parameters))"
                title = prefix + ((prefix + whole).count <= titleLimit ? whole : node.parameters)
                lane.detail = "\(whole) @\(node.file):\(node.line)"
            }
        }
        lane.title = title
        return lane
    }

    private static func marked(_ lane: MarbleFigure.Lane, differing: Set<UInt64>,
                               threadMap: [Int]?) -> (lane: MarbleFigure.Lane, changed: Bool) {
        var lane = lane
        var changed = false
        for index in lane.marbles.indices {
            if let threadMap, lane.marbles[index].thread < threadMap.count {
                lane.marbles[index].thread = threadMap[lane.marbles[index].thread]
            }
            if differing.contains(lane.marbles[index].id) {
                lane.marbles[index].display = mark + lane.marbles[index].display
                changed = true
            }
        }
        return (lane, changed)
    }
}
