/// A laid-out figure as drawing primitives, in pixels, origin top left. The marble layout
/// produces one; the SVG writer and the cairo painter both draw it, so SVG, PNG and PDF
/// show the same picture.
struct Scene {
    struct Point: Equatable {
        var x: Double
        var y: Double
    }

    /// A colour as `#rrggbb`, with an opacity.
    struct Paint: Equatable {
        var hex: String
        var opacity: Double = 1

        static let none = Paint(hex: "none")
        var isNone: Bool { hex == "none" }

        /// The components in 0...1, for cairo.
        var rgb: (Double, Double, Double) {
            let digits = Array(hex.utf8.dropFirst())
            guard digits.count == 6 else { return (0, 0, 0) }
            func component(_ index: Int) -> Double {
                let text = String(decoding: digits[index..<index + 2], as: UTF8.self)
                return Double(UInt8(text, radix: 16) ?? 0) / 255
            }
            return (component(0), component(2), component(4))
        }
    }

    struct Stroke: Equatable {
        var paint: Paint
        var width: Double
        var dash: [Double] = []
    }

    enum Anchor: String {
        case start, middle, end
    }

    struct Font: Equatable {
        var size: Double
        var bold = false
        var italic = false
    }

    indirect enum Item {
        case line(from: Point, to: Point, stroke: Stroke)
        /// An open or closed polyline, filled when `fill` is not `.none`.
        case path([Point], closed: Bool, fill: Paint, stroke: Stroke?)
        case circle(center: Point, radius: Double, fill: Paint, stroke: Stroke?)
        case rect(origin: Point, width: Double, height: Double, corner: Double, fill: Paint, stroke: Stroke?)
        /// Text on a baseline at `at`, anchored as given.
        case text(String, at: Point, font: Font, anchor: Anchor, fill: Paint)
        /// A named group: `kind` becomes the SVG class, `title` the hover text, `data` extra
        /// `data-` attributes (sorted by key when written).
        case group(kind: String, title: String?, data: [String: String], items: [Item])
    }

    var width: Double
    var height: Double
    var items: [Item]

    /// The bounding box of what an item draws, strokes included (text by `Scene.textWidth`'s
    /// estimate, from its baseline up a font size and down a third of one); nil for an empty group.
    struct Box: Equatable {
        var minX, minY, maxX, maxY: Double

        func union(_ other: Box) -> Box {
            Box(minX: min(minX, other.minX), minY: min(minY, other.minY), maxX: max(maxX, other.maxX), maxY: max(maxY, other.maxY))
        }

        func intersects(_ other: Box) -> Bool {
            minX < other.maxX && other.minX < maxX && minY < other.maxY && other.minY < maxY
        }
    }

    /// Estimated advance of a string in the figure's sans-serif font. SVG has no measuring;
    /// the layout uses this to size boxes, and the painters centre text on its own extents.
    static func textWidth(_ text: String, font: Font) -> Double {
        var width = 0.0
        for scalar in text.unicodeScalars {
            let narrow = "iljtf.,:;'|!()[] ".unicodeScalars.contains(scalar)
            let wide = "mwMW@%".unicodeScalars.contains(scalar) || scalar.value > 0x2E80
            width += narrow ? 0.34 : (wide ? 0.9 : 0.6)
        }
        return width * font.size * (font.bold ? 1.07 : 1)
    }
}

extension Scene.Item {
    /// See `Scene.Box`.
    var box: Scene.Box? {
        func around(_ points: [Scene.Point], _ pad: Double) -> Scene.Box? {
            guard let first = points.first else { return nil }
            var box = Scene.Box(minX: first.x, minY: first.y, maxX: first.x, maxY: first.y)
            for point in points.dropFirst() { box = box.union(.init(minX: point.x, minY: point.y, maxX: point.x, maxY: point.y)) }
            return Scene.Box(minX: box.minX - pad, minY: box.minY - pad, maxX: box.maxX + pad, maxY: box.maxY + pad)
        }
        switch self {
        case let .line(from, to, stroke):
            return around([from, to], stroke.width / 2)
        case let .path(points, _, _, stroke):
            return around(points, (stroke?.width ?? 0) / 2)
        case let .circle(center, radius, _, stroke):
            let reach = radius + (stroke?.width ?? 0) / 2
            return .init(minX: center.x - reach, minY: center.y - reach, maxX: center.x + reach, maxY: center.y + reach)
        case let .rect(origin, width, height, _, _, stroke):
            return around([origin, .init(x: origin.x + width, y: origin.y + height)], (stroke?.width ?? 0) / 2)
        case let .text(text, at, font, anchor, _):
            let width = Scene.textWidth(text, font: font)
            let start = anchor == .start ? at.x : anchor == .middle ? at.x - width / 2 : at.x - width
            return .init(minX: start, minY: at.y - font.size, maxX: start + width, maxY: at.y + font.size / 3)
        case let .group(_, _, _, items):
            return items.lazy.compactMap(\.box).reduce(nil) { $0?.union($1) ?? $1 }
        }
    }
}
