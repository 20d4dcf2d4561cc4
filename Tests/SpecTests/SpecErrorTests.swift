import Spec
import XCTest

final class SpecErrorTests: XCTestCase {
    func testReportShowsFileLineColumnTheLineAndACaret() {
        let error = specError("""
        # a spec
        hot e1 = --a--^--(b
        """)
        XCTAssertEqual(error?.description, """
        test.marbles:2:18: error: expected ')' to close the group opened here
        hot e1 = --a--^--(b
                         ^
        """)
    }

    func testUnknownOperatorSuggestsTheClosestName() {
        let error = specError("cold e = a|\nout = e.mapp(x => x)")
        XCTAssertEqual(error?.location, SpecLocation(line: 2, column: 9))
        XCTAssertEqual(error?.message, "expected an operator, found unknown operator 'mapp' (did you mean 'map'?)")
    }

    func testExpressionSyntaxErrors() {
        XCTAssertEqual(specError("cold e = a|\nout = e.map(x => x +)")?.description, """
        test.marbles:2:21: error: expected a value, a name or '(', found ')'
        out = e.map(x => x +)
                            ^
        """)
        XCTAssertEqual(specError("out = of(1, 'two)")?.message, "expected ' to close the string started here")
        XCTAssertEqual(specError("out = of(1 2)")?.message, "expected ',' or ')' in the argument list, found number 2")
        XCTAssertEqual(specError("out = of(1) @")?.location, SpecLocation(line: 1, column: 13))
        XCTAssertEqual(specError("out = of(5xs)")?.message, "expected a duration unit 'ms', 's' or 'm' after the number, found 'xs'")
    }

    func testDefinitionErrors() {
        XCTAssertEqual(specError("cold e = a|\ncold e = b|")?.message, "expected a new stream name: 'e' is already defined on line 1")
        XCTAssertEqual(specError("values e = {\"a\": 1}")?.message, "expected the name of a hot or cold input, found 'e'")
        XCTAssertEqual(specError("cold e = a|\nvalues e = [1]")?.message, "expected a JSON object mapping characters to values, found array")
        XCTAssertEqual(specError("cold e = a|\nvalues e = {\"ab\": 1}")?.message, #"expected one-character keys in 'values e', found "ab""#)
        XCTAssertEqual(specError("cold e = a|\nerror e = x")?.message, "expected a JSON value (number, string, true, false, null, array or object)")
        XCTAssertEqual(specError("frame fast")?.message, "expected a duration such as 1ms, 10 or 0.5s after 'frame'")
        XCTAssertEqual(specError("cold e = a|\nout = e.map(x => x)\nunsubscribe out = --")?.message,
                       "expected '!' marking when 'out' is unsubscribed")
        XCTAssertEqual(specError("hot e = ^a|\nunsubscribe e = --!")?.message, "expected the name of a derived stream, found 'e'")
        XCTAssertEqual(specError("what is this")?.message,
                       "expected '=' after 'what' (or one of hot, cold, values, error, unsubscribe, frame)")
        XCTAssertEqual(specError("cold e = ^a|")?.location, SpecLocation(line: 1, column: 10))
    }

    func testNameAndArgumentErrors() {
        XCTAssertEqual(specError("out = nope.map(x => x)")?.message,
                       "expected a stream, a parameter or a function, found unknown name 'nope'")
        XCTAssertEqual(specError("cold c = x|\nout = b\nb = c.map(x => x)")?.message,
                       "expected a stream defined above this line; 'b' is defined later (use stream('b') inside a lambda)")
        XCTAssertEqual(specError("cold e = a|\nout = e.map()")?.message, "expected 1 argument for 'map', found 0")
        XCTAssertEqual(specError("cold e = a|\nout = e.map(5)")?.message, "expected a function such as x => ..., found number")
        XCTAssertEqual(specError("cold e = a|\nout = e.map(f: x => x)")?.message,
                       "expected no named arguments for 'map', found 'f:'")
        XCTAssertEqual(specError("out = 1 + 2")?.message, "expected an expression that makes a stream, found number")
        XCTAssertEqual(specError("out = stream(\"zz\")")?.message, "expected the name of a stream, found unknown stream 'zz'")
    }

    func testErrorsInsideLambdasAreReportedAfterTheRun() {
        let error = specError("cold e = a|\nout = e.map(x => x.foo())")
        XCTAssertEqual(error?.location, SpecLocation(line: 2, column: 20))
        XCTAssertEqual(error?.message, "expected a method of string, found 'foo'")
    }

    func testHostileInputIsAnErrorNotACrash() {
        for text in ["=", "out =", "hot = ", "hot e1", "values e1 =", "cold e = (((", "out = ((((((", "out = [1,",
                     "out = {\"a\" 1}", "\u{0}\u{1}", "out = e.\n", "cold e = a|\nout = e.map(x => x)(", "out = of(1)[0]("] {
            XCTAssertNotNil(specError(text), text)
        }
    }
}
