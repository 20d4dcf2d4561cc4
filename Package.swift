// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Marbles",
    platforms: [.macOS(.v15)],
    products: [
        // The one import for a user's app (`import Marbles`); tests add `import MarblesTesting`.
        .library(name: "Marbles", targets: ["Marbles"]),
        .library(name: "Signals", targets: ["Signals"]),
        .library(name: "TraceLog", targets: ["TraceLog"]),
        .library(name: "Recording", targets: ["Recording"]),
        .library(name: "Diagrams", targets: ["Diagrams"]),
        .library(name: "Replay", targets: ["Replay"]),
        .library(name: "MarbleNotation", targets: ["MarbleNotation"]),
        .library(name: "MarbleStreams", targets: ["MarbleStreams"]),
        .library(name: "Spec", targets: ["Spec"]),
        .library(name: "MarblesTesting", targets: ["MarblesTesting"]),
        .library(name: "Viewer", targets: ["Viewer"]),
        .library(name: "AsyncMarbles", targets: ["AsyncMarbles"]),
        .library(name: "Tutorials", targets: ["Tutorials"]),
        .executable(name: "marbles", targets: ["MarblesCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The operators async pipelines are written with (debounce, merge, combineLatest,
        // chunks, AsyncChannel); the tap names their nodes and the tests run them.
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
    ],
    targets: [
        .target(name: "TraceKinds"),
        .target(name: "Locks"),
        // The CPU's time-stamp counter, which Swift cannot read itself (the recorder's clock).
        .target(name: "CTimestamp"),
        // A C thread-local variable, which Swift has not: the way to a thread's probe context.
        .target(name: "CThreadLocal"),
        .target(name: "Signals", dependencies: ["TraceKinds", "Locks", "CThreadLocal"]),
        // CRC-32C through the processor's instruction, which Swift cannot name itself: the
        // binary trace encoding's chunk checksum.
        .target(name: "CChecksum"),
        .target(name: "TraceLog", dependencies: ["TraceKinds", "CChecksum"]),
        // The Swift concurrency runtime's global enqueue hook: how a virtual-time run of async
        // pipelines takes every job (AsyncMarbles' VirtualTimeDriver).
        .target(name: "CConcurrencyHooks"),
        // Records AsyncSequence pipelines into the same trace (`sequence.marbles("label")`).
        .target(name: "AsyncMarbles", dependencies: [
            "Signals", "Locks", "CConcurrencyHooks", "MarbleNotation", "TraceLog", "Recording", "Replay",
            .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
        ]),
        // A load-time constructor: MARBLES_TRACE=FILE records any program that links Recording.
        .target(name: "CProcessRecording"),
        // An enum's value witnesses (its case, its payload in place): how the writer describes
        // an enum value without reflecting it.
        .target(name: "CValueWitnesses"),
        .target(name: "Recording", dependencies: ["Signals", "TraceLog", "Locks", "CTimestamp", "CProcessRecording",
                                                  "CValueWitnesses"]),
        .target(name: "Tutorials", dependencies: ["Signals", "TraceLog", "Recording", "Locks"]),
        // The demo's scenarios: the Signals tutorials, and the async search (AsyncSearch.swift).
        .target(name: "Demo", dependencies: [
            "Tutorials", "Signals", "TraceLog", "Replay", "Diagrams", "Viewer", "AsyncMarbles", "Recording",
            .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
        ]),
        .systemLibrary(
            name: "CGraphviz",
            pkgConfig: "libgvc",
            providers: [.apt(["libgraphviz-dev"])]
        ),
        .systemLibrary(
            name: "CCairo",
            pkgConfig: "cairo",
            providers: [.apt(["libcairo2-dev"])]
        ),
        .target(name: "Diagrams", dependencies: ["TraceLog", "Locks", "MarbleNotation", "CGraphviz", "CCairo"]),
        .target(name: "Viewer", dependencies: ["TraceLog", "Diagrams"]),
        .target(name: "MarbleNotation"),
        .target(name: "MarbleStreams", dependencies: ["Signals", "MarbleNotation", "Locks"]),
        .target(name: "Spec", dependencies: ["Signals", "MarbleNotation", "MarbleStreams", "Locks"]),
        .target(name: "Replay", dependencies: ["Signals", "TraceLog", "Recording", "Locks"]),
        .target(name: "MarblesTesting", dependencies: ["Marbles", "Signals", "TraceLog", "Recording", "Replay", "MarbleNotation", "MarbleStreams", "Locks"]),
        // Re-exports what a user's app needs to build, record and replay pipelines. Its folder
        // is not Sources/Marbles, which a case-insensitive file system takes for Sources/marbles.
        .target(name: "Marbles", dependencies: ["Signals", "TraceLog", "Recording", "Replay", "MarbleStreams", "AsyncMarbles"],
                path: "Sources/MarblesImport"),
        // The command-line tool, built as `marbles`; its module is MarblesCLI so that no two
        // modules' names differ only in case.
        .executableTarget(
            name: "MarblesCLI",
            dependencies: [
                "Locks",
                "Signals",
                "TraceLog",
                "Recording",
                "Replay",
                "Spec",
                "Diagrams",
                "Tutorials",
                "Demo",
                "Viewer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/marbles"
        ),
        // The README's examples, compiled with the one import a user writes.
        .testTarget(name: "ReadmeTests", dependencies: ["Marbles", "MarblesTesting"]),
        .testTarget(name: "SignalsTests", dependencies: ["TestSupport", "Locks", "Signals", "MarbleNotation", "MarbleStreams", "MarblesTesting"]),
        .testTarget(name: "TraceLogTests", dependencies: ["TestSupport", "TraceLog", "Recording", "Signals"]),
        .testTarget(name: "RecordingTests", dependencies: ["TestSupport", "Recording", "TraceLog", "Signals"]),
        .testTarget(name: "TutorialsTests", dependencies: ["Tutorials", "Demo", "Signals", "TraceLog", "Recording", "MarbleStreams"]),
        .testTarget(name: "DemoTests", dependencies: ["Demo", "Tutorials", "TraceLog"]),
        // Support/autocomplete.trace is read by path from the source tree, not bundled.
        .testTarget(name: "DiagramsTests", dependencies: ["Locks", "Diagrams", "TraceLog", "Recording", "Signals"],
                    exclude: ["Support/autocomplete.trace"]),
        .testTarget(name: "MarbleNotationTests", dependencies: ["MarbleNotation"]),
        .testTarget(name: "SpecTests", dependencies: ["Spec", "MarbleNotation", "Signals", "TraceLog", "Recording"]),
        .testTarget(name: "FuzzTests", dependencies: ["TestSupport", "TraceLog", "Recording", "Signals", "Replay", "Diagrams", "Spec", "Tutorials"]),
        .testTarget(name: "ReplayTests", dependencies: ["TestSupport", "Locks", "Replay", "MarbleNotation", "MarbleStreams", "Signals", "MarblesTesting", "TraceLog", "Recording"]),
        // What several test targets share: the seeded generator, a pipeline's outcome.
        .target(name: "TestSupport", dependencies: ["Signals", "Locks"], path: "Tests/TestSupport"),
        .testTarget(name: "AsyncMarblesTests", dependencies: [
            "AsyncMarbles", "Signals", "Recording", "TraceLog", "Diagrams", "MarbleNotation", "Replay", "Demo",
            .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
        ]),
        .testTarget(name: "FidelityTests", dependencies: ["TestSupport", "Locks", "Signals", "MarbleStreams", "Recording", "Replay", "TraceLog", "Diagrams"],
                    exclude: ["KeptLive"]),
        .testTarget(name: "ViewerTests", dependencies: ["Viewer", "TraceLog", "Diagrams"]),
        // Runs the built `marbles` executable as a child process; links none of its modules.
        .testTarget(name: "MarblesCLITests"),
    ],
    swiftLanguageModes: [.v6]
)
