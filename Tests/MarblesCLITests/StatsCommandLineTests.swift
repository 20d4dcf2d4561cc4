import Foundation
import XCTest

/// `marbles stats --json` on a trace of the dashboard shape, run by `marbles play`: readings
/// averaged by `scan`, combined with the last reading, sampled by a timer, repeats skipped,
/// observed on "main", and started by a sink.
final class StatsCommandLineTests: CommandLineTestCase {
    private let dashboard = """
        # A sensor dashboard: the last reading, shown every 5 frames when it changed.
        hot celsius = -a--b-----c--d------|
        values celsius = {"a": 20, "b": 21, "c": 23, "d": 22}
        display = combineLatest(celsius.scan((sum, x) => sum + x, 0), celsius, (sum, last) => last).sampleTime(5).skipRepeats().observe(on: "main")

        """

    func testStatsJSONReportsTheDataAgeOfASampledValueAndItsSink() throws {
        try write(dashboard, to: "dashboard.marbles")
        let play = try marbles(["play", "dashboard.marbles", "--trace", "dashboard.trace"])
        XCTAssertEqual(play.status, 0, play.err)
        let run = try marbles(["stats", "--json", "dashboard.trace"])
        XCTAssertEqual(run.status, 0, run.err)
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        let nodes = try XCTUnwrap(root["nodes"] as? [[String: Any]])
        let paths = try XCTUnwrap(root["paths"] as? [[String: Any]])
        func node(_ id: Any?) -> [String: Any]? { nodes.first { $0["id"] as? Int == id as? Int } }

        // The timer triggers each shown value; the readings only feed them: at 5 frames the
        // reading of frame 4, at 10 the one of 10, at 15 the one of 13 (1 ms a frame).
        let timer = try XCTUnwrap(paths.first { node($0["source"])?["name"] as? String == "timer" })
        XCTAssertEqual((timer["latency"] as? [String: Any])?["count"] as? Int, 3)
        // The sink that starts the display is in the table, with what it got.
        let sink = try XCTUnwrap(node(timer["sink"]))
        XCTAssertEqual(sink["kind"] as? String, "sink")
        XCTAssertEqual(sink["values"] as? Int, 3)
        XCTAssertEqual(sink["completed"] as? Int, 1)
        let reading = try XCTUnwrap(paths.first {
            $0["sink"] as? Int == sink["id"] as? Int && node($0["source"])?["label"] as? String == "celsius"
        })
        XCTAssertNil(reading["latency"])
        let age = try XCTUnwrap(reading["dataAge"] as? [String: Any])
        XCTAssertEqual(age["count"] as? Int, 3)
        XCTAssertEqual(age["p50"] as? Int, 1_000_000)
        XCTAssertEqual(age["max"] as? Int, 2_000_000)

        let text = try marbles(["stats", "dashboard.trace"])
        XCTAssertEqual(text.status, 0, text.err)
        XCTAssertTrue(text.out.contains("data age"), text.out)
        XCTAssertTrue(text.out.contains("#\(sink["id"] as? Int ?? 0) \(sink["name"] as? String ?? "?")"), text.out)
    }

    /// `--edges` adds what crossed each edge, as the pipeline figure labels it; without it the
    /// report is as it was.
    func testStatsEdgesSaysWhatCrossedEachEdgeAndHowItWasCounted() throws {
        try write(dashboard, to: "dashboard.marbles")
        let play = try marbles(["play", "dashboard.marbles", "--trace", "dashboard.trace"])
        XCTAssertEqual(play.status, 0, play.err)
        let plain = try marbles(["stats", "dashboard.trace"])
        XCTAssertEqual(plain.status, 0, plain.err)
        XCTAssertFalse(plain.out.contains("what crossed each edge"), plain.out)
        let text = try marbles(["stats", "--edges", "dashboard.trace"])
        XCTAssertEqual(text.status, 0, text.err)
        XCTAssertTrue(text.out.hasPrefix(plain.out.components(separatedBy: "\nslowest stage").first ?? ""), text.out)
        XCTAssertTrue(text.out.contains("what crossed each edge"), text.out)
        let run = try marbles(["stats", "--edges", "--json", "dashboard.trace"])
        XCTAssertEqual(run.status, 0, run.err)
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        let nodes = try XCTUnwrap(root["nodes"] as? [[String: Any]])
        let edges = try XCTUnwrap(root["edges"] as? [[String: Any]])
        func name(_ id: Any?) -> String? { nodes.first { $0["id"] as? Int == id as? Int }?["name"] as? String }
        // The four readings cross into the scan and into the combineLatest, each counted by the
        // recorder's links; the timer samples three changed values through skipRepeats.
        let intoScan = try XCTUnwrap(edges.first { name($0["to"]) == "scan" })
        XCTAssertEqual(intoScan["values"] as? Int, 4)
        XCTAssertEqual(intoScan["role"] as? String, "data")
        XCTAssertEqual(intoScan["exact"] as? Bool, true)
        let intoObserve = try XCTUnwrap(edges.first { name($0["to"]) == "observe(on:)" })
        XCTAssertEqual(intoObserve["values"] as? Int, 3)
        // The table says the same, row for row.
        XCTAssertEqual(text.out.components(separatedBy: "\n").filter { $0.hasSuffix("  links") || $0.hasSuffix("  causes") }.count,
                       edges.count)
        let again = try marbles(["stats", "--edges", "--json", "dashboard.trace"])
        XCTAssertEqual(again.out, run.out)
    }
}
