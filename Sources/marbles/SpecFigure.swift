import Diagrams
import Foundation
import Spec
import TraceLog

/// The marble diagram of a spec's run, drawn from the trace the run recorded (`play --draw`
/// and `draw SPEC`): marbles coloured by the thread that delivered them, causes on request,
/// and one lane per named stream.
///
/// A spec's run starts each derived stream on its own, so the nodes upstream of a stream
/// have one subscription per stream that uses them (`typing` four times when four streams
/// derive from it). Each named stream is drawn from one subscription: a derived stream's
/// from the one the run's sink observes, an input's from its first top-level one. The box above a derived
/// stream shows the stream's expression as the spec writes it; an input's lane its marbles
/// on hover.
enum SpecFigure {
    /// The figure of `result`, the run that recorded `trace`.
    ///
    /// - Throws: `DiagramError` when the trace has nothing to draw.
    static func make(result: SpecResult, trace: Trace, causes: Bool, title: String?) throws -> MarbleFigure {
        let sinkNodes = Set(trace.nodes.filter { $0.kind == .sink }.map(\.id))
        let observed = Set(trace.subscriptions.filter { sinkNodes.contains($0.node) && $0.parent != 0 }.map(\.parent))
        var chosen: Set<UInt64> = []
        var streamOfNode: [UInt64: SpecResult.Stream] = [:]
        for stream in result.streams {
            let labelled = Set(trace.nodes.filter { $0.label == stream.name }.map(\.id))
            let candidates = trace.subscriptions.filter { labelled.contains($0.node) }
            // An input's first top-level subscription (a retry's resubscriptions are inner).
            let own = stream.isInput ? candidates.first { $0.parent == 0 } ?? candidates.first
                : candidates.first { observed.contains($0.id) }
            guard let own else { continue }
            chosen.insert(own.id)
            streamOfNode[own.node] = stream
        }
        var figure = try MarbleFigure(trace: trace, options: MarbleOptions(selection: .all, causes: causes, title: title,
                                                                           subscriptions: chosen))
        // Name each stream's lane and box as the spec does.
        var rows = figure.rows
        for index in rows.indices {
            switch rows[index] {
            case let .lane(lane) where !lane.isInner:
                guard let node = lane.node, let stream = streamOfNode[node] else { continue }
                var named = lane
                named.title = stream.name
                if stream.isInput { named.detail = (stream.isHot ? "hot " : "cold ") + stream.marbles }
                rows[index] = .lane(named)
            case .operator:
                let next = rows[(index + 1)...].first { row in
                    if case let .lane(lane) = row { return !lane.isInner }
                    return false
                }
                guard case let .lane(lane)? = next, let node = lane.node, let stream = streamOfNode[node],
                      !stream.isInput else { continue }
                rows[index] = .operator(.init(name: stream.expression))
            default:
                continue
            }
        }
        figure.rows = rows
        keepThreadsWithMarbles(&figure)
        return figure
    }

    /// Leaves out of the legend the threads no marble was delivered on: the run starts its
    /// streams from the calling thread (`main`), whose start-up work causes values but sends
    /// none on a lane. A value caused there is not drawn as a hop either.
    private static func keepThreadsWithMarbles(_ figure: inout MarbleFigure) {
        var used = Set<Int>()
        for case let .lane(lane) in figure.rows { used.formUnion(lane.marbles.map(\.thread)) }
        var newIndex: [Int: Int] = [:]
        var names: [String] = []
        var colours: [ThreadColours.Colour] = []
        for (index, name) in figure.threads.enumerated() where used.contains(index) {
            newIndex[index] = names.count
            names.append(name)
            colours.append(figure.threadColours.indices.contains(index) ? figure.threadColours[index] : ThreadColours.several)
        }
        figure.threads = names
        figure.threadColours = colours
        figure.rows = figure.rows.map { row in
            guard case var .lane(lane) = row else { return row }
            for index in lane.marbles.indices {
                lane.marbles[index].thread = newIndex[lane.marbles[index].thread] ?? 0
                lane.marbles[index].hoppedFrom = lane.marbles[index].hoppedFrom.flatMap { newIndex[$0] }
            }
            return .lane(lane)
        }
    }
}
