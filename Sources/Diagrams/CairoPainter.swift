import CCairo
import Foundation

/// Paints a `Scene` with cairo, in process, into PNG (at twice the scene's pixel size, for
/// sharp figures in documents) or PDF (one point per scene pixel).
enum CairoPainter {
    /// Collects what cairo writes through its stream callbacks.
    private final class Sink {
        var data = Data()
    }

    private static let write: cairo_write_func_t = { closure, bytes, length in
        guard let closure, let bytes else { return CAIRO_STATUS_WRITE_ERROR }
        Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue().data.append(bytes, count: Int(length))
        return CAIRO_STATUS_SUCCESS
    }

    static func png(_ scene: Scene) throws -> Data {
        let scale = pngScale
        let (width, height) = (scene.width * scale, scene.height * scale)
        // cairo's image surfaces stop at 32767 pixels a side.
        guard width <= 32_767, height <= 32_767 else {
            throw DiagramError.cairo("the figure is too large for PNG (\(Int(width))×\(Int(height)) pixels, at most 32767 a side); "
                                     + "choose fewer lanes with --nodes, or write SVG or PDF")
        }
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)) else {
            throw DiagramError.cairo("could not create an image surface")
        }
        defer { cairo_surface_destroy(surface) }
        try paint(scene, on: surface, scale: scale)
        let sink = Sink()
        let status = cairo_surface_write_to_png_stream(surface, write, Unmanaged.passUnretained(sink).toOpaque())
        guard status == CAIRO_STATUS_SUCCESS else { throw DiagramError.cairo(describe(status)) }
        return sink.data
    }

    static func pdf(_ scene: Scene) throws -> Data {
        let sink = Sink()
        let closure = Unmanaged.passUnretained(sink).toOpaque()
        guard let surface = cairo_pdf_surface_create_for_stream(write, closure, scene.width, scene.height) else {
            throw DiagramError.cairo("could not create a PDF surface")
        }
        // An empty creation date leaves the date out, so the same figure gives the same bytes.
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, "")
        try withExtendedLifetime(sink) {
            try paint(scene, on: surface, scale: 1)
            cairo_surface_finish(surface)
            let status = cairo_surface_status(surface)
            cairo_surface_destroy(surface)
            guard status == CAIRO_STATUS_SUCCESS else { throw DiagramError.cairo(describe(status)) }
        }
        return sink.data
    }

    private static func describe(_ status: cairo_status_t) -> String {
        String(cString: cairo_status_to_string(status))
    }

    private static func paint(_ scene: Scene, on surface: OpaquePointer, scale: Double) throws {
        guard let cr = cairo_create(surface) else { throw DiagramError.cairo("could not create a drawing context") }
        defer { cairo_destroy(cr) }
        cairo_scale(cr, scale, scale)
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_paint(cr)
        for item in scene.items { draw(item, cr) }
        let status = cairo_status(cr)
        guard status == CAIRO_STATUS_SUCCESS else { throw DiagramError.cairo(describe(status)) }
    }

    private static func source(_ paint: Scene.Paint, _ cr: OpaquePointer) {
        let (r, g, b) = paint.rgb
        cairo_set_source_rgba(cr, r, g, b, paint.opacity)
    }

    private static func fillAndStroke(_ fill: Scene.Paint, _ stroke: Scene.Stroke?, _ cr: OpaquePointer) {
        if !fill.isNone {
            source(fill, cr)
            if stroke == nil { cairo_fill(cr) } else { cairo_fill_preserve(cr) }
        }
        if let stroke {
            apply(stroke, cr)
            cairo_stroke(cr)
        }
        cairo_new_path(cr)
    }

    private static func apply(_ stroke: Scene.Stroke, _ cr: OpaquePointer) {
        source(stroke.paint, cr)
        cairo_set_line_width(cr, stroke.width)
        stroke.dash.withUnsafeBufferPointer { cairo_set_dash(cr, $0.baseAddress, Int32($0.count), 0) }
    }

    /// How many device pixels a scene pixel is in a PNG.
    static let pngScale = 2.0

    /// Makes `font` the context's font and measures `printable` (already made single-line) in
    /// it: what the painter draws text with, and what `TextMeasure` sizes text by.
    static func select(_ font: Scene.Font, andMeasure printable: String, _ cr: OpaquePointer) -> cairo_text_extents_t {
        cairo_select_font_face(cr, "DejaVu Sans",
                               font.italic ? CAIRO_FONT_SLANT_ITALIC : CAIRO_FONT_SLANT_NORMAL,
                               font.bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cr, font.size)
        var extents = cairo_text_extents_t()
        cairo_text_extents(cr, printable, &extents)
        return extents
    }

    private static func draw(_ item: Scene.Item, _ cr: OpaquePointer) {
        switch item {
        case let .line(from, to, stroke):
            cairo_move_to(cr, from.x, from.y)
            cairo_line_to(cr, to.x, to.y)
            fillAndStroke(.none, stroke, cr)
        case let .path(points, closed, fill, stroke):
            guard let first = points.first else { return }
            cairo_move_to(cr, first.x, first.y)
            for point in points.dropFirst() { cairo_line_to(cr, point.x, point.y) }
            if closed { cairo_close_path(cr) }
            fillAndStroke(fill, stroke, cr)
        case let .circle(center, radius, fill, stroke):
            cairo_new_sub_path(cr)
            cairo_arc(cr, center.x, center.y, radius, 0, 2 * Double.pi)
            fillAndStroke(fill, stroke, cr)
        case let .rect(origin, width, height, corner, fill, stroke):
            let r = min(corner, width / 2, height / 2)
            if r > 0 {
                cairo_new_sub_path(cr)
                cairo_arc(cr, origin.x + width - r, origin.y + r, r, -Double.pi / 2, 0)
                cairo_arc(cr, origin.x + width - r, origin.y + height - r, r, 0, Double.pi / 2)
                cairo_arc(cr, origin.x + r, origin.y + height - r, r, Double.pi / 2, Double.pi)
                cairo_arc(cr, origin.x + r, origin.y + r, r, Double.pi, 3 * Double.pi / 2)
                cairo_close_path(cr)
            } else {
                cairo_rectangle(cr, origin.x, origin.y, width, height)
            }
            fillAndStroke(fill, stroke, cr)
        case let .text(text, at, font, anchor, fill):
            let printable = TextSafety.singleLine(text)
            let extents = select(font, andMeasure: printable, cr)
            let x: Double
            switch anchor {
            case .start: x = at.x
            case .middle: x = at.x - extents.x_advance / 2
            case .end: x = at.x - extents.x_advance
            }
            source(fill, cr)
            cairo_move_to(cr, x, at.y)
            cairo_show_text(cr, printable)
            cairo_new_path(cr)
        case let .group(_, _, _, items):
            for child in items { draw(child, cr) }
        }
    }
}
