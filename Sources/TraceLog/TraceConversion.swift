/// Turns a trace from one encoding into the other (FORMAT.md), one record at a time: a trace
/// of any size converts in bounded memory. A trace Marbles wrote converts to the other encoding
/// and back to the same bytes.
///
/// ```swift
/// let reader = try TraceReader(url: URL(fileURLWithPath: "traces/pixels.trace"))
/// var binary: [UInt8] = []
/// let records = try TraceConversion.convert(reader, to: .binary) { binary += $0 }
/// print(records, "records,", binary.count, "bytes")
/// ```
public enum TraceConversion {
    /// Reads every record of `reader`, header included, and hands `write` the trace in
    /// `encoding`, in pieces, in order. Returns how many records were written. The reader's
    /// `warnings` say what was skipped (a cut-off end: the converted trace then has no summary
    /// either).
    @discardableResult
    public static func convert(_ reader: TraceReader, to encoding: TraceEncoding,
                               write: ([UInt8]) throws -> Void) throws -> Int {
        var count = 1
        switch encoding {
        case .jsonLines:
            var lines = TraceRecord.header(reader.header).jsonLine
            while let record = try reader.next() {
                lines += record.jsonLine
                count += 1
                if lines.count >= 1 << 16 {
                    try write(lines)
                    lines.removeAll(keepingCapacity: true)
                }
            }
            try write(lines)
        case .binary:
            var encoder = BinaryTraceEncoder(header: reader.header)
            while let record = try reader.next() {
                encoder.append(record)
                count += 1
                let bytes = encoder.takeBytes()
                if !bytes.isEmpty { try write(bytes) }
            }
            encoder.flush()
            try write(encoder.takeBytes())
        }
        return count
    }

    /// The trace in `bytes` (either encoding) in `encoding`; `name` stands for it in messages.
    public static func converted(_ bytes: [UInt8], name: String = "<memory>", to encoding: TraceEncoding) throws -> [UInt8] {
        var output: [UInt8] = []
        try convert(TraceReader(bytes: bytes, name: name), to: encoding) { output += $0 }
        return output
    }
}
