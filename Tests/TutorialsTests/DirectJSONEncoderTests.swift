import Foundation
@testable import Recording
import Synchronization
import Tutorials
import XCTest

/// The recorder's own JSON encoder against `JSONEncoder` with the options the recorder used:
/// every value either gives the same bytes, or both throw, or the direct encoder says to
/// fall back (only where it is documented to).
final class DirectJSONEncoderTests: XCTestCase {
    private static let foundation: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private enum Outcome: Equatable {
        case bytes(String)
        case threw
        case fellBack
    }

    private func direct<T: Encodable>(_ value: T) -> Outcome {
        do {
            guard let bytes = try DirectJSONEncoder.encode(value) else { return .fellBack }
            return .bytes(String(decoding: bytes, as: UTF8.self))
        } catch {
            return .threw
        }
    }

    private func foundation<T: Encodable>(_ value: T) -> Outcome {
        guard let data = try? Self.foundation.encode(value) else { return .threw }
        return .bytes(String(decoding: data, as: UTF8.self))
    }

    /// Asserts the two encoders agree on `value` without falling back.
    private func assertSame<T: Encodable>(_ value: T, _ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(direct(value), foundation(value), message(), file: file, line: line)
    }

    // MARK: Tutorial values

    private func decoded<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(json.utf8))
    }

    func testTutorialValuesGiveTheSameBytes() throws {
        assertSame(try decoded(TweetSearch.self, #"{"query":"swift","tweets":[{"user":"a/b","text":"héllo \"x\"\n","avatarURL":"https://x.example/a.png"},{"user":"B","text":"","avatarURL":""}]}"#))
        assertSame(try decoded(TweetSearch.self, #"{"query":"","tweets":[]}"#))
        assertSame(try decoded(Avatar.self, #"{"url":"https://pbs.example/1.png","bytes":40960}"#))
        assertSame([try decoded(Avatar.self, #"{"url":"u","bytes":-1}"#)])
        assertSame(try decoded(TwitterError.self, #"{"invalidResponse":{"status":503}}"#))
        assertSame(try decoded(TwitterError.self, #"{"accessDenied":{}}"#))
        assertSame(try decoded(PixelsError.self, #"{"requestFailed":{"status":500}}"#))
        assertSame(try decoded(SearchResults.self, #"{"query":"sw","names":["somebody 1","somebody 2"]}"#))
        assertSame(try decoded(SignInError.self, #"{"accessDenied":{}}"#))
        assertSame(FieldColour.white)
        assertSame(Optional(try decoded(Avatar.self, #"{"url":"u","bytes":1}"#)))
    }

    // MARK: Edge cases

    private static let edgeStrings: [String] = {
        var strings = ["", "a", "/", "\\", "\"", "a/b\\c\"d", "\u{7F}", "\u{80}", "\u{85}", "\u{A0}", "\u{2028}\u{2029}",
                       "é", "e\u{301}", "😀", "👩‍👩‍👧", "\u{FEFF}", "\u{FFFF}", "\u{10FFFF}", "漢字", "tab\there", "</script>",
                       String(repeating: "long ", count: 200)]
        strings += (0..<0x20).map { String(UnicodeScalar(UInt8($0))) + "x" }
        return strings
    }()

    private static let edgeDoubles: [Double] = [
        0, -0.0, 1, -1, 0.1, 0.5, 1.5, 100, 1e15, 1e16, 1e17, 1e20, 1e21, 1e22, 1e-4, 1e-5, 1e-6, 1e-7, 1e300,
        123456789.123, 9007199254740991, .pi, -.pi, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        .leastNonzeroMagnitude, .leastNormalMagnitude, Double(Int64.max), Double(UInt64.max),
    ]

    func testStringsAndKeysGiveTheSameBytes() {
        for string in Self.edgeStrings {
            assertSame(string, string.debugDescription)
            assertSame([string], string.debugDescription)
            assertSame(["k": string, string: "v"], string.debugDescription)
        }
    }

    func testNumbersGiveTheSameBytes() {
        for double in Self.edgeDoubles {
            assertSame(double, "\(double)")
            assertSame([double, -double], "\(double)")
            assertSame(Float(double), "\(Float(double))")
            assertSame(["x": Float(double)], "\(Float(double))")
        }
        var generator = SeededGenerator(seed: 13)
        for _ in 0..<2_000 {
            let double = Double(bitPattern: generator.next())
            let float = Float(bitPattern: UInt32(truncatingIfNeeded: generator.next()))
            assertSame(double, "\(double.bitPattern)")
            assertSame(["f": float], "\(float.bitPattern)")
        }
        assertSame([Int8.min, Int8.max], "Int8")
        assertSame([Int16.min, Int16.max], "Int16")
        assertSame([Int32.min, Int32.max], "Int32")
        assertSame([Int64.min, Int64.max, 0], "Int64")
        assertSame([Int.min, Int.max, -1], "Int")
        assertSame([UInt8.max], "UInt8")
        assertSame([UInt16.max], "UInt16")
        assertSame([UInt32.max], "UInt32")
        assertSame([UInt64.max, 0], "UInt64")
        assertSame([UInt.max], "UInt")
        assertSame(true)
        assertSame([false, true])
    }

    func testNonFiniteNumbersThrowAsJSONEncoderDoes() {
        for double in [Double.nan, .infinity, -.infinity, .signalingNaN] {
            XCTAssertEqual(direct(double), .threw)
            XCTAssertEqual(direct(["a": double]), .threw)
            XCTAssertEqual(direct([Float(double)]), .threw)
            XCTAssertEqual(foundation(double), .threw)
            XCTAssertEqual(foundation([Float(double)]), .threw)
        }
    }

    func testFoundationTypesGiveTheSameBytes() throws {
        assertSame(Date(timeIntervalSinceReferenceDate: 1.5))
        assertSame([Date(timeIntervalSince1970: 0), Date(timeIntervalSinceReferenceDate: -12345.678)])
        assertSame(Data())
        assertSame(Data([0, 1, 2, 255, 254, 62, 63]))
        assertSame(["d": Data("hello world?>".utf8)])
        assertSame(try XCTUnwrap(URL(string: "https://example.com/a b?q=1#f")))
        assertSame([try XCTUnwrap(URL(string: "rel/x", relativeTo: URL(string: "http://h/base/")))])
        assertSame(["u": URL(fileURLWithPath: "/tmp/some file")])
        assertSame([1: "a", 10: "b", 2: "c", -3: "d"])
        assertSame(["b": 1, "B": 2, "a10": 3, "a9": 4, "é": 5, "z": 6, "_": 7, "": 8])
        assertSame([UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!])
        assertSame(Optional<Int>.none)
        assertSame([Optional<Int>.none, 1])
        assertSame(["a": Optional<String>.none])
        // Decimal is handed to JSONEncoder.
        XCTAssertEqual(direct(Decimal(string: "1.50")!), .fellBack)
        XCTAssertEqual(direct(["x": Decimal(1)]), .fellBack)
    }

    // MARK: Synthesized conformances

    private struct Inner: Codable {
        var zeta: Int
        var alpha: String?
        var Beta: [Double]
        var a10: Bool
        var a9: Int8
    }

    private enum Choice: Codable {
        case plain
        case one(Int)
        case labelled(x: UInt16, y: String)
        case nested(Inner?, [String: Int])
    }

    private struct Outer: Codable {
        var name: String
        var inner: Inner
        var choices: [Choice]
        var map: [String: Inner]
        var matrix: [[Int32]]
        var optionalInner: Inner?
        var date: Date
        var link: URL
        var blob: Data
    }

    private final class Base: Encodable {
        var base = 1
    }

    private final class Derived: Encodable {
        let parent = Base()
        var own = "x"
        enum CodingKeys: String, CodingKey { case own, other }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try parent.encode(to: container.superEncoder())
            try container.encode(own, forKey: .own)
            try parent.encode(to: container.superEncoder(forKey: .other))
        }
    }

    private final class DerivedInArray: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(1)
            try Base().encode(to: container.superEncoder())
            var nested = container.nestedContainer(keyedBy: Derived.CodingKeys.self)
            try nested.encode(2, forKey: .own)
            try nested.encodeNil(forKey: .other)
            var deeper = container.nestedUnkeyedContainer()
            try deeper.encode("x")
            try deeper.encodeNil()
        }
    }

    private func inner(_ generator: inout SeededGenerator) -> Inner {
        Inner(zeta: Int(truncatingIfNeeded: generator.next()),
              alpha: generator.next() % 2 == 0 ? nil : Self.edgeStrings[Int(generator.next() % UInt64(Self.edgeStrings.count))],
              Beta: (0..<Int(generator.next() % 4)).map { _ in Self.edgeDoubles[Int(generator.next() % UInt64(Self.edgeDoubles.count))] },
              a10: generator.next() % 2 == 0, a9: Int8(truncatingIfNeeded: generator.next()))
    }

    private func choice(_ generator: inout SeededGenerator) -> Choice {
        switch generator.next() % 4 {
        case 0: return .plain
        case 1: return .one(Int(truncatingIfNeeded: generator.next()))
        case 2: return .labelled(x: UInt16(truncatingIfNeeded: generator.next()), y: Self.edgeStrings[Int(generator.next() % UInt64(Self.edgeStrings.count))])
        default: return .nested(generator.next() % 2 == 0 ? nil : inner(&generator), ["k\(generator.next() % 100)": 1, "K": 2])
        }
    }

    func testGeneratedSynthesizedValuesGiveTheSameBytes() {
        var generator = SeededGenerator(seed: 2026)
        for round in 0..<300 {
            let outer = Outer(
                name: Self.edgeStrings[round % Self.edgeStrings.count],
                inner: inner(&generator),
                choices: (0..<Int(generator.next() % 5)).map { _ in choice(&generator) },
                map: Dictionary(uniqueKeysWithValues: (0..<Int(generator.next() % 4)).map { index in
                    (Self.edgeStrings[Int(generator.next() % UInt64(Self.edgeStrings.count))] + "\(index)", inner(&generator))
                }),
                matrix: (0..<Int(generator.next() % 3)).map { _ in (0..<Int(generator.next() % 3)).map { _ in Int32(truncatingIfNeeded: generator.next()) } },
                optionalInner: generator.next() % 2 == 0 ? nil : inner(&generator),
                date: Date(timeIntervalSinceReferenceDate: Double(Int32(truncatingIfNeeded: generator.next())) / 7),
                link: URL(string: "https://example.com/\(generator.next() % 1000)?a=b")!,
                blob: Data((0..<Int(generator.next() % 9)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }))
            assertSame(outer, "round \(round)")
            assertSame([outer, outer], "round \(round)")
        }
        assertSame(Derived())
        assertSame([DerivedInArray(), DerivedInArray()])
    }

    // MARK: Hand-written conformances with generated shapes

    /// A value whose shape is drawn by a seeded generator: objects with keys from a pool that
    /// mixes case, digits, punctuation and non-ASCII text, arrays, and every scalar kind.
    private indirect enum Shape: Encodable {
        case object([(String, Shape)])
        case array([Shape])
        case nestedObject([(String, [(String, Shape)])])
        case scalar(Scalar)
        case optional(Shape?)

        enum Scalar {
            case null, bool(Bool), string(String), double(Double), float(Float)
            case int(Int), int8(Int8), int16(Int16), int32(Int32), int64(Int64)
            case uint(UInt), uint8(UInt8), uint16(UInt16), uint32(UInt32), uint64(UInt64)
        }

        struct Key: CodingKey {
            let stringValue: String
            init(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: any Encoder) throws {
            switch self {
            case let .object(members):
                var container = encoder.container(keyedBy: Key.self)
                for (key, value) in members { try container.encode(value, forKey: Key(stringValue: key)) }
            case let .array(elements):
                var container = encoder.unkeyedContainer()
                for element in elements { try container.encode(element) }
            case let .nestedObject(groups):
                var container = encoder.container(keyedBy: Key.self)
                for (key, members) in groups {
                    var nested = container.nestedContainer(keyedBy: Key.self, forKey: Key(stringValue: key))
                    for (innerKey, value) in members { try nested.encode(value, forKey: Key(stringValue: innerKey)) }
                }
            case let .optional(value):
                var container = encoder.singleValueContainer()
                try container.encode(value)
            case let .scalar(scalar):
                var container = encoder.singleValueContainer()
                switch scalar {
                case .null: try container.encodeNil()
                case let .bool(value): try container.encode(value)
                case let .string(value): try container.encode(value)
                case let .double(value): try container.encode(value)
                case let .float(value): try container.encode(value)
                case let .int(value): try container.encode(value)
                case let .int8(value): try container.encode(value)
                case let .int16(value): try container.encode(value)
                case let .int32(value): try container.encode(value)
                case let .int64(value): try container.encode(value)
                case let .uint(value): try container.encode(value)
                case let .uint8(value): try container.encode(value)
                case let .uint16(value): try container.encode(value)
                case let .uint32(value): try container.encode(value)
                case let .uint64(value): try container.encode(value)
                }
            }
        }
    }

    private static let keyPool = ["a", "A", "b", "B", "aa", "aA", "Aa", "ab", "a1", "a10", "a2", "a9", "1", "01", "10", "9",
                                  "_", "-", "~", "", " ", "é", "ä", "ß", "ﬁ", "ａ", "😀", "z", "Z", "key", "Key", "kéy",
                                  "x/y", "q\"", "\\", "\u{1}", "\u{7F}", "漢"]

    private func shape(_ generator: inout SeededGenerator, depth: Int) -> Shape {
        func keys(_ generator: inout SeededGenerator) -> [String] {
            var keys: [String] = []
            for _ in 0..<Int(generator.next() % 6) {
                let key = Self.keyPool[Int(generator.next() % UInt64(Self.keyPool.count))]
                if !keys.contains(key) { keys.append(key) }
            }
            return keys
        }
        let choice = depth >= 4 ? 3 : generator.next() % 5
        switch choice {
        case 0: return .object(keys(&generator).map { ($0, shape(&generator, depth: depth + 1)) })
        case 1: return .array((0..<Int(generator.next() % 5)).map { _ in shape(&generator, depth: depth + 1) })
        case 2: return .nestedObject(keys(&generator).map { key in (key, keys(&generator).map { ($0, shape(&generator, depth: depth + 2)) }) })
        case 4: return .optional(generator.next() % 2 == 0 ? nil : shape(&generator, depth: depth + 1))
        default:
            let bits = generator.next()
            switch generator.next() % 15 {
            case 0: return .scalar(.null)
            case 1: return .scalar(.bool(bits % 2 == 0))
            case 2: return .scalar(.string(Self.edgeStrings[Int(bits % UInt64(Self.edgeStrings.count))]))
            case 3:
                let double = Double(bitPattern: bits)
                return .scalar(.double(double.isFinite ? double : Self.edgeDoubles[Int(bits % UInt64(Self.edgeDoubles.count))]))
            case 4:
                let float = Float(bitPattern: UInt32(truncatingIfNeeded: bits))
                return .scalar(.float(float.isFinite ? float : 0.25))
            case 5: return .scalar(.int(Int(truncatingIfNeeded: bits)))
            case 6: return .scalar(.int8(Int8(truncatingIfNeeded: bits)))
            case 7: return .scalar(.int16(Int16(truncatingIfNeeded: bits)))
            case 8: return .scalar(.int32(Int32(truncatingIfNeeded: bits)))
            case 9: return .scalar(.int64(Int64(truncatingIfNeeded: bits)))
            case 10: return .scalar(.uint(UInt(truncatingIfNeeded: bits)))
            case 11: return .scalar(.uint8(UInt8(truncatingIfNeeded: bits)))
            case 12: return .scalar(.uint16(UInt16(truncatingIfNeeded: bits)))
            case 13: return .scalar(.uint32(UInt32(truncatingIfNeeded: bits)))
            default: return .scalar(.uint64(bits))
            }
        }
    }

    func testGeneratedShapesGiveTheSameBytes() {
        var generator = SeededGenerator(seed: 7)
        for round in 0..<3_000 {
            let value = shape(&generator, depth: 0)
            assertSame(value, "round \(round)")
        }
    }

    // MARK: Falling back

    private struct Twice: Encodable {
        enum CodingKeys: String, CodingKey { case a }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(1, forKey: .a)
            try container.encode(2, forKey: .a)
        }
    }

    private struct Interleaved: Encodable {
        enum CodingKeys: String, CodingKey { case a, b }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var first = container.nestedUnkeyedContainer(forKey: .a)
            var second = container.nestedUnkeyedContainer(forKey: .b)
            try second.encode(2)
            try first.encode(1)
        }
    }

    private struct Nothing: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    func testValuesOutsideItsDisciplineFallBack() {
        XCTAssertEqual(direct(Twice()), .fellBack)
        XCTAssertEqual(direct(Interleaved()), .fellBack)
        XCTAssertEqual(direct([Nothing()]), .fellBack)
        XCTAssertEqual(direct(Nothing()), .fellBack)
        XCTAssertEqual(direct(Shape.object([("é", .scalar(.int(1))), ("e\u{301}", .scalar(.int(2)))])), .fellBack)
        // Keys sort by their UTF-8 bytes as written: a decomposed é before "k", a precomposed
        // one after; a full-width letter before an emoji; upper case before lower case.
        assertSame(["é": 1, "e\u{301}x": 2, "k": 3, "ａ": 4, "😀": 5, "\u{FFFF}": 6, "K": 7, "a10": 8, "a9": 9])
        XCTAssertEqual(foundation(["é": 1, "e\u{301}x": 2, "k": 3]), .bytes(#"{"e\#u{301}x":2,"k":3,"é":1}"#))
    }

    // MARK: The kept writer

    private struct ThrowsHalfway: Encodable {
        struct Refused: Error {}
        enum CodingKeys: String, CodingKey { case b, a, list }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode("first", forKey: .b)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            try list.encode(1)
            throw Refused()
        }
    }

    /// Encodes another value with the direct encoder in the middle of its own encoding: the
    /// inner encoding cannot have the writer the outer one holds.
    private struct EncodesInside: Encodable {
        enum CodingKeys: String, CodingKey { case zeta, alpha }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(1, forKey: .zeta)
            let inner = try DirectJSONEncoder.encode(["y": 2, "x": 1]).map { String(decoding: $0, as: UTF8.self) }
            try container.encode(inner, forKey: .alpha)
        }
    }

    /// One writer is kept from one encoding to the next: whatever the last encoding left in it
    /// (a throw halfway through an object, a fall back, a value measured past the limit, keys
    /// out of order) the next encoding starts empty and gives `JSONEncoder`'s bytes; an
    /// encoding inside another gets a writer of its own.
    func testAnEncodingAfterAnyOtherGivesTheSameBytes() throws {
        var generator = SeededGenerator(seed: 29)
        let leftovers: [() -> Void] = [
            { XCTAssertEqual(self.direct(ThrowsHalfway()), .threw) },
            { XCTAssertEqual(self.direct(Interleaved()), .fellBack) },
            { XCTAssertEqual(self.direct(Twice()), .fellBack) },
            { XCTAssertEqual(self.direct(["k": Double.nan]), .threw) },
            {
                guard case let .omitted(size)? = try? DirectJSONEncoder.encode(["b": String(repeating: "\"", count: 300), "a": "x"],
                                                                               limit: 100) else { return XCTFail("not omitted") }
                XCTAssertEqual(size, try? Self.foundation.encode(["b": String(repeating: "\"", count: 300), "a": "x"]).count)
            },
            { self.assertSame(Derived()) },
        ]
        for round in 0..<600 {
            leftovers[round % leftovers.count]()
            assertSame(shape(&generator, depth: 0), "round \(round)")
        }
        for _ in 0..<3 {
            XCTAssertEqual(direct(EncodesInside()), .bytes(#"{"alpha":"{\"x\":1,\"y\":2}","zeta":1}"#))
            assertSame(EncodesInside())
        }
    }

    /// Keys that pass the limit are measured, not written: ordering them falls back to
    /// comparing their strings, and the size is still exact.
    func testKeysPastTheLimitAreOrderedByTheirStrings() throws {
        let keys = [String(repeating: "b", count: 200), String(repeating: "a", count: 200) + "\"", "c", "a\u{1}"]
        let value = Dictionary(uniqueKeysWithValues: keys.map { ($0, 1) })
        let whole = try XCTUnwrap(try Self.foundation.encode(value))
        for limit in [10, 150, 250, 400] {
            guard case let .omitted(size)? = try DirectJSONEncoder.encode(value, limit: limit) else {
                XCTFail("limit \(limit): not omitted")
                continue
            }
            XCTAssertEqual(size, whole.count, "limit \(limit)")
        }
        assertSame(value)
    }

    /// Threads encoding at once each get a whole writer: every value gives `JSONEncoder`'s
    /// bytes.
    func testEncodingsOnSeveralThreadsAtOnceGiveTheSameBytes() {
        let values: [Shape] = {
            var generator = SeededGenerator(seed: 31)
            return (0..<200).map { _ in shape(&generator, depth: 0) }
        }()
        let expected = values.map(foundation)
        let mismatches = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for round in 0..<500 {
                let index = (round * 7 + thread * 13) % values.count
                let bytes = try? DirectJSONEncoder.encode(values[index])
                if bytes.flatMap({ $0 }).map({ Outcome.bytes(String(decoding: $0, as: UTF8.self)) }) != expected[index] {
                    mismatches.withLock { $0 += 1 }
                }
            }
        }
        XCTAssertEqual(mismatches.withLock { $0 }, 0)
    }
}
