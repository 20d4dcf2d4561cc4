import Foundation
@testable import Replay
import TraceLog
import XCTest

final class TraceDiffTests: XCTestCase {
    /// input "query" → map @App.swift:5; two values, then completion, on thread main.
    private let base = [
        #"{"type":"thread","id":1,"name":"main"}"#,
        #"{"type":"thread","id":2,"name":"ui"}"#,
        #"{"type":"node","id":1,"kind":"source","name":"input","parameters":"query","file":"App.swift","line":3,"label":"query","upstream":[]}"#,
        #"{"type":"node","id":2,"kind":"operator","name":"map","parameters":"","file":"App.swift","line":5,"upstream":[{"node":1,"role":"data"}]}"#,
        #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
        #"{"type":"subscribe","id":2,"node":2,"parent":0,"time":0,"thread":1}"#,
        #"{"type":"event","seq":1,"time":1000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"a","json":"a"}"#,
        #"{"type":"event","seq":2,"time":1000,"node":2,"sub":2,"kind":"value","thread":1,"causes":[1],"text":"A","json":"A"}"#,
        #"{"type":"event","seq":3,"time":2000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"b","json":"b"}"#,
        #"{"type":"event","seq":4,"time":2000,"node":2,"sub":2,"kind":"value","thread":1,"causes":[3],"text":"B","json":"B"}"#,
        #"{"type":"event","seq":5,"time":3000,"node":1,"sub":1,"kind":"completed","thread":1,"causes":[]}"#,
        #"{"type":"event","seq":6,"time":3000,"node":2,"sub":2,"kind":"completed","thread":1,"causes":[5]}"#,
    ]

    private func trace(_ edit: (inout [String]) -> Void = { _ in }, clock: String = "virtual") throws -> Trace {
        var lines = base
        edit(&lines)
        return try craftedTrace(lines, clock: clock)
    }

    private func kinds(_ diff: TraceDiff) -> [TraceDiff.Kind] { diff.differences.map(\.kind) }

    func testIdenticalTracesAreTheSame() throws {
        let diff = TraceDiff(try trace(), try trace())
        XCTAssertTrue(diff.isSame)
        XCTAssertEqual(diff.timeTolerance, 0)
        XCTAssertEqual(diff.timing.matched, 6)
        XCTAssertTrue(diff.text.contains("same: every node and event agrees (time tolerance 0ns)"), diff.text)
    }

    /// A name, value or side name holding a newline stays on its difference's line: the
    /// report gives each difference one line (a hostile label split it in two).
    func testANewlineInANameOrValueStaysOnItsLine() throws {
        let b = try trace {
            $0[3] = $0[3].replacingOccurrences(of: #""name":"map""#, with: #""name":"ma\np""#)
            $0[8] = $0[8].replacingOccurrences(of: #""text":"b","json":"b""#, with: #""text":"b\tc\r\nd""#)
        }
        let diff = TraceDiff(try trace(), b, nameA: "a\n.trace", nameB: "b.trace")
        let lines = diff.text.split(separator: "\n").map(String.init)
        XCTAssertTrue(diff.text.contains("ma\u{23CE}p"), diff.text)
        XCTAssertTrue(diff.text.contains("a\u{23CE}.trace"), diff.text)
        XCTAssertTrue(diff.text.contains("b c\u{240D}\u{23CE}d"), diff.text)
        for line in lines {
            let item = line.drop { $0 == " " }
            XCTAssertTrue(["---", "+++", "root cause", "first divergence", "times:"].contains { line.hasPrefix($0) }
                || item.first?.isNumber == true || (item.count < line.count && item.hasPrefix("explains")),
                "a line broken off: \(line)\n\(diff.text)")
        }
    }

    func testNodesAreAlignedByIdentityNotByNumericId() throws {
        let renumbered = try craftedTrace([
            #"{"type":"thread","id":1,"name":"main"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"pipe","parameters":"","file":"Other.swift","line":1,"upstream":[]}"#,
        ] + base.dropFirst().map {
            $0.replacingOccurrences(of: #""node":2"#, with: #""node":3"#)
                .replacingOccurrences(of: #""id":2,"kind""#, with: #""id":3,"kind""#)
                .replacingOccurrences(of: #""node":1,"#, with: #""node":2,"#)
                .replacingOccurrences(of: #""id":1,"kind":"source","name":"input""#, with: #""id":2,"kind":"source","name":"input""#)
                .replacingOccurrences(of: #"{"node":1,"role""#, with: #"{"node":2,"role""#)
        }.filter { !$0.contains(#""type":"thread","id":1"#) })
        let diff = TraceDiff(try trace(), renumbered)
        XCTAssertEqual(kinds(diff), [.nodeOnlyInB], diff.text)
        XCTAssertEqual(diff.differences.first?.node, "pipe @Other.swift:1")
    }

    func testAValueThatDiffers() throws {
        let changed = try trace { $0[9] = $0[9].replacingOccurrences(of: #""json":"B""#, with: #""json":"C""#) }
        let diff = TraceDiff(try trace(), changed)
        XCTAssertEqual(kinds(diff), [.valueDiffers])
        let difference = try XCTUnwrap(diff.differences.first)
        XCTAssertEqual(difference.node, "map @App.swift:5")
        XCTAssertEqual(difference.index, 2)
        XCTAssertEqual(difference.a?.value, "\"B\"")
        XCTAssertEqual(difference.b?.value, "\"C\"")
        XCTAssertTrue(diff.text.contains(#"first divergence: map @App.swift:5, event 2: value differs: "B" in A, "C" in B (A seq 4 at 2µs on main; B seq 4 at 2µs on main)"#),
                      diff.text)
    }

    func testEventsMissingAndExtra() throws {
        let missing = TraceDiff(try trace(), try trace { $0.remove(at: 9) })
        XCTAssertEqual(kinds(missing), [.missingInB])
        XCTAssertEqual(missing.differences.first?.a?.seq, 4)
        let extra = TraceDiff(try trace { $0.remove(at: 9) }, try trace())
        XCTAssertEqual(kinds(extra), [.extraInB])
        XCTAssertEqual(extra.differences.first?.index, 2)
        XCTAssertTrue(extra.text.contains("map @App.swift:5, event 2: extra in B: \"B\""), extra.text)
    }

    func testTerminalEventsThatDiffer() throws {
        let failed = try trace {
            $0[11] = #"{"type":"event","seq":6,"time":3000,"node":2,"sub":2,"kind":"failed","thread":1,"causes":[5],"text":"boom","json":"boom"}"#
        }
        let diff = TraceDiff(try trace(), failed)
        XCTAssertEqual(kinds(diff), [.terminalDiffers])
        XCTAssertTrue(diff.text.contains("terminal event differs: completed in A, failed \"boom\" in B"), diff.text)
    }

    func testTimeShiftsBeyondTheTolerance() throws {
        let late = try trace { $0[7] = $0[7].replacingOccurrences(of: #""time":1000"#, with: #""time":1500"#) }
        let strict = TraceDiff(try trace(), late)
        XCTAssertEqual(kinds(strict), [.timeShifted])
        XCTAssertEqual(strict.differences.first?.shift, 500)
        XCTAssertTrue(strict.text.contains("time shifted by +500ns"), strict.text)
        XCTAssertTrue(TraceDiff(try trace(), late, timeTolerance: 500).isSame)
        XCTAssertEqual(TraceDiff(late, try trace()).differences.first?.shift, -500)
    }

    func testThreadsThatDiffer() throws {
        let moved = try trace { $0[9] = $0[9].replacingOccurrences(of: #""thread":1"#, with: #""thread":2"#) }
        let diff = TraceDiff(try trace(), moved)
        XCTAssertEqual(kinds(diff), [.threadDiffers])
        XCTAssertTrue(diff.text.contains(#"thread differs: "main" in A, "ui" in B"#), diff.text)
    }

    func testRealThreadsCompareByTheirSchedulerName() throws {
        let real = try trace({ $0[0] = #"{"type":"thread","id":1,"name":"marbles.worker","scheduler":"main","os":42}"# },
                             clock: "real")
        XCTAssertTrue(TraceDiff(real, try trace(), timeTolerance: 0).isSame)
    }

    func testNodesOnlyInOneTrace() throws {
        let replaced = try trace { $0[3] = $0[3].replacingOccurrences(of: #""name":"map""#, with: #""name":"compactMap""#) }
        let diff = TraceDiff(try trace(), replaced)
        XCTAssertEqual(kinds(diff), [.nodeOnlyInA, .nodeOnlyInB])
        XCTAssertEqual(diff.differences.map(\.node), ["map @App.swift:5", "compactMap @App.swift:5"])
        XCTAssertEqual(diff.differences.map(\.events), [3, 3])
    }

    func testAMovedNodeIsChangedAndItsEventsAreCompared() throws {
        let moved = try trace { $0[3] = $0[3].replacingOccurrences(of: #""line":5"#, with: #""line":6"#) }
        let diff = TraceDiff(try trace(), moved)
        XCTAssertEqual(kinds(diff), [.nodeChanged])
        XCTAssertEqual(diff.differences.first?.nodeB, .init(parameters: "", file: "App.swift", line: 6))
        XCTAssertEqual(diff.timing.matched, 6)
        XCTAssertTrue(diff.text.contains("node changed: map @App.swift:5: call site App.swift:5 in A, App.swift:6 in B"),
                      diff.text)
        XCTAssertTrue(TraceDiff(try trace(), moved, ignoringLineShifts: true).isSame)
        let otherFile = try trace { $0[3] = $0[3].replacingOccurrences(of: #""file":"App.swift","line":5"#,
                                                                      with: #""file":"Other.swift","line":5"#) }
        XCTAssertEqual(kinds(TraceDiff(try trace(), otherFile)), [.nodeChanged])
        let movedFile = TraceDiff(try trace(), otherFile, ignoringLineShifts: true)
        XCTAssertTrue(movedFile.isSame, movedFile.text)
        XCTAssertEqual([movedFile.filesMoved, movedFile.linesMoved], [1, 0])
    }

    /// A call "search" started by the input's value (node 3), and the service behind it
    /// (node 4) answering 1, which the call forwards (`answer`).
    private static let call = [
        #"{"type":"node","id":3,"kind":"source","name":"call","parameters":"search","file":"App.swift","line":7,"label":"search","upstream":[]}"#,
        #"{"type":"subscribe","id":3,"node":3,"parent":2,"time":1000,"thread":1}"#,
    ]
    private static let service = [
        #"{"type":"node","id":4,"kind":"source","name":"SignalProducer","parameters":"","file":"Service.swift","line":9,"upstream":[]}"#,
        #"{"type":"subscribe","id":4,"node":4,"parent":2,"time":1000,"thread":1}"#,
        #"{"type":"event","seq":7,"time":5000,"node":4,"sub":4,"kind":"value","thread":2,"causes":[2],"text":"1","json":1}"#,
    ]
    private static let answer = #"{"type":"event","seq":8,"time":5000,"node":3,"sub":3,"kind":"value","thread":2,"causes":[7],"text":"1","json":1}"#

    func testServiceNodesInsideACallAreListedNotCounted() throws {
        let (call, answer) = (Self.call, Self.answer)
        let service = Self.service + [
            #"{"type":"node","id":5,"kind":"sink","name":"observe","parameters":"","file":"Service.swift","line":10,"upstream":[{"node":4,"role":"data"}]}"#,
        ]
        let live = try trace { $0 += call + service + [answer] }
        let replay = try trace { $0 += call + [answer.replacingOccurrences(of: "[7]", with: "[2]")] }
        let diff = TraceDiff(live, replay, timeTolerance: 0)
        XCTAssertTrue(diff.isSame, diff.text)
        XCTAssertEqual(diff.insideCalls.map(\.node), ["SignalProducer @Service.swift:9", "observe @Service.swift:10"])
        XCTAssertTrue(diff.text.contains("  only in A: SignalProducer @Service.swift:9 (1 events)"), diff.text)

        let withoutCall = TraceDiff(live, try trace(), timeTolerance: 0)
        XCTAssertEqual(kinds(withoutCall), [.nodeOnlyInA, .nodeOnlyInA, .nodeOnlyInA], withoutCall.text)
        XCTAssertEqual(withoutCall.insideCalls, [])
    }

    /// Generated pipeline seed 65 (live): `flatMap(.latest)` switched away from a call just after
    /// its service answered, so the service's interruption names its own answer as its cause. A
    /// node whose events cause its own later events is still inside the call.
    func testAServiceWhoseAnswerCausesItsOwnInterruptionIsStillInsideTheCall() throws {
        let (call, service, answer) = (Self.call, Self.service, Self.answer)
        let interrupted = #"{"type":"event","seq":9,"time":5100,"node":4,"sub":4,"kind":"interrupted","thread":2,"causes":[7]}"#
        let live = try trace { $0 += call + service + [answer, interrupted] }
        let replay = try trace { $0 += call + [answer.replacingOccurrences(of: "[7]", with: "[2]")] }
        let diff = TraceDiff(live, replay, timeTolerance: 0)
        XCTAssertTrue(diff.isSame, diff.text)
        XCTAssertEqual(diff.insideCalls.map(\.node), ["SignalProducer @Service.swift:9"])
    }

    /// Generated pipeline seed 43000504 (live): `flatMap(.latest)` interrupted a call before its
    /// service's delayed start ran; the service then began with no parent around it, its
    /// record naming the call's subscription as its observer. The link puts it inside the call.
    func testAServiceStartedAfterItsCallWasInterruptedIsInsideTheCallByItsLink() throws {
        let call = Self.call
        let late = [
            Self.service[0],
            #"{"type":"subscribe","id":4,"node":4,"parent":0,"time":1500,"thread":2,"observedBy":[3]}"#,
            #"{"type":"event","seq":7,"time":1600,"node":4,"sub":4,"kind":"interrupted","thread":2,"causes":[2]}"#,
        ]
        let live = try trace { $0 += call + late }
        let replay = try trace { $0 += call }
        let diff = TraceDiff(live, replay, timeTolerance: 0)
        XCTAssertTrue(diff.isSame, diff.text)
        XCTAssertEqual(diff.insideCalls.map(\.node), ["SignalProducer @Service.swift:9"])
        // Without the link, nothing says it ran for the call: a node only in A.
        let unlinked = try trace { $0 += call + late.map { $0.replacingOccurrences(of: #","observedBy":[3]"#, with: "") } }
        XCTAssertEqual(kinds(TraceDiff(unlinked, replay, timeTolerance: 0)), [.nodeOnlyInA])
    }

    /// Generated pipeline seed 43000461 (live): the setup thread started a property's producer
    /// after another thread had ended the property. The start sent the value it read, then,
    /// with nothing but the start to cause it, its completion; the replay's completion came
    /// from the other thread's cascade. The completion is part of the start's work, so the
    /// difference in its thread names the start's race.
    func testWhatAStartSendsAfterItsFirstValueIsPartOfItsRace() throws {
        let nodes = [
            #"{"type":"thread","id":1,"name":"main"}"#,
            #"{"type":"thread","id":2,"name":"q0"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"input","parameters":"a","file":"App.swift","line":3,"label":"a","upstream":[]}"#,
            #"{"type":"node","id":2,"kind":"operator","name":"producer","parameters":"","file":"App.swift","line":4,"upstream":[{"node":1,"role":"data"}]}"#,
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
        ]
        let live = try craftedTrace(nodes + [
            #"{"type":"event","seq":1,"time":1000,"node":1,"sub":1,"kind":"value","thread":2,"causes":[],"text":"1","json":1}"#,
            #"{"type":"event","seq":2,"time":1500,"node":1,"sub":1,"kind":"completed","thread":2,"causes":[1]}"#,
            #"{"type":"subscribe","id":2,"node":2,"parent":0,"time":2000,"thread":1,"observes":[1]}"#,
            #"{"type":"event","seq":3,"time":3000,"node":2,"sub":2,"kind":"value","thread":1,"causes":[],"text":"1","json":1}"#,
            #"{"type":"event","seq":4,"time":3100,"node":2,"sub":2,"kind":"completed","thread":1,"causes":[]}"#,
        ], clock: "real")
        let replay = try craftedTrace(nodes + [
            #"{"type":"subscribe","id":2,"node":2,"parent":0,"time":0,"thread":1,"observes":[1]}"#,
            #"{"type":"event","seq":1,"time":0,"node":2,"sub":2,"kind":"value","thread":1,"causes":[],"text":"1","json":1}"#,
            #"{"type":"event","seq":2,"time":1000,"node":1,"sub":1,"kind":"value","thread":2,"causes":[],"text":"1","json":1}"#,
            #"{"type":"event","seq":3,"time":1500,"node":1,"sub":1,"kind":"completed","thread":2,"causes":[2]}"#,
            #"{"type":"event","seq":4,"time":1500,"node":2,"sub":2,"kind":"completed","thread":2,"causes":[3]}"#,
        ])
        let diff = TraceDiff(live, replay, nameA: "live", nameB: "replay")
        XCTAssertFalse(diff.isSame)
        XCTAssertTrue(diff.differences.contains { $0.kind == .threadDiffers && $0.node == "producer @App.swift:4" }, diff.text)
        XCTAssertTrue(diff.divergesAtARace, diff.text)
        XCTAssertEqual(diff.differences.count, 1, diff.text)
        XCTAssertNotNil(diff.differences.first?.race, diff.text)
    }

    /// Two inputs on two threads into one `merge`. Live, the `ui` thread's value reached the
    /// merge while `main` was still delivering its own (their cascades overlap in time); a
    /// replay that lacks that value names the race. Moved apart in time, the same difference
    /// is no race.
    func testADifferenceWhereTwoLiveThreadsCascadesOverlappedIsNamedARace() throws {
        // Inputs a (main) and b (ui) into one merge.
        let merge = [
            #"{"type":"thread","id":1,"name":"main"}"#,
            #"{"type":"thread","id":2,"name":"ui"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"input","parameters":"a","file":"App.swift","line":3,"label":"a","upstream":[]}"#,
            #"{"type":"node","id":2,"kind":"source","name":"input","parameters":"b","file":"App.swift","line":4,"label":"b","upstream":[]}"#,
            #"{"type":"node","id":3,"kind":"operator","name":"merge","parameters":"","file":"App.swift","line":5,"upstream":[{"node":1,"role":"data"},{"node":2,"role":"data"}]}"#,
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"subscribe","id":2,"node":2,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"subscribe","id":3,"node":3,"parent":0,"time":0,"thread":1}"#,
        ]
        func live(uiAt time: Int) throws -> Trace {
            try craftedTrace(merge + [
                #"{"type":"event","seq":1,"time":1000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"1","json":1}"#,
                #"{"type":"event","seq":2,"time":"# + "\(time)" + #","node":2,"sub":2,"kind":"value","thread":2,"causes":[],"text":"2","json":2}"#,
                #"{"type":"event","seq":3,"time":"# + "\(time + 50)" + #","node":3,"sub":3,"kind":"value","thread":2,"causes":[2],"text":"2","json":2}"#,
                #"{"type":"event","seq":4,"time":1500,"node":3,"sub":3,"kind":"value","thread":1,"causes":[1],"text":"1","json":1}"#,
            ], clock: "real")
        }
        let replay = try craftedTrace(merge + [
            #"{"type":"event","seq":1,"time":1000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"1","json":1}"#,
            #"{"type":"event","seq":2,"time":1000,"node":3,"sub":3,"kind":"value","thread":1,"causes":[1],"text":"1","json":1}"#,
            #"{"type":"event","seq":3,"time":1200,"node":2,"sub":2,"kind":"value","thread":2,"causes":[],"text":"2","json":2}"#,
        ])
        let racing = TraceDiff(try live(uiAt: 1200), replay, nameA: "live", nameB: "replay")
        XCTAssertTrue(racing.divergesAtARace, racing.text)
        XCTAssertEqual(racing.firstDivergence?.race,
                       .init(thread: "ui", otherThread: "main", otherSeq: 1, otherNode: #"input "a" @App.swift:3"#))
        XCTAssertTrue(racing.text.contains(#"   a race: on ui while main was delivering the cascade that began at input "a" @App.swift:3 (seq 1)"#),
                      racing.text)
        XCTAssertTrue(racing.json.contains(#""race":{"otherNode":"input \"a\" @App.swift:3","otherSeq":1"#), racing.json)
        let apart = TraceDiff(try live(uiAt: 2000), replay, nameA: "live", nameB: "replay")
        XCTAssertFalse(apart.isSame)
        XCTAssertFalse(apart.divergesAtARace, apart.text)
        XCTAssertFalse(apart.text.contains("a race"), apart.text)
        // Two virtual runs have no races.
        XCTAssertFalse(TraceDiff(replay, try trace()).divergesAtARace)
    }

    /// A call only the live run made, started on `main` while `ui` was delivering: a request
    /// difference has no event, so the events around the start's time name the race.
    func testACallOnlyTheLiveRunMadeDuringAnotherThreadsCascadeIsNamedARace() throws {
        let nodes = [
            #"{"type":"thread","id":1,"name":"main"}"#,
            #"{"type":"thread","id":2,"name":"ui"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"input","parameters":"a","file":"App.swift","line":3,"label":"a","upstream":[]}"#,
            #"{"type":"node","id":2,"kind":"source","name":"input","parameters":"b","file":"App.swift","line":4,"label":"b","upstream":[]}"#,
            #"{"type":"node","id":3,"kind":"operator","name":"map","parameters":"","file":"App.swift","line":5,"upstream":[{"node":2,"role":"data"}]}"#,
            #"{"type":"node","id":4,"kind":"source","name":"call","parameters":"search","file":"App.swift","line":7,"label":"search","upstream":[]}"#,
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"subscribe","id":2,"node":2,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"subscribe","id":3,"node":3,"parent":0,"time":0,"thread":1}"#,
        ]
        let events = [
            #"{"type":"event","seq":1,"time":1000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"1","json":1}"#,
            #"{"type":"event","seq":2,"time":1050,"node":2,"sub":2,"kind":"value","thread":2,"causes":[],"text":"2","json":2}"#,
        ]
        func live(startAt time: Int) throws -> Trace {
            try craftedTrace(nodes + events + [
                #"{"type":"subscribe","id":4,"node":4,"parent":1,"time":"# + "\(time)" + #","thread":1,"request":"x"}"#,
                #"{"type":"event","seq":3,"time":1200,"node":3,"sub":3,"kind":"value","thread":2,"causes":[2],"text":"2","json":2}"#,
            ], clock: "real")
        }
        let replay = try craftedTrace(nodes + events + [
            #"{"type":"event","seq":3,"time":1050,"node":3,"sub":3,"kind":"value","thread":2,"causes":[2],"text":"2","json":2}"#,
        ])
        let racing = TraceDiff(try live(startAt: 1100), replay, nameA: "live", nameB: "replay")
        XCTAssertEqual(racing.rootCauses.map(\.kind), [.callOnlyInA], racing.text)
        XCTAssertEqual(racing.rootCauses.first?.race?.otherSeq, 1, racing.text)
        XCTAssertTrue(racing.text.contains("a race: on ui while main was delivering"), racing.text)
        // Made long after `ui`'s cascade ended, it is no race.
        let apart = TraceDiff(try live(startAt: 5_000_000), replay, nameA: "live", nameB: "replay")
        XCTAssertEqual(apart.rootCauses.map(\.kind), [.callOnlyInA], apart.text)
        XCTAssertNil(apart.rootCauses.first?.race, apart.text)
    }

    /// A node only the live run had (a service's stream inside a call the replay never made,
    /// live seed 11000004) is named with the race its first event ran in; long after the other
    /// thread's cascade, with none.
    func testANodeOnlyTheLiveRunHadIsNamedWithTheRaceOfItsFirstEvent() throws {
        let nodes = [
            #"{"type":"thread","id":1,"name":"main"}"#,
            #"{"type":"thread","id":2,"name":"services","scheduler":"services"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"input","parameters":"a","file":"App.swift","line":3,"label":"a","upstream":[]}"#,
            #"{"type":"node","id":2,"kind":"operator","name":"map","parameters":"","file":"App.swift","line":4,"upstream":[{"node":1,"role":"data"}]}"#,
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"subscribe","id":2,"node":2,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"event","seq":1,"time":1000,"node":1,"sub":1,"kind":"value","thread":1,"causes":[],"text":"1","json":1}"#,
            #"{"type":"event","seq":2,"time":1500,"node":2,"sub":2,"kind":"value","thread":1,"causes":[1],"text":"1","json":1}"#,
        ]
        func live(answerAt time: Int) throws -> Trace {
            try craftedTrace(nodes + [
                #"{"type":"node","id":3,"kind":"source","name":"SignalProducer","parameters":"","file":"Service.swift","line":9,"upstream":[]}"#,
                #"{"type":"subscribe","id":3,"node":3,"parent":0,"time":"# + "\(time - 100)" + #","thread":2}"#,
                #"{"type":"event","seq":3,"time":"# + "\(time)" + #","node":3,"sub":3,"kind":"value","thread":2,"causes":[],"text":"7","json":7}"#,
            ], clock: "real")
        }
        let replay = try craftedTrace(nodes)
        let racing = TraceDiff(try live(answerAt: 1200), replay, nameA: "live", nameB: "replay")
        XCTAssertEqual(racing.firstDivergence?.kind, .nodeOnlyInA, racing.text)
        XCTAssertEqual(racing.firstDivergence?.race?.otherThread, "main", racing.text)
        let apart = TraceDiff(try live(answerAt: 5_000_000), replay, nameA: "live", nameB: "replay")
        XCTAssertEqual(apart.firstDivergence?.kind, .nodeOnlyInA, apart.text)
        XCTAssertNil(apart.firstDivergence?.race, apart.text)
    }

    /// A first divergence with no live event near a race of its own (a value only the replay
    /// sent, early) that a racing root cause explains takes that root cause's race (live seed
    /// 11000050: a flatMap's extra value explained by a call the live run ended otherwise).
    func testAFirstDivergenceExplainedByARacingRootCauseTakesItsRace() throws {
        let nodes = [
            #"{"type":"thread","id":1,"name":"main"}"#,
            #"{"type":"thread","id":2,"name":"ui"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"input","parameters":"b","file":"App.swift","line":3,"label":"b","upstream":[]}"#,
            #"{"type":"node","id":2,"kind":"operator","name":"map","parameters":"","file":"App.swift","line":4,"upstream":[{"node":1,"role":"data"}]}"#,
            #"{"type":"node","id":3,"kind":"source","name":"input","parameters":"a","file":"App.swift","line":5,"label":"a","upstream":[]}"#,
            #"{"type":"node","id":4,"kind":"source","name":"input","parameters":"c","file":"App.swift","line":6,"label":"c","upstream":[]}"#,
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"subscribe","id":2,"node":2,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"subscribe","id":3,"node":3,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"subscribe","id":4,"node":4,"parent":0,"time":0,"thread":1}"#,
        ]
        let live = try craftedTrace(nodes + [
            #"{"type":"event","seq":1,"time":0,"node":4,"sub":4,"kind":"value","thread":1,"causes":[],"text":"0","json":0}"#,
            #"{"type":"event","seq":2,"time":10,"node":4,"sub":4,"kind":"value","thread":1,"causes":[],"text":"0","json":0}"#,
            #"{"type":"event","seq":3,"time":20000000,"node":3,"sub":3,"kind":"value","thread":1,"causes":[],"text":"1","json":1}"#,
            #"{"type":"event","seq":4,"time":20020000,"node":1,"sub":1,"kind":"value","thread":2,"causes":[],"text":"5","json":5}"#,
            #"{"type":"event","seq":5,"time":20100000,"node":3,"sub":3,"kind":"value","thread":1,"causes":[3],"text":"1","json":1}"#,
        ], clock: "real")
        let replay = try craftedTrace(nodes + [
            #"{"type":"event","seq":1,"time":0,"node":2,"sub":2,"kind":"value","thread":1,"causes":[],"text":"7","json":7}"#,
            #"{"type":"event","seq":2,"time":0,"node":4,"sub":4,"kind":"value","thread":1,"causes":[],"text":"0","json":0}"#,
            #"{"type":"event","seq":3,"time":10,"node":4,"sub":4,"kind":"value","thread":1,"causes":[],"text":"0","json":0}"#,
            #"{"type":"event","seq":4,"time":20000000,"node":3,"sub":3,"kind":"value","thread":1,"causes":[],"text":"1","json":1}"#,
            #"{"type":"event","seq":5,"time":20020000,"node":1,"sub":1,"kind":"value","thread":2,"causes":[],"text":"6","json":6}"#,
            #"{"type":"event","seq":6,"time":20100000,"node":3,"sub":3,"kind":"value","thread":1,"causes":[4],"text":"1","json":1}"#,
        ])
        let diff = TraceDiff(live, replay, nameA: "live", nameB: "replay")
        XCTAssertEqual(diff.firstDivergence?.node, "map @App.swift:4", diff.text)
        XCTAssertEqual(diff.rootCauses.first?.node, #"input "b" @App.swift:3"#, diff.text)
        XCTAssertNotNil(diff.rootCauses.first?.race, diff.text)
        XCTAssertEqual(diff.firstDivergence?.race, diff.rootCauses.first?.race, diff.text)
    }

    /// A property's producer started on `main` after `q0`'s tick set the property: the start
    /// read the value the tick set and sent it, its cause recorded (the event that set it);
    /// a replay sets up at once and sends the initial value. The start read another thread's
    /// value: a race with the tick's cascade, however long the setup took (here its records
    /// are 30 ms apart, and the tick came 20 ms before the start). So is a start with no such
    /// cause recorded after another thread's event; a start that read a value its own thread
    /// set, with no other thread's event before it, is none.
    func testAStartThatReadAnotherThreadsValueIsNamedARace() throws {
        let nodes = [
            #"{"type":"thread","id":1,"name":"main"}"#,
            #"{"type":"thread","id":2,"name":"q0"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"timer","parameters":"tick","file":"App.swift","line":3,"label":"tick","upstream":[]}"#,
            #"{"type":"node","id":2,"kind":"source","name":"MutableProperty","parameters":"","file":"App.swift","line":4,"upstream":[]}"#,
            #"{"type":"node","id":3,"kind":"operator","name":"producer","parameters":"","file":"App.swift","line":4,"upstream":[{"node":2,"role":"data"}]}"#,
        ]
        func live(tickOn thread: Int, startCauses: String) throws -> Trace {
            try craftedTrace(nodes + [
                #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":1000000,"thread":1}"#,
                #"{"type":"subscribe","id":2,"node":2,"parent":0,"time":31000000,"thread":1}"#,
                #"{"type":"event","seq":1,"time":40000000,"node":1,"sub":1,"kind":"value","thread":"# + "\(thread)"
                    + #","causes":[],"text":"1","json":1}"#,
                #"{"type":"event","seq":2,"time":40000100,"node":2,"sub":2,"kind":"value","thread":"# + "\(thread)"
                    + #","causes":[1],"text":"5","json":5}"#,
                #"{"type":"subscribe","id":3,"node":3,"parent":0,"time":60000000,"thread":1,"observes":[2]}"#,
                #"{"type":"event","seq":3,"time":60000100,"node":3,"sub":3,"kind":"value","thread":1,"causes":"# + startCauses
                    + #","text":"5","json":5}"#,
            ], clock: "real")
        }
        let replay = try craftedTrace(nodes + [
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"subscribe","id":2,"node":2,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"subscribe","id":3,"node":3,"parent":0,"time":0,"thread":1,"observes":[2]}"#,
            #"{"type":"event","seq":1,"time":0,"node":3,"sub":3,"kind":"value","thread":1,"causes":[],"text":"0","json":0}"#,
            #"{"type":"event","seq":2,"time":40000000,"node":1,"sub":1,"kind":"value","thread":2,"causes":[],"text":"1","json":1}"#,
            #"{"type":"event","seq":3,"time":40000000,"node":2,"sub":2,"kind":"value","thread":2,"causes":[2],"text":"5","json":5}"#,
            #"{"type":"event","seq":4,"time":40000000,"node":3,"sub":3,"kind":"value","thread":2,"causes":[3],"text":"5","json":5}"#,
        ])
        let racing = TraceDiff(try live(tickOn: 2, startCauses: "[2]"), replay, nameA: "live", nameB: "replay")
        XCTAssertTrue(racing.divergesAtARace, racing.text)
        // The value only the replay sent has no live event: the live event at its time, the
        // tick, names its race with the start (as the start would name its race with the tick).
        XCTAssertEqual(racing.firstDivergence?.race,
                       .init(thread: "q0", otherThread: "main", otherSeq: 3, otherNode: "producer @App.swift:4"), racing.text)
        XCTAssertTrue(racing.text.contains(#"a race: on q0 while main was delivering the cascade that began at producer @App.swift:4"#),
                      racing.text)
        // With no recorded cause (a start of another kind), recorded after q0's events: a
        // replay starts it first, so it is the same race, by the order of the events alone.
        let unread = TraceDiff(try live(tickOn: 2, startCauses: "[]"), replay, nameA: "live", nameB: "replay")
        XCTAssertEqual(unread.firstDivergence?.race, racing.firstDivergence?.race, unread.text)
        // Set on its own thread, with no other thread's event before the start: no race.
        let own = TraceDiff(try live(tickOn: 1, startCauses: "[2]"), replay, nameA: "live", nameB: "replay")
        XCTAssertFalse(own.isSame)
        XCTAssertFalse(own.divergesAtARace, own.text)
    }

    /// A teardown on `services` interrupted a timer whose queue `q0` was delivering a tick: the
    /// interruption was left for `q0` (it held the timer's signal) and recorded there, after
    /// its tick's cascade. It belongs to that cascade, which overlapped the teardown: a race
    /// (live seed 83). The replay delivers it on the tearing-down thread.
    func testAnInterruptionLeftForTheThreadThatHeldItsSignalIsPartOfThatThreadsRace() throws {
        func trace(interruptedOn thread: Int, at time: Int, clock: String, causes: String = "[2]") throws -> Trace {
            try craftedTrace([
                #"{"type":"thread","id":1,"name":"main"}"#,
                #"{"type":"thread","id":2,"name":"q0","scheduler":"q0"}"#,
                #"{"type":"thread","id":3,"name":"services","scheduler":"services"}"#,
                #"{"type":"node","id":1,"kind":"source","name":"timer","parameters":"tick","file":"App.swift","line":3,"label":"tick","upstream":[]}"#,
                #"{"type":"node","id":2,"kind":"operator","name":"map","parameters":"","file":"App.swift","line":4,"upstream":[{"node":1,"role":"data"}]}"#,
                #"{"type":"node","id":3,"kind":"source","name":"input","parameters":"stop","file":"App.swift","line":5,"label":"stop","upstream":[]}"#,
                #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
                #"{"type":"subscribe","id":2,"node":2,"parent":0,"time":0,"thread":1}"#,
                #"{"type":"subscribe","id":3,"node":3,"parent":0,"time":0,"thread":1}"#,
                #"{"type":"event","seq":1,"time":1000,"node":1,"sub":1,"kind":"value","thread":2,"causes":[],"text":"1","json":1}"#,
                #"{"type":"event","seq":2,"time":1010,"node":3,"sub":3,"kind":"value","thread":3,"causes":[],"text":"0","json":0}"#,
                #"{"type":"event","seq":3,"time":1050,"node":2,"sub":2,"kind":"value","thread":2,"causes":[1],"text":"1","json":1}"#,
                #"{"type":"event","seq":4,"time":"# + "\(time)" + #","node":1,"sub":1,"kind":"interrupted","thread":"#
                    + "\(thread)" + #","causes":"# + causes + "}",
            ], clock: clock)
        }
        let replay = try trace(interruptedOn: 3, at: 1010, clock: "virtual")
        let deferred = TraceDiff(try trace(interruptedOn: 2, at: 1100, clock: "real"), replay, nameA: "live", nameB: "replay")
        XCTAssertEqual(deferred.rootCauses.map(\.kind), [.threadDiffers], deferred.text)
        XCTAssertEqual(deferred.rootCauses.first?.race?.otherThread, "services", deferred.text)
        // Recorded long after the tick's cascade, it began one of its own: no race.
        let later = TraceDiff(try trace(interruptedOn: 2, at: 5_000_000, clock: "real"), replay, nameA: "live", nameB: "replay")
        XCTAssertEqual(later.rootCauses.map(\.kind), [.threadDiffers], later.text)
        XCTAssertNil(later.rootCauses.first?.race, later.text)
        // Left without its cause (a timer's interruption delivered on its queue, live seed
        // 100): the same race.
        let causeless = TraceDiff(try trace(interruptedOn: 2, at: 1100, clock: "real", causes: "[]"), replay,
                                  nameA: "live", nameB: "replay")
        XCTAssertEqual(causeless.rootCauses.first?.race?.otherThread, "services", causeless.text)
    }

    /// A property's producer subscribed on `main` during its setup, and interrupted by `q0`'s
    /// tick cascade before it sent anything (live seed 37000318: the setup had not reached its
    /// start yet, 5 ms on); a replay starts it at once and sends the value. That value, only
    /// in the replay, is named with the tick's cascade. Interrupted on `main` itself, no race.
    func testAStartAnotherThreadInterruptedBeforeItSentIsNamedARace() throws {
        let nodes = [
            #"{"type":"thread","id":1,"name":"main"}"#,
            #"{"type":"thread","id":2,"name":"q0","scheduler":"q0"}"#,
            #"{"type":"node","id":1,"kind":"source","name":"timer","parameters":"tick","file":"App.swift","line":3,"label":"tick","upstream":[]}"#,
            #"{"type":"node","id":2,"kind":"source","name":"MutableProperty","parameters":"","file":"App.swift","line":4,"upstream":[]}"#,
            #"{"type":"node","id":3,"kind":"operator","name":"producer","parameters":"","file":"App.swift","line":4,"upstream":[{"node":2,"role":"data"}]}"#,
            #"{"type":"node","id":4,"kind":"operator","name":"map","parameters":"","file":"App.swift","line":5,"upstream":[{"node":1,"role":"data"}]}"#,
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"subscribe","id":2,"node":2,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"subscribe","id":4,"node":4,"parent":0,"time":0,"thread":1,"observes":[1]}"#,
        ]
        func live(interruptedOn thread: Int) throws -> Trace {
            try craftedTrace(nodes + [
                #"{"type":"subscribe","id":3,"node":3,"parent":0,"time":1000000,"thread":1,"observes":[2]}"#,
                #"{"type":"event","seq":1,"time":500000,"node":2,"sub":2,"kind":"value","thread":1,"causes":[],"text":"0","json":0}"#,
                #"{"type":"event","seq":2,"time":5000000,"node":1,"sub":1,"kind":"value","thread":2,"causes":[],"text":"1","json":1}"#,
                #"{"type":"event","seq":3,"time":5000100,"node":4,"sub":4,"kind":"value","thread":2,"causes":[2],"text":"1","json":1}"#,
                #"{"type":"event","seq":4,"time":5000200,"node":3,"sub":3,"kind":"interrupted","thread":"# + "\(thread)"
                    + #","causes":[3]}"#,
            ], clock: "real")
        }
        let replay = try craftedTrace(nodes + [
            #"{"type":"subscribe","id":3,"node":3,"parent":0,"time":0,"thread":1,"observes":[2]}"#,
            #"{"type":"event","seq":1,"time":0,"node":2,"sub":2,"kind":"value","thread":1,"causes":[],"text":"0","json":0}"#,
            #"{"type":"event","seq":2,"time":0,"node":3,"sub":3,"kind":"value","thread":1,"causes":[1],"text":"0","json":0}"#,
            #"{"type":"event","seq":3,"time":5000000,"node":1,"sub":1,"kind":"value","thread":2,"causes":[],"text":"1","json":1}"#,
            #"{"type":"event","seq":4,"time":5000000,"node":4,"sub":4,"kind":"value","thread":2,"causes":[3],"text":"1","json":1}"#,
            #"{"type":"event","seq":5,"time":5000000,"node":3,"sub":3,"kind":"interrupted","thread":2,"causes":[4]}"#,
        ])
        let overtaken = TraceDiff(try live(interruptedOn: 2), replay, nameA: "live", nameB: "replay")
        XCTAssertEqual(overtaken.firstDivergence?.kind, .extraInB, overtaken.text)
        XCTAssertEqual(overtaken.firstDivergence?.race,
                       .init(thread: "main", otherThread: "q0", otherSeq: 2, otherNode: #"timer "tick" @App.swift:3"#), overtaken.text)
        let own = TraceDiff(try live(interruptedOn: 1), replay, nameA: "live", nameB: "replay")
        XCTAssertEqual(own.firstDivergence?.kind, .extraInB, own.text)
        XCTAssertNil(own.firstDivergence?.race, own.text)
    }

    /// A teardown on `services` (its cascade over at 1.01 ms) interrupted a timer `q0` held: the
    /// interruption, left for `q0`, came with the teardown's event as its cause, after the tick
    /// `q0` recorded only at 1.5 ms (live seed 34000147: a thread's tick recorded after the
    /// teardown's last record). The times do not overlap, but the recorded interruption says
    /// `q0` was delivering on the timer when `services` ended it: a race. Without its cause,
    /// the same trace names none.
    func testAnInterruptionLeftByAnotherThreadNamesItsRaceWhateverTheTimes() throws {
        // Both runs: the timer and the input that stops it, started on main; the stop at 1 ms.
        let threads = [#"{"type":"thread","id":1,"name":"main"}"#, #"{"type":"thread","id":3,"name":"services","scheduler":"services"}"#]
        let setup = [
            #"{"type":"node","id":1,"kind":"source","name":"timer","parameters":"tick","file":"App.swift","line":3,"label":"tick","upstream":[]}"#,
            #"{"type":"node","id":3,"kind":"source","name":"input","parameters":"stop","file":"App.swift","line":5,"label":"stop","upstream":[]}"#,
            #"{"type":"subscribe","id":1,"node":1,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"subscribe","id":3,"node":3,"parent":0,"time":0,"thread":1}"#,
            #"{"type":"event","seq":1,"time":1000,"node":3,"sub":3,"kind":"value","thread":3,"causes":[],"text":"0","json":0}"#,
        ]
        func trace(interruptionCauses causes: String, clock: String, tickAt tick: Int = 1500) throws -> Trace {
            try craftedTrace(threads + [#"{"type":"thread","id":2,"name":"q0","scheduler":"q0"}"#] + setup + [
                #"{"type":"event","seq":2,"time":"# + "\(tick)" + #","node":1,"sub":1,"kind":"value","thread":2,"causes":[],"text":"1","json":1}"#,
                #"{"type":"event","seq":3,"time":"# + "\(tick + 100)" + #","node":1,"sub":1,"kind":"interrupted","thread":2,"causes":"#
                    + causes + "}",
            ], clock: clock)
        }
        // The replay interrupts the timer at the teardown, before its tick.
        let replay = try craftedTrace(threads + setup + [
            #"{"type":"event","seq":2,"time":1000,"node":1,"sub":1,"kind":"interrupted","thread":3,"causes":[1]}"#,
        ])
        let left = TraceDiff(try trace(interruptionCauses: "[1]", clock: "real"), replay, nameA: "live", nameB: "replay")
        XCTAssertEqual(left.firstDivergence?.kind, .missingInB, left.text)
        XCTAssertEqual(left.firstDivergence?.race,
                       .init(thread: "q0", otherThread: "services", otherSeq: 1, otherNode: #"input "stop" @App.swift:5"#),
                       left.text)
        let unrecorded = TraceDiff(try trace(interruptionCauses: "[]", clock: "real"), replay, nameA: "live", nameB: "replay")
        XCTAssertEqual(unrecorded.firstDivergence?.kind, .missingInB, unrecorded.text)
        XCTAssertNil(unrecorded.firstDivergence?.race, unrecorded.text)
    }

    func testTheFirstDivergenceInCausalOrderComesFirst() throws {
        let changed = try trace {
            $0[9] = $0[9].replacingOccurrences(of: #""json":"B""#, with: #""json":"X""#)
            $0[8] = $0[8].replacingOccurrences(of: #""json":"b""#, with: #""json":"x""#)
        }
        let diff = TraceDiff(try trace(), changed)
        XCTAssertEqual(diff.differences.map(\.node), [#"input "query" @App.swift:3"#, "map @App.swift:5"])
        XCTAssertTrue(diff.text.contains(#"first divergence: input "query" @App.swift:3, event 2: value differs"#), diff.text)
    }

    func testRealAgainstVirtualReportsTimesWithoutJudgingThem() throws {
        let real = try trace({ lines in
            for index in 6...11 { lines[index] = lines[index].replacingOccurrences(of: "000,", with: "250,") }
        }, clock: "real")
        let diff = TraceDiff(real, try trace())
        XCTAssertTrue(diff.isSame)
        XCTAssertNil(diff.timeTolerance)
        XCTAssertEqual(diff.timing.maxShift, 250)
        XCTAssertEqual(diff.timing.meanShift, 250)
        XCTAssertTrue(diff.text.contains("times: 6 aligned events differ by up to 250ns (mean 250ns)"), diff.text)
        XCTAssertEqual(TraceDiff(real, try trace(), timeTolerance: 100).differences.count, 6)
    }

    func testJSONReportIsDeterministicAndParses() throws {
        let changed = try trace { $0[9] = $0[9].replacingOccurrences(of: #""json":"B""#, with: #""json":"C""#) }
        let json = TraceDiff(try trace(), changed, nameA: "a.trace", nameB: "b.trace").json
        XCTAssertEqual(json, TraceDiff(try trace(), changed, nameA: "a.trace", nameB: "b.trace").json)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(object["same"] as? Bool, false)
        let differences = try XCTUnwrap(object["differences"] as? [[String: Any]])
        XCTAssertEqual(differences.first?["kind"] as? String, "value-differs")
        XCTAssertEqual((object["a"] as? [String: Any])?["name"] as? String, "a.trace")
    }

    func testDurationsParseExactly() {
        XCTAssertEqual(TraceDiff.parseDuration("0"), 0)
        XCTAssertEqual(TraceDiff.parseDuration("250"), 250)
        XCTAssertEqual(TraceDiff.parseDuration("250ns"), 250)
        XCTAssertEqual(TraceDiff.parseDuration("1.5us"), 1_500)
        XCTAssertEqual(TraceDiff.parseDuration("2µs"), 2_000)
        XCTAssertEqual(TraceDiff.parseDuration("2ms"), 2_000_000)
        XCTAssertEqual(TraceDiff.parseDuration("0.001s"), 1_000_000)
        for bad in ["", "ms", "-1ms", "1.2.3ms", "1.ms", "abc", "1e3", "1.0000001ms", "99999999999s"] {
            XCTAssertNil(TraceDiff.parseDuration(bad), bad)
        }
    }

    func testDurationsPrintStably() {
        XCTAssertEqual(TraceDiff.duration(750), "750ns")
        XCTAssertEqual(TraceDiff.duration(12_500), "12.5µs")
        XCTAssertEqual(TraceDiff.duration(3_250_000), "3.25ms")
        XCTAssertEqual(TraceDiff.duration(1_500_000_000), "1.5s")
        XCTAssertEqual(TraceDiff.duration(-2_000_000), "-2ms")
    }
}

final class AlignmentTests: XCTestCase {
    func testTheLongestCommonSubsequenceAlignsAroundInsertionsAndDeletions() {
        let steps = Alignment.align(["a", "b", "c", "d"], ["a", "x", "c", "d", "e"])
        XCTAssertEqual(steps, [.match(0, 0), .onlyA(1), .onlyB(1), .match(2, 2), .match(3, 3), .onlyB(4)])
        XCTAssertEqual(Alignment.align([], ["a"]), [.onlyB(0)])
        XCTAssertEqual(Alignment.align(["a"], []), [.onlyA(0)])
    }

    func testVeryLongMiddlesArePairedByPositionInsteadOfATable() {
        let count = 2_100
        XCTAssertGreaterThan(count * count, Alignment.maxCells)
        let a = ["start"] + (0..<count).map { "a\($0)" } + ["end"]
        var b = a
        b[1] = "changed"
        b[count] = "changed too"
        let steps = Alignment.align(a, b)
        XCTAssertEqual(steps.first, .match(0, 0))
        XCTAssertEqual(steps.last, .match(count + 1, count + 1))
        XCTAssertEqual(steps.filter { if case .match = $0 { return false } else { return true } },
                       [.onlyA(1), .onlyB(1), .onlyA(count), .onlyB(count)])
    }
}
