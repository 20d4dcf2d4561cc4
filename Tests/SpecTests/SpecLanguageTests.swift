import MarbleNotation
import Spec
import XCTest

final class SpecLanguageTests: XCTestCase {
    func testHotInputSendsFromFrameZeroWithValuesAndErrorValue() throws {
        let result = try play("""
        hot e1 = --a--^--b--#
        values e1 = {"a": 1, "b": {"x": [true, null]}}
        error e1 = "boom"
        out = e1.map(x => x)
        """)
        XCTAssertEqual(events(result, "out"), [#"3:{"x":[true,null]}"#, #"6:#"boom""#])
        XCTAssertEqual(events(result, "e1"), ["-3:1", #"3:{"x":[true,null]}"#, #"6:#"boom""#])
    }

    func testColdInputStartsOnEachSubscriptionAndSubscriptionsAreLogged() throws {
        let result = try play("""
        cold c = -x-|
        one = c.map(x => x + 1)
        two = c.map(x => x + 2)
        unsubscribe two = -!
        """)
        XCTAssertEqual(events(result, "one"), [#"1:"x1""#, "3:|"])
        XCTAssertEqual(events(result, "two"), [], "an unsubscription comes before events of the same frame")
        XCTAssertEqual(result.subscriptions.first { $0.name == "c" }?.subscriptions,
                       [.init(subscribe: 0, unsubscribe: 3_000_000), .init(subscribe: 0, unsubscribe: 1_000_000)])
    }

    func testExpressionsFollowJavaScript() throws {
        let result = try play("""
        cold e = a|
        out = e.map(x => [1 + 2 * 3, "n" + 1, 7 % 4, -x === -x, +"42" + 1, parseInt("12px"), String(3) + 4,
                          1 == "1", 2 > 1 && "yes", 0 || "fallback", !0, x === "a" ? 'A' : 'Z', [1, 2].length, {"k": 5}.k,
                          "ab"[1], 1.5ms, 0.5s, 2m, 10 / 4, (x => x + 1)(1), null, "AbC".toLowerCase()])
        """)
        XCTAssertEqual(events(result, "out"), [
            #"0:[7,"n1",3,false,43,12,"34",false,"yes","fallback",true,"A",2,5,"b",1.5,500,120000,2.5,2,null,"abc"]"#,
            "1:|",
        ])
    }

    func testMapAndFilterPassTheIndexPerSubscription() throws {
        let result = try play("""
        cold e = abc|
        m = e.map((x, i) => x + i)
        f = e.filter((x, i) => i !== 1)
        """)
        XCTAssertEqual(events(result, "m"), [#"0:"a0""#, #"1:"b1""#, #"2:"c2""#, "3:|"])
        XCTAssertEqual(events(result, "f"), [#"0:"a""#, #"2:"c""#, "3:|"])
    }

    func testJSONOutput() throws {
        let result = try play("""
        hot e1 = -a^-b|
        values e1 = {"b": 2}
        out = e1.map(x => x * 10)
        """)
        XCTAssertEqual(result.json(), """
        {
          "streams": {
            "e1": {"events": [{"t": -1, "kind": "next", "value": "a"}, {"t": 2, "kind": "next", "value": 2}, {"t": 3, "kind": "complete"}]},
            "out": {"events": [{"t": 2, "kind": "next", "value": 20}, {"t": 3, "kind": "complete"}]}
          },
          "subscriptions": {
            "e1": [{"subscribe": 0, "unsubscribe": 3}]
          }
        }

        """)
    }

    func testDiagramAlignsFrameZeroAndHasALegend() throws {
        let result = try play("""
        hot e1 = --a--^--b----c--|
        cold e2 = x|
        values e1 = {"a": 1, "b": 2, "c": 3}
        out = e1.map(x => x * 10)
        words = e2.map(x => "hello")
        """)
        XCTAssertEqual(result.diagram(), """
        e1     --a--^--b----c--|
                    ^----------!
        e2          x|
                    ^!
        out         ---d----e--|
        words       f|

        e1: a = 1, b = 2, c = 3
        values: d = 20, e = 30, f = hello

        """)
    }

    /// Issue 27: `play` printed `d-(de)e-f` for an `e` at 4 ms, which the notation reads at
    /// 6 ms (a group's characters take frames too). The diagram is printed at half the frame,
    /// says so, and its derived line parses back to each event's time.
    func testAnEventCloserAfterAGroupThanItsWidthIsPrintedAtItsOwnFrame() throws {
        let result = try play("""
        hot x = d-d-e-f|
        hot y = --e----|
        out = merge(x, y)
        """)
        let diagram = result.diagram()
        XCTAssertTrue(diagram.contains("frame 0.5ms: the spec's 1ms split in 2"), diagram)
        let line = try XCTUnwrap(diagram.split(separator: "\n").first { $0.hasPrefix("out") })
        let read = try MarbleNotation.parse(String(line.dropFirst(3)), frame: 500_000)
        XCTAssertEqual(read.map(\.time), [0, 2, 2, 4, 6, 7].map { $0 * 1_000_000 }, String(line))
        XCTAssertEqual(read.map(\.kind), ["d", "d", "e", "e", "f"].map { .value($0) } + [.complete])
        // The input, printed anew at the finer frame, opens with `(^d)` in the column of out's `d`.
        let input = try XCTUnwrap(diagram.split(separator: "\n").first { $0.hasPrefix("x ") })
        XCTAssertEqual(Array(input).firstIndex(of: "("), Array(line).firstIndex(of: "d"), diagram)
        let inputRead = try MarbleNotation.parse(String(input.dropFirst(1)), frame: 500_000, hot: true)
        XCTAssertEqual(inputRead.map(\.time), [0, 2, 4, 6, 7].map { $0 * 1_000_000 }, String(input))
    }

    func testUnsubscribeLineDisposesTheDerivedStream() throws {
        let result = try play("""
        hot e1 = -a-b-c-d|
        out = e1.map(x => x)
        unsubscribe out = ----!
        """)
        XCTAssertEqual(events(result, "out"), [#"1:"a""#, #"3:"b""#])
        XCTAssertEqual(result.subscriptions.first?.subscriptions, [.init(subscribe: 0, unsubscribe: 4_000_000)])
    }

    func testFrameDirectiveScalesMarblesButDurationsStayMilliseconds() throws {
        let result = try play("""
        frame 10ms
        cold e = -a 5ms b|
        out = e.map(x => x)
        """)
        XCTAssertEqual(events(result, "out"), [#"10:"a""#, #"25:"b""#, "35:|"])
    }

    func testStreamByNameAndCreationFunctions() throws {
        let result = try play("""
        cold a = -x|
        o = of(1, 2, 3)
        e = empty()
        t = throwError({"code": 7})
        s = stream("a")
        """)
        XCTAssertEqual(events(result, "o"), ["0:1", "0:2", "0:3", "0:|"])
        XCTAssertEqual(events(result, "e"), ["0:|"])
        XCTAssertEqual(events(result, "t"), [#"0:#{"code":7}"#])
        XCTAssertEqual(events(result, "s"), [#"1:"x""#, "2:|"])
    }
}

final class SpecHotInputTests: XCTestCase {
    func testAHotInputThatEndedBeforeFrameZeroEndsEachSubscriberAtOnce() throws {
        let result = try play("hot e = -a|-^---\nhot f = #^--\nout = e.map(x => x)\nerr = f.map(x => x)")
        XCTAssertEqual(events(result, "out"), ["0:|"])
        XCTAssertEqual(events(result, "err"), [#"0:#"error""#])
    }

    func testValuesBeforeFrameZeroAreNotDelivered() throws {
        XCTAssertEqual(events(try play("hot e = ab^c|\nout = e.map(x => x)"), "out"), [#"1:"c""#, "2:|"])
    }
}
