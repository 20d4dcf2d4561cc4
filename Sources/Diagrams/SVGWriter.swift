/// Writes a `Scene` as SVG. The bytes depend only on the scene: coordinates have at most one
/// decimal, attributes come in a fixed order, `data-` attributes sorted by name.
enum SVGWriter {
    static let fontFamily = "DejaVu Sans, Helvetica, Arial, sans-serif"

    static func write(_ scene: Scene) -> String {
        var whole = ""
        write(scene) { whole += $0 }
        return whole
    }

    /// Writes `scene` to `sink` in pieces of about `chunk` bytes, in order (a figure of a big
    /// trace is a hundred megabytes of text); together they are `write(scene)`.
    static func write(_ scene: Scene, chunk: Int = 1 << 20, to sink: (String) throws -> Void) rethrows {
        let width = TimeFormat.coordinate(scene.width)
        let height = TimeFormat.coordinate(scene.height)
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" "
        out += "viewBox=\"0 0 \(width) \(height)\" font-family=\"\(fontFamily)\">\n"
        out += "<rect class=\"background\" x=\"0\" y=\"0\" width=\"\(width)\" height=\"\(height)\" fill=\"#ffffff\"/>\n"
        for item in scene.items {
            write(item, depth: 0, into: &out)
            if out.utf8.count >= chunk {
                try sink(out)
                out = ""
            }
        }
        out += "</svg>\n"
        try sink(out)
    }

    private static func c(_ value: Double) -> String { TimeFormat.coordinate(value) }

    private static func paint(_ name: String, _ paint: Scene.Paint) -> String {
        var out = " \(name)=\"\(paint.hex)\""
        if paint.opacity < 1, !paint.isNone { out += " \(name)-opacity=\"\(TimeFormat.coordinate(paint.opacity))\"" }
        return out
    }

    private static func stroke(_ stroke: Scene.Stroke?) -> String {
        guard let stroke else { return "" }
        var out = paint("stroke", stroke.paint) + " stroke-width=\"\(c(stroke.width))\""
        if !stroke.dash.isEmpty { out += " stroke-dasharray=\"\(stroke.dash.map(c).joined(separator: " "))\"" }
        return out
    }

    private static func write(_ item: Scene.Item, depth: Int, into out: inout String) {
        let indent = String(repeating: "  ", count: depth + 1)
        switch item {
        case let .line(from, to, lineStroke):
            out += "\(indent)<line x1=\"\(c(from.x))\" y1=\"\(c(from.y))\" x2=\"\(c(to.x))\" y2=\"\(c(to.y))\"\(stroke(lineStroke))/>\n"
        case let .path(points, closed, fill, pathStroke):
            let d = points.enumerated().map { "\($0.offset == 0 ? "M" : "L")\(c($0.element.x)) \(c($0.element.y))" }.joined(separator: " ")
            out += "\(indent)<path d=\"\(d)\(closed ? " Z" : "")\"\(paint("fill", fill))\(stroke(pathStroke))/>\n"
        case let .circle(center, radius, fill, circleStroke):
            out += "\(indent)<circle cx=\"\(c(center.x))\" cy=\"\(c(center.y))\" r=\"\(c(radius))\"\(paint("fill", fill))\(stroke(circleStroke))/>\n"
        case let .rect(origin, width, height, corner, fill, rectStroke):
            let rounded = corner > 0 ? " rx=\"\(c(corner))\"" : ""
            out += "\(indent)<rect x=\"\(c(origin.x))\" y=\"\(c(origin.y))\" width=\"\(c(width))\" height=\"\(c(height))\"\(rounded)\(paint("fill", fill))\(stroke(rectStroke))/>\n"
        case let .text(text, at, font, anchor, fill):
            var attributes = "x=\"\(c(at.x))\" y=\"\(c(at.y))\" font-size=\"\(c(font.size))\""
            if anchor != .start { attributes += " text-anchor=\"\(anchor.rawValue)\"" }
            if font.bold { attributes += " font-weight=\"bold\"" }
            if font.italic { attributes += " font-style=\"italic\"" }
            out += "\(indent)<text \(attributes)\(paint("fill", fill)) xml:space=\"preserve\">\(TextSafety.xml(text))</text>\n"
        case let .group(kind, title, data, items):
            var attributes = "class=\"\(TextSafety.xml(kind))\""
            for key in data.keys.sorted() {
                attributes += " data-\(key)=\"\(TextSafety.xml(data[key] ?? ""))\""
            }
            out += "\(indent)<g \(attributes)>\n"
            if let title { out += "\(indent)  <title>\(TextSafety.xml(title))</title>\n" }
            for child in items { write(child, depth: depth + 1, into: &out) }
            out += "\(indent)</g>\n"
        }
    }
}
