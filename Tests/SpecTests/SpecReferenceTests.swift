import Spec
import XCTest

/// A spec stream that refers to itself is a located error, not a stack overflow; long chains of
/// derived streams and long values stay cheap.
final class SpecReferenceTests: XCTestCase {
    func testAStreamReferringToItselfIsALocatedError() {
        let error = specError("cold e = -a-|\nout = stream(\"out\").map(x => x)")
        XCTAssertEqual(error?.message, "expected a stream that does not refer to itself; stream 'out' refers to itself "
                       + "through stream('out') on line 2")
        XCTAssertEqual(error?.location, SpecLocation(line: 2, column: 14))
    }

    func testTwoStreamsReferringToEachOtherAreALocatedError() {
        let error = specError("cold e = -a-|\na = stream(\"b\").map(x => x)\nb = a.filter(x => x)")
        XCTAssertEqual(error?.message, "expected a stream that does not refer to itself; stream 'a' refers to itself "
                       + "through stream('b') on line 2, then a on line 3")
        XCTAssertEqual(error?.location, SpecLocation(line: 2, column: 12))
        let mutual = specError("cold e = -a-|\nx = e.map(v => v)\na = stream(\"c\")\nb = a.take(1)\nc = merge(x, stream(\"b\"))")
        XCTAssertEqual(mutual?.message, "expected a stream that does not refer to itself; stream 'a' refers to itself "
                       + "through stream('c') on line 3, then stream('b') on line 5, then a on line 4")
    }

    func testAForwardReferenceWithoutACycleStillRuns() throws {
        let result = try play("cold e = -a-|\nfirst = stream(\"second\").map(x => x + '!')\nsecond = e.map(x => x + x)")
        XCTAssertEqual(events(result, "first"), ["1:\"aa!\"", "3:|"])
    }

    func testAStreamReferringToItselfInsideALambdaIsALocatedError() {
        // Each value would start `out` once more inside the last start, without end.
        let error = specError("cold e = -a-|\nout = e.flatMap(merge, v => of(1).flatMap(merge, w => stream(\"out\")))")
        XCTAssertEqual(error?.message, "expected a stream that does not refer to itself; stream 'out' refers to itself "
                       + "through stream('out') in a lambda on line 2")
        XCTAssertEqual(error?.location, SpecLocation(line: 2, column: 62))
        let bare = specError("cold e = -a-|\nout = e.switchMap(v => other)\nother = e.concatMap(v => out)")
        XCTAssertEqual(bare?.message, "expected a stream that does not refer to itself; stream 'out' refers to itself "
                       + "through other in a lambda on line 2, then out in a lambda on line 3")
    }

    func testALambdaParameterHidesAStreamOfTheSameName() throws {
        let result = try play("cold e = -a-|\nout = e.map(out => out + out)")
        XCTAssertEqual(events(result, "out"), ["1:\"aa\"", "3:|"])
    }

    func testAComputedNameStartedWhileItsStreamStartsIsALocatedError() {
        let error = specError("out = stream(String('out')).map(x => x)")
        XCTAssertEqual(error?.location.line, 1)
        XCTAssertEqual(error?.message, "expected a stream that does not refer to itself; stream 'out' refers to itself "
                       + "through stream('out') on line 1 (found as the streams started)")
    }

    func testALongLineIsQuotedAround200CharactersOfTheColumn() throws {
        let padding = String(repeating: "x", count: 10_000)
        let error = try XCTUnwrap(specError("cold e = -a-|\nout = e.map(v => '\(padding)' + v) + nope"))
        let lines = error.description.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.count, 3, error.description)
        XCTAssertLessThanOrEqual(lines[1].count, SpecError.quotedLineLimit)
        XCTAssertTrue(lines[1].hasPrefix("\u{2026}"), String(lines[1]))
        // The caret still sits under the column's character.
        let caret = try XCTUnwrap(lines[2].firstIndex(of: "^"))
        let offset = lines[2].distance(from: lines[2].startIndex, to: caret)
        XCTAssertEqual(String(Array(lines[1])[offset...].prefix(4)), "nope", String(lines[1]))
        // A short line is quoted whole.
        let short = try XCTUnwrap(specError("cold e = a|\nout = e.map(x => x +)"))
        XCTAssertTrue(short.description.hasSuffix("out = e.map(x => x +)\n                    ^"), short.description)
    }

    func testALongChainOfNamedStreamsIsALocatedErrorBeforeAnythingRuns() throws {
        // Stream k starts its own k maps: 316 named steps start 50,086 operators in all.
        var lines = ["cold e = -a-|", "s1 = e.map(x => x)"]
        for step in 2...2_000 { lines.append("s\(step) = s\(step - 1).map(x => x)") }
        let error = try XCTUnwrap(specError(lines.joined(separator: "\n")))
        XCTAssertEqual(error.location, SpecLocation(line: 317, column: 1))
        XCTAssertEqual(error.message, "expected the derived streams to start at most 50000 operators at frame 0, but the "
                       + "streams up to 's316' start more ('s316' alone starts 316): each derived stream is subscribed on its "
                       + "own and starts its own copy of every stream it names, so a chain of named streams grows with the "
                       + "square of its length; write the chain as one expression instead of naming every step")
        // Just under the limit the spec is accepted; a shorter chain runs, every step seeing the value.
        XCTAssertNoThrow(try SpecDocument.parse(lines.prefix(316).joined(separator: "\n"), file: "chain.marbles"))
        let result = try play(lines.prefix(41).joined(separator: "\n"))
        XCTAssertEqual(events(result, "s40"), ["1:\"a\"", "3:|"])
    }

    func testAStreamNamingTheOneAboveTwiceDoublesItsCostAndIsCaught() throws {
        // Each step merges two copies of the step above: 2^k operators at step k.
        var lines = ["cold e = -a-|", "d1 = e.map(x => x)"]
        for step in 2...64 { lines.append("d\(step) = merge(d\(step - 1), d\(step - 1))") }
        let error = try XCTUnwrap(specError(lines.joined(separator: "\n")))
        XCTAssertEqual(error.location.line, 16)
        XCTAssertTrue(error.message.contains("the streams up to 'd15' start more ('d15' alone starts 32767)"), error.message)
    }

    func testStreamsNamedInsideLambdasCountAsStartedOnce() throws {
        // Each value reaching a lambda starts the stream it names again, so the count is a
        // floor: here the one value starts all of them, as a chain written without lambdas would.
        var lines = ["cold e = -a-|", "s1 = e.map(x => x)"]
        for step in 2...400 { lines.append("s\(step) = e.switchMap(v => s\(step - 1))") }
        let error = try XCTUnwrap(specError(lines.joined(separator: "\n")))
        XCTAssertEqual(error.location.line, 317)
        // Named later, inside a lambda: counted after the stream it names all the same.
        let forward = specError("cold e = -a-|\nfirst = e.switchMap(v => second)\nsecond = e.map(x => x + x)")
        XCTAssertNil(forward)
    }
}
