@testable import Diagrams
import XCTest

/// `MarbleRenderer.parts`: a figure too tall for one image in parts of whole rows.
final class FigurePartsTests: XCTestCase {
    /// A source lane, then `count` boxes each over two lanes and an inner lane; marble ids
    /// run 1, 2, … and each lane's marble caused the next lane's.
    private func figure(_ count: Int) -> MarbleFigure {
        var rows: [MarbleFigure.Row] = [.lane(.init(title: "source", marbles: [.init(id: 1, time: 0, display: "a", thread: 1)]))]
        var id: UInt64 = 1
        var causes: [MarbleFigure.Cause] = []
        for box in 0..<count {
            rows.append(.operator(.init(name: "map", parameters: "\(box)")))
            for title in ["map \(box) #1", "map \(box) #2", "inner \(box)"] {
                id += 1
                rows.append(.lane(.init(title: title, isInner: title.hasPrefix("inner"),
                                        marbles: [.init(id: id, time: Int64(id), display: "a", thread: 1)])))
                causes.append(.init(from: id - 1, to: id))
            }
        }
        return MarbleFigure(title: "tall", rows: rows, threads: ["imu", "gyro"], causes: causes, cutsIdleTime: false)
    }

    func testAFigureThatFitsIsOnePartAndItself() {
        let small = figure(3)
        XCTAssertEqual(MarbleRenderer.parts(small, maxHeight: 3_000), [small])
    }

    func testPartsKeepEveryRowInOrderBoxesWithTheirLanesAndTheFiguresThreads() throws {
        let tall = figure(40)
        let parts = MarbleRenderer.parts(tall, maxHeight: 3_000)
        XCTAssertGreaterThan(parts.count, 2)
        XCTAssertEqual(parts.flatMap(\.rows), tall.rows, "every row once, in order")
        for (index, part) in parts.enumerated() {
            XCTAssertEqual(part.title, "tall (part \(index + 1) of \(parts.count))")
            XCTAssertEqual(part.threads, tall.threads)
            XCTAssertEqual(part.threadColours, tall.threadColours, "one legend's colours for all parts")
            XCTAssertFalse(part.cutsIdleTime)
            if case .lane = part.rows.last {} else { XCTFail("part \(index + 1) ends with a box, apart from its lanes") }
            if index > 0, case .operator = part.rows.first {} else if index > 0 {
                XCTFail("part \(index + 1) starts inside a box's run")
            }
            let scene = MarbleLayout.scene(for: part, maxWidth: 1600)
            XCTAssertLessThanOrEqual(scene.height, 3_000, "part \(index + 1)")
            // Causal arrows between marbles of the part only.
            let ids = Set(part.lanes.flatMap { $0.marbles.map(\.id) })
            XCTAssertTrue(part.causes.allSatisfy { ids.contains($0.from) && ids.contains($0.to) })
        }
        XCTAssertEqual(parts.reduce(0) { $0 + $1.causes.count }, tall.causes.count - (parts.count - 1),
                       "only the arrows crossing from one part into the next are left out")
    }
}
