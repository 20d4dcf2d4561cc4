import Diagrams
import Foundation

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
    static func format(of path: String) -> MarbleFormat? {
        MarbleFormat(rawValue: (path as NSString).pathExtension.lowercased())
    }

    /// Checks `path` (already validated to have a format's extension) as an output of a verb
    /// reading `inputs`.
    init(_ path: String, inputs: [InputFile], cuts: Bool = true) throws {
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
        let pending = try file.begin()
        try pending.write(figureBytes(data, isText: format == .txt))
        return pending
    }
}
