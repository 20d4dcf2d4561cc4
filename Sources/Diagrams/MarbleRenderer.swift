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
