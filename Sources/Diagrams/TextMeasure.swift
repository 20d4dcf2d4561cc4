import CCairo
import Locks

/// The width of text as the PNG painter draws it: cairo's text API with DejaVu Sans on a
/// surface at the PNG's scale, so that layout which must not let text run into a mark (a lane's
/// title) sizes it by the glyphs drawn, not by `Scene.textWidth`'s estimate. One context,
/// made once and guarded by a lock: figures may be laid out on several threads.
enum TextMeasure {
    private static let context = Protected<OpaquePointer?>({
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1) else { return nil }
        defer { cairo_surface_destroy(surface) }
        guard let cr = cairo_create(surface) else { return nil }
        cairo_scale(cr, CairoPainter.pngScale, CairoPainter.pngScale)
        return cr
    }())

    /// How far `text` reaches right of where it starts, in scene pixels: the larger of its
    /// advance and its ink (an italic's last glyph leans past its advance). `Scene.textWidth`
    /// when cairo could not make a context.
    static func width(_ text: String, font: Scene.Font) -> Double {
        context.modify { cr in
            guard let cr else { return Scene.textWidth(text, font: font) }
            let extents = CairoPainter.select(font, andMeasure: TextSafety.singleLine(text), cr)
            return max(extents.x_advance, extents.x_bearing + extents.width)
        }
    }
}
