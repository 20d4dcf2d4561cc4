import Foundation
import XCTest

/// The layering README.md's module table states, checked against the sources: a module's
/// files import only the modules it may import, so a dependency cannot creep back in (the
/// trace format on the runtime, the tutorials on the renderers) without this test failing.
final class ModuleLayeringTests: XCTestCase {
    /// What each library module may import, besides the toolchain's own modules.
    private static let allowed: [String: Set<String>] = [
        "TraceKinds": [],
        "Locks": [],
        "MarbleNotation": [],
        "Signals": ["TraceKinds", "Locks", "CThreadLocal"],
        "TraceLog": ["TraceKinds", "CChecksum"],
        "Recording": ["Signals", "TraceLog", "TraceKinds", "Locks", "CTimestamp", "CProcessRecording", "CValueWitnesses"],
        "MarbleStreams": ["Signals", "MarbleNotation", "Locks"],
        "Spec": ["Signals", "MarbleNotation", "MarbleStreams", "Locks"],
        "Replay": ["Signals", "TraceLog", "Recording", "Locks"],
        "Diagrams": ["TraceLog", "Locks", "MarbleNotation", "CGraphviz", "CCairo"],
        "Viewer": ["TraceLog", "TraceKinds", "Diagrams"],
        "Tutorials": ["Signals", "TraceLog", "Recording", "Locks"],
        "Demo": ["Tutorials", "Signals", "TraceLog", "Replay", "Diagrams", "Viewer", "AsyncMarbles", "Recording",
                 "AsyncAlgorithms"],
        "MarblesTesting": ["Marbles", "Signals", "TraceLog", "Recording", "Replay", "MarbleNotation", "MarbleStreams", "Locks"],
        "Marbles": ["Signals", "TraceLog", "Recording", "Replay", "MarbleStreams", "AsyncMarbles"],
        "AsyncMarbles": ["Signals", "Locks", "CConcurrencyHooks", "MarbleNotation", "TraceLog", "Recording", "Replay"],
    ]
    /// Modules of the toolchain, always allowed (`CDispatch`: libdispatch's C API on Linux).
    private static let system: Set<String> = [
        "Swift", "Foundation", "Dispatch", "CDispatch", "Synchronization", "Glibc", "Darwin", "XCTest", "FoundationEssentials",
    ]

    private let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    func testEveryLibraryModuleImportsOnlyWhatItMay() throws {
        var problems: [String] = []
        for (module, allowed) in Self.allowed.sorted(by: { $0.key < $1.key }) {
            // The one-import module lives apart from Sources/marbles (see Package.swift).
            let folder = sources.appendingPathComponent(module == "Marbles" ? "MarblesImport" : module)
            let files = try XCTUnwrap(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
            var swiftFiles = 0
            for case let file as URL in files where file.pathExtension == "swift" {
                swiftFiles += 1
                for imported in try Self.imports(of: file) where !allowed.contains(imported) && !Self.system.contains(imported) {
                    problems.append("\(module)/\(file.lastPathComponent) imports \(imported)")
                }
            }
            XCTAssertGreaterThan(swiftFiles, 0, "no sources found for \(module)")
        }
        XCTAssertEqual(problems, [], "imports outside README.md's module table")
    }

    /// The modules a file imports: `import X`, `@_exported import X`, `@testable import X`.
    private static func imports(of file: URL) throws -> [String] {
        try String(contentsOf: file, encoding: .utf8).split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard let index = words.firstIndex(of: "import"), index <= 1, index + 1 < words.count,
                  index == 0 || words[0].hasPrefix("@") else { return nil }
            return String(words[index + 1].split(separator: ".")[0])
        }
    }
}
