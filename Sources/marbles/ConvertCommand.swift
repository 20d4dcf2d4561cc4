import ArgumentParser
import Foundation
import TraceLog

/// `marbles convert TRACE -o OUT`: a trace from JSON Lines to the binary encoding or back.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a trace between JSON Lines and the binary encoding.",
        discussion: """
        A trace has two encodings of the same records (traces/FORMAT.md): JSON Lines, the \
        open interchange format that people read and diff, and a binary encoding of \
        fixed-size records in checksummed chunks (conventionally *.mtrace), smaller and \
        faster to read. Every verb reads both; this one turns a trace into the other \
        encoding (or, with --to, the one named). A trace Marbles wrote converts to binary \
        and back to the same bytes.

        The conversion streams: a trace of any size is converted in bounded memory (the \
        binary encoding's string table aside). A trace cut off (a killed recording) \
        converts up to its last whole record or chunk, with a warning, and the result is \
        cut off the same way: it has no summary either.

        \(OutputFile.helpParagraph)

        Exit status: 0 on success, 2 when the trace is missing or malformed (the message \
        names the file and the line, or for a binary trace the byte offset), an option is \
        invalid, or the output cannot be written.

        Example:
          marbles convert traces/pixels.trace -o pixels.mtrace
          marbles convert pixels.mtrace -o - | head -3
          marbles convert traces/pixels.trace --to jsonl -o same.trace
        """
    )

    @Argument(help: "The trace file to convert (JSON Lines or binary, see traces/FORMAT.md).")
    var trace: PathName

    @Option(name: .long, help: ArgumentHelp(
        "The encoding to write: binary or jsonl (JSON Lines). The default is the one the trace is not in.",
        valueName: "encoding"))
    var to: TraceEncoding?

    @OptionGroup var output: OutputOption

    func run() throws {
        let input = try InputFile(trace)
        let file = try OutputFile(output.output, option: "-o", inputs: [input])
        let reader = try input.traceReader()
        let encoding = to ?? (reader.encoding == .binary ? .jsonLines : .binary)
        let pending = try file.begin()
        let records = try TraceConversion.convert(reader, to: encoding) { try pending.write($0) }
        Console.warn(reader.warnings)
        let names: [TraceEncoding: String] = [.binary: "binary", .jsonLines: "JSON Lines"]
        try Console.print("wrote \(output.output.shown): \(records) records, \(names[encoding] ?? "") from \(names[reader.encoding] ?? "")\n")
        try pending.commit()
    }
}

extension TraceEncoding: ExpressibleByArgument {}
