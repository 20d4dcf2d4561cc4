import Signals
import XCTest

final class ValidatingPropertyTests: XCTestCase {
    private struct TooBig: Error, Equatable {}

    /// Negative values are refused, values over 10 become 10.
    private func validate(_ value: Int) -> ValidatingProperty<Int, TooBig>.Decision {
        if value < 0 { return .invalid(TooBig()) }
        return value > 10 ? .coerced(10, TooBig()) : .valid
    }

    private func describe(_ result: ValidatingProperty<Int, TooBig>.Result) -> String {
        switch result {
        case let .valid(value): return "valid \(value)"
        case let .coerced(replacement, proposed, _): return "coerced \(proposed) to \(replacement)"
        case let .invalid(value, _): return "invalid \(value)"
        }
    }

    func testValidCoercedAndInvalidValues() {
        let property = ValidatingProperty(1, validate)
        var results: [String] = []
        property.result.signal.observeValues { results.append(self.describe($0)) }
        property.value = 5
        property.value = 50
        property.value = -1
        XCTAssertEqual(results, ["valid 5", "coerced 50 to 10", "invalid -1"])
        XCTAssertEqual(property.value, 10, "the refused value is not stored")
        XCTAssertTrue(property.result.value.isInvalid)
        XCTAssertNil(property.result.value.value)
    }

    func testChangesOfTheInnerPropertyAreValidatedButNotWrittenBack() {
        let inner = MutableProperty(0)
        let property = ValidatingProperty(inner, validate)
        inner.value = -3
        XCTAssertEqual(property.value, -3)
        XCTAssertEqual(describe(property.result.value), "invalid -3")
    }

    func testADependencyRevalidatesTheLastValueSet() {
        let limit = MutableProperty(3)
        let property = ValidatingProperty(0, with: limit) { (value: Int, limit: Int) -> ValidatingProperty<Int, TooBig>.Decision in
            value <= limit ? .valid : .invalid(TooBig())
        }
        property.value = 5
        XCTAssertEqual(property.value, 0)
        limit.value = 6
        XCTAssertEqual(property.value, 5, "5 is valid now")
        XCTAssertFalse(property.result.value.isInvalid)
    }

    func testTheDependencyIsNotKeptAlive() {
        var limit: MutableProperty<Int>? = MutableProperty(3)
        weak let weakLimit = limit
        let property = ValidatingProperty(0, with: limit!) { (value: Int, limit: Int) -> ValidatingProperty<Int, TooBig>.Decision in
            value <= limit ? .valid : .invalid(TooBig())
        }
        limit = nil
        XCTAssertNil(weakLimit)
        property.value = 2
        XCTAssertEqual(property.value, 2)
    }

    func testAnActionOnAValidatedStateIsEnabledWhileItIsValid() {
        let amount = ValidatingProperty(1, validate)
        let action = Action<Void, Int, Never>(validated: amount) { value in SignalProducer(value: value) }
        XCTAssertTrue(action.isEnabled.value)
        amount.value = -1
        XCTAssertFalse(action.isEnabled.value)
        amount.value = 4
        var values: [Int] = []
        action.apply().startWithValues { values.append($0) }
        XCTAssertEqual(values, [4])
    }
}
