import Diagrams
import Foundation
import Locks
import MarbleStreams
import Recording
import Replay
import Signals
import TraceLog
import XCTest
import TestSupport

/// One generated pipeline run live and recorded, replayed twice and diffed, its figures
/// checked: the four invariants of issue 27 (the fourth: every text marble line reads back).
struct FidelityCheck {
    let pipeline: GeneratedPipeline
    /// What broke, by invariant; empty when every one held.
    var failures: [String] = []
    var recordedEvents = 0

    /// Where the recorded run happens.
    enum Mode { case live, virtual }

    /// A live run whose threads stayed blocked (a deadlock): they are left blocked, and the
    /// seed is reported rather than the suite waiting for ever.
    struct BlockedRun: Error, CustomStringConvertible {
        let reason: String
        var description: String { "did not finish: \(reason) (a deadlock?)" }
    }
    let mode: Mode

    /// A folder of kept live traces to replay instead of running live (`keptLiveTrace`).
    let kept: URL?
    /// Whether this seed's kept trace must be there: a folder given by a test must hold it; one
    /// given by `MARBLES_FIDELITY_FROM` may lack seeds, which then run live.
    let keptRequired: Bool

    init(seed: UInt64, profile: GeneratedPipeline.Profile = .full, mode: Mode = .live, kept: URL? = nil) {
        pipeline = GeneratedPipeline(seed: seed, profile: profile)
        self.mode = mode
        self.kept = kept ?? ProcessInfo.processInfo.environment["MARBLES_FIDELITY_FROM"].map { URL(fileURLWithPath: $0) }
        keptRequired = kept != nil
        do {
            try run()
        } catch {
            failures.append("error: \(error)")
        }
    }

    private mutating func run() throws {
        if mode == .live, let kept = try keptLiveTrace() {
            // A live run kept earlier: only what the replay must do with it is checked (the
            // live sink and closures ran in another process).
            return try replayAndCheck(kept, liveSink: nil)
        }
        let (liveTrace, liveSink, live, ended) = try mode == .live ? runLive() : runVirtual()
        guard ended else {
            failures.append("did not finish: the recorded run never ended (\(liveSink.values.count) values)")
            return
        }
        // Live, a subscription another thread reported before its maker linked it may lack a
        // link (its edge is then inferred): the links are checked where the run is virtual.
        failures += Self.edgeProblems(liveTrace, live.crossings, side: "recorded", checksLinks: mode == .virtual)
        try replayAndCheck(liveTrace, liveSink: liveSink)
    }

    /// The live trace of this seed kept in `kept` (`MARBLES_FIDELITY_FROM`, as
    /// `MARBLES_FIDELITY_TRACES` keeps it), if there is one: a live disagreement is then
    /// replayed again, the same each time, while its cause is looked for, and can become a
    /// regression test (`FidelityTests.keptLiveRegressions`).
    private func keptLiveTrace() throws -> Trace? {
        guard let kept else { return nil }
        let url = kept.appendingPathComponent("seed-\(pipeline.seed).live.trace")
        guard keptRequired || FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try Trace(contentsOf: url)
    }

    private mutating func replayAndCheck(_ liveTrace: Trace, liveSink: Outcome<Int>?) throws {
        recordedEvents = liveTrace.events.count

        // Replayed twice.
        var replays: [(ReplayResult, Outcome<Int>, GeneratedPipelineBuilder)] = []
        for _ in 0..<2 {
            let sink = Outcome<Int>()
            var builder: GeneratedPipelineBuilder?
            // A call the recording lacks completes empty, so the replay runs on and the diff
            // shows it (a call only in the replay) where the race that caused it can be named.
            // The replayer's default: live, each hop waits as it did (`HopLatency.asRecorded`),
            // so `observe(on:)` is generated too; `MARBLES_FIDELITY_HOPS=zero` runs hops at once.
            let hops: ReplayEnvironment.HopLatency? =
                ProcessInfo.processInfo.environment["MARBLES_FIDELITY_HOPS"] == "zero" ? .zero : nil
            let result = try Replayer(trace: liveTrace, hopLatency: hops, unrecordedRequests: .empty).replay { environment in
                let made = GeneratedPipelineBuilder(pipeline, environment: environment)
                builder = made
                // Torn down as the recorded run was (`finish`): the pipeline, then its
                // bindings, while the replay still records (a binding's source still
                // running at the end is interrupted then, live and replayed alike).
                let pipeline = startGeneratedPipeline(made, into: sink)
                return AnyDisposable {
                    pipeline.dispose()
                    made.dispose()
                }
            }
            replays.append((result, sink, builder!))
        }
        let (replay, replaySink, replayBuilder) = replays[0]
        keep(replay.bytes, "replay")
        // 1. The replay agrees with the live run.
        // Live, where the replay could not agree, the diff must name the race it diverged at.
        let diff = TraceDiff(liveTrace, replay.trace, nameA: "live", nameB: "replay")
        // Work still armed when the live recording stopped (a delay a property kept going)
        // runs in the replay, which runs to quiescence (`ReplayResult.pastEnd`): when the
        // replay up to the recording's end agrees, only that differs.
        var pastEnd = false
        if mode == .live, !diff.isSame, let end = replay.pastEnd?.recordedEnd,
           let upToEnd = try? Self.upTo(end, replay.bytes) {
            pastEnd = TraceDiff(liveTrace, upToEnd, nameA: "live", nameB: "replay").isSame
        }
        let race = pastEnd ? Self.pastTheEnd : diff.divergesAtARace ? Self.atARace : ""
        if !diff.isSame {
            failures.append(race + "replay differs from live:\n" + diff.text)
        }
        // Past the end, the replay's sink may see more than the live one did.
        if let liveSink, replaySink.values != liveSink.values || replaySink.terminal != liveSink.terminal,
           !(pastEnd && replaySink.values.starts(with: liveSink.values)) {
            failures.append(race + "the replay's sink saw \(replaySink.values) \(replaySink.terminal ?? "no end"), "
                            + "live \(liveSink.values) \(liveSink.terminal ?? "no end")")
        }
        // 2. Two replays are byte-identical.
        if replay.bytes != replays[1].0.bytes {
            failures.append("two replays of one recording differ")
        }
        // 3. Each figure edge's count is what the code that ran counted.
        failures += Self.edgeProblems(replay.trace, replayBuilder.crossings, side: "replay", checksLinks: true)
        // 4. Every text marble line reads back to what it draws, cut and uncut.
        failures += Self.textProblems(liveTrace, side: "recorded") + Self.textProblems(replay.trace, side: "replay")
    }

    /// The text marble lines of the trace's figure (every lane) that do not read back
    /// through the notation's parser to the times their symbols are drawn at.
    static func textProblems(_ trace: Trace, side: String) -> [String] {
        do {
            var figure = try MarbleFigure(trace: trace, options: .init(selection: .all))
            var problems: [String] = []
            for cuts in [true, false] {
                figure.cutsIdleTime = cuts
                problems += MarbleText.roundTripProblems(figure).map { "text (\(side), cuts \(cuts)): \($0)" }
            }
            return problems
        } catch {
            return ["text (\(side)): no figure: \(error)"]
        }
    }

    /// Runs the pipeline on real threads, each input fed by a thread of its own.
    private mutating func runLive() throws -> (Trace, Outcome<Int>, GeneratedPipelineBuilder, Bool) {
        // Live, on real threads: each input fed by a thread of its own.
        let recorder = Recorder(clock: .real)
        recorder.start()
        let environment = LiveEnvironment()
        let live = GeneratedPipelineBuilder(pipeline, environment: environment)
        let liveSink = Outcome<Int>()
        let disposable = startGeneratedPipeline(live, into: liveSink)
        let drivers = DispatchGroup()
        for input in pipeline.inputs {
            drivers.enter()
            let thread = Thread {
                for send in input.sends {
                    if send.gap > 0 { usleep(UInt32(send.gap * 1000)) }
                    try? environment.send(send.value, to: input.label)
                }
                try? environment.complete(input.label)
                drivers.leave()
            }
            thread.name = "driver \(input.label)"
            thread.start()
        }
        let ended = liveSink.ended(within: 20)
        // A run that never ends may be threads blocked for good (a deadlock): waited for a
        // while, not for ever, so the seed is reported with its pipeline, not a hung suite.
        guard drivers.wait(timeout: .now() + (ended ? 60 : 5)) == .success else {
            // The blocked threads keep their locks; the recorder is stopped, so the rest of the
            // suite records nothing into it.
            _ = try? recorder.stop()
            throw BlockedRun(reason: "its input threads were still blocked \(ended ? 60 : 25) s after it started")
        }
        // Every queue finishes what it is doing before the run is torn down and the recording
        // stops: the sink's end wakes this thread while the thread that delivered it may still
        // be unwinding its cascade (the services' queue too, where calls answer), and what it
        // did after the recording stopped would be missing from the live trace alone.
        for queue in (0..<pipeline.queues).map({ "q\($0)" }) + ["services"] {
            let drained = DispatchSemaphore(value: 0)
            environment.scheduler(queue).schedule { drained.signal() }
            guard drained.wait(timeout: .now() + (ended ? 60 : 5)) == .success else {
                _ = try? recorder.stop()
                throw BlockedRun(reason: "its queue \(queue) was still blocked after it should have ended")
            }
        }
        return (try finish(recorder, disposable, live, "live"), liveSink, live, ended)
    }

    /// Runs the pipeline in virtual time: every queue a lane of one test scheduler, the
    /// inputs sent from lanes of their own at their times.
    private mutating func runVirtual() throws -> (Trace, Outcome<Int>, GeneratedPipelineBuilder, Bool) {
        let scheduler = TestScheduler()
        let recorder = Recorder(clock: .virtual(scheduler))
        recorder.start()
        let environment = VirtualEnvironment(scheduler: scheduler)
        let builder = GeneratedPipelineBuilder(pipeline, environment: environment)
        let sink = Outcome<Int>()
        let disposable = startGeneratedPipeline(builder, into: sink)
        // Input k sends k + 1 tenths of a millisecond past whole milliseconds, so no send
        // falls at the very instant of a tick, an answer or another input's send: which of
        // two things due at one virtual instant runs first is the order they were scheduled
        // in, which the trace does not record (see the note on ties in FidelityTests).
        for (index, input) in pipeline.inputs.enumerated() {
            let lane = environment.scheduler("driver \(input.label)")
            var at = Double(index + 1) / 10
            for send in input.sends {
                at += Double(send.gap)
                lane.schedule(after: lane.currentDate.addingTimeInterval(at / 1000)) {
                    try? environment.send(send.value, to: input.label)
                }
            }
            lane.schedule(after: lane.currentDate.addingTimeInterval(at / 1000)) {
                try? environment.complete(input.label)
            }
        }
        _ = scheduler.run()
        let ended = sink.terminal != nil
        return (try finish(recorder, disposable, builder, "virtual"), sink, builder, ended)
    }

    /// Ends a recorded run: the pipeline and its bindings disposed, the recording read back.
    private mutating func finish(_ recorder: Recorder, _ disposable: Disposable, _ builder: GeneratedPipelineBuilder,
                                 _ kind: String) throws -> Trace {
        disposable.dispose()
        builder.dispose()
        builder.crossings.freeze()
        try recorder.stop()
        let trace = try Trace(bytes: recorder.bytes, name: kind)
        keep(recorder.bytes, kind)
        recordedEvents = trace.events.count
        return trace
    }

    /// Writes `bytes` into `MARBLES_FIDELITY_TRACES`, when set, for a look at a failure.
    private func keep(_ bytes: [UInt8], _ kind: String) {
        guard let folder = ProcessInfo.processInfo.environment["MARBLES_FIDELITY_TRACES"] else { return }
        try? Data(bytes).write(to: URL(fileURLWithPath: folder).appendingPathComponent("seed-\(pipeline.seed).\(kind).trace"))
    }

    /// Whether `failure` says the replay disagreed with the recorded run (invariant 1),
    /// rather than that a figure or a second replay did.
    /// What begins a failure the diff explains as a race between live threads (`TraceDiff.Race`).
    static let atARace = "at a race between threads, "
    /// What begins a failure that is only what the replay ran past the live recording's end.
    static let pastTheEnd = "past the recording's end, "

    /// The replay's trace (JSON Lines `bytes`) without what it recorded after `end` (its
    /// events, subscriptions, disposals and hops), and without its summary.
    static func upTo(_ end: Int64, _ bytes: [UInt8]) throws -> Trace {
        var kept: [UInt8] = []
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { continue }
            if object["type"] as? String == "summary" { continue }
            let time = (object["time"] ?? object["enqueued"]) as? NSNumber
            if let time, time.int64Value > end { continue }
            kept += line
            kept.append(UInt8(ascii: "\n"))
        }
        return try Trace(bytes: kept, name: "replay up to the recording's end")
    }

    /// Whether a live failure is a disagreement with the live run rather than a broken
    /// invariant of the replay itself: the replay or its sink differs (at a race the diff
    /// names, `atARace`, or not), or a figure's count a teardown on another thread changed.
    static func isDisagreement(_ failure: String) -> Bool {
        failure.hasPrefix(atARace) || failure.hasPrefix(pastTheEnd) || failure.hasPrefix("replay differs")
            || failure.hasPrefix("the replay's sink saw")
            || failure.hasPrefix("error:")
            // The figures' edge counts, live: a value an operator sent while the run was being
            // torn down on another thread may never reach the next operator's closure, and
            // nothing in the trace says so; and a replay that disagrees has other counts.
            // (In virtual time both are checked strictly.)
            || failure.hasPrefix("recorded: ") || failure.hasPrefix("replay: ")
    }

    /// The data edges whose figure label disagrees with the values the downstream
    /// operator's closure was called with; with `checksLinks`, also those whose count the
    /// figure could not take exactly from the subscriptions' links, inferring it instead.
    static func edgeProblems(_ trace: Trace, _ crossings: CrossingCounts, side: String, checksLinks: Bool) -> [String] {
        let graph = PipelineGraph(trace: trace)
        struct Link: Hashable { var from: UInt64, to: UInt64 }
        var linked: Set<Link> = []
        for record in trace.subscriptions {
            for upstream in record.observes ?? [] {
                if let observed = trace.subscription(upstream) { linked.insert(Link(from: observed.node, to: record.node)) }
            }
            for downstream in record.observedBy ?? [] {
                if let observer = trace.subscription(downstream) { linked.insert(Link(from: record.node, to: observer.node)) }
            }
        }
        var problems: [String] = []
        // Every data edge between two of the pipeline's operators, from one that ran, is
        // counted exactly: some subscription of its downstream node records observing one of
        // its upstream node's.
        if checksLinks {
            let generated = Dictionary(uniqueKeysWithValues: trace.nodes.filter { $0.file.hasPrefix("FidelityTests/") }
                .map { (String($0.id), $0) })
            // A subscription that ended before its observer began has no link (the recorder let
            // go of its id) and nothing crossed: the figure says so exactly (`ObservedCrossings`).
            var lastEnd: [UInt64: UInt32] = [:], firstStart: [UInt64: UInt32] = [:]
            for (index, record) in trace.subscriptions.enumerated() {
                lastEnd[record.node] = max(lastEnd[record.node] ?? 0, trace.subscriptionDisposalPositions[index])
                firstStart[record.node] = min(firstStart[record.node] ?? .max, trace.subscriptionEventPositions[index])
            }
            for edge in graph.edges where edge.style == .data {
                guard let from = generated[edge.from], let to = generated[edge.to], to.kind != .sink,
                      let ended = lastEnd[from.id], !linked.contains(Link(from: from.id, to: to.id))
                else { continue }
                // An action's answers list all their observers on their own records: an edge
                // from the action with no link (into `disabledErrors` when nothing was refused,
                // into the state properties it sets itself) carried nothing (see FORMAT.md).
                if from.name == "Action" {
                    if let label = edge.label, label != "0 values" {
                        problems.append("\(side): the edge from the action at line \(from.line) into \(to.name), "
                                        + "which no answer crossed, is labelled \(label)")
                    }
                    continue
                }
                if let began = firstStart[to.id], ended <= began {
                    if let label = edge.label, label != "0 values" {
                        problems.append("\(side): the edge from \(from.name) at line \(from.line), ended before "
                                        + "\(to.name) began, is labelled \(label)")
                    }
                    continue
                }
                problems.append("links (\(side)): no subscription of \(to.name) at line \(to.line) records observing "
                                + "\(from.name) at line \(from.line)")
            }
        }
        for (key, expected) in crossings.all.sorted(by: { $0.key < $1.key }) {
            let nodes = trace.nodes.filter { $0.line == UInt64(key.line) && $0.name == key.name && $0.file.hasPrefix("FidelityTests/") }
            guard nodes.count == 1, let node = nodes.first else {
                if expected > 0 { problems.append("\(side): \(nodes.count) nodes for \(key), which ran \(expected) times") }
                continue
            }
            let edges = graph.edges.filter { $0.to == String(node.id) && $0.style == .data }
            guard let edge = edges.first, edges.count == 1 else {
                if expected > 0 { problems.append("\(side): \(edges.count) data edges into \(key)") }
                continue
            }
            // The count is exact: a subscription of the node recorded observing one of the
            // edge's upstream node (`observes`, or `observedBy` on the upstream's record).
            if checksLinks, let from = UInt64(edge.from), !linked.contains(Link(from: from, to: node.id)) {
                problems.append("links (\(side)): no subscription of \(key) records observing node \(edge.from)")
            }
            // A flatMap sends exactly the values its inner streams delivered to it: the inner
            // edges into it, counted from the links, carry them all.
            if checksLinks && key.name == "flatMap" {
                let inner = graph.edges.filter { $0.to == String(node.id) && $0.style == .inner }
                    .compactMap { $0.label.flatMap { Int($0.prefix { $0.isNumber }) } }.reduce(0, +)
                let sent = trace.events(of: node.id).filter { $0.kind == .value }.count
                if inner != sent {
                    problems.append("links (\(side)): the inner edges into \(key) carry \(inner) values, it sent \(sent)")
                }
            }
            let drawn = edge.label.flatMap { Int($0.prefix { $0.isNumber }) }
            if drawn != expected {
                problems.append("\(side): the edge into \(key) is labelled \(edge.label ?? "nothing"), "
                                + "its closure ran \(expected) times")
            }
        }
        return problems
    }
}

/// Issue 27's proof: seeded generated pipelines, each run and recorded, replayed twice and
/// diffed, with four invariants checked on every one (see `FidelityCheck`).
///
/// - In virtual time, every operator of the generator: the recorded run is deterministic, so
///   the replay must agree with it exactly, times included, for every pipeline.
/// - Live, on real threads (each input fed by a thread of its own, timers and operators on
///   real queues): what a replay must reproduce includes which thread's event came first.
///   A replay runs each operator timer (`debounce`, `throttle`, `delay`, `timeout`) as late as
///   the live one ran (`HopRecord.due`), so they are generated live too; and the live runs are
///   replayed keeping each hop's recorded queue wait (`HopLatency.asRecorded`), so
///   `observe(on:)` is generated live as well (`MARBLES_FIDELITY_HOPS=zero`: hops at once). On
///   1,020 kept live recordings, `asRecorded` (the replayer's default for a real-time trace)
///   agreed for 845 against 834 at once.
///
/// `make test` runs fixed seeds; `make fidelity SEEDS=N` runs N fresh ones
/// (`MARBLES_FIDELITY_SEEDS`, from `MARBLES_FIDELITY_FIRST`, printed at the start;
/// `MARBLES_FIDELITY_MODE=live|virtual`, `MARBLES_FIDELITY_EXCLUDE=delay,throttle,…`,
/// `MARBLES_FIDELITY_SEED` for one seed, `MARBLES_FIDELITY_TRACES=DIR` to keep the traces,
/// `MARBLES_FIDELITY_FROM=DIR` to replay the live traces kept there instead of running live).
final class FidelityTests: XCTestCase {
    /// Seeds that once failed, kept as regressions (each names what it found); run without
    /// the operators drawn from the generator's second stream (`Profile.first`), as they
    /// were found.
    static let regressions: [UInt64] = [
        1042, 1234,  // virtual: a service interrupted before it answered was a node "only in A" for diff
        20251,  // virtual: a timer as its own take(until:) trigger got the other start's recorded ticks
        20289,  // virtual: a call interrupted before it answered left the value that asked off a figure's edge
        40144,  // virtual: a teardown from another branch counted as a value crossing the edge into a flatMap
        1300950,  // virtual: a value a filter fed to two consumers dropped, its stream then torn down, was on no edge
    ]

    /// Seeds that once failed with every operator, the second stream's too.
    static let laterRegressions: [UInt64] = [
        18,  // live: an Action's next application, started on another thread while the thread that ended the
             // last was still unwinding, was refused; the replay called the service instead (a replay error then)
        25,  // live: a binding's timer interrupted by the run's teardown, which the replay left unrecorded;
             // and a deadlock: a take(until:) tearing down a flatMap another thread delivered through
        75,  // live: a property's map subscribed and disposed in one frame, drawn (^!), did not read back
        15000047,  // live: a skip(until:) whose trigger was interrupted before it sent never ended (the generator's)
    ]

    /// Live recordings of generated pipelines that a replay once disagreed with, kept in
    /// `Tests/FidelityTests/KeptLive` (a live run is not the same twice, so the seed alone
    /// cannot bring the disagreement back). They were recorded with every operator. Each names
    /// its generator's call sites (`GeneratedPipelineBuilder.swift`'s lines, the sink's in
    /// `PipelineStart.swift`): a change to those lines shows as a changed node here, and the
    /// recording is then made again (`MARBLES_FIDELITY_TRACES` keeps it).
    static let keptLiveRegressions: [UInt64] = [
        50000006,  // a delay armed earlier in the replay by the time its cause's cascade took live ran
                   // before another thread's input value, which came between its due time and its start live
        50000040,  // held to its recorded start, a throttle's send ran after an `observe(on:)` hop's value,
                   // which a replay runs at once, though the hop ran after it live
        50000119,  // held no later than a value that came after it live, a delay ran before another input's
                   // value: that value's cause was followed back through a debounce's timer to its input
        51000047,  // the pipeline's setup took 1.5 ms live, so a delay's first timer, armed at once in the
                   // replay, was earlier than recorded by more than the 1 ms it was first held within
        52000050, 52000079,  // an observe(on:) hop, enqueued earlier in the replay by its cause's cascade, ran
                             // that much earlier after its recorded wait, ahead of another thread's value
        50000081,  // the same, an observe(on:) feeding two delays (each of the three failed with the
                   // recorded waits before hops were held to their recorded starts)
        52000013, 51000145, 50000194,  // a call started by a timer's or a hop's cascade, made earlier in the
                                       // replay by that cascade's time, answered that much earlier, ahead of
                                       // another thread's events that came first live
    ]

    /// Kept live recordings whose replays differ only in what they ran past the recording's end.
    static let keptLivePastEnd: [UInt64] = [
        50000148,  // two delays a property kept armed when the recording stopped: the replay runs them
    ]

    /// Kept live recordings a replay cannot agree with, whose disagreement the diff must name as
    /// a race between threads.
    static let keptLiveRaces: [UInt64] = [
        50000010,  // a delay's timer started on its queue while another thread tore the pipeline down,
                   // and sent (after the teardown's last record) to no one: its cascade began when the
                   // timer started, and so overlapped the teardown
    ]

    func testKeptLiveRecordingsReplayAsTheyRan() {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("KeptLive")
        for seed in Self.keptLiveRegressions {
            let check = FidelityCheck(seed: seed, profile: .full, mode: .live, kept: folder)
            XCTAssert(check.failures.isEmpty, "seed \(seed) (kept live recording) failed:\n"
                      + check.failures.joined(separator: "\n") + "\n\(check.pipeline.source)")
        }
        checkKept(Self.keptLivePastEnd, in: folder, allStartWith: FidelityCheck.pastTheEnd, "only past the end")
        checkKept(Self.keptLiveRaces, in: folder, allStartWith: FidelityCheck.atARace, "at a named race")
    }

    /// Each of `seeds`' kept recordings disagrees with its replay, and every failure begins with `prefix`.
    private func checkKept(_ seeds: [UInt64], in folder: URL, allStartWith prefix: String, _ what: String) {
        for seed in seeds {
            let check = FidelityCheck(seed: seed, profile: .full, mode: .live, kept: folder)
            XCTAssertFalse(check.failures.isEmpty, "seed \(seed): the replay agreed, a disagreement \(what) was expected")
            let others = check.failures.filter { !$0.hasPrefix(prefix) }
            XCTAssert(others.isEmpty, "seed \(seed) (kept live recording) failed, not \(what):\n"
                      + others.joined(separator: "\n") + "\n\(check.pipeline.source)")
        }
    }

    /// The live runs' operators: every one (see the class's note).
    static let liveProfile = GeneratedPipeline.Profile.full

    private var underThreadSanitizer: Bool { dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil }

    private struct Soak {
        var count: Int
        var first: UInt64
        var profile: GeneratedPipeline.Profile
        var only: UInt64?
    }

    private func soak(mode: FidelityCheck.Mode, count defaultCount: Int, profile defaultProfile: GeneratedPipeline.Profile) {
        let environment = ProcessInfo.processInfo.environment
        if let wanted = environment["MARBLES_FIDELITY_MODE"], wanted != "\(mode)" { return }
        let count = environment["MARBLES_FIDELITY_SEEDS"].flatMap(Int.init) ?? defaultCount
        let first = environment["MARBLES_FIDELITY_FIRST"].flatMap(UInt64.init) ?? 1
        var profile = defaultProfile
        if let excluded = environment["MARBLES_FIDELITY_EXCLUDE"] {
            profile.excluded = Set(excluded.split(separator: ",").map(String.init))
        }
        var firstProfile = profile
        firstProfile.excluded.formUnion(GeneratedPipeline.secondKinds)
        let seeds = environment["MARBLES_FIDELITY_SEED"].flatMap(UInt64.init).map { [($0, profile)] }
            ?? Self.regressions.map { ($0, firstProfile) } + Self.laterRegressions.map { ($0, profile) }
            + (0..<UInt64(count)).map { (first &+ $0, profile) }
        let range = environment["MARBLES_FIDELITY_SEED"] != nil
            ? "seed \(seeds.first?.0 ?? 0)" : "the regression seeds and \(count) from seed \(first)"
        print("fidelity (\(mode)): \(seeds.count) generated pipelines, \(range), leaving out \(profile.excluded.sorted())")
        var operators: [String: Int] = [:]
        var failed: [(UInt64, FidelityCheck)] = []
        var events = 0
        for (seed, profile) in seeds {
            let check = FidelityCheck(seed: seed, profile: profile, mode: mode)
            events += check.recordedEvents
            for name in check.pipeline.operatorNames { operators[name, default: 0] += 1 }
            if !check.failures.isEmpty { failed.append((seed, check)) }
        }
        print("fidelity (\(mode)): \(seeds.count) pipelines, \(events) recorded events, \(failed.count) failed; "
              + "operators (pipelines using each): "
              + operators.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        // Live, in `make test`, a replay that disagrees or a figure whose counts differ is
        // counted and shown, not failed: a replay runs each thread's cascade whole, so it
        // cannot decide a race between two as the live run did, and a teardown racing a
        // delivery leaves no trace (see `isDisagreement`). Disagreements the diff names as
        // races are counted apart from the others, which are classes not understood yet. Two replays
        // that differ and a run that never ends always fail; `make fidelity`
        // (MARBLES_FIDELITY_STRICT) fails on every one.
        let strict = mode == .virtual || environment["MARBLES_FIDELITY_STRICT"] == "1"
        var disagreed = 0, atRaces = 0, pastEnds = 0
        for (seed, check) in failed {
            let failures = strict ? check.failures : check.failures.filter { !FidelityCheck.isDisagreement($0) }
            let report = "seed \(seed) (\(mode)) failed:\n" + check.failures.joined(separator: "\n") + "\n\(check.pipeline.source)"
            if failures.isEmpty {
                disagreed += 1
                let figures = { (failure: String) in failure.hasPrefix("recorded: ") || failure.hasPrefix("replay: ") }
                let pastEnd = check.failures.allSatisfy { $0.hasPrefix(FidelityCheck.pastTheEnd) || figures($0) }
                let named = !pastEnd && check.failures.allSatisfy { $0.hasPrefix(FidelityCheck.atARace) || figures($0) }
                if named { atRaces += 1 }
                if pastEnd { pastEnds += 1 }
                let why = named ? ", at a race the diff names" : pastEnd ? ", only past the recording's end" : ""
                print("fidelity (\(mode)): not reproduced\(why): " + report)
            } else {
                XCTFail(report)
            }
        }
        if !strict {
            print("fidelity (\(mode)): the replay and the figures agreed with the live run for \(seeds.count - disagreed) "
                  + "of \(seeds.count) pipelines; of the \(disagreed) others, \(atRaces) diverged at a race the diff names, "
                  + "\(pastEnds) only in what the replay ran past the live recording's end")
        }
    }

    // `make test`'s fixed seeds: as many as fit the time 300 took before the second stream's
    // operators (properties, actions) made a pipeline about twice as long to run and check.
    func testGeneratedPipelinesReplayAsTheyRanInVirtualTime() {
        soak(mode: .virtual, count: underThreadSanitizer ? 50 : 150, profile: .full)
    }

    func testGeneratedPipelinesReplayAsTheyRanLive() {
        // The soak (`make fidelity`) runs every operator live too.
        let soaking = ProcessInfo.processInfo.environment["MARBLES_FIDELITY_STRICT"] == "1"
        soak(mode: .live, count: underThreadSanitizer ? 20 : 80, profile: soaking ? .full : Self.liveProfile)
    }

    /// The generator is a function of its seed: the same seed, the same pipeline.
    func testTheSameSeedMakesTheSamePipeline() {
        for seed: UInt64 in [1, 2, 99, 12345] {
            XCTAssertEqual(GeneratedPipeline(seed: seed).source, GeneratedPipeline(seed: seed).source)
        }
        XCTAssertNotEqual(GeneratedPipeline(seed: 1).source, GeneratedPipeline(seed: 2).source)
    }
}
