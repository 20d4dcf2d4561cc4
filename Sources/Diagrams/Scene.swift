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
