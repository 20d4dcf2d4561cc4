import Foundation
import Spec
import XCTest

/// The figures of the Signals guides (Sources/Signals/Signals.docc/Resources/*.marbles) show
/// what the guides' text says they show: each test runs one spec with the real operators and
/// checks the events the guide describes, so a change of semantics fails here and sends the
/// author back to the guide.
final class GuideFigureSpecTests: XCTestCase {
    private static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/Signals/Signals.docc/Resources")

    private func run(_ name: String) throws -> SpecResult {
        let url = Self.directory.appendingPathComponent(name + ".marbles")
        let text = try String(contentsOf: url, encoding: .utf8)
        return try SpecDocument.parse(text, file: name + ".marbles").run()
    }

    func testEveryGuideSpecHasItsFigureAndAGuideThatShowsIt() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path)
        let specs = files.filter { $0.hasSuffix(".marbles") }.sorted()
        XCTAssertEqual(specs.count, 12)
        let guides = Self.directory.deletingLastPathComponent().appendingPathComponent("Guides")
        let texts = try FileManager.default.contentsOfDirectory(atPath: guides.path).sorted()
            .map { try String(contentsOf: guides.appendingPathComponent($0), encoding: .utf8) }
        for spec in specs {
            let figure = spec.replacingOccurrences(of: ".marbles", with: ".svg")
            XCTAssertTrue(files.contains(figure), "\(spec) has no \(figure): run make figures")
            XCTAssertTrue(texts.contains { $0.contains("(\(figure))") }, "no guide shows \(figure)")
        }
    }

    func testMapFilterFigureDropsTheRepeatedTwo() throws {
        let result = try run("guide-map-filter")
        XCTAssertEqual(events(result, "map"), ["1:10", "3:20", "5:20", "7:30", "9:40", "11:|"])
        XCTAssertEqual(events(result, "filter"), ["3:2", "5:2", "9:4", "11:|"])
        XCTAssertEqual(events(result, "skipRepeats"), ["1:1", "3:2", "7:3", "9:4", "11:|"])
    }

    func testScanFigureSendsRunningTotalsAndCollectSendsOneArrayAtCompletion() throws {
        let result = try run("guide-scan")
        XCTAssertEqual(events(result, "scan"), ["1:1", "4:3", "7:6", "10:10", "12:|"])
        XCTAssertEqual(events(result, "collect"), ["12:[1,2,3,4]", "12:|"])
    }

    func testTakeSkipFigureCompletesWithTheSecondValueAndAtTheTrigger() throws {
        let result = try run("guide-take-skip")
        XCTAssertEqual(events(result, "first2"), ["1:\"a\"", "3:\"b\"", "3:|"])
        XCTAssertEqual(events(result, "skip2"), ["5:\"c\"", "7:\"d\"", "9:\"e\"", "11:\"f\"", "13:|"])
        XCTAssertEqual(events(result, "until"), ["1:\"a\"", "3:\"b\"", "5:\"c\"", "7:\"d\"", "8:|"])
    }

    func testFlattenFigureShowsTheSameInstantTiesTheGuideExplains() throws {
        let result = try run("guide-flatten")
        // latest: c at frame 10 comes before b's inner y, so "by" is never sent.
        XCTAssertEqual(events(result, "latest"),
                       ["2:\"ax\"", "4:\"ay\"", "6:\"az\"", "8:\"bx\"", "11:\"cx\"", "13:\"cy\"", "15:\"cz\"", "18:|"])
        // throttle: b at frame 7 comes before a's inner completes, so b is ignored.
        XCTAssertEqual(events(result, "throttle"),
                       ["2:\"ax\"", "4:\"ay\"", "6:\"az\"", "11:\"cx\"", "13:\"cy\"", "15:\"cz\"", "18:|"])
        XCTAssertEqual(events(result, "race"), ["2:\"ax\"", "4:\"ay\"", "6:\"az\"", "18:|"])
        XCTAssertEqual(events(result, "concat").last, "19:|")
        XCTAssertEqual(events(result, "merge").count, 10)
    }

    func testCombiningFigureZipCompletesWhenTheFirstInputCanPairNoMore() throws {
        let result = try run("guide-combining")
        XCTAssertEqual(events(result, "combineLatest").first, "3:\"ax\"")
        XCTAssertEqual(events(result, "combineLatest").last, "16:|")
        XCTAssertEqual(events(result, "zip"), ["3:\"ax\"", "7:\"by\"", "13:\"cz\"", "14:|"])
        XCTAssertEqual(events(result, "merge").last, "16:|")
    }

    func testDebounceThrottleFigureDiffersAsTheGuideSays() throws {
        let result = try run("guide-debounce-throttle")
        XCTAssertEqual(events(result, "debounce"), ["8:\"c\"", "15:\"d\"", "26:|"])
        XCTAssertEqual(events(result, "throttle"),
                       ["1:\"a\"", "4:\"b\"", "7:\"c\"", "12:\"d\"", "18:\"e\"", "21:\"f\"", "24:\"h\"", "26:|"])
    }

    func testDelayTimeoutFigureDelaysCompletionAndTimesOutAfterTheLongGap() throws {
        let result = try run("guide-delay-timeout")
        XCTAssertEqual(events(result, "delay"), ["4:\"a\"", "6:\"b\"", "10:\"c\"", "19:\"d\"", "21:|"])
        XCTAssertEqual(events(result, "timeout"), ["1:\"a\"", "3:\"b\"", "7:\"c\"", "11:#\"TimeoutError\""])
    }

    func testObserveOnFigureKeepsTheOrderAndTheTimes() throws {
        let result = try run("guide-observe-on-threads")
        XCTAssertEqual(events(result, "onUI"), ["1:\"a!\"", "3:\"b!\"", "6:\"c!\"", "8:|"])
    }

    func testRetryFigureForwardsEveryAttemptAndFlatMapErrorSwitches() throws {
        let result = try run("guide-retry-flatmaperror")
        XCTAssertEqual(events(result, "retry"),
                       ["1:\"a\"", "3:\"b\"", "6:\"a\"", "8:\"b\"", "11:\"a\"", "13:\"b\"", "15:#\"lost\""])
        XCTAssertEqual(events(result, "flatMapError"), ["1:\"a\"", "3:\"b\"", "6:\"z\"", "7:|"])
    }

    func testUnsharedStartsFigureRunsTheWorkOncePerStart() throws {
        let result = try run("guide-unshared-starts")
        XCTAssertEqual(events(result, "starts"),
                       ["2:\"sa\"", "5:\"sb\"", "6:\"ta\"", "8:\"sc\"", "9:\"tb\"", "12:\"tc\"", "16:|"])
        let work = result.subscriptions.first { $0.name == "work" }?.subscriptions ?? []
        XCTAssertEqual(work.map(\.subscribe), [1_000_000, 5_000_000])
    }

    func testSampleFigureSamplesEachValueOnceAndWithLatestDropsTheEarlyValue() throws {
        let result = try run("guide-sample-withlatest")
        XCTAssertEqual(events(result, "withLatest"),
                       ["4:[\"b\",\"x\"]", "10:[\"c\",\"y\"]", "13:[\"d\",\"y\"]", "15:|"])
        XCTAssertEqual(events(result, "sample"), ["2:\"a\"", "6:\"b\"", "12:\"c\"", "14:\"d\"", "15:|"])
    }

    func testThenFigureStartsTheReplacementAtCompletionAndNotAfterAFailure() throws {
        let result = try run("guide-then")
        XCTAssertEqual(events(result, "granted"), ["4:\"r\"", "6:\"s\"", "7:|"])
        XCTAssertEqual(events(result, "failed"), ["2:#\"AccessDenied\""])
    }
}
