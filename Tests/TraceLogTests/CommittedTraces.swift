import Foundation
import XCTest

/// The repository's top folder.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// Every committed trace and the diagram tests' fixture, as bytes, by file name, in path order.
func committedTraces() throws -> [(name: String, bytes: [UInt8])] {
    var files: [URL] = []
    for folder in ["traces", "traces/golden"] {
        files += try FileManager.default.contentsOfDirectory(at: repositoryRoot.appendingPathComponent(folder),
                                                             includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "trace" }
    }
    files.append(repositoryRoot.appendingPathComponent("Tests/DiagramsTests/Support/autocomplete.trace"))
    files.sort { $0.path < $1.path }
    XCTAssertGreaterThan(files.count, 10)
    return try files.map { ($0.lastPathComponent, Array(try Data(contentsOf: $0))) }
}
