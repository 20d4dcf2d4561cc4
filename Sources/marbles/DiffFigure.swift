import Diagrams
import Foundation
import Replay
import TraceLog

/// The marble figure of a diff: each lane of A followed by the same lane of B (paired by
/// title, call site and order), so the two runs sit on neighbouring lines; lanes and marbles
/// that differ are marked `≠`. Lanes in only one trace come last.
enum DiffFigure {
    static let mark = "\u{2260}"

    static func make(_ a: Trace, _ b: Trace, diff: TraceDiff) throws -> MarbleFigure {
        let figureA = try MarbleFigure(trace: a), figureB = try MarbleFigure(trace: b)
        var differingA = Set<UInt64>(), differingB = Set<UInt64>()
        for difference in diff.differences {
            if let event = difference.a { differingA.insert(event.seq) }
            if let event = difference.b { differingB.insert(event.seq) }
        }
        var threads = figureA.threads
        let threadMapB = figureB.threads.map { name -> Int in
            if let index = threads.firstIndex(of: name) { return index }
            threads.append(name)
            return threads.count - 1
        }
        var lanesB: [String: [MarbleFigure.Lane]] = [:]
        for lane in figureB.lanes { lanesB[key(lane), default: []].append(lane) }

        var rows: [MarbleFigure.Row] = []
        for row in figureA.rows {
            switch row {
            case .operator:
                rows.append(row)
            case let .lane(laneA):
                let laneKey = key(laneA)
                let partner = lanesB[laneKey]?.first
                if partner != nil { lanesB[laneKey]?.removeFirst() }
                let marked = marked(laneA, differing: differingA, threadMap: nil)
                guard let laneB = partner else {
                    rows.append(.lane(titled(marked.lane, "A only", different: true)))
                    continue
                }
                let markedB = Self.marked(laneB, differing: differingB, threadMap: threadMapB)
                let different = marked.changed || markedB.changed
                    || endsDiffer(laneA.end, laneB.end, tolerance: diff.timeTolerance)
                rows.append(.lane(titled(marked.lane, "A", different: different)))
                rows.append(.lane(titled(markedB.lane, "B", different: different)))
            }
        }
        for lane in figureB.lanes where lanesB[key(lane)]?.contains(lane) == true {
            rows.append(.lane(titled(marked(lane, differing: differingB, threadMap: threadMapB).lane, "B only", different: true)))
        }
        return MarbleFigure(title: "\(diff.a.name) (A) vs \(diff.b.name) (B)", rows: rows, threads: threads)
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

    private static func titled(_ lane: MarbleFigure.Lane, _ side: String, different: Bool) -> MarbleFigure.Lane {
        var lane = lane
        lane.title = "\(different ? mark + " " : "")\(side): \(lane.title)"
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
