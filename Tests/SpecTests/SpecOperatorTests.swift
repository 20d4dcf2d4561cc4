import Spec
import MarbleNotation
import XCTest

/// Each spec operator, run through the real Signals operators, against the behaviour the
/// library it is named after documents (RxJS names: RxJS semantics).
final class SpecOperatorTests: XCTestCase {
    /// The `out` stream of a spec as a marble line (values by their one-character display).
    private func out(_ spec: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try play(spec)
        let events = (result.stream("out")?.events ?? []).map { event -> MarbleNotation.Event in
            switch event.kind {
            case .next: return .init(time: event.time, kind: .value(event.value?.display ?? "null"))
            case .error: return .init(time: event.time, kind: .error)
            case .complete: return .init(time: event.time, kind: .complete)
            }
        }
        return MarbleNotation.print(events, frame: result.frame)
    }

    func testMapPassesTheIndex() throws {
        XCTAssertEqual(try out("hot a = -a-b-|\nout = a.map((x, i) => i)"), "-0-1-|")
    }

    func testFilter() throws {
        XCTAssertEqual(try out("hot a = -a-b-c|\nout = a.filter(x => x !== 'b')"), "-a---c|")
        XCTAssertEqual(try out("hot a = -a-#\nout = a.filter(x => false)"), "---#")
    }

    func testScanWithAndWithoutSeed() throws {
        let spec = "hot a = -a-b-c|\nvalues a = {\"a\": 1, \"b\": 2, \"c\": 3}\n"
        XCTAssertEqual(try out(spec + "out = a.scan((acc, x) => acc + x)"), "-1-3-6|")
        XCTAssertEqual(events(try play(spec + "out = a.scan((acc, x) => acc + x, 10)"), "out"), ["1:11", "3:13", "5:16", "6:|"])
        XCTAssertEqual(try out(spec + "out = a.scan((acc, x, i) => i, 0)"), "-0-1-2|")
    }

    func testTakeAndSkip() throws {
        XCTAssertEqual(try out("hot a = -a-b-c-|\nout = a.take(2)"), "-a-(b|)")
        XCTAssertEqual(try out("hot a = -a-b-c-|\nout = a.take(0)"), "|")
        XCTAssertEqual(try out("hot a = -a-b-c-|\nout = a.skip(1)"), "---b-c-|")
        XCTAssertEqual(try out("hot a = -a-#\nout = a.take(5)"), "-a-#")
    }

    /// RxJS 7: take(0) or below is EMPTY (the source is never started); skip below 0 skips nothing.
    func testTakeAndSkipCountsBelowOne() throws {
        let result = try play("cold a = -a-b-|\nout = a.take(0)")
        XCTAssertEqual(events(result, "out"), ["0:|"])
        XCTAssertEqual(result.subscriptions.first { $0.name == "a" }?.subscriptions, [], "take(0) does not start its source")
        XCTAssertEqual(try out("cold a = -a-b-|\nout = a.take(-1)"), "|")
        XCTAssertEqual(try out("cold a = -a-b-|\nout = a.skip(-2)"), "-a-b-|")
        XCTAssertEqual(specError("cold a = -a|\nout = a.take(1.5)")?.message, "expected a whole number, found 1.5")
    }

    func testDistinctUntilChanged() throws {
        XCTAssertEqual(try out("hot a = -a-a-b-a-|\nout = a.distinctUntilChanged()"), "-a---b-a-|")
        XCTAssertEqual(try out("hot a = -a-a-b-a-|\nout = a.distinctUntilChanged((p, q) => true)"), "-a-------|")
        XCTAssertEqual(try out("hot a = -a-a-b-a-|\nout = a.skipRepeats()"), "-a---b-a-|")
    }

    /// RxJS 7: distinctUntilChanged(comparator, keySelector) compares keys, each with the last
    /// sent value's key; a null comparator is strict equality.
    func testDistinctUntilChangedWithAKeySelector() throws {
        let spec = "hot a = -a-b-c-d-|\nvalues a = {\"a\": 1, \"b\": 2, \"c\": 5, \"d\": 6}\n"
        XCTAssertEqual(try out(spec + "out = a.distinctUntilChanged(null, v => v > 3)"), "-1---5---|")
        XCTAssertEqual(try out(spec + "out = a.distinctUntilChanged((p, q) => p === q, v => v % 2)"), "-1-2-5-6-|")
        XCTAssertEqual(try out("hot a = -a-b-c-d-|\nvalues a = {\"a\": 1, \"b\": 2, \"c\": 3, \"d\": 4}\n"
                               + "out = a.distinctUntilChanged((p, q) => q - p < 2)"), "-1---3---|",
                       "the comparison is with the last value sent, not the last received")
    }

    func testStartWith() throws {
        XCTAssertEqual(events(try play("cold a = --a|\nout = a.startWith('x', 'y')"), "out"),
                       [#"0:"x""#, #"0:"y""#, #"2:"a""#, "3:|"])
        XCTAssertEqual(try out("cold a = -a|\nout = a.startWith()"), "-a|", "no values: the source as it is")
    }

    func testDebounceTimeSendsThePendingValueOnCompletion() throws {
        XCTAssertEqual(try out("hot a = -a-b----c-|\nout = a.debounceTime(3)"), "------b---(c|)")
        XCTAssertEqual(try out("hot a = -a-#\nout = a.debounceTime(3)"), "---#")
    }

    func testThrottleTimeIsLeadingOnlyByDefault() throws {
        XCTAssertEqual(try out("hot a = abc--d---|\nout = a.throttleTime(3)"), "a----d---|")
        XCTAssertEqual(try out("hot a = abc--d---|\nout = a.throttleTime(3, leading: true, trailing: true)"), "a--c--d--|")
        XCTAssertEqual(try out("hot a = abc--d---|\nout = a.throttleTime(3, leading: false, trailing: true)"), "---c--d--|")
    }

    /// RxJS 7's own form, throttleTime(d, scheduler, {leading, trailing}), with null for the
    /// scheduler; a trailing value pending at completion is sent when the window ends.
    func testThrottleTimeRxJSConfigurationAndTrailingCompletion() throws {
        XCTAssertEqual(try out("hot a = abc--d---|\nout = a.throttleTime(3, null, {leading: true, trailing: true})"), "a--c--d--|")
        XCTAssertEqual(try out("hot a = abc--d---|\nout = a.throttleTime(3, null, {leading: false, trailing: true})"), "---c--d--|")
        XCTAssertEqual(try out("cold a = ab|\nout = a.throttleTime(3, null, {leading: true, trailing: true})"), "a--(b|)")
        XCTAssertEqual(specError("hot a = a|\nout = a.throttleTime(3, null, {lead: true})")?.message,
                       "expected a configuration with 'leading', 'trailing' for 'throttleTime', found 'lead'")
    }

    func testAuditTimeWaitsForItsTimerBeforeCompleting() throws {
        XCTAssertEqual(try out("hot a = -a-b----c-|\nout = a.auditTime(3)"), "----b------(c|)")
    }

    func testSampleTimeSendsNewValuesAtEachPeriod() throws {
        XCTAssertEqual(try out("hot a = -a-b-----c--|\nout = a.sampleTime(4)"), "----b-------|")
    }

    func testSampleSendsTheLatestNewValueAtEachNotification() throws {
        XCTAssertEqual(try out("hot a = -a-b-c---|\nhot n = ---x---x-x-|\nout = a.sample(n)"), "---b---c-|")
    }

    /// RxJS 7's delay-spec: completion is not delayed, but waits for the values on their way.
    func testDelayShiftsValuesButNotCompletion() throws {
        XCTAssertEqual(try out("hot a = ---a--b--|\nout = a.delay(2)"), "-----a--b|")
        XCTAssertEqual(try out("cold a = -a-|\nout = a.delay(3)"), "----(a|)", "completion waits for the value on its way")
        XCTAssertEqual(try out("cold a = |\nout = a.delay(3)"), "|", "an empty stream completes at once")
        XCTAssertEqual(try out("hot a = ----|\nout = a.delay(3)"), "----|")
        XCTAssertEqual(try out("frame 10ms\nhot a = -a|\nout = a.delay(0.02s)"), "---(a|)")
    }

    func testDelayOnANamedSchedulerIsSignalsDelayWhichShiftsCompletionToo() throws {
        XCTAssertEqual(try out("hot a = -a-b-|\nout = a.delay(2, on: \"main\")"), "---a-b-|")
    }

    func testMergeStaticMethodAndConcurrency() throws {
        XCTAssertEqual(try out("hot a = -a---b-|\nhot b = --x-y---|\nout = merge(a, b)"), "-ax-yb--|")
        XCTAssertEqual(try out("hot a = -a---b-|\nhot b = --x-y---|\nout = a.merge(b)"), "-ax-yb--|")
        XCTAssertEqual(try out("cold a = -a|\ncold b = -b|\nout = merge(a, b, 1)"), "-a-b|")
        XCTAssertEqual(try out("hot a = -a-#\nhot b = --x-y|\nout = merge(a, b)"), "-ax#")
    }

    func testConcatSubscribesInTurn() throws {
        let result = try play("cold a = -a|\ncold b = -b|\nout = concat(a, b)")
        XCTAssertEqual(events(result, "out"), [#"1:"a""#, #"3:"b""#, "4:|"])
        XCTAssertEqual(result.subscriptions.last?.subscriptions, [.init(subscribe: 2_000_000, unsubscribe: 4_000_000)])
    }

    func testCombineLatestWithAndWithoutProjector() throws {
        let spec = "hot a = -a---b-|\nhot b = --x-y----|\n"
        XCTAssertEqual(events(try play(spec + "out = combineLatest(a, b, (p, q) => p + q)"), "out"),
                       [#"2:"ax""#, #"4:"ay""#, #"5:"by""#, "9:|"])
        XCTAssertEqual(events(try play(spec + "out = combineLatest([a, b])"), "out").first, #"2:["a","x"]"#)
    }

    /// RxJS 7's combineLatest-spec "should work with hot-empty and hot-single": an input that
    /// completes without a value does not complete the result; the last completion does.
    func testCombineLatestCompletesWhenEveryInputHasCompleted() throws {
        XCTAssertEqual(try out("hot a = -a-^-|\nhot b = -b-^-c-|\nout = combineLatest(a, b)"), "----|")
    }

    /// RxJS 7's sample ignores its notifier's completion: the source goes on until it ends.
    func testSampleGoesOnAfterItsNotifierCompletes() throws {
        XCTAssertEqual(try out("hot a = -a-b-c-d-e-|\nhot n = --x-|\nout = a.sample(n)"), "--a--------|")
    }

    /// RxJS 7's dictionary form: combineLatest({p: a, q: b}) sends objects with those keys.
    func testCombineLatestOfAnObjectSendsObjects() throws {
        XCTAssertEqual(events(try play("hot a = -a---b-|\nhot b = --x-y----|\nout = combineLatest({p: a, q: b})"), "out"),
                       [#"2:{"p":"a","q":"x"}"#, #"4:{"p":"a","q":"y"}"#, #"5:{"p":"b","q":"y"}"#, "9:|"])
        XCTAssertEqual(try out("out = combineLatest({})"), "|")
    }

    func testZipPairsInOrderAndCompletesWhenAPairCanNoLongerForm() throws {
        XCTAssertEqual(events(try play("hot a = -a-b-c|\nhot b = --x---y|\nout = zip(a, b, (p, q) => p + q)"), "out"),
                       [#"2:"ax""#, #"6:"by""#, "7:|"])
    }

    func testWithLatestFromDropsValuesBeforeTheOtherHasOne() throws {
        XCTAssertEqual(events(try play("hot a = -a---b-c|\nhot b = --x-y----|\nout = a.withLatestFrom(b, (p, q) => p + q)"), "out"),
                       [#"5:"by""#, #"7:"cy""#, "8:|"])
    }

    /// RxJS 7: withLatestFrom(a, b, project) waits until every other stream has a value, then
    /// projects the value with the latest of each; without a projector, an array.
    func testWithLatestFromSeveralStreams() throws {
        let spec = "hot a = -a-b-c-d-|\nhot b = --x-----|\nhot c = ----y-|\n"
        XCTAssertEqual(events(try play(spec + "out = a.withLatestFrom(b, c, (p, q, r) => p + q + r)"), "out"),
                       [#"5:"cxy""#, #"7:"dxy""#, "9:|"])
        XCTAssertEqual(events(try play(spec + "out = a.withLatestFrom(b, c)"), "out").first, #"5:["c","x","y"]"#)
        XCTAssertEqual(events(try play("hot a = -a-b-|\nhot b = --x#\nhot c = ----y-|\nout = a.withLatestFrom(b, c)"), "out"),
                       [#"3:#"error""#], "any other stream's failure fails the result")
        XCTAssertEqual(specError("out = of(1).withLatestFrom(x => x)")?.message,
                       "expected a stream before the projector of 'withLatestFrom'")
    }

    func testSwitchMapUnsubscribesThePreviousInner() throws {
        let result = try play("hot a = -a--b----|\ncold i = -x-y|\nout = a.switchMap(v => i.map(x => v + x))")
        XCTAssertEqual(events(result, "out"), [#"2:"ax""#, #"5:"bx""#, #"7:"by""#, "9:|"])
        XCTAssertEqual(result.subscriptions.last?.subscriptions,
                       [.init(subscribe: 1_000_000, unsubscribe: 4_000_000), .init(subscribe: 4_000_000, unsubscribe: 8_000_000)])
    }

    func testMergeMapConcatMapAndExhaustMap() throws {
        let spec = "hot a = -a-b------|\ncold i = x--y|\n"
        XCTAssertEqual(try out(spec + "out = a.mergeMap(v => i)"), "-x-xy-y---|")
        XCTAssertEqual(try out(spec + "out = a.concatMap(v => i)"), "-x--yx--y-|")
        XCTAssertEqual(try out(spec + "out = a.exhaustMap(v => i)"), "-x--y-----|")
        XCTAssertEqual(try out(spec + "out = a.mergeMap((v, n) => of(n))"), "-0-1------|")
        XCTAssertEqual(try out(spec + "out = a.mergeMap(v => i, 1)"), "-x--yx--y-|")
    }

    /// RxJS 7's exhaustMap calls the projector only for the values it does not ignore, so the
    /// index counts those (`project(outerValue, index++)` inside `if (!innerSub)`).
    func testExhaustMapIndexCountsOnlyProjectedValues() throws {
        XCTAssertEqual(try out("hot a = -a-b-c-|\ncold i = -x|\nout = a.exhaustMap((v, n) => i.map(x => n))"), "--0---1|")
        XCTAssertEqual(try out("hot a = -a-b-c-|\ncold i = -x|\nout = a.switchMap((v, n) => i.map(x => n))"), "--0-1-2|")
    }

    func testTakeUntilStopsOnAValueButNotOnCompletion() throws {
        XCTAssertEqual(try out("hot a = -a-b-c-|\nhot n = ----x\nout = a.takeUntil(n)"), "-a-b|")
        XCTAssertEqual(try out("hot a = -a-b-c-|\nhot n = ---|\nout = a.takeUntil(n)"), "-a-b-c-|")
        XCTAssertEqual(try out("hot a = -a-b-c-|\nhot n = ---|\nout = a.take(until: n)"), "-a-(b|)", "Signals' take(until:) also stops on completion")
    }

    func testCatchErrorReplacesTheFailure() throws {
        XCTAssertEqual(events(try play("hot a = -a-#\nerror a = \"boom\"\nout = a.catchError(e => of(e, 'z'))"), "out"),
                       [#"1:"a""#, #"3:"boom""#, #"3:"z""#, "3:|"])
    }

    /// RxJS 7: the selector's second argument is the stream with catchError applied;
    /// returning it starts it again.
    func testCatchErrorCaughtStartsTheStreamAgain() throws {
        let result = try play("cold a = -a#\nout = a.catchError((e, caught) => caught).take(3)")
        XCTAssertEqual(try out("cold a = -a#\nout = a.catchError((e, caught) => caught).take(3)"), "-a-a-(a|)")
        XCTAssertEqual(result.subscriptions.first { $0.name == "a" }?.subscriptions.count, 3)
    }

    func testThrowErrorTakesAFactory() throws {
        XCTAssertEqual(events(try play("out = throwError(() => 'x' + 1)"), "out"), [#"0:#"x1""#])
    }

    func testRetryWithCountAndDelay() throws {
        XCTAssertEqual(try out("cold a = -a#\nout = a.retry(2)"), "-a-a-a#")
        XCTAssertEqual(try out("cold a = -a#\nout = a.retry(count: 1, delay: 2)"), "-a---a#")
    }

    /// RxJS 7: retry({count, delay}) is the configuration form; a count of 0 or less leaves
    /// the stream as it is.
    func testRetryConfigurationObjectAndCountsBelowOne() throws {
        XCTAssertEqual(try out("cold a = -a#\nout = a.retry({count: 2})"), "-a-a-a#")
        XCTAssertEqual(try out("cold a = -a#\nout = a.retry({count: 1, delay: 2})"), "-a---a#")
        XCTAssertEqual(try out("cold a = -a#\nout = a.retry(0)"), "-a#")
        XCTAssertEqual(try out("cold a = -a#\nout = a.retry(-1)"), "-a#")
        XCTAssertEqual(specError("cold a = -a#\nout = a.retry({cuont: 1})")?.message,
                       "expected a configuration with 'count', 'delay', 'resetOnSuccess' for 'retry', found 'cuont'")
    }

    /// RxJS 7's retry({delay: (error, retries) => notifier, resetOnSuccess}): the notifier's
    /// first value retries, its completion completes, its error fails; a value resets the count.
    func testRetryNotifierAndResetOnSuccess() throws {
        XCTAssertEqual(try out("cold a = -a#\ncold n = --x|\nout = a.retry({count: 2, delay: (e, k) => n})"), "-a---a---a#")
        XCTAssertEqual(try out("cold a = -a#\nout = a.retry({count: 3, delay: (e, k) => of(k)}).map((x, i) => i)"), "-0-1-2-3#")
        XCTAssertEqual(try out("cold a = -a#\ncold n = --|\nout = a.retry({count: 2, delay: (e, k) => n})"), "-a--|")
        XCTAssertEqual(events(try play("cold a = -a#\ncold n = --#\nerror n = \"n\"\nout = a.retry({count: 2, delay: (e, k) => n})"),
                              "out").last, #"4:#"n""#)
        XCTAssertEqual(try out("cold a = -a#\nout = a.retry({count: 1, resetOnSuccess: true}).take(4)"), "-a-a-a-(a|)")
        XCTAssertEqual(try out("cold a = -a#\nout = a.retry({count: 1, delay: 2, resetOnSuccess: true}).take(3)"), "-a---a---(a|)")
        XCTAssertEqual(try out("cold a = -#\nout = a.retry({count: 2, resetOnSuccess: true})"), "---#")
    }

    func testTimeoutEachWithAndWithoutFallback() throws {
        XCTAssertEqual(events(try play("cold a = -a---b|\nout = a.timeout(each: 3)"), "out"), [#"1:"a""#, #"4:#"TimeoutError""#])
        XCTAssertEqual(try out("cold a = -a---b|\ncold f = xy|\nout = a.timeout(each: 3, with: f)"), "-a--xy|")
    }

    /// RxJS 7: timeout(n) is {each: n}; {first} bounds only the first value; {first, each}
    /// both; `with` is a factory of the fallback.
    func testTimeoutConfigurationFirstEachAndWith() throws {
        XCTAssertEqual(try out("cold a = -a---b|\nout = a.timeout(3)"), "-a--#")
        XCTAssertEqual(try out("cold a = -----a|\nout = a.timeout({first: 3})"), "---#")
        XCTAssertEqual(try out("cold a = -a-------b|\nout = a.timeout({first: 3})"), "-a-------b|")
        XCTAssertEqual(try out("cold a = -----a---b|\nout = a.timeout({first: 6, each: 2})"), "-----a-#")
        XCTAssertEqual(try out("cold a = -a---b|\ncold f = xy|\nout = a.timeout({each: 3, with: () => f})"), "-a--xy|")
        XCTAssertEqual(specError("cold a = -a|\nout = a.timeout({})")?.message, "expected 'each' or 'first' for 'timeout'")
    }

    func testSwiftNamesCallSignalsDirectly() throws {
        let spec = "hot a = -a-b----c-|\ncold i = x|\n"
        XCTAssertEqual(try out(spec + "out = a.flatMap(latest, v => i)"), "-x-x----x-|")
        XCTAssertEqual(try out(spec + "out = a.flatMap(.concat, v => i)"), "-x-x----x-|")
        XCTAssertEqual(try out(spec + "out = a.debounce(3)"), "------b---|", "ReactiveSwift's debounce drops the pending value on completion")
        XCTAssertEqual(try out(spec + "out = a.observe(on: \"main\")"), "-a-b----c-|")
    }

    func testCreationFunctions() throws {
        XCTAssertEqual(try out("out = of(1, 2)"), "(12|)")
        XCTAssertEqual(try out("out = empty()"), "|")
        XCTAssertEqual(try out("out = never()"), "")
        XCTAssertEqual(try out("out = throwError('x')"), "#")
    }

    /// RxJS 7's timer: one value 0 after the due time, then completion; with a period, 0, 1,
    /// 2, … every period from the due time; a negative due is 0 and a negative period none;
    /// as a retry's backoff, each attempt waits longer.
    func testTimerSendsAfterItsDueTimeAndThenEveryPeriod() throws {
        XCTAssertEqual(try out("out = timer(3)"), "---(0|)")
        XCTAssertEqual(try out("out = timer(0)"), "(0|)")
        XCTAssertEqual(try out("out = timer(-5)"), "(0|)")
        XCTAssertEqual(try out("out = timer(2, -1)"), "--(0|)")
        XCTAssertEqual(try out("out = timer(2, 3).take(3)"), "--0--1--(2|)")
        XCTAssertEqual(try out("hot a = -a-----|\nout = a.switchMap(v => timer(2, 1)).take(4)"), "---012(3|)")
        // Backoff: each attempt fails 1 ms in; the n-th retry waits n ms. Attempts at 0, 2, 5
        // and 9 ms; the last failure, at 10 ms, ends it.
        XCTAssertEqual(try out("cold e = -#\nout = e.retry({count: 3, delay: (error, n) => timer(n)})"), "----------#")
    }
}

/// Errors, same-frame ordering, completion while a timer is pending, and unsubscription,
/// across operators, on one set of inputs.
final class SpecOperatorEdgeTests: XCTestCase {
    private let inputs = """
    hot a = -a-b-#
    hot b = --x--y---|
    hot c = -a-b-c--|
    cold i = -x-#

    """

    private func line(_ expression: String, unsubscribe: String? = nil) throws -> String {
        var spec = inputs + "out = \(expression)\n"
        if let unsubscribe { spec += "unsubscribe out = \(unsubscribe)\n" }
        let result = try play(spec)
        let events = (result.stream("out")?.events ?? []).map { event -> MarbleNotation.Event in
            switch event.kind {
            case .next: return .init(time: event.time, kind: .value(event.value?.display ?? "null"))
            case .error: return .init(time: event.time, kind: .error)
            case .complete: return .init(time: event.time, kind: .complete)
            }
        }
        return MarbleNotation.print(events, frame: result.frame)
    }

    func testDelayForwardsErrorsWithoutDelay() throws {
        XCTAssertEqual(try line("a.delay(3)"), "----a#")
        XCTAssertEqual(try line("a.delay(3, on: \"main\")"), "----a#")
    }

    func testSwitchMapFailsWithTheCurrentInnerAfterTheOuterCompleted() throws {
        XCTAssertEqual(try line("c.switchMap(v => i)"), "--x-x-x-#")
    }

    func testJoinsFailWithAnInput() throws {
        XCTAssertEqual(try line("combineLatest(a, b, (p, q) => p)"), "--ab-#")
        XCTAssertEqual(try line("zip(b, a, (p, q) => q)"), "--a--#")
        XCTAssertEqual(try line("a.withLatestFrom(b, (p, q) => q)"), "---x-#")
        XCTAssertEqual(try line("concat(i, b)"), "-x-#")
    }

    func testSameFrameEventsKeepTheOrderTheInputsWereWritten() throws {
        XCTAssertEqual(try line("merge(c, b)"), "-axb-(yc)|")
        XCTAssertEqual(try line("merge(b, c)"), "-axb-(yc)|")
    }

    func testTimersAndSourceEventsInTheSameFrame() throws {
        XCTAssertEqual(try line("c.auditTime(3)"), "----b---(c|)", "completion waits for the audit timer due in its frame")
        XCTAssertEqual(try line("c.throttleTime(4)"), "-a------|", "a value in the frame the window closes is still throttled")
        XCTAssertEqual(try line("a.sampleTime(2)"), "--a-b#")
        XCTAssertEqual(try line("c.debounceTime(1)"), "--a-b-c-|")
    }

    func testRetryResubscribesAfterAnError() throws {
        XCTAssertEqual(try line("i.retry(1)"), "-x--x-#")
        XCTAssertEqual(try line("i.retry(0)"), "-x-#")
    }

    func testUnsubscribingCancelsPendingTimers() throws {
        XCTAssertEqual(try line("c.debounceTime(3)", unsubscribe: "------!"), "")
        XCTAssertEqual(try line("c.throttleTime(3, trailing: true)", unsubscribe: "----!"), "-a")
        XCTAssertEqual(try line("c.delay(2)", unsubscribe: "----!"), "---a")
        XCTAssertEqual(try line("a.sampleTime(2)", unsubscribe: "---!"), "--a")
    }
}

final class SpecNotifierErrorTests: XCTestCase {
    func testTakeUntilAndSampleFailWithTheirNotifier() throws {
        let spec = "hot a = -a-b-c-|\nhot n = ---#\nerror n = \"n\"\n"
        XCTAssertEqual(events(try play(spec + "out = a.takeUntil(n)"), "out"), [#"1:"a""#, #"3:"b""#, #"3:#"n""#])
        XCTAssertEqual(events(try play(spec + "out = a.sample(n)"), "out"), [#"3:#"n""#])
    }
}

final class SpecWithLatestFromErrorTests: XCTestCase {
    func testWithLatestFromFailsWithTheOtherStream() throws {
        XCTAssertEqual(events(try play("hot a = -a-b-c-|\nhot o = --x-#\nout = a.withLatestFrom(o, (p, q) => p + q)"), "out"),
                       [#"3:"bx""#, #"4:#"error""#])
    }
}
