import ArgumentParser
import Diagrams
import Foundation
import Replay
import Spec
import Signals
import TraceLog
import Recording

/// `marbles draw TRACE|SPEC --marble|--pipeline -o FILE`: figures from a trace or a spec.
struct DrawCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "draw",
        abstract: "Draw a marble diagram or a pipeline diagram of a trace or a .marbles spec.",
        discussion: """
        The input is a trace (JSON Lines or binary, see traces/FORMAT.md) or a .marbles spec (the \
        language of 'marbles play'), recognised by its .marbles extension; a spec is run with \
        the real operators in virtual time and its trace drawn: without --nodes or --all, as \
        'marbles play --draw' draws it (one lane per named stream, under a box with its \
        expression; the spec's clock is the thread "test").

        --marble (the default) draws a time line per stream in pipeline order, the operator \
        in a box between a stream and the stream it produces; marbles show values (the full \
        value on hover in SVG) and are coloured by the thread that delivered them; '|' \
        completed, a red cross failed, a double bar interrupted, a dashed tick disposed, '^' \
        subscribed. Inner streams of flatMap and friends are short lanes under their \
        operator, starting where they were subscribed; more than 32 inner streams of one \
        stream are one lane, each start and end a mark on it. Long idle gaps are cut \
        (marked on the axis with the time cut; --no-cuts draws every wait at its true \
        length); marbles closer than their width are drawn \
        as one with a count; a lane with more marks of a kind than the axis can show apart \
        draws those within 12 pixels of each other once, counted on hover (data-count).

        --pipeline draws the operators as a graph laid out by Graphviz: sources as ellipses, \
        sinks as double boxes, edges labelled with the events that crossed them ("3 values \
        · 2 failed · 1 interrupted": failures and interruptions when there were any), an \
        edge a failure crossed in heavy red (with a key of edges), a node that failed or \
        was interrupted counting them under its name, inner streams dashed into the node \
        that created them, failures as dashed red edges from where they began to the sink \
        that received them, and boxes around the nodes that deliver on one thread. --heat colours \
        nodes by the time they took working: their p95 stage latency (as 'marbles stats' \
        computes it, from a value's cause to the value). An operator that holds values on \
        purpose (debounce, throttle, audit, delay, timeout, sample) is drawn apart, dashed \
        and pale blue, with the wait it was asked for ("waits 300 ms on purpose"), and is \
        left off the scale, so a debounce's quiet period is not painted as a slow service.

        The output format comes from the file's extension: .svg, .png, .pdf, .txt (marble \
        lines, --marble only) or .dot (the laid-out graph in Graphviz's language, --pipeline \
        only), or from --format; -o - writes the figure to standard output (marble lines, or \
        DOT for a pipeline, unless --format names another). Without -o, marble lines go to \
        standard output. SVG and text are \
        byte-identical for the same input and options. In text, control and bidi characters \
        of labels and values are shown as escapes (\\u{1B}); every value, subscription and end \
        of a lane is on its line, values longer than a character keyed (a, b, … then [63], \
        [64], …) and listed under the lines. A PNG over \(Mural.limit) pixels a side is still \
        written, with a warning naming what to draw instead (--split or --nodes for parts \
        of a marble diagram, SVG, 'marbles view'); --split writes a marble diagram that tall \
        in parts of whole lanes and boxes, FILE-1.EXT, FILE-2.EXT, … (one legend's colours, \
        each part's title saying which it is).

        \(OutputFile.helpParagraph)

        Exit status: 0 on success, 2 when the input is missing or malformed (the message \
        names file, line and column), an option is invalid, a --nodes name is unknown, or \
        the output cannot be written.

        Examples:
          marbles draw traces/twitter-instant.trace --marble -o diagrams/twitter-instant.svg
          marbles draw traces/twitter-instant.trace --pipeline --heat -o pipeline.png
          marbles draw traces/twitter-instant.trace --nodes searchText,validSearchText,searchResults --causes
          marbles draw Sources/Signals/Signals.docc/Resources/guide-flatten.marbles -o flatten.pdf
        """
    )

    enum Kind: String {
        case marble, pipeline
    }

    @Argument(help: "The trace file, or a .marbles spec to run and draw.")
    var input: PathName

    // Two flags rather than one `EnumerableFlag`: its help printed "(default: --marble)" after
    // --marble, and giving both printed the parser's "Value to be set with flag '--pipeline'
    // had already been set with flag '--marble'".
    @Flag(help: "Draw a marble diagram: a time line per stream (the default).")
    var marble = false

    @Flag(help: "Draw the pipeline: operators and the data flow between them.")
    var pipeline = false

    /// What to draw.
    var kind: Kind { pipeline ? .pipeline : .marble }

    @Option(name: .shortAndLong, help: ArgumentHelp(
        "The file to write: .svg, .png, .pdf, .txt (marble lines) or .dot (the laid-out pipeline graph); - for standard output in the --format given. Standard output (marble lines) when absent.",
        valueName: "file"))
    var output: PathName?

    @Option(help: ArgumentHelp("The figure's format when it is not the output file's extension: with -o -, or to override it (svg, png, pdf, txt, dot). Default for -o -: txt for a marble diagram, dot for a pipeline.", valueName: "format"))
    var format: FigureFormat?

    @Option(help: "Comma-separated nodes to draw lanes for, each by label, operator name or id (3 or #3). Default: the nodes on a path from a source to a sink.",
            transform: textArgument)
    var nodes: String?

    @Flag(help: "Draw a lane for every node except sinks, not only those on a source-to-sink path.")
    var all = false

    @Flag(help: "Draw an arrow from each marble to the marbles it caused (marble diagrams).")
    var causes = false

    @Flag(help: "Colour pipeline nodes by the time they took working (p95 stage latency), intended waits (debounce, throttle, delay, timeout, sample) apart, with a legend (pipeline diagrams).")
    var heat = false

    @Option(help: "A title above the figure. Default: the input's file name.", transform: textArgument)
    var title: String?

    @Flag(name: .customLong("no-cuts"), help: "Draw time linearly, every wait at its true length, without cutting out long idle gaps (marble diagrams).")
    var noCuts = false

    @Flag(help: "Write a marble diagram taller than a \(Mural.limit)-pixel PNG in parts of whole lanes, FILE-1.EXT, FILE-2.EXT, … instead of FILE (.svg, .png or .pdf).")
    var split = false

    @Option(help: "The widest a marble diagram may be, in pixels (400 to 16000).")
    var width: Double = MarbleRenderer.defaultMaxWidth

    /// The figure's format: `--format`, else the output file's extension, else (standard
    /// output) text for a marble diagram and DOT for a pipeline.
    private var figureFormat: FigureFormat? {
        if let format { return format }
        guard let output, !output.is("-") else { return kind == .marble ? .txt : .dot }
        return FigureFormat(path: output)
    }

    /// Whether the input is a `.marbles` spec, by its extension.
    private var isSpec: Bool { input.fileExtension.is("marbles") }

    /// The formats each kind of figure can be written in.
    private var allowed: [FigureFormat] { kind == .marble ? [.svg, .png, .pdf, .txt] : [.svg, .png, .pdf, .dot] }

    func validate() throws {
        if marble && pipeline { throw ValidationError("--marble and --pipeline draw two different figures; give one") }
        if nodes != nil && all { throw ValidationError("--nodes and --all choose lanes in two ways; give one") }
        if noCuts && kind == .pipeline { throw ValidationError("--no-cuts goes with a marble diagram; a pipeline diagram has no time axis") }
        if split && (kind == .pipeline || output == nil || output?.is("-") == true || figureFormat == .txt) {
            throw ValidationError("--split goes with a marble diagram written to -o FILE.svg, .png or .pdf")
        }
        if !(400...16_000).contains(width) { throw ValidationError("--width must be between 400 and 16000 pixels") }
        guard let output else {
            guard kind == .marble else { throw ValidationError("a pipeline diagram needs -o FILE.svg, .png, .pdf or .dot (or -o - for standard output)") }
            if let format, format != .txt { throw ValidationError("--format \(format.rawValue) needs -o FILE, or -o - for standard output") }
            return
        }
        if let format, !allowed.contains(format) {
            throw ValidationError("--format \(format.rawValue) is not a format of a \(kind.rawValue) diagram; "
                + "expected \(allowed.map(\.rawValue).joined(separator: ", "))")
        }
        guard let format = figureFormat, allowed.contains(format) else {
            throw ValidationError("\(output): expected a file name ending in \(allowed.map { "." + $0.rawValue }.joined(separator: ", ")) "
                + "for a \(kind.rawValue) diagram")
        }
    }

    func run() throws {
        let source = try InputFile(input)
        let file = try output.map { try OutputFile($0, option: "-o", inputs: [source]) }
        let name = input.lastComponent.shown
        let figureTitle = title ?? name
        // A marble diagram of a trace file is drawn from the file, read twice, never held
        // whole: a 2 M-event trace is half a gigabyte (a named pipe can be read only once).
        let drawn: Drawn = kind == .marble && source.isRegularFile && !isSpec ? .file(input) : try load(source)
        let data: Data
        do {
            switch kind {
            case .marble:
                let selection: MarbleOptions.Selection
                if let nodes {
                    selection = .nodes(nodes.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                } else {
                    selection = all ? .all : .paths
                }
                let options = MarbleOptions(selection: selection, causes: causes, title: figureTitle)
                var figure: MarbleFigure
                switch drawn {
                case let .file(path):
                    figure = try streamedFigure(path, options: options)
                case let .loaded(trace, _, spec?) where nodes == nil && !all:
                    // A spec's run, with no lanes asked for, is drawn as `play --draw` draws it.
                    figure = try SpecFigure.make(result: spec, trace: trace, causes: causes, title: figureTitle)
                case let .loaded(trace, _, _):
                    figure = try MarbleFigure(trace: trace, options: options)
                }
                figure.cutsIdleTime = !noCuts
                let marbleFormat = MarbleFormat(rawValue: figureFormat?.rawValue ?? "") ?? .txt
                if split, let file, !file.path.is("-") {
                    let parts = MarbleRenderer.parts(figure, maxHeight: Double(Mural.limit) / 2)
                    if parts.count > 1 {
                        try writeParts(parts, format: marbleFormat, of: file, source: source)
                        return
                    }
                }
                if marbleFormat == .svg, let file {
                    // Written as it is turned into text: the SVG of a big trace's figure is a
                    // hundred megabytes, which a string, its bytes and their copy held three times.
                    let pending = try file.begin()
                    try MarbleRenderer.writeSVG(figure, maxWidth: width) { try pending.write(Array($0.utf8)) }
                    try pending.commit()
                    return
                }
                data = try MarbleRenderer.render(figure, format: marbleFormat, maxWidth: width)
            case .pipeline:
                guard case let .loaded(trace, bytes, _) = drawn else { preconditionFailure("a pipeline diagram is drawn from a loaded trace") }
                var latencies: [UInt64: Int64]?
                if heat, let bytes {
                    let stats = try TraceStats.compute(TraceReader(bytes: bytes, name: name))
                    latencies = [:]
                    for node in stats.nodes {
                        if let latency = node.stageLatency { latencies?[node.node.id] = latency.p95 }
                    }
                }
                let graph = PipelineGraph(trace: trace, title: figureTitle, latencies: latencies)
                if let bounded = graph.bounded() { Console.error("marbles: warning: \(bounded.note)") }
                data = try PipelineRenderer.render(graph, format: PipelineFormat(rawValue: figureFormat?.rawValue ?? "") ?? .svg)
            }
        } catch let error as DiagramError {
            throw Self.failure("\(error)")
        }
        guard let file else {
            try Console.print(String(decoding: data, as: UTF8.self))
            return
        }
        if figureFormat == .png, let warning = Mural.warning(png: data, path: file.path.shown, marble: kind == .marble, canSplit: kind == .marble) {
            Console.error(warning)
        }
        try file.write(figureBytes(data, isText: figureFormat == .txt))
    }

    /// Writes each of `parts` to `FILE-1.EXT`, `FILE-2.EXT`, … beside `file`, each checked as
    /// an output like `file`, and says on standard error what was written.
    private func writeParts(_ parts: [MarbleFigure], format: MarbleFormat, of file: OutputFile, source: InputFile) throws {
        let ext = file.path.fileExtension
        let base = file.path.removingExtension
        let paths = parts.indices.map { base + "-\($0 + 1)." + ext }
        let files = try paths.map { try OutputFile($0, option: "-o", inputs: [source]) }
        for (part, partFile) in zip(parts, files) {
            let pending = try partFile.begin()
            if format == .svg {
                try MarbleRenderer.writeSVG(part, maxWidth: width) { try pending.write(Array($0.utf8)) }
            } else {
                let data: Data
                do {
                    data = try MarbleRenderer.render(part, format: format, maxWidth: width)
                } catch let error as DiagramError {
                    throw Self.failure("\(error)")
                }
                try pending.write(Array(data))
                if format == .png, let warning = Mural.warning(png: data, path: partFile.path.shown, marble: true) { Console.error(warning) }
            }
            try pending.commit()
        }
        Console.error("marbles: \(file.path.shown) drawn in \(parts.count) parts: \(paths.map(\.shown).joined(separator: ", "))")
    }

    /// What a figure is drawn from: a trace file read as the figure is made, or a loaded trace.
    private enum Drawn {
        case file(PathName)
        case loaded(Trace, bytes: [UInt8]?, spec: SpecResult?)
    }

    /// The marble diagram of the trace file at `path`, read as it is made; what the reading
    /// held is freed before the figure is laid out.
    private func streamedFigure(_ path: PathName, options: MarbleOptions) throws -> MarbleFigure {
        let file = try MarbleTraceFile(path: path, name: input.shown)
        Console.warn(file.warnings)
        return try MarbleFigure(file: file, options: options)
    }

    /// The trace to draw, and its bytes when --heat reads them twice (a named pipe can be
    /// read only once) or a spec was run, with the spec's result. Otherwise a trace file is
    /// streamed into the `Trace`, never held whole in memory: a 2 M-event trace is half a
    /// gigabyte.
    private func load(_ source: InputFile) throws -> Drawn {
        guard isSpec else {
            let contents = heat ? try source.contents() : nil
            // Neither figure draws hops or marks, and a pipeline no ends of subscriptions.
            let unused: Trace.Parts = kind == .marble ? [.hops, .marks] : [.hops, .marks, .disposals]
            let trace = try contents.map { try Trace(bytes: $0, name: source.name) }
                ?? Trace(reader: source.traceReader(), leavingOut: unused)
            Console.warn(trace.warnings)
            return .loaded(trace, bytes: contents, spec: nil)
        }
        let contents = try source.contents()
        guard let text = String(bytes: contents, encoding: .utf8) else {
            throw CLIError.file(input, "expected UTF-8 text")
        }
        let document = try SpecDocument.parse(text, file: source.name)
        // The spec's clock is the thread "test", as in `play`: `observe(on: "main")` is a hop.
        let scheduler = TestScheduler()
        var result: SpecResult?
        let bytes = try Recorder.record(virtual: scheduler) { result = try document.run(on: scheduler) }
        return .loaded(try Trace(bytes: bytes, name: source.name), bytes: bytes, spec: result)
    }
}

