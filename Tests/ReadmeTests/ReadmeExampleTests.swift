import Foundation
import MarblesTesting
import XCTest

// README.md's examples, compiled here with the one import a user's test writes
// (`import MarblesTesting`, which brings `Marbles`), so the README cannot drift from the API
// again unnoticed: `testTheReadmeShowsTheseExamplesLineForLine` checks that each of its Swift
// blocks is this file's, line for line.

/// What the README leaves to the reader: the service its search calls.
private func searchService(_ text: String) -> SignalProducer<[String], ServiceError> {
    SignalProducer(value: [text + "1"])
}

/// A service's error type: `Codable`, as an environment call's must be.
private struct ServiceError: Error, Codable {}

/// What the README's second example calls: queries debounced for two frames, each searched,
/// the newest search replacing the one before.
private func autocomplete(in environment: Environment) -> SignalProducer<[String], ServiceError> {
    SignalProducer(environment.input("query", of: String.self))
        .debounce(0.002, on: environment.scheduler("main"))
        .flatMap(.latest) { text in environment.call("search", request: text) { searchService(text) } }
}

// README: "A recorded pipeline and a golden-trace test", first block.
// BEGIN README 1
func search(in environment: Environment) -> Disposable {
    let main = environment.scheduler("main")
    let results = CompositeDisposable()
    results += environment.input("searchText", of: String.self)
        .filter { $0.count > 2 }
        .throttle(quietPeriod: 0.5, on: main)            // RAC2's throttle: a debounce
        .flatMap(.latest) { text in environment.call("search", request: text) { searchService(text) } }
        .observe(on: main)
        .observeValues { print($0) }
    return results
}

private func readmeRecordAndReplay() throws { // not in the README
// Live: record what happens while the user types.
let live = LiveEnvironment()
try Recorder.record(to: URL(fileURLWithPath: "traces/search.trace")) {
    let pipeline = search(in: live)
    try live.send("magic", to: "searchText")   // throws InputError: no such input, wrong type, completed
    MainLoop.run(until: { false }, timeout: 2)
    live.completeInputs()                       // or live.complete("searchText"), one input
    pipeline.dispose()
}

// In a test (import MarblesTesting): the replay must match the golden trace;
// MARBLES_RECORD=1 writes the golden.
let replay = try Replayer(contentsOf: URL(fileURLWithPath: "traces/search.trace")).replay(search)
assertTrace(replay, matchesGolden: "search.replay.trace")
} // not in the README
// END README 1

private func readmeExpectMarbles() {
// BEGIN README 2
expectMarbles(inputs: ["query": "-a-b---c---|"], calls: ["search": "-----r|"],
              inputValues: ["a": "s", "b": "sw", "c": "swi"],
              { environment in autocomplete(in: environment) },
              "--------------r|", values: ["r": ["swift"]])
// END README 2
}

/// What the README's third example leaves to the reader: an async search.
private func searchResults(for text: String) async -> [String] { [text + "1"] }

private func readmeAsync() -> Task<Void, Never> { // not in the README
// BEGIN README 3
let (typed, keystrokes) = AsyncStream<String>.makeStream()
let results = typed.marbles("typed")
    .filter { $0.count > 2 }.marbles("long enough")
    .map { text in await searchResults(for: text) }.marbles("results")
let printing = Task { for await found in results { print(found) } }
keystrokes.yield("swift")
keystrokes.finish()
// END README 3
return printing // not in the README
} // not in the README

final class ReadmeExampleTests: XCTestCase {
    private let top = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The README's Swift blocks, in order.
    private func readmeBlocks() throws -> [[String]] {
        try FencedBlocks.blocks(in: top.appendingPathComponent("README.md"), language: "swift")
    }

    /// This file's lines between `// BEGIN README n` and `// END README n`, without the
    /// lines this file adds to compile them (marked "// not in the README").
    private func compiledBlock(_ number: Int) throws -> [String] {
        try FencedBlocks.marked(number, tag: "README", skipping: "// not in the README", in: #filePath)
    }

    func testTheReadmeShowsTheseExamplesLineForLine() throws {
        let blocks = try readmeBlocks()
        XCTAssertGreaterThanOrEqual(blocks.count, 3)
        for number in 1...3 {
            let compiled = try compiledBlock(number)
            XCTAssertFalse(compiled.isEmpty)
            XCTAssertTrue(blocks.contains(compiled), "README.md's Swift block \(number) is not what ReadmeExampleTests.swift "
                + "compiles; change both together:\n\(compiled.joined(separator: "\n"))")
        }
    }

    func testTheThirdExampleRuns() async {
        await readmeAsync().value
    }

    func testTheSecondExampleRuns() {
        // The expectMarbles example passes as the README says it does.
        readmeExpectMarbles()
    }
}
