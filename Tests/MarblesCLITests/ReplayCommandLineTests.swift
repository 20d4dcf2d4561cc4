import Foundation
import XCTest

/// `marbles replay` and `marbles diff`, run as the built executable on the committed tutorial
/// recordings and on crafted traces.
final class ReplayCommandLineTests: CommandLineTestCase {
    func testReplayingARecordedScenarioIsDeterministicAndDiffsAsTheSame() throws {
        let recording = top.appendingPathComponent("traces/signin.trace").path
        let first = try marbles(["replay", recording, "--scenario", "signin", "-o", path("one.trace")])
        XCTAssertEqual(first.status, 0, first.err)
        XCTAssertTrue(first.out.hasPrefix("replayed signin from "), first.out)
        XCTAssertEqual(try marbles(["replay", recording, "--scenario", "signin", "-o", path("two.trace")]).status, 0)
        XCTAssertEqual(try Data(contentsOf: directory.appendingPathComponent("one.trace")),
                       try Data(contentsOf: directory.appendingPathComponent("two.trace")))
        let diff = try marbles(["diff", recording, path("one.trace")])
        XCTAssertEqual(diff.status, 0, diff.out)
        XCTAssertTrue(diff.out.contains("same: every node and event agrees"), diff.out)
        let virtual = try marbles(["diff", path("one.trace"), path("two.trace")])
        XCTAssertEqual(virtual.status, 0, virtual.out)
        XCTAssertTrue(virtual.out.contains("(time tolerance 0ns)"), virtual.out)
    }

    /// The async search (AsyncSequence) replays from the command line as the Signals scenarios
    /// do: the committed replay's bytes, from either encoding; another scenario's recording is
    /// a replay error naming the input it lacks, not a replay left waiting.
    func testTheAsyncSearchReplaysFromTheCommandLine() throws {
        let recording = top.appendingPathComponent("traces/async-search.trace").path
        let replayed = try marbles(["replay", recording, "--scenario", "async-search", "-o", path("async.trace")])
        XCTAssertEqual(replayed.status, 0, replayed.err)
        XCTAssertTrue(replayed.out.hasPrefix("replayed async-search from "), replayed.out)
        XCTAssertEqual(try Data(contentsOf: directory.appendingPathComponent("async.trace")),
                       try Data(contentsOf: top.appendingPathComponent("traces/async-search.replay.trace")))
        XCTAssertEqual(try marbles(["convert", recording, "-o", path("async.mtrace")]).status, 0)
        let binary = try marbles(["replay", path("async.mtrace"), "--scenario", "async-search", "-o", path("again.trace")])
        XCTAssertEqual(binary.status, 0, binary.err)
        XCTAssertEqual(try Data(contentsOf: directory.appendingPathComponent("again.trace")),
                       try Data(contentsOf: directory.appendingPathComponent("async.trace")))
        let diff = try marbles(["diff", recording, path("async.trace")])
        XCTAssertEqual(diff.status, 0, diff.out)

        let wrong = try marbles(["replay", top.appendingPathComponent("traces/signin.trace").path, "--scenario", "async-search",
                                 "-o", path("wrong.trace")])
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.err.contains("signin.trace: replay error: input \"searchText\""), wrong.err)
        XCTAssertTrue(wrong.err.contains("expected an input labelled \"searchText\" in the trace"), wrong.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("wrong.trace")))
        // The Signals replay's options do not apply: refused, not ignored.
        let option = try marbles(["replay", recording, "--scenario", "async-search", "--unrecorded-requests", "empty",
                                  "-o", path("option.trace")])
        XCTAssertEqual(option.status, 2)
        XCTAssertTrue(option.err.contains("--hop-latency and --unrecorded-requests apply to the Signals scenarios, not to "
            + "async-search"), option.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("option.trace")))
    }

    func testReplayErrorsExitWithStatusTwoAndAClearMessage() throws {
        let recording = top.appendingPathComponent("traces/signin.trace").path
        let wrong = try marbles(["replay", recording, "--scenario", "registration", "-o", path("x.trace")])
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.err.contains("signin.trace: replay error: input \"confirmation\" @Tutorials/RegistrationForm.swift:"),
                      wrong.err)
        XCTAssertTrue(wrong.err.contains(": expected an input labelled \"confirmation\" in the trace; it has none"), wrong.err)
        let unknown = try marbles(["replay", recording, "--scenario", "nope", "-o", path("x.trace")])
        XCTAssertEqual(unknown.status, 2)
        // Six scenarios since the async search replays too: the parser lists them one a line.
        XCTAssertTrue(unknown.err.contains("The value 'nope' is invalid for '--scenario <name>'. Please provide one of the "
            + "following:\n  - signin\n"), unknown.err)
        XCTAssertTrue(unknown.err.contains("\n  - async-search\n"), unknown.err)
        let missing = try marbles(["replay", path("absent.trace"), "--scenario", "signin", "-o", path("x.trace")])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.err.contains("absent.trace: error: cannot read: no such file"), missing.err)
        let latency = try marbles(["replay", recording, "--scenario", "signin", "--hop-latency", "soon", "-o", path("x.trace")])
        XCTAssertEqual(latency.status, 2)
        XCTAssertTrue(latency.err.contains("The value 'soon' is invalid for '--hop-latency <zero|recorded>'. "
            + "Please provide one of 'zero' and 'recorded'."), latency.err)
    }

    /// The pixels recording with one thumbnail's request edited, as if the code now asked
    /// for another photo: never another photo's response; an error, or with
    /// `--unrecorded-requests empty` a warning and an empty call.
    func testACallWithARequestNeverRecordedIsAnErrorOrAnEmptyCallWithAWarning() throws {
        let recording = try String(contentsOf: top.appendingPathComponent("traces/pixels.trace"), encoding: .utf8)
        let edited = recording.replacingOccurrences(of: #""request":9}"#, with: #""request":99}"#)
        XCTAssertNotEqual(edited, recording, "the recording has a call with request 9")
        try edited.write(toFile: path("edited.trace"), atomically: true, encoding: .utf8)
        let refused = try marbles(["replay", path("edited.trace"), "--scenario", "pixels", "-o", path("out.trace")])
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.err.contains(#": replay error: call "thumbnail" @Tutorials/FunctionalReactivePixels.swift:"#), refused.err)
        XCTAssertTrue(refused.err.contains(#"expected a recorded start of "thumbnail" with the request 9; the trace records none"#),
                      refused.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.trace")))

        let empty = try marbles(["replay", path("edited.trace"), "--scenario", "pixels", "-o", path("out.trace"),
                                 "--unrecorded-requests", "empty"])
        XCTAssertEqual(empty.status, 0, empty.err)
        XCTAssertTrue(empty.err.contains(#"edited.trace: warning: call "thumbnail" @Tutorials/FunctionalReactivePixels.swift:"#),
                      empty.err)
        XCTAssertTrue(empty.err.hasSuffix("it completed without a value (--unrecorded-requests empty)\n"), empty.err)
        XCTAssertEqual(empty.err.components(separatedBy: "warning:").count - 1, 1, empty.err)
        // The call with the unrecorded request got no response; every other call its own.
        let diff = try marbles(["diff", top.appendingPathComponent("traces/pixels.trace").path, path("out.trace")])
        XCTAssertEqual(diff.status, 1, diff.out)
    }

    func testUsageMistakesExitWithStatusTwoAndSayWhatIsMissing() throws {
        let missing = try marbles(["replay"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.err.contains("Missing expected argument"), missing.err)
        let unknown = try marbles(["diff", "a.trace", "b.trace", "--no-such-option"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.err.contains("Unknown option '--no-such-option'"), unknown.err)
        let help = try marbles(["diff", "--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.out.contains("USAGE: marbles diff"), help.out)
    }

    func testDiffExitsOneWithTheReportJSONAndAFigure() throws {
        let lines = [
            #"{"type":"thread","id":1,"name":"main"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"input","parameters":"q","file":"App.swift","line":3,"label":"q","upstream":[]}"#,
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"event","seq":1,"time":1000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"a","json":"a"}"#,
        ]
        let header = #"{"type":"header","format":"marbles-trace","version":"1.0","unit":"ns","clock":"virtual"}"#
        try ([header] + lines).joined(separator: "\n").appending("\n").write(toFile: path("a.trace"), atomically: true, encoding: .utf8)
        try ([header] + lines).joined(separator: "\n").replacingOccurrences(of: #""json":"a""#, with: #""json":"b""#)
            .appending("\n").write(toFile: path("b.trace"), atomically: true, encoding: .utf8)
        let text = try marbles(["diff", path("a.trace"), path("b.trace"), "--draw", path("diff.svg")])
        XCTAssertEqual(text.status, 1)
        XCTAssertTrue(text.out.contains(#"first divergence: input "q" @App.swift:3, event 1: value differs: "a" in A, "b" in B"#),
                      text.out)
        let svg = try String(contentsOfFile: path("diff.svg"), encoding: .utf8)
        XCTAssertTrue(svg.contains("<svg") && svg.contains("\u{2260} A: q"), String(svg.prefix(300)))
        let json = try marbles(["diff", "--json", path("a.trace"), path("b.trace")])
        XCTAssertEqual(json.status, 1)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        XCTAssertEqual(object["same"] as? Bool, false)
        XCTAssertEqual(try marbles(["diff", path("a.trace"), path("a.trace")]).status, 0)
    }

    /// Two runs of one spec whose debounce interval changed, and a run of it moved down a
    /// line: the changed node is reported once, with both parameter lists, in every output.
    func testDiffShowsAChangedNodeInTextJSONAndFigure() throws {
        // One spec file, edited between runs, as a user edits code between recordings.
        func record(_ name: String, _ spec: String) throws -> String {
            try spec.write(toFile: path("spec.marbles"), atomically: true, encoding: .utf8)
            let trace = path("\(name).trace")
            let run = try marbles(["play", path("spec.marbles"), "--trace", trace])
            XCTAssertEqual(run.status, 0, run.err)
            return trace
        }
        let spec = "hot  e1 = -a-b------c-d-----|\nout = e1.filter(x => x != \"z\").debounceTime(3).map(x => x + \"!\")\n"
        let slow = try record("slow", spec)
        let fast = try record("fast", spec.replacingOccurrences(of: "debounceTime(3)", with: "debounceTime(1)"))
        let moved = try record("moved", "# one line added above\n" + spec)

        let text = try marbles(["diff", slow, fast, "--draw", path("diff.svg")])
        XCTAssertEqual(text.status, 1)
        XCTAssertTrue(text.out.contains("first divergence: node changed: debounceFlushing(0.003s, on: test) @spec.marbles:2: "
                                        + "parameters (0.003s, on: test) in A, (0.001s, on: test) in B"), text.out)
        // Named as the root cause, as the first divergence, and once in the list.
        XCTAssertEqual(text.out.components(separatedBy: "node changed:").count - 1, 3, text.out)
        XCTAssertTrue(text.out.contains("root cause: node changed: debounceFlushing(0.003s, on: test)"), text.out)
        XCTAssertTrue(text.out.contains(#"map "out" @spec.marbles:2, event 1: extra in B: "a!""#), text.out)
        let svg = try String(contentsOfFile: path("diff.svg"), encoding: .utf8)
        for shown in ["debounceFlushing(0.003s, on: test \u{2192} 0.001s, on: test)", "\u{2260} A: 0.003s, on: test",
                      "\u{2260} B: 0.001s, on: test", "\u{2260} A: out", "\u{2260} B: out"] {
            XCTAssertTrue(svg.contains(shown), "\(shown) not in the figure")
        }
        XCTAssertFalse(svg.contains("A only") || svg.contains("B only"), "every lane has its partner")

        let json = try marbles(["diff", "--json", slow, fast])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        let first = try XCTUnwrap((object["differences"] as? [[String: Any]])?.first)
        XCTAssertEqual(first["kind"] as? String, "node-changed")
        XCTAssertEqual((first["a"] as? [String: Any])?["parameters"] as? String, "0.003s, on: test")
        XCTAssertEqual((first["b"] as? [String: Any])?["parameters"] as? String, "0.001s, on: test")
        XCTAssertEqual((first["b"] as? [String: Any])?["line"] as? Int, 2)

        let shifted = try marbles(["diff", slow, moved])
        XCTAssertEqual(shifted.status, 1)
        XCTAssertTrue(shifted.out.contains("call site spec.marbles:2 in A, spec.marbles:3 in B"), shifted.out)
        let ignored = try marbles(["diff", "--ignore-line-shifts", slow, moved])
        XCTAssertEqual(ignored.status, 0, ignored.out)
        XCTAssertTrue(ignored.out.contains("nodes moved to other lines of their files (not differences here)"), ignored.out)
    }

    func testDiffBadInputExitsWithStatusTwo() throws {
        let header = #"{"type":"header","format":"marbles-trace","version":"1.0","unit":"ns","clock":"virtual"}"#
        try (header + "\n").write(toFile: path("ok.trace"), atomically: true, encoding: .utf8)
        try (header + "\n{\"type\":\"node\",\"id\":}\n").write(toFile: path("bad.trace"), atomically: true, encoding: .utf8)
        let malformed = try marbles(["diff", path("ok.trace"), path("bad.trace")])
        XCTAssertEqual(malformed.status, 2)
        XCTAssertTrue(malformed.err.contains("bad.trace:2:"), malformed.err)
        let tolerance = try marbles(["diff", "--time-tolerance", "fast", path("ok.trace"), path("ok.trace")])
        XCTAssertEqual(tolerance.status, 2)
        XCTAssertTrue(tolerance.err.contains("The value 'fast' is invalid for '--time-tolerance <duration>': "
            + "expected a duration such as 0, 500us, 2ms or 1.5s"), tolerance.err)
        let draw = try marbles(["diff", path("ok.trace"), path("ok.trace"), "--draw", path("x.gif")])
        XCTAssertEqual(draw.status, 2)
        XCTAssertTrue(draw.err.contains("--draw needs a file ending in .svg, .png, .pdf or .txt"), draw.err)
    }

    /// Issue 33 item 4: a replay of a trace holding one 60 MiB JSON value took 54-74 s and
    /// 8.5 GB. It now needs a small multiple of the value: the peak resident size of the child,
    /// read from `/proc` while it runs (the high-water mark only grows), stays under 8 times
    /// the value. A stress test on its outcome; skipped under ThreadSanitizer, whose shadow
    /// memory is most of a process's size.
    func testReplayingATraceWithA60MiBValueNeedsASmallMultipleOfIt() throws {
        try XCTSkipIf(dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil, "ThreadSanitizer's shadow memory")
        let value = 60 << 20
        let recorded = try String(contentsOf: top.appendingPathComponent("traces/twitter-instant.trace"), encoding: .utf8)
        var replaced = false
        let lines = recorded.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            // The first search text typed, its JSON made 60 MiB long.
            guard !replaced, line.contains(#""seq":5,"#), line.contains(#""json":"m""#) else { return line }
            replaced = true
            return Substring(line.replacingOccurrences(of: #""json":"m""#, with: "\"json\":\"" + String(repeating: "m", count: value) + "\""))
        }
        XCTAssertTrue(replaced)
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path("big.trace")))
        let process = try start(["replay", "big.trace", "--scenario", "twitter-instant", "-o", "big.replay.trace"])
        let err = process.standardError as? Pipe
        var peak = 0
        let status = "/proc/\(process.processIdentifier)/status"
        while process.isRunning {
            if let text = try? String(contentsOfFile: status, encoding: .utf8),
               let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) {
                peak = max(peak, kilobytes << 10)
            }
            usleep(20_000)
        }
        let message = String(decoding: err?.fileHandleForReading.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, message)
        XCTAssertGreaterThan(peak, 0, "no reading of the child's memory")
        XCTAssertLessThan(peak, 8 * value, "peak resident \(peak >> 20) MiB for a \(value >> 20) MiB value")
    }
}
