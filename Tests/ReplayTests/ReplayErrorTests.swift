import Foundation
import Replay
import Signals
import TraceLog
import XCTest

/// A trace from JSON Lines written by hand, after a virtual header.
func craftedTrace(_ records: [String], clock: String = "virtual") throws -> Trace {
    let header = #"{"type":"header","format":"marbles-trace","version":"1.0","unit":"ns","clock":"\#(clock)"}"#
    return try Trace(bytes: Array(([header] + records).joined(separator: "\n").utf8) + [10], name: "crafted.trace")
}

final class ReplayErrorTests: XCTestCase {
    private func replayError(_ trace: Trace, _ build: (Environment) -> Disposable,
                             file: StaticString = #filePath, line: UInt = #line) -> ReplayError? {
        do {
            _ = try Replayer(trace: trace, name: "crafted.trace").replay(build)
            XCTFail("expected a replay error", file: file, line: line)
            return nil
        } catch let error as ReplayError {
            return error
        } catch {
            XCTFail("expected a ReplayError, got \(error)", file: file, line: line)
            return nil
        }
    }

    private let queryTrace = [
        #"{"type":"thread","id":1,"name":"script"}"#,
        #"{"type":"node","id":1,"kind":"source","name":"input","parameters":"query","file":"App/Search.swift","line":3,"label":"query","upstream":[]}"#,
        #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
        #"{"type":"event","seq":1,"time":1000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"a","json":"a"}"#,
        #"{"type":"event","seq":2,"time":2000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"b","json":"b"}"#,
    ]

    private func search(_ environment: Environment) -> Disposable {
        let disposable = environment.input("query", of: String.self)
            .flatMap(.merge) { query in
                environment.call("search") { SignalProducer<Int, ServiceError>(value: query.count) }
            }
            .observeValues { _ in }
        return AnyDisposable { disposable?.dispose() }
    }

    func testAnInputLabelTheTraceLacksNamesTheLabelAndCallSite() throws {
        let trace = try craftedTrace(queryTrace)
        let error = try XCTUnwrap(replayError(trace) { environment in
            environment.input("text", of: String.self).observeValues { _ in } ?? AnyDisposable()
        })
        XCTAssertEqual(error.kind, .missingInput)
        XCTAssertTrue(error.node.hasPrefix("input \"text\" @ReplayTests/ReplayErrorTests.swift:"), error.node)
        XCTAssertNil(error.record)
        XCTAssertTrue(error.description.hasPrefix("crafted.trace: replay error: input \"text\" @"), error.description)
        XCTAssertTrue(error.message.contains("expected an input labelled \"text\""), error.message)
        // The labels the trace has, and the fix.
        XCTAssertTrue(error.message.contains("(its inputs: \"query\")"), error.message)
        XCTAssertTrue(error.message.contains("record the trace again (a golden: run the test with MARBLES_RECORD=1)"), error.message)
    }

    func testACallLabelTheTraceLacksIsAnError() throws {
        let error = try XCTUnwrap(replayError(try craftedTrace(queryTrace), search))
        XCTAssertEqual(error.kind, .missingCall)
        XCTAssertTrue(error.node.hasPrefix("call \"search\" @ReplayTests/ReplayErrorTests.swift:"), error.node)
    }

    func testMoreCallsThanRecordedIsAnErrorNamingTheCount() throws {
        let trace = try craftedTrace(queryTrace + [
            #"{"type":"node","id":2,"kind":"source","name":"call","parameters":"search","file":"App/Search.swift","line":5,"label":"search","upstream":[]}"#,
            #"{"type":"subscribe","id":2,"node":2,"parent":0,"time":1000,"thread":1}"#,
            #"{"type":"event","seq":3,"time":1500,"node":2,"sub":2,"kind":"value","thread":1,"causes":[],"text":"1","json":1}"#,
        ])
        let error = try XCTUnwrap(replayError(trace, search))
        XCTAssertEqual(error.kind, .extraCall)
        XCTAssertTrue(error.message.contains("at most 1 starts"), error.message)
        XCTAssertTrue(error.message.contains("2nd time"), error.message)
    }

    func testAValueThatDoesNotDecodeNamesTheEventAndType() throws {
        let trace = try craftedTrace(queryTrace)
        let error = try XCTUnwrap(replayError(trace) { environment in
            environment.input("query", of: Int.self).observeValues { _ in } ?? AnyDisposable()
        })
        XCTAssertEqual(error.kind, .undecodable)
        XCTAssertEqual(error.record, "event seq 1")
        XCTAssertTrue(error.message.contains("expected a value of type Int; the JSON \"a\" does not decode"), error.message)
        XCTAssertTrue(error.message.contains("The pipeline now reads Int where the recording has \"a\": if the type changed on purpose, "
            + "record the trace again (a golden: run the test with MARBLES_RECORD=1)"), error.message)
    }

    func testACallFailureThatDoesNotDecodeIsAnError() throws {
        let trace = try craftedTrace(queryTrace + [
            #"{"type":"node","id":2,"kind":"source","name":"call","parameters":"search","file":"App/Search.swift","line":5,"label":"search","upstream":[]}"#,
            #"{"type":"subscribe","id":2,"node":2,"parent":0,"time":1000,"thread":1}"#,
            #"{"type":"event","seq":3,"time":1500,"node":2,"sub":2,"kind":"failed","thread":1,"causes":[],"text":"oops","json":"oops"}"#,
        ])
        let error = try XCTUnwrap(replayError(trace, search))
        XCTAssertEqual(error.kind, .undecodable)
        XCTAssertEqual(error.record, "event seq 3")
        XCTAssertTrue(error.message.contains("expected an error of type ServiceError; the JSON \"oops\" does not decode"),
                      error.message)
    }

    func testAValueWithoutPayloadSaysWhy() throws {
        var records = queryTrace
        records[3] = #"{"type":"event","seq":1,"time":1000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"a"}"#
        records[4] = #"{"type":"event","seq":2,"time":2000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"b…","truncated":true,"jsonOmitted":70000}"#
        let missing = try XCTUnwrap(replayError(try craftedTrace(Array(records[0...3]))) { environment in
            environment.input("query", of: String.self).observeValues { _ in } ?? AnyDisposable()
        })
        XCTAssertEqual(missing.kind, .missingPayload)
        XCTAssertEqual(missing.record, "event seq 1")
        XCTAssertTrue(missing.message.contains("not Encodable"), missing.message)
        records.remove(at: 3)
        let omitted = try XCTUnwrap(replayError(try craftedTrace(records.map { $0.replacingOccurrences(of: "\"seq\":2", with: "\"seq\":1") })) {
            environment in environment.input("query", of: String.self).observeValues { _ in } ?? AnyDisposable()
        })
        XCTAssertEqual(omitted.kind, .missingPayload)
        XCTAssertTrue(omitted.message.contains("70000 bytes"), omitted.message)
    }

    func testAnInputThatFailedInTheTraceIsAnError() throws {
        var records = queryTrace
        records[4] = #"{"type":"event","seq":2,"time":2000,"node":1,"sub":1,"kind":"failed","thread":1,"causes":[],"text":"x","json":"x"}"#
        let error = try XCTUnwrap(replayError(try craftedTrace(records)) { environment in
            environment.input("query", of: String.self).observeValues { _ in } ?? AnyDisposable()
        })
        XCTAssertEqual(error.kind, .unexpectedEvent)
        XCTAssertEqual(error.record, "event seq 2")
    }

    func testAMissingTraceFileIsATraceError() {
        XCTAssertThrowsError(try Replayer(contentsOf: URL(fileURLWithPath: "/nonexistent/x.trace"))) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent/x.trace: error: cannot open the trace"), "\(error)")
        }
    }

    func testTheRecorderIsDetachedAfterAFailedReplay() throws {
        _ = replayError(try craftedTrace(queryTrace), search)
        XCTAssertNil(Instrumentation.probe)
    }
}

final class ReplayLabelTests: XCTestCase {
    /// A pipeline built nowhere else in the process: its `map` is labelled after the node
    /// is made, so the first replay meets the node unlabelled.
    private func shout(_ environment: Environment) -> Disposable {
        let disposable = environment.input("words", of: String.self)
            .map { $0.uppercased() }
            .named("shout")
            .observeValues { _ in }
        return AnyDisposable { disposable?.dispose() }
    }

    func testTheFirstReplayInAProcessGivesTheSameBytesAsLaterOnes() throws {
        let trace = try craftedTrace([
            #"{"type":"thread","id":1,"name":"main"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"input","parameters":"words","file":"App.swift","line":1,"label":"words","upstream":[]}"#,
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"event","seq":1,"time":1000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"hi","json":"hi"}"#,
        ])
        let replayer = Replayer(trace: trace)
        let first = try replayer.replay(shout)
        let second = try replayer.replay(shout)
        XCTAssertTrue(first.bytes == second.bytes, String(decoding: first.bytes, as: UTF8.self))
        let text = String(decoding: first.bytes, as: UTF8.self)
        XCTAssertFalse(text.contains(#"{"type":"label""#), text)
        XCTAssertTrue(text.contains(#""name":"map","parameters":"","file":"ReplayTests/ReplayErrorTests.swift","#), text)
        XCTAssertEqual(first.trace.nodes.first { $0.name == "map" }?.label, "shout")
        XCTAssertEqual(first.trace.events.last?.json, "\"HI\"")
    }
}

final class ReplayCallSiteTests: XCTestCase {
    func testTwoCallSitesWithOneLabelEachReplayTheirOwnStarts() throws {
        let trace = try craftedTrace([
            #"{"type":"thread","id":1,"name":"main"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"input","parameters":"go","file":"App.swift","line":1,"label":"go","upstream":[]}"#,
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"event","seq":1,"time":1000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"1","json":1}"#,
            #"{"type":"node","id":2,"kind":"source","name":"call","parameters":"fetch","file":"App.swift","line":10,"label":"fetch","upstream":[]}"#,
            #"{"type":"subscribe","id":2,"node":2,"parent":0,"time":1000,"thread":1}"#,
            #"{"type":"event","seq":2,"time":1500,"node":2,"sub":2,"kind":"value","thread":1,"causes":[],"text":"10","json":10}"#,
            #"{"type":"node","id":3,"kind":"source","name":"call","parameters":"fetch","file":"App.swift","line":20,"label":"fetch","upstream":[]}"#,
            #"{"type":"subscribe","id":3,"node":3,"parent":0,"time":1000,"thread":1}"#,
            #"{"type":"event","seq":3,"time":1700,"node":3,"sub":3,"kind":"value","thread":1,"causes":[],"text":"20","json":20}"#,
        ])
        var seen: [Int] = []
        _ = try Replayer(trace: trace).replay { environment in
            let disposable = environment.input("go", of: Int.self).observeValues { _ in
                environment.call("fetch", file: "App.swift", line: 10) { SignalProducer<Int, ServiceError>(value: 0) }
                    .startWithValues { seen.append($0) }
                environment.call("fetch", file: "App.swift", line: 20) { SignalProducer<Int, ServiceError>(value: 0) }
                    .startWithValues { seen.append($0) }
            }
            return AnyDisposable { disposable?.dispose() }
        }
        XCTAssertEqual(seen, [10, 20])
    }
}
