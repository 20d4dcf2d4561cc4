import Foundation
import TraceLog
import XCTest

/// The path parts the tools work out from bytes (issue 33 item 1: Foundation's helpers trapped
/// on a one-character name), and paths that are not UTF-8 kept as their bytes (issue 31 item 5).
final class PathNameTests: XCTestCase {
    func testFolderOfAPath() {
        let cases: [(String, String)] = [
            ("a", "."), ("é", "."), ("trace.json", "."), ("./a", "."), ("x/a", "x"), ("x//a", "x"),
            ("/a", "/"), ("//a", "/"), ("/x/y/a.trace", "/x/y"), ("x/", "x"), ("..", "."), ("../a", ".."),
        ]
        for (path, folder) in cases { XCTAssertEqual(PathName.folder(of: path), folder, path) }
    }

    func testLastComponentAndExtension() {
        XCTAssertEqual(PathName.lastComponent(of: "a"), "a")
        XCTAssertEqual(PathName.lastComponent(of: "x/y/a.svg"), "a.svg")
        XCTAssertEqual(PathName.lastComponent(of: "x/"), "")
        let extensions: [(String, String)] = [
            ("a.svg", "svg"), ("x/a.tar.gz", "gz"), (".hidden", ""), ("trace.", ""), ("a", ""),
            ("x.d/a", ""), ("A.PNG", "PNG"), ("é.pdf", "pdf"),
        ]
        for (path, fileExtension) in extensions { XCTAssertEqual(PathName.fileExtension(of: path), fileExtension, path) }
    }

    func testInvalidUTF8IsShownByteByByte() {
        XCTAssertNil(PathName.escapingInvalidUTF8(Array("é.json".utf8)))
        XCTAssertEqual(PathName.escapingInvalidUTF8([0xFF] + Array(".json".utf8)), "\\xFF.json")
        XCTAssertEqual(PathName.escapingInvalidUTF8([0x61, 0xC3, 0xA9, 0xC3, 0x62]), "aé\\xC3b")
        XCTAssertEqual(PathName.escapingInvalidUTF8([0xE2, 0x82]), "\\xE2\\x82")
        XCTAssertEqual(PathName.escapingInvalidUTF8([0x0A, 0x80]), "\n\\x80")
    }

    func testPartsOfAPathThatIsNotUTF8KeepItsBytes() {
        let path = PathName(bytes: Array("x/".utf8) + [0xFF] + Array("/a".utf8) + [0xC3] + Array("(b.sv".utf8) + [0xE9])
        XCTAssertEqual(path.folder.bytes, Array("x/".utf8) + [0xFF])
        XCTAssertEqual(path.lastComponent.bytes, Array("a".utf8) + [0xC3] + Array("(b.sv".utf8) + [0xE9])
        XCTAssertEqual(path.fileExtension.bytes, Array("sv".utf8) + [0xE9])
        XCTAssertEqual(path.removingExtension.bytes, Array("x/".utf8) + [0xFF] + Array("/a".utf8) + [0xC3] + Array("(b".utf8))
        XCTAssertEqual(path.shown, "x/\\xFF/a\\xC3(b.sv\\xE9")
        XCTAssertNil(path.text)
        XCTAssertEqual(PathName("é.svg").text, "é.svg")
        XCTAssertEqual(PathName("/").appending(PathName("a")).bytes, Array("/a".utf8))
        XCTAssertEqual(PathName("x").appending(PathName("a")).bytes, Array("x/a".utf8))
    }

    /// An argument goes through the argument parser as text and comes back as its bytes,
    /// whatever they are.
    func testAnArgumentsBytesSurviveItsText() {
        let arguments: [[UInt8]] = [
            Array("plain.trace".utf8), Array("é ∑ 🙂".utf8), [0xFF], [0x80, 0xBF, 0xC0, 0xC1, 0xF5, 0xFE],
            Array("a".utf8) + [0xC3] + Array("(b".utf8), [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF0, 0x9F, 0x99],
            Array("--output=".utf8) + [0xFF] + Array(".json".utf8),
            // The private characters themselves, as text: U+10FF80, U+10FFFF, and one just below the range.
            Array("\u{10FF80}\u{10FFFF}\u{10FF7F}".utf8), [0xF4, 0x8F, 0xBE, 0x80] + [0xFF],
        ]
        for bytes in arguments {
            let text = PathName.argumentText(bytes)
            XCTAssertEqual(PathName(argument: text).bytes, bytes, "\(bytes)")
            // Valid text without the private characters is unchanged.
            if let plain = String(validating: bytes, as: UTF8.self), !plain.unicodeScalars.contains(where: { $0.value >= 0x10FF80 }) {
                XCTAssertEqual(text, plain)
                XCTAssertFalse(PathName.argumentHoldsBytes(text))
            } else {
                XCTAssertTrue(PathName.argumentHoldsBytes(text), "\(bytes)")
            }
        }
        // Distinct arguments stay distinct (both would be "\u{FFFD}.json" as text).
        XCTAssertNotEqual(PathName.argumentText([0xFF] + Array(".json".utf8)), PathName.argumentText([0xFE] + Array(".json".utf8)))
        XCTAssertEqual(PathName.showingArgumentBytes("Unexpected argument '" + PathName.argumentText([0xFF, 0x41]) + "'"),
                       "Unexpected argument '\\xFFA'")
    }

    func testATraceIsReadAndAReplacementMadeByTheBytesOfItsName() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pathname-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let header = #"{"type":"header","format":"marbles-trace","version":"1.1","unit":"ns","clock":"virtual"}"# + "\n"
        let path = PathName(folder.path).appending(PathName(bytes: [0xFF] + Array(".trace".utf8)))
        let descriptor = path.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        XCTAssertEqual(header.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }, header.utf8.count)
        close(descriptor)
        let reader = try TraceReader(path: path)
        XCTAssertEqual(reader.name, path.shown)
        XCTAssertNil(try reader.next())
        // The temporary file beside it keeps the name's bytes, and lies in the same folder.
        guard case let .success((temporary, made)) = ReplacementFile.make(beside: path, keeping: nil) else {
            return XCTFail("no replacement file")
        }
        close(made)
        XCTAssertEqual(temporary.folder, path.folder)
        XCTAssertTrue(temporary.lastComponent.bytes.starts(with: Array(".".utf8) + [0xFF] + Array(".trace.marbles-".utf8)),
                      temporary.shown)
        XCTAssertEqual(temporary.withCString { unlink($0) }, 0)
        // Nothing was made under the name as text.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).count, 1)
    }
}
