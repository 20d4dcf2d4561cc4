/// The parts of a file path, worked out from its bytes: the one place the tools split a path,
/// instead of Foundation's `NSString` path helpers (which trap on a one-character name on
/// Linux, and tidy a path — `a//b`, `./a` — into another one). A path is used as given;
/// only `/` separates its components.
package enum PathName {
    /// The folder holding `path`: `.` for a bare name (`a`, `trace.json`), `/` for a name at
    /// the root. Trailing slashes of the folder are dropped (`x//a` is in `x`).
    package static func folder(of path: String) -> String {
        let bytes = Array(path.utf8)
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        var end = slash
        while end > 0 && bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        if end == 0 { return "/" }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// The last component of `path`: what follows its last `/` (the whole path when it has
    /// none; empty for a path ending in `/`).
    package static func lastComponent(of path: String) -> String {
        let bytes = Array(path.utf8)
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(decoding: bytes[(slash + 1)...], as: UTF8.self)
    }

    /// The extension of `path`'s last component, without its dot, as written: empty when the
    /// name has no dot past its first character (`.hidden` and `trace.` have none).
    package static func fileExtension(of path: String) -> String {
        let name = Array(lastComponent(of: path).utf8)
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > 0, dot < name.count - 1 else { return "" }
        return String(decoding: name[(dot + 1)...], as: UTF8.self)
    }

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
                let hex = String(lead, radix: 16, uppercase: true)
                shown += "\\x" + (hex.count == 1 ? "0" : "") + hex
                index += 1
            }
        }
        return shown
    }
}
