import Foundation
import MarbleStreams
import MarblesTesting
import Signals
import XCTest

/// The RxJS-semantics operators added for the spec language: audit (auditTime),
/// throttle(_:leading:trailing:on:) (throttleTime), sampleLatest(on:) (sample) and
/// timeout(each:) (timeout({ each, with })).
final class RxTimingOperatorTests: XCTestCase {
    // MARK: audit

    func testAuditSendsTheLatestValueWhenTheWindowEnds() {
        expectMarbles("---b------c|") { $0.hot("a-b----c---|").audit(0.003, on: $0) }
    }

    func testAuditCompletionWaitsForTheArmedTimer() {
        expectMarbles("---(a|)") { $0.hot("a-|").audit(0.003, on: $0) }
    }

    func testAuditFailureIsForwardedAtOnce() {
        expectMarbles("--#") { $0.hot("a-#").audit(0.003, on: $0) }
    }

    func testAuditProducerAuditsEachStart() {
        expectMarbles("--(b|)") { $0.cold("ab|").audit(0.002, on: $0) }
    }

    // MARK: throttle(_:leading:trailing:on:)

    func testThrottleLeadingOnlyDropsValuesInsideTheWindow() {
        expectMarbles("a----d---|") { $0.hot("abc--d---|").throttle(0.003, leading: true, trailing: false, on: $0) }
    }

    func testThrottleLeadingAndTrailingSendsTheLastValueWhenTheWindowCloses() {
        expectMarbles("a--c--d--|") { $0.hot("abc--d---|").throttle(0.003, leading: true, trailing: true, on: $0) }
    }

    func testThrottleTrailingOnlyOpensTheWindowWithoutSending() {
        expectMarbles("---c--d--|") { $0.hot("abc--d---|").throttle(0.003, leading: false, trailing: true, on: $0) }
    }

    func testThrottleCompletionWaitsForATrailingValue() {
        expectMarbles("a--(b|)") { $0.hot("ab|").throttle(0.003, leading: true, trailing: true, on: $0) }
    }

    func testThrottleFailureIsForwardedAtOnce() {
        expectMarbles("a-#") { $0.hot("ab#").throttle(0.003, leading: true, trailing: true, on: $0) }
    }

    // MARK: sampleLatest(on:)

    private func trigger(_ scheduler: TestScheduler, _ line: String) -> SignalProducer<String, Never> {
        scheduler.cold(line).flatMapError { _ in SignalProducer<String, Never>.empty }
    }

    func testSampleLatestSendsEachValueAtMostOnce() {
        expectMarbles("--b---c-d|") { $0.cold("a-b-c---d|").sampleLatest(on: self.trigger($0, "--x---x-x-x|")) }
    }

    func testSampleLatestSendsNothingWithoutANewValue() {
        expectMarbles("-a-----|") { $0.cold("a------|").sampleLatest(on: self.trigger($0, "-x-x-x-x")) }
    }

    func testSampleLatestEndsWithTheSourceNotTheTrigger() {
        expectMarbles("-a---|") { $0.cold("a---b|").sampleLatest(on: self.trigger($0, "-x|")) }
        expectMarbles("--#") { $0.cold("a-#").sampleLatest(on: self.trigger($0, "-----x")) }
    }

    // MARK: timeout(each:)

    func testTimeoutEachLetsShortGapsThrough() {
        expectMarbles("a-b-c|") { $0.cold("a-b-c|").timeout(each: 0.003, raising: MarbleError(), on: $0) }
    }

    func testTimeoutEachFailsAfterALongGap() {
        expectMarbles("a--#") { $0.cold("a----b|").timeout(each: 0.003, raising: MarbleError(), on: $0) }
    }

    func testTimeoutEachCountsTheFirstGapFromTheStart() {
        expectMarbles("---#") { $0.cold("----a|").timeout(each: 0.003, raising: MarbleError(), on: $0) }
    }

    func testTimeoutEachSwitchesToTheFallback() {
        expectMarbles("a-xy|") { $0.cold("a-----b|").timeout(each: 0.002, switchingTo: $0.cold("xy|"), on: $0) }
    }

    // MARK: timeout(first:each:)

    func testTimeoutFirstOnlyBoundsTheWaitForTheFirstValue() {
        expectMarbles("---#") { $0.cold("-----a|").timeout(first: 0.003, each: nil, raising: MarbleError(), on: $0) }
        expectMarbles("-a-------b|") { $0.cold("-a-------b|").timeout(first: 0.003, each: nil, raising: MarbleError(), on: $0) }
    }

    func testTimeoutFirstThenEach() {
        expectMarbles("-----a-#") { $0.cold("-----a---b|").timeout(first: 0.006, each: 0.002, raising: MarbleError(), on: $0) }
        expectMarbles("-----a-xy|") {
            $0.cold("-----a---b|").timeout(first: 0.006, each: 0.002, switchingTo: $0.cold("xy|"), on: $0)
        }
    }
}

/// debounceFlushing (RxJS debounceTime).
final class DebounceFlushingTests: XCTestCase {
    func testOnlyTheLastValueOfABurstPasses() {
        expectMarbles("-----b----c|") { $0.hot("a-b----c---|").debounceFlushing(0.003, on: $0) }
    }

    func testCompletionSendsThePendingValueAtOnce() {
        expectMarbles("--(a|)") { $0.hot("a-|").debounceFlushing(0.003, on: $0) }
    }

    func testFailureDropsThePendingValue() {
        expectMarbles("--#") { $0.hot("a-#").debounceFlushing(0.003, on: $0) }
    }
}

/// take(untilValueFrom:) (RxJS takeUntil) and sampleLatest(on:) with a trigger that can fail.
final class RxTriggerTests: XCTestCase {
    func testTakeUntilValueCompletesAtTheTriggersFirstValue() {
        expectMarbles("-a-b|") { $0.cold("-a-b-c-|").take(untilValueFrom: $0.cold("----x-y")) }
    }

    func testTakeUntilValueIgnoresTheTriggersCompletion() {
        expectMarbles("-a-b-c-|") { $0.cold("-a-b-c-|").take(untilValueFrom: $0.cold("--|")) }
    }

    func testTakeUntilValueFailsWithTheTrigger() {
        expectMarbles("-a-#") { $0.cold("-a-b-c-|").take(untilValueFrom: $0.cold("---#")) }
    }

    func testTakeUntilValueStartsTheTriggerFirst() {
        expectMarbles("|") { $0.cold("a|").take(untilValueFrom: SignalProducer<String, MarbleError>(value: "now")) }
    }

    func testSampleLatestFailsWithAFailingTrigger() {
        expectMarbles("--b#") { $0.cold("a-b--|").sampleLatest(on: $0.cold("--x#")) }
    }
}

/// withLatest(from:) with a samplee that can fail (RxJS withLatestFrom).
final class WithLatestFailableTests: XCTestCase {
    func testValuesPairWithTheSampleesLatest() {
        expectMarbles("---b-c|") {
            $0.cold("-a-b-c|").withLatest(from: $0.cold("--x-y-----")).map { pair in pair.0 + pair.1 == "bx" ? "b" : "c" }
        }
    }

    func testTheSampleesFailureFailsTheResult() {
        expectMarbles("---b#") { $0.cold("-a-b-c|").withLatest(from: $0.cold("--x-#")).map { $0.0 } }
    }

    func testTheSampleesCompletionChangesNothing() {
        expectMarbles("---b-c|") { $0.cold("-a-b-c|").withLatest(from: $0.cold("--x|")).map { $0.0 } }
    }
}
