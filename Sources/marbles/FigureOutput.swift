import Diagrams
import Foundation
import TraceLog

/// The bytes of a rendered figure as they are written: a text figure is read by people in a
/// terminal, so its control and bidi characters are shown as escapes, as on standard output.
func figureBytes(_ data: Data, isText: Bool) -> [UInt8] {
    isText ? Array(TerminalText.escaped(String(decoding: data, as: UTF8.self)).utf8) : Array(data)
}

/// `--draw FILE` of `diff` and `play`: a marble diagram in the format its file's extension
/// names.
struct MarbleDrawing {
    let file: OutputFile
    let format: MarbleFormat
    /// Whether idle time is cut out of the figure's axis (`--no-cuts` turns it off).
    let cuts: Bool

    /// What `--draw` accepts, for a usage error.
    static let expected = "--draw needs a file ending in .svg, .png, .pdf or .txt"

    /// The format `path`'s extension names, if it is one a marble diagram can be written in.
    static func format(of path: PathName) -> MarbleFormat? {
        MarbleFormat(rawValue: path.fileExtension.shown.lowercased())
    }

    /// Checks `path` (already validated to have a format's extension) as an output of a verb
    /// reading `inputs`.
    init(_ path: PathName, inputs: [InputFile], cuts: Bool = true) throws {
        guard let format = Self.format(of: path) else { throw CLIError.file(path, Self.expected) }
        self.format = format
        self.cuts = cuts
        file = try OutputFile(path, option: "--draw", inputs: inputs)
    }

    /// Renders `figure` and starts writing it; commit the result to replace the file.
    func begin(_ figure: () throws -> MarbleFigure) throws -> PendingOutput {
        let data: Data
        do {
            var drawn = try figure()
            drawn.cutsIdleTime = cuts
            data = try MarbleRenderer.render(drawn, format: format)
        } catch let error as DiagramError {
            throw CLIError.file(file.path, "cannot draw the diagram: \(error)")
        }
        if format == .png, let warning = Mural.warning(png: data, path: file.path.shown, marble: true) { Console.error(warning) }
        let pending = try file.begin()
        try pending.write(figureBytes(data, isText: format == .txt))
        return pending
    }
}

/// A figure too big to read as one image: a PNG more than `limit` pixels a side is a mural
/// (a long trace's marble diagram thousands of pixels tall, a pipeline thousands wide), so
/// the verb says so on standard error and names what to draw instead.
enum Mural {
    /// The most pixels a side of a PNG figure before it is a mural: twice the tutorials'
    /// widest (4505 pixels).
    static let limit = 6_000

    /// The width and height in a PNG's header, if `data` is a PNG.
    static func size(png data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data.prefix(24))
        guard bytes.count == 24, bytes[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else { return nil }
        func number(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (number(16), number(20))
    }

    /// The warning for the PNG `data` written to `path`, nil when it is no mural: a marble
    /// diagram can be drawn in parts (`--nodes`, and `--split` where the verb has it), any
    /// figure as SVG or as `marbles view`'s page.
    static func warning(png data: Data, path: String, marble: Bool, canSplit: Bool = false) -> String? {
        guard let (width, height) = size(png: data), max(width, height) > limit else { return nil }
        let shape = height > limit ? (width > limit ? "too big" : "too tall") : "too wide"
        var advice = marble
            ? "Draw it in parts: " + (canSplit ? "--split writes it as FILE-1.png, FILE-2.png, … of whole lanes; " : "")
                + "--nodes NAME,NAME draws the lanes named (labels, operator names or ids; 'marbles stats' lists them); or "
            : "Instead, "
        advice += "write .svg (zoomable) or open the trace with 'marbles view', which shows the pipeline and the lanes side by side and zooms."
        return "marbles: warning: \(path) is \(width)\u{00D7}\(height) pixels, \(shape) to read as one image (over \(limit) a side). " + advice
    }
}
