import TraceLog
import XCTest

/// The path parts the tools work out from bytes (issue 33 item 1: Foundation's helpers trapped
/// on a one-character name).
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
}
