import Foundation
import MarbleNotation
import MarbleStreams
import MarblesTesting
@testable import Signals
import XCTest

/// The ReactiveSwift spellings of things Signals already did: the same behaviour reached by
/// ReactiveSwift's names and argument labels.
final class ReactiveSwiftSpellingsTests: XCTestCase {
    private struct Broken: Error, Equatable {}

    func testATestSchedulerCanStartAtADateAndBeRewound() {
        let scheduler = TestScheduler(startDate: Date(timeIntervalSinceReferenceDate: 100))
        var fired: [Double] = []
        scheduler.schedule(after: .seconds(2)) { fired.append(scheduler.currentDate.timeIntervalSinceReferenceDate) }
        scheduler.advance(by: .seconds(1))
        scheduler.rewind(by: .seconds(1))
        XCTAssertEqual(scheduler.currentDate.timeIntervalSinceReferenceDate, 100)
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(fired, [], "due at 102, the clock is back at 101")
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(fired, [102])
    }

    func testATestSchedulerStartedAtADateOfTodayReportsThatVeryDate() {
        let start = Date(timeIntervalSinceReferenceDate: 815_000_000.123_456_789)
        let scheduler = TestScheduler(startDate: start)
        XCTAssertEqual(scheduler.currentDate, start)
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(scheduler.currentDate.timeIntervalSince(start), 1, accuracy: 1e-6)
    }

    func testARepeatingActionAfterADelay() {
        let scheduler = TestScheduler()
        var ticks: [Int64] = []
        let disposable = scheduler.schedule(after: .milliseconds(5), interval: .milliseconds(10)) { ticks.append(scheduler.now) }
        scheduler.advance(by: .milliseconds(30))
        disposable?.dispose()
        XCTAssertEqual(ticks, [5_000_000, 15_000_000, 25_000_000])
    }

    func testNeverIsAnInfiniteInterval() {
        XCTAssertEqual(DispatchTimeInterval.never.timeInterval, .infinity)
        XCTAssertEqual(DispatchTimeInterval.milliseconds(1500).timeInterval, 1.5)
    }

    func testAResultIsAProducerOfItsSuccessOrFailure() {
        var events: [String] = []
        SignalProducer(Result<Int, Broken>.success(3)).start { events.append("\($0)") }
        Result<Int, Broken>.failure(Broken()).producer.start { events.append("\($0)") }
        XCTAssertEqual(events, ["VALUE 3", "COMPLETED", "FAILED Broken()"])
        XCTAssertEqual(Result<Int, Broken>.success(3).value, 3)
        XCTAssertEqual(Result<Int, Broken>.failure(Broken()).error, Broken())
    }

    func testAProducerOfAValueThunkCallsItOnEachStart() {
        var calls = 0
        let producer = SignalProducer<Int, Never> { () -> Int in
            calls += 1
            return calls
        }
        var values: [Int] = []
        producer.startWithValues { values.append($0) }
        producer.startWithValues { values.append($0) }
        XCTAssertEqual(values, [1, 2])
        var events: [String] = []
        SignalProducer<Int, Swift.Error> { () throws -> Int in throw Broken() }.start { events.append("\($0)") }
        XCTAssertEqual(events, ["FAILED Broken()"])
    }

    func testLiftWithoutANodeAppliesTheSignalOperator() {
        expectMarbles("-a-(b|)") { scheduler in scheduler.cold("-a-b-c|").lift { $0.take(first: 2) } }
        XCTAssertEqual(SignalProducer<Int, Never>.never.lift { $0.map { $0 } }.node.name, "lift")
    }

    func testEmptySentinelIsSentForNoProducers() {
        var arrays: [[Int]] = []
        SignalProducer.combineLatest([SignalProducer<Int, Never>](), emptySentinel: [0]).startWithValues { arrays.append($0) }
        SignalProducer.zip([SignalProducer<Int, Never>](), emptySentinel: [1]).startWithValues { arrays.append($0) }
        SignalProducer.zip([SignalProducer<Int, Never>(value: 2)], emptySentinel: [1]).startWithValues { arrays.append($0) }
        XCTAssertEqual(arrays, [[0], [1], [2]])
    }

    func testScanMapSendsWhatTheStepReturnsAndKeepsTheState() {
        var values: [String] = []
        SignalProducer([1, 2, 3]).scanMap(0) { sum, value in (sum + value, "\(sum)+\(value)") }
            .startWithValues { values.append($0) }
        XCTAssertEqual(values, ["0+1", "1+2", "3+3"])
        let (signal, input) = Signal<Int, Never>.pipe()
        var counts: [Int] = []
        signal.scanMap(into: 0) { count, _ in
            count += 1
            return count
        }.observeValues { counts.append($0) }
        input.send(value: 7)
        input.send(value: 7)
        XCTAssertEqual(counts, [1, 2])
    }

    func testWithValueReadsTheCurrentValue() {
        let property = MutableProperty(4)
        XCTAssertEqual(property.withValue { $0 * 2 }, 8)
    }

    func testPromoteValueGivesAValuelessStreamAValueType() {
        var events: [String] = []
        SignalProducer<Never, Never>.empty.promoteValue(Int.self).start { events.append("\($0)") }
        XCTAssertEqual(events, ["COMPLETED"])
    }

    func testConvertibleArgumentsAreInferredFromInit() {
        var values: [Int] = []
        SignalProducer(value: 2).prefix(.init(value: 1)).concat(.init(value: 3)).startWithValues { values.append($0) }
        XCTAssertEqual(values, [1, 2, 3])
        var both: [Bool] = []
        SignalProducer(value: true).and(.init(value: false)).startWithValues { both.append($0) }
        XCTAssertEqual(both, [false])
    }

    func testASignalTakenDuringALifetimeLetsGoOfItWhenItEnds() {
        let (lifetime, token) = Lifetime.make()
        weak var released: SignalCore<Int, Never>?
        do {
            let (signal, input) = Signal<Int, Never>.pipe()
            let taken = signal.take(during: lifetime)
            released = taken.core
            taken.observe { _ in }
            input.sendCompleted()
        }
        XCTAssertNil(released, "the lifetime no longer holds the finished signal's state")
        XCTAssertFalse(lifetime.hasEnded)
        withExtendedLifetime(token) {}
    }
}

private final class Thermometer: ReactiveExtensionsProvider {
    let degrees = MutableProperty(20)
}

extension Reactive where Base == Thermometer {
    fileprivate var degrees: SignalProducer<Int, Never> { base.degrees.producer }
    fileprivate static var unit: String { "°C" }
}

final class ReactiveNamespaceAndWrapperTests: XCTestCase {
    func testTheReactiveNamespaceReachesItsBase() {
        var values: [Int] = []
        Thermometer().reactive.degrees.startWithValues { values.append($0) }
        XCTAssertEqual(values, [20])
        XCTAssertEqual(Thermometer.reactive.unit, "°C")
    }

    func testPropertiesAsPropertyWrappers() {
        struct Model {
            @MutableProperty var count = 1
            @Property var doubled: Int
        }
        let source = MutableProperty(5)
        let model = Model(doubled: source.map { $0 * 2 })
        model.count += 1
        model.$count.modify { $0 *= 10 }
        XCTAssertEqual(model.count, 20)
        source.value = 7
        XCTAssertEqual(model.doubled, 14)
        XCTAssertEqual(model.$doubled.value, 14)
    }

    func testEmptySentinelOfNoProperties() {
        XCTAssertEqual(Property<Int>.combineLatest([MutableProperty<Int>](), emptySentinel: [0]).value, [0])
        XCTAssertEqual(Property<Int>.zip([MutableProperty(3)], emptySentinel: [0]).value, [3])
    }

    func testTimeoutOfAStreamThatCannotFailTakesTheErrorsType() {
        struct Late: Error {}
        let scheduler = TestScheduler()
        var events: [String] = []
        SignalProducer<Int, Never>.never.timeout(after: 2, raising: Late(), on: scheduler).start { events.append("\($0)") }
        scheduler.advance(by: 2)
        XCTAssertEqual(events, ["FAILED Late()"])
    }
}

final class ReactiveSwiftSpellingsMoreTests: XCTestCase {
    func testARemovedDisposableIsNotDisposedWithTheComposite() {
        let composite = CompositeDisposable()
        let inner = AnyDisposable()
        let handle = composite += inner
        handle?.dispose()
        handle?.dispose()
        composite.dispose()
        XCTAssertFalse(inner.isDisposed)
    }

    func testACurriedBinaryLiftStartsBothWithEachStart() {
        var made = 0
        let pair = { (left: Signal<Int, Never>) -> (Signal<Int, Never>) -> Signal<(Int, Int), Never> in
            { right in
                made += 1
                return Signal.zip(left, right)
            }
        }
        let producer = SignalProducer([1, 2]).lift(pair)(SignalProducer([3, 4]))
        XCTAssertEqual(made, 0)
        var sums: [Int] = []
        producer.startWithValues { sums.append($0.0 + $0.1) }
        producer.startWithValues { sums.append($0.0 + $0.1) }
        XCTAssertEqual(made, 2)
        XCTAssertEqual(sums, [4, 6, 4, 6])
    }
}

/// Issue 29: `interval` and `SignalProducer.init(value:)` passed as a function, as
/// ReactiveSwift code writes them.
final class IntervalAndInitialiserValueTests: XCTestCase {
    func testIntervalSendsASequenceOneIntervalApartThenCompletes() {
        let scheduler = TestScheduler()
        var events: [String] = []
        SignalProducer.interval("abc", interval: .seconds(1), on: scheduler).start { event in
            events.append("\(Int(scheduler.currentDate.timeIntervalSinceReferenceDate)):\(event)")
        }
        scheduler.advance(by: .milliseconds(900))
        XCTAssertEqual(events, [])
        scheduler.run()
        XCTAssertEqual(events, ["1:VALUE a", "2:VALUE b", "3:VALUE c", "4:COMPLETED"])
    }

    func testIntervalOfIntegersCountsUntilInterrupted() {
        let scheduler = TestScheduler()
        var values: [Int] = []
        var interrupted = false
        let disposable = SignalProducer.interval(.milliseconds(10), on: scheduler).start { event in
            switch event {
            case let .value(value): values.append(value)
            case .interrupted: interrupted = true
            default: XCTFail("unexpected \(event)")
            }
        }
        scheduler.advance(by: .milliseconds(45))
        disposable.dispose()
        scheduler.advance(by: .milliseconds(100))
        XCTAssertEqual(values, [0, 1, 2, 3])
        XCTAssertTrue(interrupted)
        // The timer of the same call site feeds it, so a replay gives it the recorded ticks.
        let node = SignalProducer.interval(.seconds(1), on: scheduler).node
        XCTAssertEqual(node.name, "interval")
        XCTAssertEqual(node.upstream.map(\.node.name), ["timer"])
    }

    func testInitValueIsAFunctionAndACallStillRecordsItsCallSite() {
        let make: (Int) -> SignalProducer<Int, Never> = SignalProducer.init(value:)
        let failable: (Int) -> SignalProducer<Int, Error> = SignalProducer.init(value:)
        var values: [Int] = []
        SignalProducer([1, 2]).flatMap(.concat, make).startWithValues { values.append($0) }
        failable(3).startWithResult { if case let .success(value) = $0 { values.append(value) } }
        XCTAssertEqual(values, [1, 2, 3])
        let called = SignalProducer<Int, Never>(value: 4); let line = UInt(#line)
        XCTAssertEqual(called.node.line, line, "a call records its line")
        XCTAssertEqual(called.node.file, "SignalsTests/ReactiveSwiftSpellingsTests.swift")
    }
}

/// Issue 29: `NotificationCenter.reactive.notifications(forName:object:)`.
final class NotificationSignalTests: XCTestCase {
    func testNotificationsOfANameUntilTheLastObserverLeaves() {
        let center = NotificationCenter()
        let first = Notification.Name("marbles.first"), other = Notification.Name("marbles.other")
        let signal = center.reactive.notifications(forName: first)
        var names: [Notification.Name] = []
        let observing = signal.observeValues { names.append($0.name) }
        center.post(name: other, object: nil)
        center.post(name: first, object: nil)
        XCTAssertEqual(names, [first])
        XCTAssertEqual(signal.node.name, "notifications")
        XCTAssertEqual(signal.node.parameters, "marbles.first")
        observing?.dispose()
        center.post(name: first, object: nil)
        XCTAssertEqual(names, [first], "no longer observed once the last observer left")
    }

    /// The center lets go of its observer (which holds the signal's instance) once the last
    /// observer of the signal leaves.
    func testTheCentersObserverIsRemovedWithTheLastObserver() {
        let center = NotificationCenter()
        weak var instance: AnyObject?
        var observing: Disposable?
        do {
            let signal = center.reactive.notifications(forName: Notification.Name("marbles.first"))
            instance = signal.core
            observing = signal.observeValues { _ in }
        }
        XCTAssertNotNil(instance, "kept while observed")
        observing?.dispose()
        XCTAssertNil(instance, "the center's observer, and with it the instance, is gone")
    }
}
