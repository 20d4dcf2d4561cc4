import Foundation
import Locks

/// Standard output and standard error. Every text goes through `TerminalText` first; a
/// failed write to standard output (a full disk, a closed device) is an error that stops the
/// verb with exit status 2, never a silent success or a trap.
enum Console {
    /// Whether an output named `-` writes to standard output, so the verb's own text goes to
    /// standard error instead of into the stream.
    private static let streamTaken = Protected(false)

    /// Standard output is an output's stream (`-o -`): what `print` says goes to standard
    /// error from now on.
    static func outputTaken() {
        streamTaken.modify { $0 = true }
    }

    /// Writes human-readable text to standard output, controls shown as escapes.
    static func print(_ text: String) throws {
        try writeOut(TerminalText.escaped(text))
    }

    /// Writes a JSON document to standard output, DEL, C1 and bidi controls as JSON escapes.
    static func printJSON(_ json: String) throws {
        try writeOut(TerminalText.escapedJSON(json))
    }

    /// Writes `line` and a newline to standard error, controls shown as escapes. A failure
    /// to write there has nowhere to be reported, so it is ignored.
    static func error(_ line: String) {
        _ = try? writeAll(Array((TerminalText.escaped(line) + "\n").utf8), to: STDERR_FILENO)
    }

    /// Each warning a reader gave, on standard error.
    static func warn<Warning: CustomStringConvertible>(_ warnings: [Warning]) {
        for warning in warnings { error(warning.description) }
    }

    private static func writeOut(_ text: String) throws {
        if streamTaken.current {
            _ = try? writeAll(Array(text.utf8), to: STDERR_FILENO)
            return
        }
        do {
            try writeAll(Array(text.utf8), to: STDOUT_FILENO)
        } catch let error as WriteError {
            throw CLIError("marbles: error: cannot write to standard output: \(error.reason)")
        }
    }

    /// Why a write failed: `errno`'s text.
    struct WriteError: Error {
        let reason: String
    }

    /// Writes all of `bytes` to `descriptor`, retrying short and interrupted writes.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw WriteError(reason: errnoReason())
            }
            offset += written
        }
    }
}
