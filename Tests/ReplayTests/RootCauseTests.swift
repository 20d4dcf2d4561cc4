import Foundation
import MarblesTesting
import Replay
import Signals
import TraceLog
import TestSupport
import XCTest

/// An upload queue: each file's upload fails a planned number of times, is retried, and gives
/// up into a placeholder; results hop to the UI. Recorded in virtual time with the code
/// changed between two recordings, the diff must lead with the change that explains the rest
/// (issue 34 item 2), not with whichever consequence happened first.
private struct Uploads {
    var retries = 3
    var files = ["a.txt", "b.txt"]
    /// Lines added above the flatMap: every call site from there down moves.
    var linesAdded: UInt = 0

    var pipeline: TestPipeline {
        TestPipeline(script: files.enumerated().map { .send($1, to: "files", at: 100 * $0) } + [.complete(at: 1_000)]) { environment in
            let outcome = Outcome<String>()
            let network = environment.scheduler("network"), ui = environment.scheduler("ui")
            let failures = Failures()
            let moved = linesAdded
            let disposable = environment.input("files", of: String.self, line: 200)
                .flatMap(.merge, line: 201 + moved) { file in
                    SignalProducer<String, UploadError>(line: 202 + moved) { observer, lifetime in
                        let failing = failures.next(file)
                        lifetime += network.schedule(after: network.currentDate.addingTimeInterval(0.030)) {
                            if failing {
                                observer.send(error: UploadError())
                            } else {
                                observer.send(value: file + " uploaded")
                                observer.sendCompleted()
                            }
                        }
                    }
                    .retry(upTo: retries, line: 203 + moved)
                    .flatMapError(line: 204 + moved) { _ in SignalProducer(value: file + " gave up", line: 205 + moved) }
                }
                .observe(on: ui, line: 206 + moved)
                .observe(line: 207 + moved) { outcome.observe($0) }
            return (AnyDisposable { disposable?.dispose() }, { outcome.waitForEnd() })
        }
    }

    func record() throws -> Trace { try Recording.simulated(pipeline).trace }
}

private struct UploadError: Error, Codable {}

/// "a.txt" fails twice before it uploads, "b.txt" once.
private final class Failures: @unchecked Sendable {  // only the virtual run's thread touches it
    private var attempts: [String: Int] = [:]
    private let plan = ["a.txt": 2, "b.txt": 1]
    func next(_ file: String) -> Bool {
        attempts[file, default: 0] += 1
        return attempts[file]! <= plan[file, default: 0]
    }
}

final class RootCauseTests: XCTestCase {
    func testAChangedRetryCountExplainsTheMissingAttemptsUpstreamAndEveryResultDownstream() throws {
        let diff = TraceDiff(try Uploads(retries: 3).record(), try Uploads(retries: 1).record())
        XCTAssertEqual(diff.rootCauses.map(\.kind), [.nodeChanged], diff.text)
        let root = try XCTUnwrap(diff.differences.first)
        XCTAssertTrue(root.node.hasPrefix("retry(upTo: 3)"), diff.text)
        let consequences = diff.differences.dropFirst()
        XCTAssertGreaterThan(consequences.count, TraceDiff.listedConsequences, diff.text)
        XCTAssertTrue(consequences.allSatisfy { $0.consequenceOf == 1 }, diff.text)
        // The attempts retry(upTo: 1) never made are upstream of it; the results downstream.
        let nodes = Set(consequences.map { $0.node.components(separatedBy: " @").first ?? "" })
        for node in ["SignalProducer", "flatMapError", "flatMap(merge)", "observe(on:)(ui)"] {
            XCTAssertTrue(nodes.contains(node), "\(node) not explained by the retry:\n\(diff.text)")
        }
        XCTAssertTrue(diff.text.contains("\(diff.differences.count) differences from 1 root cause"), diff.text)
        XCTAssertTrue(diff.text.contains("root cause: node changed: retry(upTo: 3) @ReplayTests/RootCauseTests.swift:203: "
                                         + "parameters (upTo: 3) in A, (upTo: 1) in B"), diff.text)
        XCTAssertTrue(diff.text.contains("   explains \(consequences.count) other differences"), diff.text)
        XCTAssertTrue(diff.text.contains("and \(consequences.count - TraceDiff.listedConsequences) more"), diff.text)
        // Listing them all prints each once, numbered as `differences` holds them.
        let all = diff.text(listingAll: true)
        for number in 2...diff.differences.count {
            XCTAssertTrue(all.contains("\n   \(number). "), "\(number) not listed:\n\(all)")
        }
        // The JSON carries the grouping.
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(diff.json.utf8)) as? [String: Any])
        XCTAssertEqual(json["rootCauses"] as? Int, 1)
        let listed = try XCTUnwrap(json["differences"] as? [[String: Any]])
        XCTAssertNil(listed.first?["consequenceOf"])
        XCTAssertEqual(listed.dropFirst().compactMap { $0["consequenceOf"] as? Int }, Array(repeating: 1, count: consequences.count))
    }

    func testCodeThatOnlyMovedIsListedLastAndExplainsNothing() throws {
        let diff = TraceDiff(try Uploads(retries: 3).record(), try Uploads(retries: 1, linesAdded: 2).record())
        let roots = diff.rootCauses
        XCTAssertTrue(roots.first?.node.hasPrefix("retry(upTo: 3)") == true, diff.text)
        XCTAssertEqual(diff.differences.first?.nodeB?.parameters, "upTo: 1", diff.text)
        // The moved nodes each stand alone, after the retry and what it explains.
        let moved = diff.differences.filter { $0.kind == .nodeChanged && $0.nodeA?.parameters == $0.nodeB?.parameters }
        XCTAssertFalse(moved.isEmpty, diff.text)
        XCTAssertTrue(moved.allSatisfy { $0.consequenceOf == nil }, diff.text)
        let firstMoved = try XCTUnwrap(diff.differences.firstIndex { $0.kind == .nodeChanged && $0.nodeA?.parameters == $0.nodeB?.parameters })
        XCTAssertTrue(diff.differences[firstMoved...].allSatisfy { $0.kind == .nodeChanged }, diff.text)
        // Moved lines ignored, the same diff as without the move.
        let ignoring = TraceDiff(try Uploads(retries: 3).record(), try Uploads(retries: 1, linesAdded: 2).record(),
                                 ignoringLineShifts: true)
        let unmoved = TraceDiff(try Uploads(retries: 3).record(), try Uploads(retries: 1).record())
        XCTAssertEqual(ignoring.differences.count, unmoved.differences.count, ignoring.text)
        XCTAssertEqual(ignoring.rootCauses.count, 1, ignoring.text)
    }

    func testAChangedInputIsTheRootOfWhatItFeedsAndAnUnrelatedChangeIsARootOfItsOwn() throws {
        // "c.txt" instead of "b.txt": never fails, so its upload differs all the way down.
        let diff = TraceDiff(try Uploads().record(), try Uploads(files: ["a.txt", "c.txt"]).record())
        let roots = diff.rootCauses
        XCTAssertEqual(roots.count, 1, diff.text)
        XCTAssertEqual(roots.first?.kind, .valueDiffers, diff.text)
        XCTAssertTrue(roots.first?.node.hasPrefix(#"input "files""#) == true, diff.text)
        XCTAssertTrue(diff.differences.dropFirst().allSatisfy { $0.consequenceOf == 1 }, diff.text)

        // Both the input and the retry changed: the code change leads, the input is its own root.
        let both = TraceDiff(try Uploads().record(), try Uploads(retries: 1, files: ["a.txt", "c.txt"]).record())
        XCTAssertEqual(both.rootCauses.map(\.kind), [.nodeChanged, .valueDiffers], both.text)
    }

    func testTheGroupedReportIsByteIdenticalRunToRun() throws {
        let first = TraceDiff(try Uploads(retries: 3).record(), try Uploads(retries: 1, linesAdded: 2).record())
        let second = TraceDiff(try Uploads(retries: 3).record(), try Uploads(retries: 1, linesAdded: 2).record())
        XCTAssertEqual(first.text(listingAll: true), second.text(listingAll: true))
        XCTAssertEqual(first.json, second.json)
    }
}
