import Foundation
import Tutorials
import XCTest

final class ScriptTests: XCTestCase {
    func testTheSameSeedGivesTheSameScript() {
        for scenario in Scenarios.all {
            let a = scenario.script(seed: 5), b = scenario.script(seed: 5), c = scenario.script(seed: 6)
            XCTAssertEqual(a.map(\.at), b.map(\.at), scenario.name)
            XCTAssertEqual(a.map(\.description), b.map(\.description), scenario.name)
            XCTAssertNotEqual(a.map(\.at), c.map(\.at), "\(scenario.name): the seed changes the timing")
        }
    }

    func testScriptsAreInTimeOrderAndEndBeforeTheRunDoes() {
        for scenario in Scenarios.all {
            for seed in UInt64(0)..<50 {
                let times = scenario.script(seed: seed).map(\.at)
                XCTAssertFalse(times.isEmpty, scenario.name)
                XCTAssertEqual(times, times.sorted(), "\(scenario.name) seed \(seed)")
                XCTAssertLessThanOrEqual(times.last ?? 0, scenario.duration - 0.3, "\(scenario.name) seed \(seed)")
            }
        }
    }

    func testTwitterInstantTypesTheTutorialsKeystrokesOverAboutTwoSeconds() {
        let steps = TwitterInstant().script().filter { $0.description.hasPrefix("searchText") }
        XCTAssertEqual(steps.map(\.description), ["m", "ma", "mag", "magi", "magic", "magic!"].map { "searchText = \"\($0)\"" })
        let span = (steps.last?.at ?? 0) - (steps.first?.at ?? 0)
        XCTAssertGreaterThan(span, 1.4)
        XCTAssertLessThan(span, 1.8)
    }

    func testAllLiveRunsTogetherStayWellUnderHalfAMinute() {
        XCTAssertLessThan(Scenarios.all.map(\.duration).reduce(0, +), 20)
    }

    func testScenariosAreFoundByName() {
        XCTAssertEqual(Scenarios.names, ["signin", "twitter-instant", "registration", "pixels", "swift-search"])
        XCTAssertEqual(Scenarios.all.map(\.name), Scenarios.names)
        XCTAssertEqual(Scenarios.named("pixels")?.title, "FunctionalReactivePixels")
        XCTAssertEqual(Scenarios.named("signin", seed: 9)?.seed, 9)
        XCTAssertNil(Scenarios.named("nope"))
    }
}
