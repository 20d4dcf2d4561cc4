import Foundation
@testable import Recording
import Signals
import TraceLog
import XCTest

/// A recorded value's text, made from its type's plan, is `String(describing:)`'s byte for byte,
/// for every kind of type a user sends, with the plan's own check turned off (so a difference
/// shows here rather than being mended by the check).
final class ValueDescriptionTests: XCTestCase {
    struct Reading: Codable { var name: String; var value: Double; var tags: [String] }
    struct Nested { var reading: Reading; var count: Int; var flag: Bool; var ratio: Float }
    struct Generic<T> { var item: T; var items: [T] }
    struct WithOptionals { var some: Reading?; var none: Int?; var text: String? }
    struct WithCollections { var byName: [String: Int]; var set: Set<Int>; var nested: [[Reading]] }
    struct WithEnum { var message: Message; var plain: Plain }
    enum Message { case text(String), reading(Double, unit: String), ping }
    enum Plain { case on, off }
    struct WithTuple { var pair: (Int, String); var labelled: (x: Double, y: Double) }
    struct WithAny { var any: Any; var described: any CustomStringConvertible }
    final class Object { var count = 3 }
    final class DescribedObject: CustomStringConvertible { var description: String { "described object" } }
    struct WithObjects { var object: Object; var described: DescribedObject; var maybe: Object? }
    struct WithWeak { weak var object: Object?; var count: Int }
    struct WithUnowned { unowned var object: Object; var count: Int }
    struct WithClosure { var action: () -> Int; var count: Int }
    struct WithLazy { lazy var computed: Int = 4; var count = 1 }
    struct Empty {}
    struct Described: CustomStringConvertible { var id: Int; var description: String { "#\(id)" } }
    struct DebugDescribed: CustomDebugStringConvertible { var id: Int; var debugDescription: String { "debug #\(id)" } }
    struct BothDescribed: CustomStringConvertible, CustomDebugStringConvertible {
        var description: String { "plain" }
        var debugDescription: String { "debug" }
    }
    struct Streamed: TextOutputStreamable { func write<Target: TextOutputStream>(to target: inout Target) { target.write("streamed") } }
    struct Mirrored: CustomReflectable {
        var hidden = 1
        var customMirror: Mirror { Mirror(self, children: ["shown": 2]) }
    }
    struct HoldsDescribed { var described: Described; var debug: DebugDescribed; var both: BothDescribed; var streamed: Streamed; var mirrored: Mirrored }
    struct Quoting { var text: String; var character: Character; var scalar: Unicode.Scalar; var substring: Substring }
    struct Numbers { var int8: Int8; var uint64: UInt64; var double: Double; var nan: Double; var infinity: Float; var decimal: Decimal }
    struct FoundationValues { var date: Date; var url: URL; var data: Data; var uuid: UUID }
    // Enums of every layout the runtime gives them, which enum plans describe without `Mirror`.
    final class Box { var count = 1 }
    enum Payloads { case none, box(Box), pair(Box, Int), text(String), labelled(x: Int), empty, tuple((Int, Int)) }
    enum SinglePayload { case some(String), zero, one, two }
    enum OnlyPayload { case only(Double) }
    enum OneCase { case alone }
    enum Raw: String { case north = "N", south }
    enum WithExistential { case any(Any), value(Int) }
    indirect enum Tree { case leaf(Int), node(Tree, Tree) }
    enum Partly { case leaf(Int); indirect case node(Partly, Partly) }
    enum Recursive { case children([Recursive]), leaf(String?) }
    struct Outline { var title: String; var children: [Outline] }
    enum Generic2<A, B> { case first(A), second(B, B), neither }
    enum Large { case big(Reading, Reading, Int), small }
    enum Keyword { case `default`, `func`(Int) }
    enum WithDate { case at(Date), url(URL), never }
    enum Closure { case action(() -> Int), none }
    enum Layered { case payloads(Payloads), optional(Message?), array([Plain]) }
    fileprivate struct Private { var id = 7 }
    fileprivate struct HoldsPrivate { var inner = Private() }

    /// Compares the plan's text with the standard library's, at the top and one level down
    /// (where a struct is printed with its module and strings are quoted).
    func check<T>(_ value: T, file: StaticString = #filePath, line: UInt = #line) {
        let expected = String(describing: value)
        let planned = withUnsafePointer(to: value) { ValueDescription.describe($0, verify: false) }
        XCTAssertEqual(planned, expected, "\(T.self)", file: file, line: line)
        XCTAssertEqual(ValueDescription.describe(value as Any), expected, file: file, line: line)
        let inArray = [value]
        let arrayText = withUnsafePointer(to: inArray) { ValueDescription.describe($0, verify: false) }
        XCTAssertEqual(arrayText, String(describing: inArray), file: file, line: line)
        let held = Generic(item: value, items: [value, value])
        let heldText = withUnsafePointer(to: held) { ValueDescription.describe($0, verify: false) }
        XCTAssertEqual(heldText, String(describing: held), file: file, line: line)
    }

    func testScalarsAndStrings() {
        check(42)
        check("a \"quoted\" line\nand a tab\t, and é")
        check(1.5)
        check(true)
        check(Quoting(text: "x\"y", character: "\u{1F600}", scalar: "\u{7}", substring: "sub"[...]))
        check(Numbers(int8: -3, uint64: .max, double: 0.1, nan: .nan, infinity: -.infinity, decimal: Decimal(string: "1.25")!))
    }

    func testStructs() {
        let reading = Reading(name: "sensor-a", value: 21.5, tags: ["indoor", "floor \"1\""])
        check(reading)
        check(Nested(reading: reading, count: -1, flag: false, ratio: 0.25))
        check(Generic(item: reading, items: []))
        check(Generic(item: Generic(item: 1, items: [2]), items: []))
        check(WithOptionals(some: reading, none: nil, text: "t"))
        check(WithCollections(byName: ["one": 1], set: [5], nested: [[reading], []]))
        check(Empty())
        check(HoldsPrivate())
        var lazy = WithLazy()
        check(lazy)
        _ = lazy.computed
        check(lazy)
    }

    func testEnumsTuplesAndExistentials() {
        check(WithEnum(message: .reading(3, unit: "°C"), plain: .off))
        check(Message.text("hi"))
        check(Plain.on)
        check(WithTuple(pair: (1, "one"), labelled: (x: 1, y: 2)))
        check(WithAny(any: Reading(name: "n", value: 1, tags: []), described: 5))
        check((1, "tuple"))
        check(Optional(Reading(name: "o", value: 0, tags: [])))
        check(Int?.none)
    }

    /// Enums are described from their plans (their value witnesses and field records) for
    /// every layout: no payload, a single payload with spare bits or extra tag bits, several
    /// payloads, object payloads, generic, indirect (left to the standard library), recursive
    /// through an array, an existential payload (left to the standard library), large ones,
    /// and nested in one another. The plans' own check of their first values found no
    /// difference either.
    func testEnumsOfEveryLayout() {
        let box = Box()
        let reading = Reading(name: "r", value: 2, tags: ["a"])
        for value in [Payloads.none, .box(box), .pair(box, -3), .text("t\"x"), .labelled(x: 4), .empty, .tuple((5, 6))] {
            check(value)
        }
        for value in [SinglePayload.some("s"), .zero, .one, .two] { check(value) }
        check(OnlyPayload.only(1.25))
        check(OneCase.alone)
        check(Raw.north)
        check(Raw.south)
        for value in [WithExistential.any(1), .any((1, "two")), .any(reading), .value(9)] { check(value) }
        check(Tree.node(.leaf(1), .node(.leaf(2), .leaf(3))))
        check(Partly.node(.leaf(1), .leaf(2)))
        check(Partly.leaf(7))
        check(Recursive.children([.leaf("a"), .children([.leaf(nil)])]))
        check(Outline(title: "top", children: [Outline(title: "inner", children: [])]))
        check(Generic2<Int, String>.first(1))
        check(Generic2<Int, String>.second("b", "c"))
        check(Generic2<Reading, Box>.second(box, box))
        check(Generic2<Reading, Box>.neither)
        check(Result<Int, CancellationError>.success(3))
        check(Large.big(reading, reading, 8))
        check(Large.small)
        check(Keyword.default)
        check(Keyword.func(2))
        check(WithDate.at(Date(timeIntervalSince1970: 5)))
        check(WithDate.url(URL(string: "file:///tmp")!))
        check(WithDate.never)
        check(Closure.action({ 1 }))
        check(Closure.none)
        for value in [Layered.payloads(.pair(box, 1)), .optional(.reading(1, unit: "m")), .optional(nil), .array([.on, .off])] {
            check(value)
        }
        withExtendedLifetime(box) {}
        XCTAssertEqual(EnumPlan.disownedCases, [])
        // Planned: every enum but those with an indirect case, which the standard library describes.
        let planned = EnumPlan.plannedTypes
        for type in [Payloads.self, SinglePayload.self, OnlyPayload.self, Raw.self, WithExistential.self, Recursive.self,
                     Generic2<Reading, Box>.self, Result<Int, CancellationError>.self, Large.self, WithDate.self, Layered.self] as [Any.Type] {
            XCTAssertTrue(planned.contains(_typeName(type, qualified: true)), "\(type) is planned")
        }
        XCTAssertFalse(planned.contains(_typeName(Tree.self, qualified: true)))
        XCTAssertFalse(planned.contains(_typeName(Partly.self, qualified: true)))
    }

    /// An enum value whose payload the plan lays bare is whole again afterwards: its objects are
    /// neither released nor leaked.
    func testDescribingAnEnumLeavesItsPayloadAsItWas() {
        weak var released: Box?
        do {
            let box = Box()
            released = box
            let value = Payloads.pair(box, 1)
            for _ in 0..<10 { check(value) }
            if case let .pair(held, count) = value {
                XCTAssertTrue(held === box)
                XCTAssertEqual(count, 1)
            }
        }
        XCTAssertNil(released, "the box is freed once its last value is gone")
    }

    func testObjectsWeakReferencesAndClosures() {
        let object = Object()
        check(WithObjects(object: object, described: DescribedObject(), maybe: nil))
        check(WithWeak(object: object, count: 1))
        check(WithWeak(object: nil, count: 2))
        check(WithUnowned(object: object, count: 3))
        check(WithClosure(action: { 1 }, count: 4))
        check(object)
        withExtendedLifetime(object) {}
    }

    func testTypesThatDescribeThemselves() {
        check(Described(id: 1))
        check(DebugDescribed(id: 2))
        check(BothDescribed())
        check(Streamed())
        check(Mirrored())
        check(HoldsDescribed(described: Described(id: 1), debug: DebugDescribed(id: 2), both: BothDescribed(),
                             streamed: Streamed(), mirrored: Mirrored()))
    }

    func testFoundationValues() {
        check(FoundationValues(date: Date(timeIntervalSince1970: 1_000_000), url: URL(string: "https://example.com/a?b=c")!,
                               data: Data([1, 2, 3]), uuid: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
    }

    /// Many values of one type after its plan is made (the plan is kept per type).
    func testEveryValueOfATypeAfterTheFirst() {
        for index in 0..<50 {
            let reading = Reading(name: "sensor-\(index)", value: Double(index) / 3, tags: Array(repeating: "t", count: index % 4))
            check(reading)
        }
    }
}

/// A huge value is measured, not copied: its JSON past the recorder's limit is omitted with its
/// exact size, and its text is the beginning of the standard library's, however large the value.
final class HugeValueTests: XCTestCase {
    struct Page: Codable {
        var title: String
        var lines: [String]
        var notes: [String: String]
    }

    private func page(lineCount: Int, lineLength: Int) -> Page {
        // Quotes, backslashes and control characters, which escaping widens.
        let line = String(repeating: "a\"b\\c\u{1}d\n", count: lineLength / 8)
        return Page(title: "big", lines: Array(repeating: line, count: lineCount), notes: ["k": line])
    }

    func testAJSONPastTheLimitIsMeasuredExactly() throws {
        for (lines, length, limit) in [(1, 200_000, 65_536), (40, 4_000, 65_536), (3, 100, 1_000), (3, 100, 10_000)] {
            let value = page(lineCount: lines, lineLength: length)
            let whole = try XCTUnwrap(try DirectJSONEncoder.encode(value))
            switch try XCTUnwrap(try DirectJSONEncoder.encode(value, limit: limit)) {
            case let .json(json):
                XCTAssertLessThanOrEqual(whole.count, limit)
                XCTAssertEqual(Array(json.utf8), whole)
            case let .omitted(size):
                XCTAssertGreaterThan(whole.count, limit)
                XCTAssertEqual(size, whole.count, "\(lines) lines of \(length)")
            }
        }
    }

    func testATextPastTheCutoffBeginsAsTheStandardLibrarysAndIsKeptAsLongAsTheTraceKeepsIt() {
        let value = page(lineCount: 50, lineLength: 100_000)
        let text = ValueDescription.describe(value)
        let expected = String(describing: value)
        XCTAssertLessThan(text.utf8.count, 3 * ValueDescription.cutoff, "described in proportion to the cutoff")
        XCTAssertTrue(expected.hasPrefix(text))
        XCTAssertEqual(String(text.prefix(Recorder.maxTextLength + 1)), String(expected.prefix(Recorder.maxTextLength + 1)))
        // Characters made of many scalars: the cut text is too short to tell, and the whole
        // text is made instead.
        let marks = String(repeating: "e" + String(repeating: "\u{301}", count: 3000), count: 3)
        let combining = Page(title: marks, lines: [], notes: [:])
        XCTAssertEqual(ValueDescription.describe(combining), String(describing: combining))
    }

    /// Through a virtual recording: the trace keeps the truncated text and the JSON's size.
    func testAHugeValueIsRecordedTruncatedWithItsJSONSize() throws {
        let value = page(lineCount: 20, lineLength: 50_000)
        let scheduler = TestScheduler()
        let recorder = Recorder(clock: .virtual(scheduler))
        recorder.start()
        let (signal, input) = Signal<Page, Never>.pipe(named: "pages")
        signal.observeValues { _ in }
        input.send(value: value)
        _ = try recorder.stop()
        let trace = try Trace(bytes: recorder.bytes)
        let values = trace.events.filter { $0.kind == .value }
        XCTAssertEqual(values.count, 1)
        let event = try XCTUnwrap(values.first)
        XCTAssertEqual(event.text, String(String(describing: value).prefix(Recorder.maxTextLength)) + "…")
        XCTAssertNil(event.json)
        let whole = try XCTUnwrap(try DirectJSONEncoder.encode(value))
        XCTAssertEqual(Int(event.omittedJSONBytes), whole.count)
    }
}
