import MarbleNotation
import XCTest

final class MarbleNotationTests: XCTestCase {
    private let ms = MarbleNotation.millisecond

    private func summary(_ events: [MarbleNotation.Event]) -> [String] {
        events.map { event in
            let time = event.time / ms
            switch event.kind {
            case let .value(name): return "\(time):\(name)"
            case .error: return "\(time):#"
            case .complete: return "\(time):|"
            case .interrupted: return "\(time):‖"
            }
        }
    }

    func testLongGapsPrintAsTimeProgressionsThatParseBack() throws {
        let events = try MarbleNotation.parse("a 5000ms b 1.5ms c|")
        let printed = MarbleNotation.print(events)
        XCTAssertEqual(printed, "a 5000ms b-c|")
        XCTAssertEqual(summary(try MarbleNotation.parse(printed)), summary(events))
        XCTAssertEqual(MarbleNotation.gap(3), "---")
        XCTAssertEqual(MarbleNotation.gap(1001, frame: 1500), " 1.5015ms ")
        XCTAssertEqual(MarbleNotation.gap(Int64.max / 2), " 9223372036854.775807ms ")
    }

    func testDashesAndValuesEachTakeOneFrame() throws {
        XCTAssertEqual(summary(try MarbleNotation.parse("--a-b--|")), ["2:a", "4:b", "7:|"])
    }

    func testGroupPutsEventsAtItsOpeningFrameButEveryCharacterTakesAFrame() throws {
        XCTAssertEqual(summary(try MarbleNotation.parse("-(ab|)")), ["1:a", "1:b", "1:|"])
        XCTAssertEqual(summary(try MarbleNotation.parse("(ab)-c")), ["0:a", "0:b", "5:c"])
    }

    func testCaretIsFrameZeroOfAHotStream() throws {
        XCTAssertEqual(summary(try MarbleNotation.parse("--a--^--b--|", hot: true)), ["-3:a", "3:b", "6:|"])
    }

    /// A lane subscribed when it sent prints `(^a)`: the caret opening a group is the group's
    /// frame, so its events are at frame 0 and what follows keeps every character's frame.
    func testCaretOpeningAGroupIsThatGroupsFrame() throws {
        XCTAssertEqual(summary(try MarbleNotation.parse("--(^a)-b|", hot: true)), ["0:a", "5:b", "6:|"])
        XCTAssertEqual(summary(try MarbleNotation.parse("(^a|)", hot: true)), ["0:a", "0:|"])
        XCTAssertThrowsError(try MarbleNotation.parse("(a^)", hot: true)) { error in
            XCTAssertEqual(error as? MarbleSyntaxError, MarbleSyntaxError(line: 1, column: 3, message: "expected '^' first in its group"))
        }
        XCTAssertThrowsError(try MarbleNotation.parse("(^a)", hot: false))
        // Printed hot, a value at frame 0 shares the caret's group (`^a` would read it at 1).
        let printed = MarbleNotation.print([.init(time: 0, kind: .value("a")), .init(time: 5_000_000, kind: .complete)], hot: true)
        XCTAssertEqual(printed, "(^a)-|")
        XCTAssertEqual(summary(try MarbleNotation.parse(printed, hot: true)), ["0:a", "5:|"])
    }

    func testSpacesAreIgnoredAndTimeProgressionAdvances() throws {
        XCTAssertEqual(summary(try MarbleNotation.parse("a 10ms b")), ["0:a", "11:b"])
        XCTAssertEqual(summary(try MarbleNotation.parse("1.5s a")), ["1500:a"])
        XCTAssertEqual(summary(try MarbleNotation.parse("a 2m |")), ["0:a", "120001:|"])
        XCTAssertEqual(summary(try MarbleNotation.parse(" a - b ")), ["0:a", "2:b"])
    }

    func testDigitsNotFollowedByAUnitAndSpaceAreValues() throws {
        XCTAssertEqual(summary(try MarbleNotation.parse("1-2ms|")), ["0:1", "2:2", "3:m", "4:s", "5:|"])
    }

    func testFrameDurationScalesTimes() throws {
        let events = try MarbleNotation.parse("-a 5ms b", frame: 10 * ms)
        XCTAssertEqual(events.map(\.time), [10 * ms, 25 * ms])
    }

    func testErrorsNameLineColumnAndWhatWasExpected() {
        func error(_ text: String, hot: Bool = false) -> MarbleSyntaxError? {
            do {
                _ = try MarbleNotation.parse(text, hot: hot, line: 4, columnOffset: 10)
                return nil
            } catch {
                return error as? MarbleSyntaxError
            }
        }
        XCTAssertEqual(error("--(a"), MarbleSyntaxError(line: 4, column: 13, message: "expected ')' to close the group opened here"))
        XCTAssertEqual(error("--a)"), MarbleSyntaxError(line: 4, column: 14, message: "expected '(' before ')'"))
        XCTAssertEqual(error("(a(b))"), MarbleSyntaxError(line: 4, column: 13, message: "expected ')' before '(' (groups do not nest)"))
        XCTAssertEqual(error("-^-"), MarbleSyntaxError(line: 4, column: 12,
                                                      message: "expected no '^': only hot streams have a subscription point"))
        XCTAssertEqual(error("^-^", hot: true), MarbleSyntaxError(line: 4, column: 13, message: "expected one '^' at most"))
        XCTAssertEqual(error("-|-a"), MarbleSyntaxError(line: 4, column: 14,
                                                       message: "expected nothing after the terminal event at column 12"))
        XCTAssertEqual(error("--!"), MarbleSyntaxError(line: 4, column: 13,
                                                      message: "expected a value, '-', '|', '#' or '‖' ('!' belongs in an unsubscribe line)"))
        XCTAssertEqual(error("-()"), MarbleSyntaxError(line: 4, column: 13, message: "expected an event inside '(' ... ')'"))
    }

    func testDoubleBarIsInterruptionATerminalEventLikeTheOthers() throws {
        XCTAssertEqual(try MarbleNotation.parse("-a-‖"), [
            .init(time: 1 * ms, kind: .value("a"), column: 2), .init(time: 3 * ms, kind: .interrupted, column: 4),
        ])
        XCTAssertEqual(summary(try MarbleNotation.parse("-(a‖)")), ["1:a", "1:‖"])
        XCTAssertThrowsError(try MarbleNotation.parse("-‖-a")) { error in
            XCTAssertEqual(error as? MarbleSyntaxError,
                           MarbleSyntaxError(line: 1, column: 4, message: "expected nothing after the terminal event at column 2"))
        }
        XCTAssertEqual(MarbleNotation.print([.init(time: 2 * ms, kind: .interrupted)]), "--‖")
        XCTAssertThrowsError(try MarbleNotation.parseSubscription("--‖"), "a subscription line has no events")
        XCTAssertFalse(MarbleLegend.isPlain("‖"), "a value printed as '‖' would read as an interruption")
    }

    func testSubscriptionLines() throws {
        XCTAssertEqual(try MarbleNotation.parseSubscription("--^---!"),
                       MarbleNotation.Subscription(subscribe: 2 * ms, unsubscribe: 6 * ms))
        XCTAssertEqual(try MarbleNotation.parseSubscription("----!"),
                       MarbleNotation.Subscription(subscribe: nil, unsubscribe: 4 * ms))
        XCTAssertEqual(try MarbleNotation.parseSubscription("-(^!)"),
                       MarbleNotation.Subscription(subscribe: 1 * ms, unsubscribe: 1 * ms))
        XCTAssertThrowsError(try MarbleNotation.parseSubscription("--a")) { error in
            XCTAssertEqual((error as? MarbleSyntaxError)?.column, 3)
        }
        XCTAssertThrowsError(try MarbleNotation.parseSubscription("!-^")) { error in
            XCTAssertEqual((error as? MarbleSyntaxError)?.message, "expected '^' before '!'")
        }
    }

    func testPrintGroupsSameFrameEvents() {
        let events: [MarbleNotation.Event] = [
            .init(time: 1 * ms, kind: .value("a")), .init(time: 1 * ms, kind: .value("b")),
            .init(time: 5 * ms, kind: .value("c")), .init(time: 5 * ms, kind: .complete),
        ]
        XCTAssertEqual(MarbleNotation.print(events), "-(ab)(c|)", "the group's own width covers the frames up to c")
    }

    func testPrintMarksFrameZeroOfHotStreams() {
        let events: [MarbleNotation.Event] = [.init(time: -2 * ms, kind: .value("a")), .init(time: 2 * ms, kind: .value("b"))]
        XCTAssertEqual(MarbleNotation.print(events), "a-^-b")
        XCTAssertEqual(MarbleNotation.print([], hot: true), "^")
    }

    func testPrintRoundsTimesDownToTheirFrame() {
        XCTAssertEqual(MarbleNotation.print([.init(time: 25 * ms, kind: .value("x"))], frame: 10 * ms), "--x")
    }

    func testRoundTripOfCanonicalLines() throws {
        let lines = ["--a--b--|", "a", "(ab|)", "-(ab)----c-#", "----", "a-^-b--(cd)--|", "x-y-z", "^--a", "-a-‖", "(a‖)"]
        for line in lines {
            let hot = line.contains("^")
            let printed = MarbleNotation.print(try MarbleNotation.parse(line, hot: hot), hot: hot)
            let expected = line.hasSuffix("-") ? String(line.reversed().drop { $0 == "-" }.reversed()) : line
            XCTAssertEqual(printed, expected, line)
            XCTAssertEqual(summary(try MarbleNotation.parse(printed, hot: hot)), summary(try MarbleNotation.parse(line, hot: hot)), line)
        }
    }

    func testLegendKeepsPlainCharactersAndNamesTheRest() {
        let legend = MarbleLegend(["hello", "a", "10", "b", "hello", "(", "c"])
        XCTAssertEqual(legend.symbol(for: "a"), "a")
        XCTAssertEqual(legend.symbol(for: "hello"), "d")
        XCTAssertEqual(legend.symbol(for: "10"), "e")
        XCTAssertEqual(legend.symbol(for: "("), "f")
        XCTAssertEqual(legend.entries.map(\.symbol), ["d", "e", "f"])
        XCTAssertEqual(legend.entries.map(\.text), ["hello", "10", "("])
    }
}
