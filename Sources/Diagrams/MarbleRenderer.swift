import Foundation

/// Output formats of a marble diagram.
public enum MarbleFormat: String, Sendable, CaseIterable {
    case svg, png, pdf
    /// Plain-text marble lines for a terminal.
    case txt
}

/// Draws a `MarbleFigure`: SVG written directly, PNG and PDF painted with cairo from the
/// same layout, text as marble lines.
public enum MarbleRenderer {
    /// The default widest figure, in pixels; wider spans are scaled down (and dense
    /// stretches aggregated) to fit.
    public static let defaultMaxWidth = 1600.0

    /// Renders `figure` as `format`. The SVG and text bytes depend only on the figure and
    /// `maxWidth`.
    public static func render(_ figure: MarbleFigure, format: MarbleFormat,
                              maxWidth: Double = defaultMaxWidth) throws -> Data {
        switch format {
        case .svg: return Data(svg(figure, maxWidth: maxWidth).utf8)
        case .png: return try CairoPainter.png(MarbleLayout.scene(for: figure, maxWidth: maxWidth))
        case .pdf: return try CairoPainter.pdf(MarbleLayout.scene(for: figure, maxWidth: maxWidth))
        case .txt: return Data(MarbleText.render(figure).utf8)
        }
    }

    /// Writes `figure` as an SVG document to `sink`, in pieces of about a megabyte, in order:
    /// together they are `svg(figure, maxWidth:)`, never held whole.
    public static func writeSVG(_ figure: MarbleFigure, maxWidth: Double = defaultMaxWidth,
                                to sink: (String) throws -> Void) rethrows {
        try SVGWriter.write(MarbleLayout.scene(for: figure, maxWidth: maxWidth), to: sink)
    }

    /// The figure as an SVG document.
    public static func svg(_ figure: MarbleFigure, maxWidth: Double = defaultMaxWidth) -> String {
        SVGWriter.write(MarbleLayout.scene(for: figure, maxWidth: maxWidth))
    }
}

extension MarbleRenderer {
    /// What a figure takes besides its rows, at most: title, margins, axis, the threads and
    /// marks legend, and the values legend (at most 40 lines and a last one).
    static let partOverhead = 900.0

    /// `figure` in parts of whole rows, each drawn at most about `maxHeight` pixels tall (as
    /// SVG; a PNG is twice as tall), top to bottom, or `[figure]` when it fits. An operator's
    /// box stays with the lanes under it (down to the next box) and an inner lane with the lane
    /// before it, unless such a run alone is too tall; each part keeps the figure's threads with their colours
    /// (one legend for all parts), its causal arrows between marbles of the part, and a title
    /// saying which part it is.
    public static func parts(_ figure: MarbleFigure, maxHeight: Double) -> [MarbleFigure] {
        let budget = max(maxHeight - partOverhead, MarbleLayout.laneHeight + MarbleLayout.operatorHeight)
        func height(_ row: MarbleFigure.Row) -> Double {
            switch row {
            case .operator: return MarbleLayout.operatorHeight
            case let .lane(lane): return lane.isInner ? MarbleLayout.innerLaneHeight : MarbleLayout.laneHeight
            }
        }
        guard figure.rows.reduce(0, { $0 + height($1) }) > budget else { return [figure] }
        // Runs that stay together: a box and the lanes under it down to the next box; above the
        // first box, a lane and its inner lanes.
        var runs: [[MarbleFigure.Row]] = []
        var boxSeen = false
        for row in figure.rows {
            let startsRun: Bool
            switch row {
            case .operator:
                startsRun = true
                boxSeen = true
            case let .lane(lane):
                startsRun = !boxSeen && !lane.isInner
            }
            if startsRun || runs.isEmpty { runs.append([row]) } else { runs[runs.count - 1].append(row) }
        }
        var groups: [[MarbleFigure.Row]] = [[]]
        var used = 0.0
        for run in runs {
            let runHeight = run.reduce(0) { $0 + height($1) }
            if used + runHeight <= budget || groups[groups.count - 1].isEmpty && runHeight <= budget {
                groups[groups.count - 1] += run
                used += runHeight
                continue
            }
            if !groups[groups.count - 1].isEmpty {
                groups.append([])
                used = 0
            }
            // A run taller than a part is cut between rows.
            for row in run {
                if used + height(row) > budget, !groups[groups.count - 1].isEmpty {
                    groups.append([])
                    used = 0
                }
                groups[groups.count - 1].append(row)
                used += height(row)
            }
        }
        return groups.enumerated().map { index, rows in
            var ids: Set<UInt64> = []
            for case let .lane(lane) in rows { ids.formUnion(lane.marbles.map(\.id)) }
            let which = "part \(index + 1) of \(groups.count)"
            return MarbleFigure(title: figure.title.map { "\($0) (\(which))" } ?? which, rows: rows, threads: figure.threads,
                                threadColours: figure.threadColours, causes: figure.causes.filter { ids.contains($0.from) && ids.contains($0.to) },
                                cutsIdleTime: figure.cutsIdleTime)
        }
    }
}
