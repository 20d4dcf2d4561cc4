import Foundation

/// A file path as the system knows it: its bytes, used as given. A name on the command line
/// need not be UTF-8 (`$'\xff.json'`), and a `String` or a `URL` made from it would replace the
/// byte with U+FFFD and name another file — one a tool would then read or replace. Every file
/// operation of the command line goes through a `PathName` (`withCString` for the system
/// calls), and every message shows it as `shown`, a byte that is not UTF-8 as `\xFF`.
///
/// It is also the one place the tools split a path, instead of Foundation's `NSString` path
/// helpers (which trap on a one-character name on Linux, and tidy a path — `a//b`, `./a` —
/// into another one). Only `/` separates components.
package struct PathName: Hashable, Sendable, CustomStringConvertible {
    /// The path's bytes, without a terminating NUL (a path holds none).
    package let bytes: [UInt8]

    /// The path of `bytes`.
    package init<Bytes: Sequence>(bytes: Bytes) where Bytes.Element == UInt8 {
        self.bytes = Array(bytes)
    }

    /// The path of `text`'s UTF-8 bytes.
    package init(_ text: String) {
        bytes = Array(text.utf8)
    }

    /// The path of a C string (from `realpath`, `getcwd`, `getenv`).
    package init(cString: UnsafePointer<CChar>) {
        bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self),
                                          count: strlen(cString)))
    }

    /// The path as a message shows it, on one line: its text, each byte that is not part of
    /// valid UTF-8 as `\xFF`, a newline as `⏎` (`reportLine`), so that a name can neither
    /// break a message's line nor forge one.
    package var shown: String {
        (Self.escapingInvalidUTF8(bytes) ?? String(decoding: bytes, as: UTF8.self)).reportLine
    }

    /// The path's text when it is valid UTF-8, else nil.
    package var text: String? {
        String(validating: bytes, as: UTF8.self)
    }

    package var description: String { shown }

    package var isEmpty: Bool { bytes.isEmpty }

    /// Whether the path starts at the root (`/`).
    package var isAbsolute: Bool { bytes.first == Self.slash }

    /// Whether the path ends in `/`: it names a folder, not a file.
    package var endsInSlash: Bool { bytes.last == Self.slash }

    /// Whether the path is exactly `text` (`-`, standard input or output).
    package func `is`(_ text: String) -> Bool {
        bytes.elementsEqual(text.utf8)
    }

    /// Calls `body` with the path as a NUL-terminated C string, for a system call.
    package func withCString<Result>(_ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        try (bytes + [0]).withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    /// The path with `suffix`'s bytes appended (no separator is added).
    package static func + (path: PathName, suffix: String) -> PathName {
        PathName(bytes: path.bytes + Array(suffix.utf8))
    }

    /// The path with `suffix` appended (no separator is added).
    package static func + (path: PathName, suffix: PathName) -> PathName {
        PathName(bytes: path.bytes + suffix.bytes)
    }

    /// `component` inside this folder: joined by one `/` (none is added after a trailing one).
    package func appending(_ component: PathName) -> PathName {
        endsInSlash || isEmpty ? self + component : self + "/" + component
    }

    /// The folder holding the path: `.` for a bare name (`a`, `trace.json`), `/` for a name at
    /// the root. Trailing slashes of the folder are dropped (`x//a` is in `x`).
    package var folder: PathName {
        guard let slash = bytes.lastIndex(of: Self.slash) else { return PathName(".") }
        var end = slash
        while end > 0 && bytes[end - 1] == Self.slash { end -= 1 }
        if end == 0 { return PathName("/") }
        return PathName(bytes: bytes[..<end])
    }

    /// The last component: what follows the last `/` (the whole path when it has none; empty
    /// for a path ending in `/`).
    package var lastComponent: PathName {
        guard let slash = bytes.lastIndex(of: Self.slash) else { return self }
        return PathName(bytes: bytes[(slash + 1)...])
    }

    /// The extension of the last component, without its dot, as written: empty when the name
    /// has no dot past its first character (`.hidden` and `trace.` have none).
    package var fileExtension: PathName {
        let name = lastComponent.bytes
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > 0, dot < name.count - 1 else { return PathName("") }
        return PathName(bytes: name[(dot + 1)...])
    }

    /// The path without its extension and the dot before it (the whole path when it has none).
    package var removingExtension: PathName {
        let count = fileExtension.bytes.count
        return count == 0 ? self : PathName(bytes: bytes.dropLast(count + 1))
    }

    private static let slash = UInt8(ascii: "/")

    // MARK: Paths as text

    /// The folder holding `path` (see `folder`).
    package static func folder(of path: String) -> String {
        PathName(path).folder.decoded
    }

    /// The last component of `path` (see `lastComponent`).
    package static func lastComponent(of path: String) -> String {
        PathName(path).lastComponent.decoded
    }

    /// The extension of `path`'s last component (see `fileExtension`).
    package static func fileExtension(of path: String) -> String {
        PathName(path).fileExtension.decoded
    }

    /// The text of a part of a path made from text: split at a `/`, it is whole UTF-8.
    private var decoded: String { String(decoding: bytes, as: UTF8.self) }

    /// `bytes` as text with each byte that is not part of valid UTF-8 shown as `\xFF`, or nil
    /// when they are all valid UTF-8.
    package static func escapingInvalidUTF8(_ bytes: [UInt8]) -> String? {
        if String(validating: bytes, as: UTF8.self) != nil { return nil }
        var shown = ""
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0
            if length > 0, index + length <= bytes.count,
               let text = String(validating: bytes[index..<(index + length)], as: UTF8.self) {
                shown += text
                index += length
            } else {
                shown += Self.hex(lead)
                index += 1
            }
        }
        return shown
    }

    /// `\xFF`: how a message shows a byte that is not text.
    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "\\x" + (digits.count == 1 ? "0" : "") + digits
    }

    // MARK: Command-line arguments

    /// A command-line argument (its bytes, as `argv` holds them) as text that keeps every byte:
    /// what the argument parser is given, since it parses `String`s. Valid UTF-8 is kept as
    /// its text, and each byte that is not is written as one private-use character,
    /// U+10FF80 to U+10FFFF for the bytes 0x80 to 0xFF (an invalid byte is never ASCII).
    /// `PathName(argument:)` turns the text back into the same bytes.
    ///
    /// Why this form rather than parsing `String`s and looking the argument up again in
    /// `argv`: the parser splits arguments (`--output=FILE`, `-oFILE`) and two arguments that
    /// differ only in bytes that are not UTF-8 decode to the same text, so a lookup cannot
    /// always tell which argument a value came from; a value carried through the parser in a
    /// reversible form can only be its own.
    ///
    /// The form is reversible for every argument: a character of that private range that an
    /// argument holds as text (valid UTF-8, `F4 8F BE 80` to `F4 8F BF BF`) is written as the
    /// private characters of its four bytes, so the text never holds one of them that does
    /// not stand for a byte. Any other argument's text is the argument as `CommandLine`
    /// decodes it.
    package static func argumentText(_ bytes: [UInt8]) -> String {
        var text = String.UnicodeScalarView()
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0
            if length > 0, index + length <= bytes.count,
               let character = String(validating: bytes[index..<(index + length)], as: UTF8.self),
               let scalar = character.unicodeScalars.first, !isByteCharacter(scalar) {
                text.append(scalar)
                index += length
            } else {
                // A byte that is not part of valid UTF-8, or the first of a private character's own four.
                let count = length > 0 && index + length <= bytes.count
                    && String(validating: bytes[index..<(index + length)], as: UTF8.self) != nil ? length : 1
                for byte in bytes[index..<(index + count)] { text.append(byteCharacter(byte)) }
                index += count
            }
        }
        return String(text)
    }

    /// The path whose bytes `argumentText` wrote as `text` (for text that holds no private
    /// character, its UTF-8 bytes).
    package init(argument text: String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if Self.isByteCharacter(scalar) {
                bytes.append(UInt8(scalar.value - Self.byteCharacterBase))
            } else {
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        self.bytes = bytes
    }

    /// Whether `text`, from `argumentText`, holds a byte that is not UTF-8: an argument that
    /// must be text (a title) is refused then.
    package static func argumentHoldsBytes(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: isByteCharacter)
    }

    /// `text` that may quote arguments (a parser's message: "Unexpected argument '…'") with
    /// each byte `argumentText` kept shown as `\xFF`.
    package static func showingArgumentBytes(_ text: String) -> String {
        guard argumentHoldsBytes(text) else { return text }
        var shown = ""
        for scalar in text.unicodeScalars {
            if isByteCharacter(scalar) {
                shown += hex(UInt8(scalar.value - byteCharacterBase))
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }

    /// U+10FF00: the private character for byte B is this plus B (0x80 to 0xFF).
    private static let byteCharacterBase: UInt32 = 0x10FF00

    private static func isByteCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= byteCharacterBase + 0x80 && scalar.value <= byteCharacterBase + 0xFF
    }

    private static func byteCharacter(_ byte: UInt8) -> Unicode.Scalar {
        Unicode.Scalar(byteCharacterBase + UInt32(byte))!
    }
}
