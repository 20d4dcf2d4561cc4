import Foundation
import Recording
import MarbleStreams
import Replay
import Signals
import TraceLog
import XCTest

/// A search request with more than one field: encoded with sorted keys when recorded.
struct SearchRequest: Codable, Equatable {
    var text: String
    var page: Int
}

/// What a replayed pipeline's sink saw (the replay runs on one thread).
final class Seen<Value>: @unchecked Sendable {  // written and read by the replaying thread only
    var values: [Value] = []
    var terminals: [String] = []
}

final class ReplayByRequestTests: XCTestCase {
    /// Autocomplete: texts of at least `minimumLength` characters are searched (for
    /// `query(text)`), each search answering `[query + "1"]` after 20 ms on `network`; results
    /// are merged (none dropped).
    private func autocomplete(minimumLength: Int, texts: [String] = ["s", "sw", "swi", "swim", "swif"],
                              query: @escaping (String) -> String = { $0 },
                              seen: Seen<[String]> = Seen()) -> TestPipeline {
        TestPipeline(script: texts.enumerated().map { .send($0.element, to: "query", at: 100 * $0.offset) }
                        + [.complete(at: 100 * texts.count + 50)]) { environment in
            let network = environment.scheduler("network")
            let disposable = environment.input("query", of: String.self)
                .filter { $0.count >= minimumLength }
                .flatMap(.merge) { typed in
                    let text = query(typed)
                    return environment.call("search", request: text) { () -> SignalProducer<[String], ServiceError> in
                        SignalProducer { observer, lifetime in
                            lifetime += network.schedule(after: network.currentDate.addingTimeInterval(0.020)) {
                                observer.send(value: [text + "1"])
                                observer.sendCompleted()
                            }
                        }
                    }
                }
                .observe { event in
                    switch event {
                    case let .value(value): seen.values.append(value)
                    case let .failed(error): seen.terminals.append("failed \(error)")
                    case .completed: seen.terminals.append("completed")
                    case .interrupted: seen.terminals.append("interrupted")
                    }
                }
            return (AnyDisposable { disposable?.dispose() }, {})
        }
    }

    /// Replays `trace` through the autocomplete with other parameters (the inputs are the
    /// recorded ones).
    private func replay(_ trace: Trace, minimumLength: Int, policy: ReplayEnvironment.UnrecordedRequests = .error,
                        query: @escaping (String) -> String = { $0 }) throws -> (Seen<[String]>, Trace) {
        let seen = Seen<[String]>()
        let result = try Replayer(trace: trace, name: "autocomplete.trace", unrecordedRequests: policy).replay {
            self.autocomplete(minimumLength: minimumLength, query: query, seen: seen).build($0).0
        }
        return (seen, result.trace)
    }

    /// The differences of the traces `a` and `b` hold, streamed from files (`TraceDiff(contentsOf:)`).
    private func streamedDiff(_ a: [UInt8], _ b: [UInt8]) throws -> [TraceDiff.Difference] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (fileA, fileB) = (folder.appendingPathComponent("a.trace"), folder.appendingPathComponent("b.trace"))
        try Data(a).write(to: fileA)
        try Data(b).write(to: fileB)
        return try TraceDiff(contentsOf: fileA, fileB).differences
    }

    /// Two recordings where the third search asked another question: one `request-differs`
    /// difference, first, ahead of the answer it changed, in memory and streamed from files.
    func testTheDiffReportsACallStartedWithAnotherRequest() throws {
        let recordedA = try Recording.simulated(autocomplete(minimumLength: 2))
        let recordedB = try Recording.simulated(autocomplete(minimumLength: 2, query: { $0 == "swim" ? "swin" : $0 }))
        let diff = TraceDiff(recordedA.trace, recordedB.trace)
        let requests = diff.differences.filter { $0.kind == .requestDiffers }
        XCTAssertEqual(requests.count, 1, diff.text)
        XCTAssertEqual(diff.differences.first?.kind, .requestDiffers, diff.text)
        XCTAssertEqual(requests.first?.index, 3)
        XCTAssertEqual(requests.first?.requestA, "\"swim\"")
        XCTAssertEqual(requests.first?.requestB, "\"swin\"")
        XCTAssertTrue(diff.text.contains(#"first divergence: call "search" @ReplayTests/ReplayByRequestTests.swift:"#), diff.text)
        XCTAssertTrue(diff.text.contains(#", start 3: request differs: "swim" in A, "swin" in B"#), diff.text)
        // Then the answers it changed: the one to "swim" missing, the one to "swin" extra (an
        // answer to another question is not a changed answer).
        XCTAssertEqual(Set(diff.differences.dropFirst().map(\.kind)), [.missingInB, .extraInB], diff.text)

        let json = try JSONSerialization.jsonObject(with: Data(diff.json.utf8)) as? [String: Any]
        let first = try XCTUnwrap((json?["differences"] as? [[String: Any]])?.first)
        XCTAssertEqual(first["kind"] as? String, "request-differs")
        XCTAssertEqual(first["a"] as? String, "\"swim\"")
        XCTAssertEqual(first["b"] as? String, "\"swin\"")
        let decoded = try JSONDecoder().decode(TraceDiff.Difference.self,
                                               from: JSONSerialization.data(withJSONObject: first))
        XCTAssertEqual(decoded, requests.first)

        XCTAssertEqual(try streamedDiff(recordedA.bytes, recordedB.bytes), diff.differences)
        XCTAssertTrue(TraceDiff(recordedA.trace, recordedA.trace).isSame)
    }

    /// A changed filter: B (minimum 3) never searched "sw", and searched "swim" and "swif"
    /// as A did. The diff pairs the calls by request, not by order: one call only in A, no
    /// request that differs, and the answers to "swim" and "swif" matched, not reported as
    /// changed answers to the calls in their places; in memory and streamed from files alike.
    func testTheDiffPairsCallsByRequestAfterAChangedFilter() throws {
        let recordedA = try Recording.simulated(autocomplete(minimumLength: 2))
        let recordedB = try Recording.simulated(autocomplete(minimumLength: 3))
        let diff = TraceDiff(recordedA.trace, recordedB.trace)
        let calls = diff.differences.filter { $0.kind.comparesRequests }
        XCTAssertEqual(calls.map(\.kind), [.callOnlyInA], diff.text)
        XCTAssertEqual(calls.first?.index, 1)
        XCTAssertEqual(calls.first?.requestA, "\"sw\"")
        XCTAssertTrue(diff.text.contains(#", start 1: call only in A: request "sw""#), diff.text)
        // The answer to "sw" is missing in B; no answer stands for another's.
        XCTAssertFalse(diff.differences.contains { $0.kind == .valueDiffers }, diff.text)
        XCTAssertTrue(diff.differences.contains { $0.kind == .missingInB && $0.a?.value == #"["sw1"]"# }, diff.text)
        XCTAssertFalse(diff.differences.contains { $0.a?.value == #"["swim1"]"# || $0.b?.value == #"["swim1"]"# }, diff.text)

        // B made a call A never made, its difference placed among B's events.
        let reversed = TraceDiff(recordedB.trace, recordedA.trace)
        XCTAssertEqual(reversed.differences.filter { $0.kind.comparesRequests }.map(\.kind), [.callOnlyInB], reversed.text)
        XCTAssertTrue(reversed.text.contains(#", start 1: call only in B: request "sw""#), reversed.text)

        let json = try JSONSerialization.jsonObject(with: Data(diff.json.utf8)) as? [String: Any]
        let only = try XCTUnwrap((json?["differences"] as? [[String: Any]])?.first { $0["kind"] as? String == "call-only-in-a" })
        XCTAssertEqual(only["a"] as? String, "\"sw\"")
        XCTAssertNil(only["b"])
        let decoded = try JSONDecoder().decode(TraceDiff.Difference.self, from: JSONSerialization.data(withJSONObject: only))
        XCTAssertEqual(decoded, calls.first)

        XCTAssertEqual(try streamedDiff(recordedA.bytes, recordedB.bytes), diff.differences)
        XCTAssertEqual(try streamedDiff(recordedB.bytes, recordedA.bytes), reversed.differences)
    }

    /// Where both traces made a call in the same place with different requests and the
    /// answers differ only because the questions did, the answers are not paired as a changed
    /// value: each is missing or extra, and the request difference says why.
    func testAnswersToDifferentRequestsAreNotPairedAsChangedValues() throws {
        let recordedA = try Recording.simulated(autocomplete(minimumLength: 2))
        let recordedB = try Recording.simulated(autocomplete(minimumLength: 2, query: { $0 == "swim" ? "swin" : $0 }))
        let diff = TraceDiff(recordedA.trace, recordedB.trace)
        XCTAssertEqual(diff.differences.filter { $0.kind.comparesRequests }.map(\.kind), [.requestDiffers], diff.text)
        XCTAssertFalse(diff.differences.contains { $0.kind == .valueDiffers }, diff.text)
        XCTAssertTrue(diff.differences.contains { $0.kind == .missingInB && $0.a?.value == #"["swim1"]"# }, diff.text)
        XCTAssertTrue(diff.differences.contains { $0.kind == .extraInB && $0.b?.value == #"["swin1"]"# }, diff.text)
    }

    func testTheRecordingWritesEachCallsRequestIntoItsSubscription() throws {
        let recorded = try Recording.simulated(autocomplete(minimumLength: 2))
        let text = String(decoding: recorded.bytes, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix(#"{"type":"header","format":"marbles-trace","version":"1.1""#), text)
        let calls = recorded.trace.nodes.filter { $0.name == "call" }.map(\.id)
        let requests = recorded.trace.subscriptions.filter { calls.contains($0.node) }.map(\.request)
        XCTAssertEqual(requests, ["\"sw\"", "\"swi\"", "\"swim\"", "\"swif\""])
        // Subscriptions of other nodes carry none.
        XCTAssertTrue(recorded.trace.subscriptions.filter { !calls.contains($0.node) }.allSatisfy { $0.request == nil })
    }

    func testAStructuredRequestIsRecordedAsJSONWithSortedKeys() throws {
        let scheduler = TestScheduler()
        let environment = VirtualEnvironment(scheduler: scheduler)
        let bytes = Recorder.record(virtual: scheduler) {
            let producer = environment.call("search", request: SearchRequest(text: "swim", page: 2)) {
                SignalProducer<Int, ServiceError>(value: 1)
            }
            producer.startWithValues { _ in }
        }
        let trace = try Trace(bytes: bytes, name: "structured")
        XCTAssertEqual(trace.subscriptions.compactMap(\.request), [#"{"page":2,"text":"swim"}"#])
        XCTAssertTrue(String(decoding: bytes, as: UTF8.self).contains(#""thread":1,"request":{"page":2,"text":"swim"}}"#))
    }

    /// A request of megabytes is recorded by its size and hash (issue 33 item 4: it was kept
    /// whole, and a replay of a trace holding one took gigabytes), found by a replay by its
    /// digest, and, when the replay asks for another one, named with the nearest recorded.
    func testABigRequestIsFoundAndAnotherIsNamedWithoutComparingItWhole() throws {
        let big = String(repeating: "swim ", count: 400_000), other = big + "!"
        let scheduler = TestScheduler()
        let environment = VirtualEnvironment(scheduler: scheduler)
        let bytes = Recorder.record(virtual: scheduler) {
            environment.call("search", request: SearchRequest(text: big, page: 1)) { SignalProducer<Int, ServiceError>(value: 7) }
                .startWithValues { _ in }
        }
        let size = 2_000_000 + #"{"page":1,"text":""}"#.utf8.count
        XCTAssertLessThan(bytes.count, 10_000, "the request is in the trace")
        let trace = try Trace(bytes: bytes, name: "big")
        XCTAssertEqual(trace.subscriptions.compactMap(\.request), [])
        XCTAssertEqual(trace.subscriptions.compactMap(\.requestOmitted),
                       [RequestDigest(json: Recorder.requestJSON(SearchRequest(text: big, page: 1))!)])
        XCTAssertEqual(trace.subscriptions.compactMap(\.requestOmitted?.bytes), [size])
        func replay(_ text: String) throws -> [Int] {
            var values: [Int] = []
            _ = try Replayer(trace: trace, name: "big").replay { environment in
                environment.call("search", request: SearchRequest(text: text, page: 1)) { SignalProducer<Int, ServiceError>(value: 0) }
                    .startWithValues { values.append($0) }
            }
            return values
        }
        XCTAssertEqual(try replay(big), [7])
        XCTAssertThrowsError(try replay(other)) { error in
            guard let error = error as? ReplayError else { return XCTFail("expected a ReplayError, got \(error)") }
            XCTAssertEqual(error.kind, .unrecordedRequest)
            XCTAssertEqual(error.nearestRecordedRequests, [trace.subscriptions[0].requestKey!])
            // The message shows each request's beginning or digest and its size, not megabytes.
            XCTAssertLessThan(error.description.utf8.count, 2_000, String(error.description.prefix(2_000)))
            XCTAssertTrue(error.message.contains("<request of 2000020 bytes left out, fnv1a64:"), error.message)
            XCTAssertTrue(error.message.contains("… (2000021 bytes)"), error.message)
        }
    }

    func testAChangedFilterGetsTheResponseRecordedForEachRequestNotTheNextInOrder() throws {
        let recorded = try Recording.simulated(autocomplete(minimumLength: 2)).trace
        // Recorded calls: sw, swi, swim, swif. Paired by order, "swim" would get "sw1".
        let (seen, replayed) = try replay(recorded, minimumLength: 4)
        XCTAssertEqual(seen.values, [["swim1"], ["swif1"]])
        let calls = replayed.nodes.filter { $0.name == "call" }.map(\.id)
        XCTAssertEqual(replayed.subscriptions.filter { calls.contains($0.node) }.compactMap(\.request), ["\"swim\"", "\"swif\""])
        // Each response comes after its own recorded latency from the replay's start of the call.
        let values = replayed.events.filter { calls.contains($0.node) && $0.kind == .value }
        XCTAssertEqual(values.map(\.time), [320_000_000, 420_000_000])
    }

    func testARequestTheTraceNeverRecordedIsAnErrorNamingItAndTheNearestRecorded() throws {
        let recorded = try Recording.simulated(autocomplete(minimumLength: 4)).trace
        XCTAssertThrowsError(try replay(recorded, minimumLength: 3)) { error in
            guard let error = error as? ReplayError else { return XCTFail("expected a ReplayError, got \(error)") }
            XCTAssertEqual(error.kind, .unrecordedRequest)
            XCTAssertEqual(error.request, "\"swi\"")
            XCTAssertEqual(error.nearestRecordedRequests, ["\"swim\"", "\"swif\""])
            XCTAssertTrue(error.node.hasPrefix("call \"search\" @ReplayTests/ReplayByRequestTests.swift:"), error.node)
            XCTAssertTrue(error.message.contains(#"expected a recorded start of "search" with the request "swi"; the trace records none"#),
                          error.message)
            XCTAssertTrue(error.description.contains(#"nearest recorded: "swim", "swif""#), error.description)
        }
    }

    func testEqualRequestsAreServedInRecordedOrderAndOneMoreIsAnError() throws {
        let recorded = try Recording.simulated(autocomplete(minimumLength: 2, texts: ["ab", "ab", "cd"])).trace
        let (seen, _) = try replay(recorded, minimumLength: 2)
        XCTAssertEqual(seen.values, [["ab1"], ["ab1"], ["cd1"]])
        // Searching "ab" for every text asks for a third "ab".
        XCTAssertThrowsError(try replay(recorded, minimumLength: 2, query: { _ in "ab" })) { error in
            guard let error = error as? ReplayError else { return XCTFail("expected a ReplayError, got \(error)") }
            XCTAssertEqual(error.kind, .unrecordedRequest)
            XCTAssertTrue(error.message.contains(#"at most 2 starts of "search" with the request "ab""#), error.message)
            XCTAssertTrue(error.message.contains("3rd time"), error.message)
        }
    }

    func testAnUnrecordedRequestCanFailTheCallWithATypedError() throws {
        let recorded = try Recording.simulated(autocomplete(minimumLength: 4)).trace
        let (seen, replayed) = try replay(recorded, minimumLength: 3, policy: .fail { _ in ServiceError(code: 404) })
        XCTAssertEqual(seen.values, [])
        XCTAssertEqual(seen.terminals, ["failed ServiceError(code: 404)"])
        let failures = replayed.events.filter { $0.kind == .failed && replayed.node($0.node)?.name == "call" }
        XCTAssertEqual(failures.map(\.json), [#"{"code":404}"#])
    }

    func testAnUnrecordedRequestFailingWithAnotherErrorTypeIsAReplayError() throws {
        struct Other: Error {}
        let recorded = try Recording.simulated(autocomplete(minimumLength: 4)).trace
        XCTAssertThrowsError(try replay(recorded, minimumLength: 3, policy: .fail { _ in Other() })) { error in
            XCTAssertEqual((error as? ReplayError)?.kind, .undecodable)
            XCTAssertTrue("\(error)".contains("expected the error for an unrecorded request to be a ServiceError"), "\(error)")
        }
    }

    func testAnUnrecordedRequestCanProduceNothing() throws {
        let recorded = try Recording.simulated(autocomplete(minimumLength: 4)).trace
        let (seen, _) = try replay(recorded, minimumLength: 3, policy: .empty)
        XCTAssertEqual(seen.values, [["swim1"], ["swif1"]], "the unrecorded \"swi\" completes without a value")
        XCTAssertEqual(seen.terminals, ["completed"])
    }

    /// A recording that never called the service at all (every text too short): a replay
    /// that calls it is an error by default, and with a policy the call is answered as one
    /// with an unrecorded request, so the replay runs on and says which calls it answered so.
    func testACallTheRecordingNeverMadeIsAnsweredAsAnUnrecordedRequestWhenAsked() throws {
        let recorded = try Recording.simulated(autocomplete(minimumLength: 9)).trace
        XCTAssertThrowsError(try replay(recorded, minimumLength: 4)) { error in
            XCTAssertEqual((error as? ReplayError)?.kind, .missingCall)
        }
        let seen = Seen<[String]>()
        let result = try Replayer(trace: recorded, name: "autocomplete.trace", unrecordedRequests: .empty).replay {
            self.autocomplete(minimumLength: 4, seen: seen).build($0).0
        }
        XCTAssertEqual(seen.values, [])
        XCTAssertEqual(seen.terminals, ["completed"])
        XCTAssertEqual(result.unrecordedCalls.map(\.kind), [.unrecordedRequest, .unrecordedRequest])
        XCTAssertEqual(result.unrecordedCalls.map(\.request), ["\"swim\"", "\"swif\""])
        XCTAssertTrue(result.unrecordedCalls.allSatisfy { $0.message.contains(#"expected a call labelled "search" in the trace; it has none"#) },
                      "\(result.unrecordedCalls)")
    }

    func testARecordingWithoutRequestsIsReplayedInOrder() throws {
        // Format 1.0: no requests; the k-th start gets the k-th recorded subscription.
        let trace = try craftedTrace([
            #"{"type":"thread","id":1,"name":"script"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"input","parameters":"query","file":"App/Search.swift","line":3,"label":"query","upstream":[]}"#,
            #"{"type":"node","id":2,"kind":"source","name":"call","parameters":"search","file":"App/Search.swift","line":5,"label":"search","upstream":[]}"#,
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"event","seq":1,"time":100000000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"sw","json":"sw"}"#,
            #"{"type":"subscribe","id":2,"node":2,"parent":0,"time":100000000,"thread":1}"#,
            #"{"type":"event","seq":2,"time":110000000,"node":2,"sub":2,"kind":"value","thread":1,"causes":[],"text":"[recorded first]","json":["recorded first"]}"#,
            #"{"type":"event","seq":3,"time":110000000,"node":2,"sub":2,"kind":"completed","thread":1,"causes":[]}"#,
        ])
        let (seen, _) = try replay(trace, minimumLength: 2)
        XCTAssertEqual(seen.values, [["recorded first"]])
    }
}

final class TraceRequestFieldTests: XCTestCase {
    func testTheRequestFieldRoundTripsAndANullOneIsAbsent() throws {
        let record = TraceRecord.subscribe(SubscriptionRecord(id: 3, node: 2, parent: 1, time: 5, thread: 1,
                                                              request: #"{"page":2,"text":"swim"}"#))
        let line = String(decoding: record.jsonLine, as: UTF8.self)
        XCTAssertEqual(line, #"{"type":"subscribe","id":3,"node":2,"parent":1,"time":5,"thread":1,"request":{"page":2,"text":"swim"}}"# + "\n")
        let trace = try craftedTrace([
            #"{"type":"thread","id":1,"name":"main"}"#,
            #"{"type":"node","id":2,"kind":"source","name":"call","parameters":"s","file":"f","line":1,"label":"s","upstream":[]}"#,
            #"{"type":"subscribe","id":1,"node":2,"parent":0,"time":5,"thread":1,"request":{"page":2,"text":"swim"}}"#,
            #"{"type":"subscribe","id":2,"node":2,"parent":0,"time":6,"thread":1,"request":null}"#,
        ])
        XCTAssertEqual(trace.subscriptions.map(\.request), [#"{"page":2,"text":"swim"}"#, nil])
    }

    /// A request left out is written as its size and hash, and both readers read it back; a
    /// malformed one is a located error.
    func testAnOmittedRequestRoundTripsAndAMalformedOneIsLocated() throws {
        let digest = RequestDigest(json: String(repeating: "x", count: 70_000))
        XCTAssertEqual(digest, RequestDigest(bytes: 70_000, hash: digest.hash))
        let record = TraceRecord.subscribe(SubscriptionRecord(id: 3, node: 2, parent: 0, time: 5, thread: 1, requestOmitted: digest))
        let line = String(decoding: record.jsonLine, as: UTF8.self)
        XCTAssertEqual(line, #"{"type":"subscribe","id":3,"node":2,"parent":0,"time":5,"thread":1,"requestOmitted":70000,"requestHash":""#
            + digest.hashText + "\"}\n")
        let header = [#"{"type":"thread","id":1,"name":"main"}"#,
                      #"{"type":"node","id":2,"kind":"source","name":"call","parameters":"s","file":"f","line":1,"label":"s","upstream":[]}"#]
        // The writer's order (the fast path) and another order (the general path).
        let trace = try craftedTrace(header + [
            String(line.dropLast()),
            #"{"type":"subscribe","thread":1,"id":4,"node":2,"parent":0,"time":6,"requestHash":""# + digest.hashText + #"","requestOmitted":70000}"#,
        ])
        XCTAssertEqual(trace.subscriptions.map(\.requestOmitted), [digest, digest])
        XCTAssertEqual(trace.subscriptions.map(\.requestKey), [digest.key, digest.key])
        for (bad, expected) in [(#""requestOmitted":70000"#, #"expected "requestHash" beside "requestOmitted""#),
                                (#""requestOmitted":70000,"requestHash":"md5:00""#, "expected a \"requestHash\" of the form"),
                                (#""requestOmitted":-1,"requestHash":"\#(digest.hashText)""#, "expected a positive integer for \"requestOmitted\""),
                                (#""request":"a","requestOmitted":9,"requestHash":"\#(digest.hashText)""#, "not both")] {
            XCTAssertThrowsError(try craftedTrace(header + [#"{"type":"subscribe","id":1,"node":2,"parent":0,"time":5,"thread":1,"# + bad + "}"])) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
                XCTAssertTrue("\(error)".contains(":4:"), "\(error)")
            }
        }
    }

    /// The digest is FNV-1a over the JSON's bytes, the same in every process.
    func testTheDigestIsFNV1a64() {
        XCTAssertEqual(RequestDigest(json: "").hashText, "fnv1a64:cbf29ce484222325")
        XCTAssertEqual(RequestDigest(json: "a").hashText, "fnv1a64:af63dc4c8601ec8c")
        XCTAssertEqual(RequestDigest(json: "foobar").hashText, "fnv1a64:85944171f73967e8")
        XCTAssertEqual(RequestDigest.hash(fromText: "fnv1a64:85944171f73967e8"), 0x8594_4171_F739_67E8)
        XCTAssertNil(RequestDigest.hash(fromText: "fnv1a64:85944171F73967E8"))
        XCTAssertEqual(RequestDigest.key(of: "\"short\""), "\"short\"")
    }
}
