import Signals
import TraceLog
import Recording
import XCTest

final class RecorderTests: XCTestCase {
    /// A pipeline on virtual time: a pipe, a map and a filter, three values and completion.
    private func recordPipeline() -> [UInt8] {
        let scheduler = TestScheduler()
        return Recorder.record(virtual: scheduler) {
            let (signal, input) = Signal<Int, Never>.pipe(named: "numbers")
            signal.map { $0 * 10 }.filter { $0 > 10 }.observeValues { _ in }
            for value in 1...3 {
                scheduler.schedule(atNanoseconds: Int64(value) * 1_000_000) { input.send(value: value) }
            }
            scheduler.schedule(atNanoseconds: 5_000_000) { input.sendCompleted() }
            scheduler.run()
        }
    }

    func testVirtualRecordingsOfTheSameRunAreByteIdentical() {
        let first = recordPipeline()
        let second = recordPipeline()
        XCTAssertFalse(first.isEmpty)
        XCTAssertEqual(first, second)
    }

    func testRecordedTraceReadsBackWithNodesEventsAndCauses() throws {
        let trace = try Trace(bytes: recordPipeline())
        XCTAssertEqual(trace.header.clock, .virtual)
        XCTAssertNil(trace.header.host)
        XCTAssertEqual(trace.nodes.map(\.name), ["pipe", "map", "filter", "observeValues"])
        XCTAssertEqual(trace.nodes.first?.label, "numbers")
        XCTAssertEqual(trace.nodes[1].upstream, [NodeRecord.Edge(node: 1, role: .data)])
        let pipe = trace.events(of: 1)
        XCTAssertEqual(pipe.map(\.json), ["1", "2", "3", nil])
        XCTAssertEqual(pipe.map(\.time), [1_000_000, 2_000_000, 3_000_000, 5_000_000])
        let filtered = trace.events(of: 3)
        XCTAssertEqual(filtered.compactMap(\.text), ["20", "30"])
        XCTAssertEqual(filtered.last?.kind, .completed)
        // The filter's 20 was caused by the map's 20, itself caused by the pipe's 2.
        let twenty = try XCTUnwrap(filtered.first)
        let mapTwenty = try XCTUnwrap(trace.event(sequence: twenty.causes[0]))
        XCTAssertEqual(mapTwenty.text, "20")
        XCTAssertEqual(trace.event(sequence: mapTwenty.causes[0])?.text, "2")
        XCTAssertEqual(trace.threads.map(\.name), ["main", "test"])
        XCTAssertEqual(trace.summary?.events, UInt64(trace.events.count))
        XCTAssertEqual(trace.summary?.dropped, 0)
        XCTAssertEqual(trace.summary?.duration, 5_000_000)
    }

    func testRealTimeRecordingToAFileHasAWallClockHeaderAndMonotonicTimes() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("marbles-real-\(getpid()).trace")
        defer { try? FileManager.default.removeItem(at: url) }
        try Recorder.record(to: url) {
            let (signal, input) = Signal<String, Never>.pipe(named: "text")
            signal.map { $0.uppercased() }.observeValues { _ in }
            Recorder.mark("typing")
            input.send(value: "a\"b\\c\nd é")
            input.send(value: "second")
        }
        let trace = try Trace(contentsOf: url)
        XCTAssertEqual(trace.header.clock, .real)
        XCTAssertNotNil(trace.header.wallClock)
        XCTAssertEqual(trace.header.pid, Int64(getpid()))
        XCTAssertNotNil(trace.header.host)
        XCTAssertEqual(trace.marks.map(\.label), ["typing"])
        XCTAssertEqual(trace.events(of: 1).first?.text, "a\"b\\c\nd é")
        XCTAssertEqual(trace.events(of: 1).first?.json, #""a\"b\\c\nd é""#)
        XCTAssertEqual(trace.events(of: 2).map(\.text), ["A\"B\\C\nD É", "SECOND"])
        let times = trace.events.map(\.time)
        XCTAssertEqual(times, times.sorted())
        XCTAssertGreaterThanOrEqual(times.first ?? -1, 0)
        let thread = try XCTUnwrap(trace.threads.first)
        XCTAssertEqual(thread.name, "main")
        XCTAssertNotNil(thread.os)
    }

    func testLongValuesAreTruncatedWithAMarkerAndEncodableValuesKeepJSON() throws {
        struct Point: Encodable, CustomStringConvertible {
            var y: Int
            var x: Int
            var description: String { "(\(x), \(y))" }
        }
        let scheduler = TestScheduler()
        let long = String(repeating: "x", count: 500)
        let bytes = Recorder.record(virtual: scheduler) {
            let (points, pointInput) = Signal<Point, Never>.pipe()
            let (texts, textInput) = Signal<String, Never>.pipe()
            points.observeValues { _ in }
            texts.observeValues { _ in }
            pointInput.send(value: Point(y: 2, x: 1))
            textInput.send(value: long)
        }
        let trace = try Trace(bytes: bytes)
        XCTAssertEqual(trace.events[0].json, #"{"x":1,"y":2}"#)
        XCTAssertEqual(trace.events[0].text, "(1, 2)")
        XCTAssertFalse(trace.events[0].truncated)
        XCTAssertTrue(trace.events[1].truncated)
        XCTAssertEqual(trace.events[1].text, String(repeating: "x", count: Recorder.maxTextLength) + "…")
        XCTAssertEqual(trace.events[1].json?.count, 502)
    }

    func testNodesAreWrittenOnceUpstreamFirstWithTheLabelNamedGivesThem() throws {
        let scheduler = TestScheduler()
        let bytes = Recorder.record(virtual: scheduler) {
            let (signal, input) = Signal<Int, Never>.pipe()
            let mapped = signal.map { $0 + 1 }
            mapped.named("plusOne").observeValues { _ in }
            input.send(value: 1)
            input.send(value: 2)
        }
        let trace = try Trace(bytes: bytes)
        XCTAssertEqual(trace.nodes.map(\.id), [1, 2, 3])
        XCTAssertEqual(trace.node(2)?.label, "plusOne")
        XCTAssertEqual(trace.node(named: "plusOne")?.name, "map")
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertTrue(text.contains(#""name":"map","parameters":"","file":"RecordingTests/RecorderTests.swift","line":108,"label":"plusOne","#),
                      "the label is in the node's record, the first the trace says of it")
        XCTAssertFalse(text.contains(#"{"type":"label""#), text)
    }

    func testASubscriptionIsRecordedAtTheTimeAndWithTheParentItWasMadeWith() throws {
        let scheduler = TestScheduler()
        let bytes = Recorder.record(virtual: scheduler) {
            let (queries, input) = Signal<String, Never>.pipe(named: "queries")
            queries.flatMap(.latest) { query in
                SignalProducer<String, Never> { observer, lifetime in
                    lifetime += scheduler.schedule(after: 1) { observer.send(value: query + "!") }
                }
                .named("lookup")
            }
            .observeValues { _ in }
            // Made last before time moves on, observed by nothing: still recorded at 0.
            let unobserved = queries.map { $0.count }.named("length")
            scheduler.advance(by: 2)
            input.send(value: "a")
            _ = unobserved
            scheduler.advance(by: 5)
        }
        let trace = try Trace(bytes: bytes)
        let length = try XCTUnwrap(trace.node(named: "length"))
        let lookup = try XCTUnwrap(trace.node(named: "lookup"))
        let flatMap = try XCTUnwrap(trace.nodes.first { $0.name == "flatMap" })
        XCTAssertEqual(trace.subscriptions.filter { $0.node == length.id }.map(\.time), [0])
        let inner = try XCTUnwrap(trace.subscriptions.first { $0.node == lookup.id })
        XCTAssertEqual(inner.time, 2_000_000_000, "at the query, not at the answer a second later")
        XCTAssertEqual(trace.subscriptions.first { $0.id == inner.parent }?.node, flatMap.id)
        XCTAssertFalse(String(decoding: bytes, as: UTF8.self).contains(#"{"type":"label""#))
    }

    func testSubscriptionsStartedBeforeRecordingAreMarkedLate() throws {
        let (signal, input) = Signal<Int, Never>.pipe()
        signal.observeValues { _ in }
        let scheduler = TestScheduler()
        let bytes = Recorder.record(virtual: scheduler) { input.send(value: 1) }
        let trace = try Trace(bytes: bytes)
        XCTAssertEqual(trace.subscriptions.map(\.late), [true])
        XCTAssertEqual(trace.events.map(\.text), ["1"])
    }

    func testAnEventFloodKeepsTheBufferBoundedAndLosesNothing() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("marbles-flood-\(getpid()).trace")
        defer { try? FileManager.default.removeItem(at: url) }
        let recorder = try Recorder(to: url, clock: .real, bufferCapacity: 8192)
        recorder.start()
        let (signal, input) = Signal<Int, Never>.pipe()
        signal.map { $0 }.observeValues { _ in }
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for value in 0..<5_000 { input.send(value: worker * 10_000 + value) }
        }
        let summary = try recorder.stop()
        XCTAssertEqual(summary.events, 40_000)
        XCTAssertEqual(summary.dropped, 0)
        XCTAssertLessThan(recorder.bufferHighWater, 8192 + 1024)
        let reader = try TraceReader(url: url)
        var sequences: [UInt64] = []
        while let record = try reader.next() {
            if case let .event(event) = record { sequences.append(event.sequence) }
        }
        XCTAssertEqual(sequences, Array(1...40_000))
    }
}

extension RecorderTests {
    func testATraceCutAtAnyByteReadsUpToItsLastWholeRecord() throws {
        let whole = recordPipeline()
        let lineEnds = whole.indices.filter { whole[$0] == UInt8(ascii: "\n") }
        let headerEnd = try XCTUnwrap(lineEnds.first)
        for cut in stride(from: headerEnd + 1, to: whole.count, by: 7) {
            let prefix = Array(whole[..<cut])
            let reader = try TraceReader(bytes: prefix, name: "cut.trace")
            var records = 0
            while try reader.next() != nil { records += 1 }
            // A cut just before a newline leaves a whole record without its newline: it is read.
            // Any cut loses the summary: one warning, for the cut line or the missing summary.
            let wholeLines = lineEnds.filter { $0 <= cut }.count
            let keepsSummary = cut >= whole.count - 1
            XCTAssertEqual(records, wholeLines - 1, "cut at \(cut)")
            XCTAssertEqual(reader.warnings.count, keepsSummary ? 0 : 1, "cut at \(cut)")
            XCTAssertTrue(keepsSummary || reader.warnings[0].message.contains("cut off"), "cut at \(cut)")
        }
    }
}

extension RecorderTests {
    func testStoppedRecordersCloseTheirFilesAndKeepTheirSummary() throws {
        func openFiles() throws -> Int { try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("marbles-fd-\(getpid()).trace")
        defer { try? FileManager.default.removeItem(at: url) }
        let before = try openFiles()
        var summaries: [SummaryRecord] = []
        for _ in 0..<20 {
            let recorder = try Recorder(to: url)
            recorder.start()
            let (signal, input) = Signal<Int, Never>.pipe()
            signal.observeValues { _ in }
            input.send(value: 1)
            summaries.append(try recorder.stop())
            XCTAssertEqual(try recorder.stop(), summaries.last)
        }
        XCTAssertEqual(try openFiles(), before)
        XCTAssertEqual(summaries.last?.events, 1)
        XCTAssertEqual(try Trace(contentsOf: url).summary, summaries.last)
    }
}

extension RecorderTests {
    func testCombiningOperatorsRecordEveryCausePrimaryFirst() throws {
        let scheduler = TestScheduler()
        let bytes = Recorder.record(virtual: scheduler) {
            let (letters, letterInput) = Signal<String, Never>.pipe(named: "letters")
            let (numbers, numberInput) = Signal<Int, Never>.pipe(named: "numbers")
            Signal.combineLatest(letters, numbers).observeValues { _ in }
            letterInput.send(value: "a")
            numberInput.send(value: 1)
            letterInput.send(value: "b")
        }
        let trace = try Trace(bytes: bytes)
        let combined = try XCTUnwrap(trace.node(named: "combineLatest"))
        let events = trace.events(of: combined.id)
        XCTAssertEqual(events.map(\.causes), [[2, 1], [4, 2]])
        XCTAssertEqual(events.map(\.text), [#"("a", 1)"#, #"("b", 1)"#])
    }

    /// Integer events take the recorder's fast path (the line assembled on the stack); these
    /// are the exact bytes FORMAT.md's event record has, at every digit-count boundary.
    func testIntegerEventLinesHaveTheExactFormatAtEveryDigitBoundary() {
        let scheduler = TestScheduler()
        let values = [Int.min, -1, 0, 9, 10, 99, 100, 12_345, Int.max]
        let bytes = Recorder.record(virtual: scheduler) {
            let (signal, input) = Signal<Int, Never>.pipe(named: "integers")
            signal.observeValues { _ in }
            _ = scheduler.schedule(atNanoseconds: 9_876_543_210_123) {
                for value in values { input.send(value: value) }
                input.sendInterrupted()
            }
            scheduler.run()
        }
        let events = String(decoding: bytes, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix(#"{"type":"event""#) }
        // Thread 1 is "main", where the pipe subscribed; the events run as the scheduler's thread 2.
        var expected = values.enumerated().map { index, value in
            #"{"type":"event","seq":\#(index + 1),"time":9876543210123,"node":1,"sub":1,"kind":"value","thread":2,"#
                + #""causes":[],"text":"\#(value)","json":\#(value)}"#
        }
        expected.append(#"{"type":"event","seq":10,"time":9876543210123,"node":1,"sub":1,"kind":"interrupted","thread":2,"causes":[]}"#)
        XCTAssertEqual(events.map(String.init), expected)
    }
}

final class VirtualRecordingThreadTests: XCTestCase {
    func testAVirtualRecordingIgnoresOtherThreads() {
        let scheduler = TestScheduler()
        let (other, otherInput) = Signal<Int, Never>.pipe(named: "elsewhere")
        other.observeValues { _ in }
        let bytes = Recorder.record(virtual: scheduler) {
            let (signal, input) = Signal<Int, Never>.pipe(named: "here")
            signal.map { $0 + 1 }.observeValues { _ in }
            let sent = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                otherInput.send(value: 99)
                sent.signal()
            }
            sent.wait()
            scheduler.schedule(after: 0.001) { input.send(value: 1) }
            scheduler.run()
        }
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertTrue(text.contains("\"label\":\"here\""))
        XCTAssertFalse(text.contains("elsewhere"), text)
        XCTAssertFalse(text.contains("99"), text)
        XCTAssertTrue(text.contains("\"json\":2"), text)
    }
}

extension RecorderTests {
    /// The writer thread formats the binary event records of a file recording: the file has
    /// exactly the bytes an in-memory recording of the same virtual run has, across many
    /// buffer hand-offs (a small buffer) and records of every shape.
    func testAFileRecordingHasTheBytesOfTheSameRunRecordedInMemory() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("marbles-same-\(getpid()).trace")
        defer { try? FileManager.default.removeItem(at: url) }
        func run(_ scheduler: TestScheduler) {
            let (numbers, input) = Signal<Int, Never>.pipe(named: "numbers")
            let (words, wordInput) = Signal<String, Never>.pipe(named: "words")
            Signal.combineLatest(numbers.map { $0 * 3 }, words).observeValues { _ in }
            for value in 0..<3_000 {
                scheduler.schedule(atNanoseconds: Int64(value) * 1_000) {
                    input.send(value: value - 1_500)
                    if value % 7 == 0 { wordInput.send(value: "w\(value)") }
                }
            }
            scheduler.schedule(atNanoseconds: 5_000_000) { input.sendCompleted() }
            scheduler.run()
        }
        let memoryScheduler = TestScheduler()
        let inMemory = Recorder.record(virtual: memoryScheduler) { run(memoryScheduler) }
        let fileScheduler = TestScheduler()
        let recorder = try Recorder(to: url, clock: .virtual(fileScheduler), bufferCapacity: 4096)
        recorder.start()
        run(fileScheduler)
        try recorder.stop()
        let file = try [UInt8](Data(contentsOf: url))
        XCTAssertGreaterThan(file.count, 100_000)
        XCTAssertEqual(file, inMemory)
    }
}

extension RecorderTests {
    /// Nothing asks for a flush: the writer thread appends what was recorded on its own, in
    /// whole lines, while the recording goes on (the file is polled, never timed).
    func testTheWriterAppendsRecordsWithinItsFlushIntervalWithoutBeingAsked() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("marbles-interval-\(getpid()).trace")
        defer { try? FileManager.default.removeItem(at: url) }
        let recorder = try Recorder(to: url, flushInterval: .milliseconds(20))
        XCTAssertEqual(recorder.flushInterval, .milliseconds(20))
        recorder.start()
        let (signal, input) = Signal<Int, Never>.pipe(named: "polled")
        signal.observeValues { _ in }
        for value in 1...3 { input.send(value: value) }
        var seen: [UInt64] = []
        let giveUp = Date().addingTimeInterval(30)
        while seen.count < 3 && Date() < giveUp {
            usleep(1_000)  // paces the polling; the outcome is what is waited for
            let bytes = (try? [UInt8](Data(contentsOf: url))) ?? []
            guard bytes.last == UInt8(ascii: "\n") else { continue }
            let reader = try TraceReader(bytes: bytes, name: url.path)
            seen = []
            while let record = try reader.next() {
                if case let .event(event) = record { seen.append(event.sequence) }
            }
        }
        XCTAssertEqual(seen, [1, 2, 3], "the writer wrote the events before the recording stopped")
        try recorder.stop()
        XCTAssertEqual(try Trace(contentsOf: url).events.count, 3)
    }
}

final class LiveRecordingScopeTests: XCTestCase {
    private final class Results: @unchecked Sendable {  // guarded by lock
        private let lock = NSLock()
        private var bytes: [String: [UInt8]] = [:]
        subscript(name: String) -> [UInt8] {
            get { lock.withLock { bytes[name] ?? [] } }
            set { lock.withLock { bytes[name] = newValue } }
        }
    }

    /// Records, live, a pipeline made on this thread, whose every value is sent from a worker
    /// of a queue the other recording's values come from too.
    private static func record(_ name: String, values: Range<Int>, from queue: DispatchQueue) -> [UInt8] {
        let recorder = Recorder(clock: .real)
        recorder.start()
        let (signal, input) = Signal<Int, Never>.pipe(named: name)
        signal.map { $0 + 1 }.observeValues { _ in }
        let group = DispatchGroup()
        for value in values { queue.async(group: group) { input.send(value: value) } }
        group.wait()
        _ = try? recorder.stop()
        return recorder.bytes
    }

    func testTwoLiveRecordingsOnTwoThreadsEachHoldExactlyTheirOwnEvents() throws {
        let queue = DispatchQueue(label: "shared-senders", attributes: .concurrent)
        let results = Results()
        let done = DispatchGroup()
        let runs: [(String, Range<Int>)] = [("left", 1_000..<1_300), ("right", 5_000..<5_300)]
        for (name, values) in runs {
            done.enter()
            Thread.detachNewThread {
                results[name] = Self.record(name, values: values, from: queue)
                done.leave()
            }
        }
        done.wait()
        for (name, values) in runs {
            let trace = try Trace(bytes: results[name])
            XCTAssertEqual(trace.nodes.compactMap(\.label), [name], name)
            let sent = trace.events.compactMap { $0.json.flatMap { Int($0) } }
            XCTAssertEqual(sent.count, 2 * values.count, name)
            XCTAssertTrue(sent.allSatisfy { values.contains($0) || values.contains($0 - 1) }, name)
        }
    }
}

extension RecorderTests {
    /// The command line hands a recorder the file it made, open: a recorder given a
    /// descriptor never opens its path, so a file removed by an interruption (the demo's
    /// temporary file, unlinked by a SIGTERM handler) is not made anew by a recording that
    /// starts a moment later.
    func testARecorderGivenAnOpenFileNeverCreatesItsPath() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("marbles-handed-\(getpid()).trace")
        let kept = open(url.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        XCTAssertGreaterThanOrEqual(kept, 0)
        defer { close(kept) }
        XCTAssertEqual(unlink(url.path), 0)  // the interruption removed it
        let recorder = Recorder(writingTo: dup(kept), url: url)
        recorder.start()
        let (signal, input) = Signal<Int, Never>.pipe(named: "numbers")
        signal.observeValues { _ in }
        input.send(value: 7)
        let summary = try recorder.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path))
        XCTAssertEqual(recorder.url, url)
        let size = Int(lseek(kept, 0, SEEK_END))
        var bytes = [UInt8](repeating: 0, count: size)
        XCTAssertEqual(pread(kept, &bytes, size, 0), size)
        XCTAssertEqual(try Trace(bytes: bytes).summary, summary)
        XCTAssertEqual(summary.events, 1)
    }
}

extension RecorderTests {
    /// The header is in the file as soon as the recorder has started, not a flush interval
    /// later: a process killed at once leaves a trace that reads (no events, the cut warned
    /// about), not an empty file. (The flush interval is an hour, so no writer round wrote it.)
    func testAFileRecordingHasItsHeaderOnDiskOnceStarted() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("marbles-header-\(getpid()).trace")
        defer { try? FileManager.default.removeItem(at: url) }
        let recorder = try Recorder(to: url, flushInterval: .seconds(3600))
        recorder.start()
        let (signal, input) = Signal<Int, Never>.pipe(named: "numbers")
        signal.observeValues { _ in }
        input.send(value: 1)
        let started = try Data(contentsOf: url)
        let reader = try TraceReader(bytes: [UInt8](started), name: "started.trace")
        XCTAssertEqual(reader.header.clock, .real)
        XCTAssertNil(try reader.next(), "only the header is written at the start")
        XCTAssertEqual(reader.warnings.count, 1)
        try recorder.stop()
        let trace = try Trace(contentsOf: url)
        XCTAssertEqual(trace.events.count, 1)
        XCTAssertEqual(trace.summary?.events, 1)
    }
}

extension RecorderTests {
    private func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("marbles-replace-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder
    }

    private func recordOneValue(to url: URL, whileRecording: () throws -> Void = {}) throws {
        let recorder = try Recorder(to: url, flushInterval: .milliseconds(1))
        recorder.start()
        let (signal, input) = Signal<Int, Never>.pipe(named: "numbers")
        signal.observeValues { _ in }
        input.send(value: 7)
        try whileRecording()
        try recorder.stop()
    }

    /// A recording over an earlier trace leaves it whole until the recording stops (what a
    /// process killed meanwhile leaves), writing a temporary file beside it with its
    /// permissions, then renames that over it; nothing else is left in the folder.
    func testARecordingReplacesAnEarlierTraceOnlyWhenItStops() throws {
        let folder = try temporaryFolder()
        let url = folder.appendingPathComponent("run.trace")
        try recordOneValue(to: url)
        chmod(url.path, 0o640)
        let earlier = try Data(contentsOf: url)
        try recordOneValue(to: url) {
            XCTAssertEqual(try Data(contentsOf: url), earlier, "the earlier trace is untouched while recording")
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            XCTAssertEqual(names.count, 2, "\(names)")
            let temporary = try XCTUnwrap(names.first { $0.hasPrefix(".run.trace.marbles-") }, "\(names)")
            XCTAssertTrue(temporary.dropFirst(".run.trace.marbles-".count).allSatisfy(\.isHexDigit), temporary)
            XCTAssertEqual(temporary.count, ".run.trace.marbles-".count + 8, "eight hex digits, as the command line's")
            let partial = try TraceReader(url: folder.appendingPathComponent(temporary))
            XCTAssertEqual(partial.header.clock, .real, "the partial trace is readable in the temporary file")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["run.trace"])
        XCTAssertNotEqual(try Data(contentsOf: url), earlier)
        let trace = try Trace(contentsOf: url)
        XCTAssertEqual(trace.events.count, 1)
        XCTAssertNotNil(trace.summary)
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
        XCTAssertEqual(mode, 0o640)
    }

    /// A symbolic link to an earlier trace stays a link: the file it names is replaced.
    func testARecordingThroughALinkReplacesTheFileItNames() throws {
        let folder = try temporaryFolder()
        let target = folder.appendingPathComponent("target.trace")
        let link = folder.appendingPathComponent("link.trace")
        try recordOneValue(to: target)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target.path)
        try recordOneValue(to: link)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link.path), target.path)
        XCTAssertEqual(try Trace(contentsOf: target).events.count, 1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["link.trace", "target.trace"])
    }

    /// A new file is written in place from the start: a process killed at once leaves it
    /// where it was asked for, with no temporary file beside it.
    func testARecordingIntoANewFileWritesItInPlace() throws {
        let folder = try temporaryFolder()
        let url = folder.appendingPathComponent("new.trace")
        try recordOneValue(to: url) {
            XCTAssertGreaterThan(try Data(contentsOf: url).count, 0, "the header is in the file itself")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["new.trace"])
        }
        XCTAssertEqual(try Trace(contentsOf: url).events.count, 1)
    }
}
