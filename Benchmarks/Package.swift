// swift-tools-version:6.0
import PackageDescription

// The benchmark of BENCHMARKS.md (`make bench`), a package of its own: it depends on Marbles
// by path as a user's app would, and on OpenCombine, the peer it is measured against, so the
// package a user depends on resolves neither.
let package = Package(
    name: "MarblesBenchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "marbles-bench", targets: ["MarblesBench"]),
    ],
    dependencies: [
        .package(name: "Marbles", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    ],
    targets: [
        // The time-stamp counter read of the recording section's floor (rdtsc), as the
        // recorder's own C shim reads it.
        .target(name: "CBenchClock"),
        .executableTarget(
            name: "MarblesBench",
            dependencies: [
                "CBenchClock",
                .product(name: "Signals", package: "Marbles"),
                .product(name: "TraceLog", package: "Marbles"),
                .product(name: "Recording", package: "Marbles"),
                .product(name: "Replay", package: "Marbles"),
                .product(name: "MarbleStreams", package: "Marbles"),
                .product(name: "AsyncMarbles", package: "Marbles"),
                .product(name: "Diagrams", package: "Marbles"),
                .product(name: "Tutorials", package: "Marbles"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]
        ),
    ],
    swiftLanguageModes: [.v5]
)
