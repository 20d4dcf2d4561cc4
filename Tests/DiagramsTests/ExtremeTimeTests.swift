import Diagrams
import TraceLog
import XCTest

/// A trace whose times span the whole Int64 range draws instead of trapping on overflow.
final class ExtremeTimeTests: XCTestCase {
    private let text = """
    {"type":"header","format":"marbles-trace","version":"1.0","unit":"ns","clock":"virtual"}
    {"type":"thread","id":1,"name":"main"}
    {"type":"node","id":1,"kind":"source","name":"pipe","parameters":"","file":"a.swift","line":1,"upstream":[]}
    {"type":"subscribe","id":1,"node":1,"parent":0,"time":-9223372036854775807,"thread":1}
    {"type":"event","seq":1,"time":9223372036854775807,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"max"}
    {"type":"event","seq":2,"time":0,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"zero"}

    """

    func testTimesAtBothEndsOfInt64Draw() throws {
        let trace = try Trace(bytes: Array(text.utf8), name: "extreme.trace")
        let svg = MarbleRenderer.svg(try MarbleFigure(trace: trace))
        XCTAssertTrue(svg.hasPrefix("<svg") || svg.hasPrefix("<?xml"))
        XCTAssertTrue(svg.contains("max"))
        XCTAssertEqual(svg, MarbleRenderer.svg(try MarbleFigure(trace: trace)))
    }
}
