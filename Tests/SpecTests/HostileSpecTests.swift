import Spec
import MarbleNotation
import Foundation
import XCTest

/// Absurd numbers and hostile nesting in a spec get an error with a location or a defined
/// result, never a trap or a stack overflow.
final class HostileSpecTests: XCTestCase {
    private func nestedParentheses(_ depth: Int) -> String {
        "cold e = a|\nout = e.map(x => " + String(repeating: "(", count: depth) + "1" + String(repeating: ")", count: depth) + ")"
    }

    func testDeepParenthesesAreAnErrorNotAStackOverflow() {
        let error = specError(nestedParentheses(20_000))
        XCTAssertEqual(error?.message, "expected an expression nested at most 200 levels deep")
        XCTAssertEqual(error?.location.line, 2)
    }

    func testModestNestingStillRuns() throws {
        XCTAssertEqual(events(try play(nestedParentheses(50)), "out"), ["0:1", "1:|"])
    }

    func testLongCallChainsAndOperatorChainsAreBounded() {
        let chain = "cold e = a|\nout = e" + String(repeating: ".map(x => x)", count: 5_000)
        XCTAssertEqual(specError(chain)?.message, "expected an expression nested at most 200 levels deep")
        let sum = "cold e = a|\nout = e.map(x => 1" + String(repeating: " + 1", count: 50_000) + ")"
        XCTAssertEqual(specError(sum)?.message, "expected an expression nested at most 200 levels deep")
        let negations = "cold e = a|\nout = e.map(x => " + String(repeating: "!", count: 50_000) + "x)"
        XCTAssertEqual(specError(negations)?.message, "expected an expression nested at most 200 levels deep")
    }

    func testHugeTimeProgressionIsAnErrorAtItsColumn() {
        let error = specError("hot e1 = -a 99999999999999999999ms b|\nout = e1.map(x => x)")
        XCTAssertEqual(error?.message, "expected a time progression shorter than 292 years (Int64 nanoseconds)")
        XCTAssertEqual(error?.location, SpecLocation(line: 1, column: 13))
    }

    /// '‖' (interruption) belongs to the marble grammar, but RxJS streams cannot be
    /// interrupted: a spec's input saying so is a located error, not a silent new meaning.
    func testAnInterruptionInASpecInputIsALocatedError() {
        let error = specError("hot e1 = -a-‖\nout = e1.map(x => x)")
        XCTAssertEqual(error?.location, SpecLocation(line: 1, column: 13))
        XCTAssertEqual(error?.message, "expected a value, '-', '|' or '#': an RxJS input cannot be interrupted "
            + "('‖' is Signals' interruption; end a derived stream early with an 'unsubscribe' line)")
    }

    func testTimeProgressionsAddingPastTheEndOfVirtualTimeAreAnError() {
        XCTAssertThrowsError(try MarbleNotation.parse("a 9000000000000ms b 9000000000000ms c|")) { error in
            XCTAssertEqual((error as? MarbleSyntaxError)?.column, 21)
        }
    }

    func testHugeConcurrencyLimitsAreUnlimited() throws {
        for limit in ["1e300", "1/0"] {
            let result = try play("hot e1 = -a-b|\ncold e2 = -x|\nout = e1.flatMap(\(limit), v => e2)")
            XCTAssertEqual(events(result, "out"), ["2:\"x\"", "4:\"x\"", "5:|"], limit)
        }
    }

    func testHugeDurationsNeverFallDueInsteadOfTrapping() throws {
        let debounced = try play("hot e1 = -a-b|\nout = e1.debounceTime(1e308)")
        XCTAssertEqual(events(debounced, "out"), ["4:\"b\"", "4:|"])
        let throttled = try play("hot e1 = -a-b|\nout = e1.throttle(1e308)")
        XCTAssertEqual(events(throttled, "out"), ["1:\"a\"", "4:|"])
        let timed = try play("hot e1 = -a-b|\nout = e1.timeout(each: 1e308)")
        XCTAssertEqual(events(timed, "out"), ["1:\"a\"", "3:\"b\"", "4:|"])
    }

    func testASampleTimePeriodShorterThanANanosecondIsALocatedError() throws {
        let error = specError("hot e1 = -a-b|\nout = e1.sampleTime(1e-300)")
        XCTAssertEqual(error?.message, "expected a period of at least 0.000001ms (1ns), found 1e-300ms")
        XCTAssertEqual(error?.location, SpecLocation(line: 2, column: 21))
        XCTAssertEqual(specError("hot e1 = -a-b|\nout = e1.sampleTime(0)")?.message,
                       "expected a period of at least 0.000001ms (1ns), found 0ms")
        XCTAssertEqual(events(try play("hot e1 = -a-b|\nout = e1.sampleTime(1e308)"), "out"), ["4:|"])
    }

    func testAMarbleLineLongerThanTheActionLimitSaysSoInsteadOfBlamingTimers() {
        let spec = "hot e1 = " + String(repeating: "a", count: 200_000) + "|\nout = e1.map(x => x)"
        let error = specError(spec)
        XCTAssertEqual(error?.message, "expected a run of at most 200000 scheduled actions, but the limit was reached at 199999ms with events of this input still to send; shorten the marble lines")
        XCTAssertEqual(error?.location.line, 1)
        XCTAssertFalse(error?.message.contains("unsubscribe") ?? true)
    }

    func testALongColdMarbleLineAlsoSaysTheLimitWasReachedByItsEvents() {
        let spec = "cold e1 = " + String(repeating: "a", count: 200_000) + "|\nout = e1.map(x => x)"
        let error = specError(spec)
        XCTAssertEqual(error?.message, "expected a run of at most 200000 scheduled actions, but the limit was reached at 199999ms with events of this input still to send; shorten the marble lines")
        XCTAssertEqual(error?.location.line, 1)
    }

    /// Issue 33 item 5: a catchError returning the caught stream over inputs that fail again
    /// ran for ever (still at 100 % CPU after 400 s); now the run stops 1000 actions after the
    /// streams' 1000 frames past the last marble, and names the stream and the input it kept
    /// subscribing to.
    /// (These two ran only outside ThreadSanitizer before: each generation of the caught stream
    /// was a new `catchError` nested in the last, one held lock each, and the sanitizer's deadlock
    /// detector hangs past 64. A restart now reuses the one operator.)
    func testAStreamThatResubscribesWithoutEndIsNamed() throws {
        let error = specError("cold e0 = -a|\ncold e1 = -b#\nd1 = concat(e0, e1).catchError((e, c) => c)")
        XCTAssertEqual(error?.message, "expected the streams to settle, but stream d1 was still running at 2002ms, having "
            + "subscribed to e0 501 times: it resubscribes without end (a catchError, retry or repeat over an input that "
            + "fails again); add an 'unsubscribe' line for this stream")
        XCTAssertEqual(error?.location.line, 3)
        XCTAssertEqual(error?.location.column, 1)
    }

    /// The same loop taking no time at all is caught at its instant, before it grows.
    func testALoopThatTakesNoTimeIsNamed() throws {
        let error = specError("cold e0 = #\nd1 = e0.catchError((e, c) => c)")
        XCTAssertEqual(error?.message, "expected the streams to settle, but this catchError started its input again 10000 "
            + "times at 0ms without time passing: over an input that fails as it starts, it loops for ever")
        XCTAssertEqual(error?.location.line, 2)
        XCTAssertEqual(error?.location.column, 9)
    }

    /// A loop inside one action: an input that fails as it is subscribed, restarted at once.
    /// No scheduled action passes, so the run's action limits never saw it; `retry()` ran for
    /// ever at 100 % CPU and `catchError` returning `caught` overflowed the stack. Both now
    /// stop after `restartsPerInstant` restarts, located at the operator.
    func testARestartLoopInsideOneActionIsLocatedAtItsOperator() throws {
        for (spec, name) in [("d1 = throwError('e').retry()", "retry"),
                             ("d1 = throwError('e').catchError((e, c) => c)", "catchError")] {
            let error = specError(spec)
            XCTAssertEqual(error?.message, "expected the streams to settle, but this \(name) started its input again 10000 "
                + "times at 0ms without time passing: over an input that fails as it starts, it loops for ever", spec)
            XCTAssertEqual(error?.location.line, 1, spec)
            XCTAssertEqual(error?.location.column, 22, spec)
        }
    }

    /// A loop of scheduled actions at one instant that no restart makes: a timer with a period of 0.
    func testATimerWithAPeriodOfZeroIsNamedAsALoopThatTakesNoTime() {
        let error = specError("d1 = timer(0, 0)")
        XCTAssertEqual(error?.message, "expected the streams to settle, but stream d1 ran 50000 actions at 0ms without time "
            + "passing: a timer with a period of 0, or a stream that subscribes again at once, loops for ever")
    }

    /// Thousands of inputs sending at one frame are not a loop (they were taken for one at
    /// 1,000 actions at an instant).
    func testManyInputsSendingAtOneFrameAreNotALoop() throws {
        let spec = (0..<3_000).map { "hot e\($0) = a|" } + ["out = merge(\((0..<3_000).map { "e\($0)" }.joined(separator: ", ")))"]
        XCTAssertNil(specError(spec.joined(separator: "\n")))
    }

    func testTimersLeftRunningStillSuggestAnUnsubscribeLine() {
        let error = specError("hot e1 = -a|\nout = merge(e1, never()).sampleTime(1)")
        XCTAssertEqual(error?.message, "expected the streams to settle, but timers were still running at 2002ms (1000 frames after the last marble and 1000 actions more, or 200000 actions in all); add an 'unsubscribe' line for this stream")
        XCTAssertEqual(error?.location.line, 2, error?.description ?? "")
    }

    func testAnEmptySpecSaysItHasNoStreams() {
        for spec in ["", "# only a comment\n", "frame 2ms\n"] {
            XCTAssertEqual(specError(spec)?.message,
                           "expected at least one stream (a 'hot NAME = ...', 'cold NAME = ...' or 'NAME = EXPRESSION' line)", spec)
        }
    }

    func testAHugeDelayPrintsItsGapAsATimeProgressionNotAsDashes() throws {
        let result = try play("hot a = -a|\nout = a.delay(1e308)")
        let diagram = result.diagram()
        XCTAssertLessThan(diagram.utf8.count, 200, diagram)
        let out = diagram.split(separator: "\n").first { $0.hasPrefix("out") }
        let time = try XCTUnwrap(result.stream("out")?.events.first?.time)
        XCTAssertEqual(out.map(String.init), "out  " + MarbleNotation.gap(time / 1_000_000) + "(a|)")
        XCTAssertTrue(out?.contains("ms (a|)") ?? false, diagram)
    }
}

/// Strings built at run time stay bounded.
final class SpecStringLimitTests: XCTestCase {
    func testADoublingScanStopsWithALocatedErrorInsteadOfExhaustingMemory() {
        let spec = "hot e1 = -" + String(repeating: "a", count: 80) + "|\nout = e1.scan((acc, x) => acc + acc, \"xx\")"
        let error = specError(spec)
        XCTAssertEqual(error?.message, "expected a string of at most 1048576 bytes; '+' would make 2097152")
        XCTAssertEqual(error?.location, SpecLocation(line: 2, column: 31))
    }
}
