import Foundation
import XCTest

/// `marbles view`: the page it writes, loaded in headless Chromium (skipped when Chromium is
/// not installed; `make test` installs it). Each check reads the DOM Chromium dumps once the
/// page's script has run, driven by the page's deep links, and Chromium's log of the page's
/// console, which must stay empty.
final class ViewCommandLineTests: CommandLineTestCase {
    /// Chromium's path, or a skip that says how to get it.
    private func chromium() throws -> String {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            for name in ["chromium", "chromium-browser"] where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
                return "\(folder)/\(name)"
            }
        }
        throw XCTSkip("chromium is not installed: the browser checks of `marbles view` were not run "
            + "(`make test` installs Debian's chromium; or apt-get install chromium)")
    }

    /// The DOM of `page` (in the test's folder) opened at `fragment`, after its script ran,
    /// and the page's console messages.
    private func load(_ page: String, fragment: String) throws -> (dom: String, console: [String]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try chromium())
        let profile = path("chromium-profile")
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile)",
                             "--enable-logging=stderr", "--v=0", "--window-size=1400,900",
                             "--dump-dom", URL(fileURLWithPath: path(page)).absoluteString + "#" + fragment]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read standard error meanwhile, so a chatty browser cannot fill the pipe and stall.
        let errorText = Protected()
        let reader = Thread { errorText.set(err.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let dom = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let log = String(decoding: errorText.wait(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, log)
        let console = log.split(separator: "\n").filter { $0.contains(":CONSOLE") }.map(String.init)
        return (dom, console)
    }

    /// Standard error's bytes, handed from the reading thread to the test.
    private final class Protected: @unchecked Sendable {
        private let condition = NSCondition()
        private var data: Data?

        func set(_ value: Data) {
            condition.lock()
            data = value
            condition.signal()
            condition.unlock()
        }

        func wait() -> Data {
            condition.lock()
            defer { condition.unlock() }
            while data == nil { condition.wait() }
            return data ?? Data()
        }
    }

    private func viewTwitterInstant() throws {
        let trace = top.appendingPathComponent("traces/twitter-instant.replay.trace").path
        let run = try marbles(["view", trace, "-o", path("ti.html")])
        XCTAssertEqual(run.status, 0, run.err)
    }

    func testTheTwitterInstantPageShowsTheStaleSearchInterrupted() throws {
        _ = try chromium()
        try viewTwitterInstant()
        let page = try load("ti.html", fragment: "q=magi")
        XCTAssertEqual(page.console, [])
        XCTAssertTrue(page.dom.contains("data-ready=\"true\""), page.dom)
        // One row per node in the lane table, which the script fills from the data.
        XCTAssertEqual(page.dom.components(separatedBy: "<tr").count - 1, 21)
        // The search for "magi" finds the interruption of the call made with that request.
        XCTAssertTrue(page.dom.contains("<li data-kind=\"interrupted\"><button>interrupted · search · 2.293169616 s · request \"magi\"</button></li>"),
                      page.dom)
    }

    func testThePipelineBesideTheLanesMarksTheNodeOfTheLaneShownWithItsStatistics() throws {
        _ = try chromium()
        try viewTwitterInstant()
        let page = try load("ti.html", fragment: "node=11")
        XCTAssertEqual(page.console, [])
        // Every box of the pipeline figure knows its node; the lane's node is marked.
        let boxes = page.dom.components(separatedBy: "class=\"node").count - 1
        XCTAssertGreaterThan(boxes, 15)
        XCTAssertEqual(page.dom.components(separatedBy: "role=\"button\"").count - 1, boxes, page.dom)
        let marked = try XCTUnwrap(page.dom.range(of: "class=\"node current\" data-node=\"11\""), page.dom)
        // Its tooltip names it and gives its statistics.
        let box = String(page.dom[marked.upperBound...].prefix(600))
        XCTAssertTrue(box.contains("<title>searchResults · node 11\n1 value · 1 completed · stage latency p50"), box)
        // Only drawing came in with the figure.
        let start = try XCTUnwrap(page.dom.range(of: "<div id=\"pipeline\"")).lowerBound
        let figure = page.dom[start...]
        let figureEnd = try XCTUnwrap(figure.range(of: "</div>")).lowerBound
        XCTAssertFalse(figure[..<figureEnd].contains("<script"))
        XCTAssertFalse(figure[..<figureEnd].contains("xlink:href"))
    }

    func testZoomingToOneSecondChangesTheTicks() throws {
        _ = try chromium()
        try viewTwitterInstant()
        let label = { (dom: String) throws -> String in
            let start = try XCTUnwrap(dom.range(of: "<canvas id=\"view\" tabindex=\"0\" aria-label=\"")).upperBound
            return String(dom[start...].prefix { $0 != "\"" })
        }
        let whole = try load("ti.html", fragment: "")
        XCTAssertEqual(whole.console, [])
        let wholeLabel = try label(whole.dom)
        // In a 1400-pixel window: ticks 90 pixels apart at least.
        XCTAssertTrue(wholeLabel.hasPrefix("20 lanes from 0 s to 5 s, ticks every 1 s;"), wholeLabel)
        let secondLabel = try label(try load("ti.html", fragment: "t=2.5s&span=1s").dom)
        XCTAssertTrue(secondLabel.hasPrefix("20 lanes from 2.0 s to 3.0 s, ticks every 0.2 s;"), secondLabel)
    }

    func testSearchFindsALaneAndSelectingTheResultShowsItsChainBackToTheSource() throws {
        _ = try chromium()
        try viewTwitterInstant()
        let search = try load("ti.html", fragment: "q=searchResults")
        XCTAssertEqual(search.console, [])
        XCTAssertTrue(search.dom.contains("<button>lane 11: searchResults</button>"), search.dom)
        // The final result (event 42, delivered on main) goes back through the search call,
        // the throttle and the filter to the text typed.
        let selected = try load("ti.html", fragment: "seq=42")
        XCTAssertEqual(selected.console, [])
        let path = try XCTUnwrap(selected.dom.range(of: "<h2>Back to the source</h2>")).upperBound
        let chain = String(selected.dom[path...])
        for stage in ["value 4 tweets \"magic!\" · searchResults", "value magic! · throttle", "value magic! · validSearchText",
                      "value magic! · searchText"] {
            XCTAssertTrue(chain.contains(stage), stage + " in " + chain)
        }
        XCTAssertTrue(selected.dom.contains("<dt>call site</dt><dd>Tutorials/TwitterInstant.swift:178</dd>"), selected.dom)
    }

    func testADiffPageListsTheDifferencesMarblesDiffReports() throws {
        _ = try chromium()
        let a = top.appendingPathComponent("traces/twitter-instant.trace").path
        let b = top.appendingPathComponent("traces/twitter-instant.replay.trace").path
        let run = try marbles(["view", a, b, "--time-tolerance", "0", "-o", path("diff.html")])
        XCTAssertEqual(run.status, 0, run.err)
        let report = try marbles(["diff", a, b, "--time-tolerance", "0", "--json"])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(report.out.utf8)) as? [String: Any])
        let count = try XCTUnwrap(json["differences"] as? [Any]).count
        XCTAssertGreaterThan(count, 0)
        // The lines of the readable report listing them all, "N. line" (a consequence indented
        // under its root cause), are the page's list, in order.
        let text = try marbles(["diff", a, b, "--time-tolerance", "0", "--all"]).out
        let lines = text.split(separator: "\n").map { $0.drop { $0 == " " } }.compactMap { line -> String? in
            guard let dot = line.firstIndex(of: "."), Int(line[..<dot]) != nil else { return nil }
            return String(line[line.index(dot, offsetBy: 2)...])
        }
        XCTAssertEqual(lines.count, count)
        let page = try load("diff.html", fragment: "")
        XCTAssertEqual(page.console, [])
        let list = try XCTUnwrap(page.dom.range(of: "<ol id=\"diff-list\">"))
        let end = try XCTUnwrap(page.dom.range(of: "</ol>", range: list.upperBound ..< page.dom.endIndex))
        let items = page.dom[list.upperBound ..< end.lowerBound].components(separatedBy: "<li>").dropFirst().map { item in
            item.replacingOccurrences(of: "<button>", with: "").replacingOccurrences(of: "</button>", with: "")
                .replacingOccurrences(of: "</li>", with: "").replacingOccurrences(of: "&amp;", with: "&")
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
        }
        XCTAssertEqual(items, lines)
        // The lane table's rows, without their tooltips (the node's statistics).
        let rows = page.dom.replacingOccurrences(of: #"<tr title="[^"]*">"#, with: "<tr>", options: .regularExpression)
        // Lanes of A and B alternate as the nodes align: A's call "search" is node 15 (the
        // fake service behind it is 14), B's is 14.
        XCTAssertTrue(rows.contains("<tr><td>A search</td><td>15</td><td>1</td><td>interrupted, completed</td></tr>"
            + "<tr><td>B search</td><td>14</td><td>1</td><td>interrupted, completed</td></tr>"), rows)
        XCTAssertTrue(rows.contains("<tr><td>A searchResults</td><td>11</td><td>1</td><td>completed</td></tr>"
            + "<tr><td>B searchResults</td><td>11</td>"), rows)
        XCTAssertEqual(rows.components(separatedBy: "<tr><td>A ").count - 1, 21)
        XCTAssertEqual(rows.components(separatedBy: "<tr><td>B ").count - 1, 20)
    }

    func testHostileLabelsAndValuesInjectNothing() throws {
        _ = try chromium()
        let trace = """
            {"type":"header","format":"marbles-trace","version":"1.1","unit":"ns","clock":"virtual"}
            {"type":"thread","id":1,"name":"<b id=\\"x3\\">main</b>"}
            {"type":"node","id":1,"kind":"source","name":"input","parameters":"<!--","file":"A.swift","line":1,"label":"</script><script>console.log('x1')</script>","upstream":[]}
            {"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1,"request":"<img src=x onerror=console.log('x2')>"}
            {"type":"event","seq":1,"time":5,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"<img id=\\"x4\\" src=x onerror=console.log('x4')>","json":"</script><svg onload=console.log('x5')>"}

            """
        try write(trace, to: "hostile.trace")
        let run = try marbles(["view", "hostile.trace", "-o", "hostile.html", "--title", "<i id=\"x6\">t</i>"])
        XCTAssertEqual(run.status, 0, run.err)
        let page = try load("hostile.html", fragment: "seq=1&q=main")
        XCTAssertEqual(page.console, [])
        XCTAssertTrue(page.dom.contains("data-ready=\"true\""), page.dom)
        for injected in ["<img", "<svg onload", "<b id", "<i id", "<script>console"] {
            XCTAssertFalse(page.dom.contains(injected), injected)
        }
        // The one figure is the pipeline's, its label drawn as text.
        XCTAssertEqual(page.dom.components(separatedBy: "<svg").count - 1, 1)
        XCTAssertTrue(page.dom.contains("&lt;/script&gt;&lt;script&gt;console.log('x1')&lt;/script&gt;"), page.dom)
        // The texts are shown, as text.
        XCTAssertTrue(page.dom.contains("&lt;img id=\"x4\" src=x onerror=console.log('x4')&gt;"), page.dom)
        XCTAssertEqual(page.dom.components(separatedBy: "<script").count - 1, 2)
    }
}
