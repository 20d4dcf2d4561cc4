import Signals
import XCTest

final class ActionTests: XCTestCase {
    private struct Broken: Error, Equatable {}

    func testApplyingRunsTheUnitOfWorkAndReportsItsEvents() {
        let action = Action<Int, String, Broken> { input in SignalProducer(value: "\(input)!") }
        var values: [String] = [], completions = 0, events: [String] = []
        action.values.observeValues { values.append($0) }
        action.completed.observeValues { completions += 1 }
        action.apply(3).start { events.append("\($0)") }
        XCTAssertEqual(events, ["VALUE 3!", "COMPLETED"])
        XCTAssertEqual(values, ["3!"])
        XCTAssertEqual(completions, 1)
    }

    func testAnActionRunsOneExecutionAtATime() {
        let (work, finish) = Signal<Int, Broken>.pipe()
        let action = Action<Void, Int, Broken> { SignalProducer(work) }
        var executing: [Bool] = []
        action.isExecuting.producer.startWithValues { executing.append($0) }
        var first: [String] = [], second: [String] = [], disabled = 0
        action.disabledErrors.observeValues { disabled += 1 }
        action.apply().start { first.append("\($0)") }
        XCTAssertFalse(action.isEnabled.value)
        action.apply().start { second.append("\($0)") }
        XCTAssertEqual(second, ["FAILED disabled"])
        XCTAssertEqual(disabled, 1)
        finish.send(value: 1)
        finish.sendCompleted()
        XCTAssertEqual(first, ["VALUE 1", "COMPLETED"])
        XCTAssertEqual(executing, [false, true, false])
        XCTAssertTrue(action.isEnabled.value)
    }

    func testAFailureOfTheWorkIsAProducerFailure() {
        let action = Action<Void, Int, Broken> { SignalProducer(error: Broken()) }
        var errors: [Broken] = [], result: [ActionError<Broken>] = []
        action.errors.observeValues { errors.append($0) }
        action.apply().startWithFailed { result.append($0) }
        XCTAssertEqual(errors, [Broken()])
        XCTAssertEqual(result, [.producerFailed(Broken())])
    }

    func testTheStateDecidesWhetherItIsEnabledAndFeedsTheWork() {
        let limit = MutableProperty<Int?>(nil)
        let action = Action<Int, Int, Never>(unwrapping: limit) { limit, input in SignalProducer(value: min(limit, input)) }
        XCTAssertFalse(action.isEnabled.value)
        var results: [String] = []
        action.apply(5).start { results.append("\($0)") }
        limit.value = 3
        XCTAssertTrue(action.isEnabled.value)
        action.apply(5).start { results.append("\($0)") }
        XCTAssertEqual(results, ["FAILED disabled", "VALUE 3", "COMPLETED"])
    }

    func testInterruptingAnApplicationInterruptsTheWorkAndFreesTheAction() {
        var interrupted = false
        let action = Action<Void, Int, Never> {
            SignalProducer { _, lifetime in lifetime.observeEnded { interrupted = true } }
        }
        let disposable = action.apply().start()
        XCTAssertTrue(action.isExecuting.value)
        disposable.dispose()
        XCTAssertTrue(interrupted)
        XCTAssertFalse(action.isExecuting.value)
    }

    func testBindingAppliesTheActionToEachValue() {
        var inputs: [Int] = []
        let action = Action<Int, Int, Never> { input in
            inputs.append(input)
            return .empty
        }
        action <~ SignalProducer([1, 2])
        XCTAssertEqual(inputs, [1, 2])
    }

    func testTheActionsSignalsCompleteWhenItIsReleased() {
        var action: Action<Void, Int, Never>? = Action { .empty }
        var completed = false
        action?.events.observeCompleted { completed = true }
        action = nil
        XCTAssertTrue(completed)
    }
}

/// Issue 29: an action of no input made from its state alone, as ReactiveSwift code writes it
/// (`Action(state: property, execute: SignalProducer.init(value:))`).
final class ActionFromStateTests: XCTestCase {
    private let echo: (Int) -> SignalProducer<Int, Never> = SignalProducer.init(value:)

    func testTheStateAloneMakesTheWork() {
        let input = MutableProperty(0)
        let action = Action(state: input, execute: echo)
        var values: [Int] = []
        action.values.observeValues { values.append($0) }
        for value in 1...3 {
            input.value = value
            action.apply().start()
        }
        XCTAssertEqual(values, [1, 2, 3])
    }

    func testUnwrappingAndValidatedStatesEnableIt() {
        let optional = MutableProperty<Int?>(1)
        let unwrapping = Action(unwrapping: optional, execute: echo)
        XCTAssertTrue(unwrapping.isEnabled.value)
        optional.value = nil
        XCTAssertFalse(unwrapping.isEnabled.value)

        let validating = ValidatingProperty<Int, ValidationTestError>(0) { $0 >= 0 ? .valid : .invalid(ValidationTestError()) }
        let validated = Action(validated: validating, execute: echo)
        XCTAssertTrue(validated.isEnabled.value)
        validating.value = -1
        XCTAssertFalse(validated.isEnabled.value)
    }
}

private struct ValidationTestError: Error {}
