@testable import AsyncMarbles
@testable import Demo
import Diagrams
import Recording
import Replay
import Signals
import TraceLog
import XCTest

/// Work a `for await` loop starts for an element, linked to it (issue 30): `following` makes a
/// call a child of the tap's subscription caused by the element, and a `MarbledStream` carries
/// the answer that produced each result to the tap on it.
final class FollowingTests: XCTestCase {
    private func event(_ sequence: UInt64, in trace: Trace) throws -> EventRecord {
        try XCTUnwrap(trace.events.first { $0.sequence == sequence }, "no event \(sequence)")
    }

    /// The async search: each search is a child of `settled`'s subscription, caused by the text
    /// that started it; the result shown is caused by the answer that produced it.
    private func checkTheChain(_ trace: Trace) throws {
        let settled = try XCTUnwrap(trace.nodes.first { $0.label == "settled" })
        let search = try XCTUnwrap(trace.nodes.first { $0.name == "call" && $0.label == "search" })
        let results = try XCTUnwrap(trace.nodes.first { $0.label == "searchResults" })
        let settledSubscription = try XCTUnwrap(trace.subscriptions.first { $0.node == settled.id })
        let calls = trace.subscriptions.filter { $0.node == search.id }
        XCTAssertEqual(calls.map(\.parent), [settledSubscription.id, settledSubscription.id])
        let texts = trace.events(of: settled.id).filter { $0.kind == .value }
        XCTAssertEqual(texts.map(\.text), ["magi", "magic!"])
        // "magi"'s search was interrupted when "magic!" settled; "magic!"'s answered.
        let first = trace.events.filter { $0.subscription == calls[0].id }
        let second = trace.events.filter { $0.subscription == calls[1].id }
        XCTAssertEqual(first.map(\.kind), [.interrupted])
        XCTAssertEqual(first.map(\.causes), [[texts[0].sequence]])
        XCTAssertEqual(second.map(\.kind), [.value, .completed])
        XCTAssertEqual(second.map(\.causes), [[texts[1].sequence], [texts[1].sequence]])
        let shown = trace.events(of: results.id).filter { $0.kind == .value }
        XCTAssertEqual(shown.map(\.text), ["4 tweets \"magic!\""])
        XCTAssertEqual(shown.map(\.causes), [[second[0].sequence]])
        // Back to the keystrokes: the result's answer, the text, the burst it settled.
        XCTAssertEqual(try event(texts[1].causes[0], in: trace).text, "magic!")
    }

    func testASearchFollowsTheSettledTextAndItsResultTheAnswer() throws {
        try checkTheChain(try Trace(bytes: try recordAsyncSearch().bytes, name: "live"))
    }

    func testTheReplayLinksTheChainAsTheRecordingDoes() throws {
        let replayed = try replayAsyncSearch(try recordAsyncSearch().bytes)
        XCTAssertEqual(replayed.errors, [])
        try checkTheChain(try Trace(bytes: replayed.bytes, name: "replay"))
    }

    /// The pipeline figure draws the whole chain, each edge with what crossed it: 2 texts
    /// started a search, 1 answer became a result (the interrupted search answered nothing).
    func testThePipelineFigureDrawsTheWholeChain() throws {
        let trace = try Trace(bytes: try recordAsyncSearch().bytes, name: "live")
        let graph = PipelineGraph(trace: trace)
        let names = Dictionary(uniqueKeysWithValues: graph.nodes.map { ($0.id, $0.label ?? $0.name) })
        let edges = graph.edges.map { "\(names[$0.from] ?? $0.from) -> \(names[$0.to] ?? $0.to) \($0.style) \($0.label ?? "")" }
        XCTAssertEqual(edges, [
            "searchText -> typed data 6 values", "typed -> validSearchText data 6 values",
            "validSearchText -> settled data 4 values",
            "settled -> search data 2 values", "search -> searchResults data 1 value",
        ])
    }

    /// The marble figure draws the searches under `settled`, then `searchResults`.
    func testTheMarbleFigureDrawsTheSearchesAfterTheTextsThatStartedThem() throws {
        let trace = try Trace(bytes: try recordAsyncSearch().bytes, name: "live")
        let figure = try MarbleFigure(trace: trace)
        XCTAssertEqual(figure.lanes.map(\.title), ["searchText", "typed", "validSearchText", "settled", "search", "search", "searchResults"])
        XCTAssertEqual(figure.lanes.map(\.isInner), [false, false, false, false, true, true, false])
    }

    /// A second call in the same task is caused by the first one's answer; an element yielded
    /// outside any following work names no cause; a task that never received from the tap
    /// follows nothing.
    func testWorkInATaskIsCausedByTheLastAnswerItReceived() throws {
        let driver = VirtualTimeDriver()
        let live = LiveAsyncEnvironment(clock: driver.clock)
        let recorder = Recorder(clock: .virtual(driver.scheduler))
        recorder.start()
        let shown = try driver.run {
            let ids = live.input("id", of: Int.self).marbles("ids")
            let (results, output) = MarbledStream.makeStream(of: String.self)
            Task {
                try live.send(7, to: "id")
                live.finishInputs()
            }
            Task {
                for await id in ids {
                    await ids.following {
                        Task {
                            let user = (try? await live.call("user", request: id) { "user\(id)" }) ?? "?"
                            let avatar = (try? await live.call("avatar", request: user) { "\(user).png" }) ?? "?"
                            output.yield(avatar)
                        }
                    }.value
                }
                // Not following anything: this task never iterated `ids`.
                await Task {
                    await ids.following { Task { _ = try? await live.call("audit", request: 0) { 0 } } }.value
                }.value
                output.yield("done")
                output.finish()
            }
            var shown: [String] = []
            for await line in results.marbles("shown") { shown.append(line) }
            return shown
        }
        try recorder.stop()
        XCTAssertEqual(shown, ["user7.png", "done"])
        let trace = try Trace(bytes: recorder.bytes, name: "chained")
        func node(_ label: String) throws -> NodeRecord { try XCTUnwrap(trace.nodes.first { $0.label == label }) }
        let id = try XCTUnwrap(trace.events(of: try node("ids").id).first { $0.kind == .value })
        let user = try XCTUnwrap(trace.events(of: try node("user").id).first { $0.kind == .value })
        let avatar = try XCTUnwrap(trace.events(of: try node("avatar").id).first { $0.kind == .value })
        let audit = try XCTUnwrap(trace.events(of: try node("audit").id).first { $0.kind == .value })
        XCTAssertEqual(user.causes, [id.sequence])
        XCTAssertEqual(avatar.causes, [user.sequence], "the second call follows the first one's answer")
        XCTAssertEqual(audit.causes, [])
        XCTAssertEqual(trace.subscriptions.first { $0.node == audit.node }?.parent, 0)
        let lines = trace.events(of: try node("shown").id).filter { $0.kind == .value }
        XCTAssertEqual(lines.map(\.causes), [[avatar.sequence], []])
    }

    /// With no recorder running, `following` is its closure, and a `MarbledStream` an
    /// `AsyncStream`: nothing is bound, nothing is caused.
    func testWithNoRecorderFollowingIsItsClosure() async {
        let (numbers, continuation) = MarbledStream.makeStream(of: Int.self)
        let tapped = numbers.marbles("numbers")
        continuation.yield(1)
        continuation.yield(2)
        continuation.finish()
        var seen: [Int] = []
        for await number in tapped {
            let bound = tapped.following { Following.current != nil }
            XCTAssertFalse(bound)
            seen.append(number)
        }
        XCTAssertEqual(seen, [1, 2])
    }
}
