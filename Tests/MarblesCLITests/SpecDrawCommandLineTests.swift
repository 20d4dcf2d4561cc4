import Foundation
import XCTest

/// `marbles play SPEC --draw` draws from the run's trace: one lane per named stream however
/// many streams derive from it, marbles coloured by thread, causes on request; `draw SPEC`
/// draws the same figure.
final class SpecDrawCommandLineTests: CommandLineTestCase {
    private let spec = """
        # search: typing debounced and searched, the results observed on main.
        hot typing = -a-b---c-d-----e---|
        debounced = typing.debounceTime(2)
        searched = debounced.switchMap(q => of(q + "!").delay(3))
        shown = searched.observe(on: "main")
        lengths = typing.map(q => q.length)

        """

    /// The bold texts of an SVG marble diagram (lane titles and boxes), top to bottom.
    private func laneTitles(_ svg: String) -> [String] {
        svg.matches(of: /<text[^>]*font-weight="bold"[^>]*>([^<]*)<\/text>/).map { String($0.1) }
    }

    func testEachNamedStreamIsOneLaneColouredByItsThreadWithCausesOnRequest() throws {
        try write(spec, to: "s.marbles")
        let run = try marbles(["play", "s.marbles", "--draw", "s.svg", "--causes", "--title", "search"])
        XCTAssertEqual(run.status, 0, run.err)
        let svg = String(decoding: try bytes("s.svg"), as: UTF8.self)
        let titles = laneTitles(svg)
        for name in ["typing", "debounced", "searched", "shown", "lengths"] {
            XCTAssertEqual(titles.filter { $0 == name }.count, 1, "\(name): \(titles)")
        }
        XCTAssertTrue(titles.contains("debounced.switchMap(q =&gt; of(q + &quot;!&quot;).delay(3))"), "\(titles)")
        // observe(on: "main") moves the values off the spec's clock, the thread "test".
        let threads = svg.matches(of: /<g class="marble value[^"]*"[^>]*data-thread="([^"]*)"/).map { String($0.1) }
        XCTAssertEqual(threads.filter { $0 == "main" }.count, 3, svg)
        XCTAssertEqual(threads.filter { $0 == "test" }.count, threads.count - 3)
        XCTAssertTrue(svg.contains(#"<g class="thread" data-name="main">"#))
        XCTAssertGreaterThan(svg.matches(of: /class="cause"/).count, 0)

        let plain = try marbles(["play", "s.marbles", "--draw", "plain.svg"])
        XCTAssertEqual(plain.status, 0, plain.err)
        XCTAssertEqual(String(decoding: try bytes("plain.svg"), as: UTF8.self).matches(of: /class="cause"/).count, 0)

        let text = try marbles(["play", "s.marbles", "--draw", "s.txt"])
        XCTAssertEqual(text.status, 0, text.err)
        let lines = String(decoding: try bytes("s.txt"), as: UTF8.self).split(separator: "\n")
        for name in ["typing", "debounced", "searched", "shown", "lengths"] {
            XCTAssertEqual(lines.filter { $0.hasPrefix(name + " ") }.count, 1, "\(name): \(lines)")
        }
        XCTAssertFalse(lines.contains { $0.contains("#1") || $0.contains("\u{00D7}") }, "\(lines)")
    }

    func testDrawSpecDrawsWhatPlayDraws() throws {
        try write(spec, to: "s.marbles")
        XCTAssertEqual(try marbles(["play", "s.marbles", "--draw", "play.svg", "--causes", "--title", "t"]).status, 0)
        let draw = try marbles(["draw", "s.marbles", "--causes", "--title", "t", "-o", "draw.svg"])
        XCTAssertEqual(draw.status, 0, draw.err)
        XCTAssertEqual(try bytes("play.svg"), try bytes("draw.svg"))
    }

    func testCausesAndTitleNeedADrawing() throws {
        try write(spec, to: "s.marbles")
        for arguments in [["--causes"], ["--title", "x"], ["--no-cuts"]] {
            let run = try marbles(["play", "s.marbles"] + arguments)
            XCTAssertEqual(run.status, 2, "\(arguments)")
            XCTAssertTrue(run.err.contains("--causes, --title and --no-cuts go with --draw FILE"), run.err)
        }
    }
}
