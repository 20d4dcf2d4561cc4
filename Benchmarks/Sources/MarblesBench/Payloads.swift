import ArgumentParser

/// A value type sent through the core chain, as a user's package would send it: the chain
/// (map → filter → map → scan → sink) needs the `index`-th value, a cheap integer key (the
/// filter tests its parity, the sink receives the scanned value's), two transforms that each
/// return a new value of the same type, and the scan's initial value and combination.
///
/// Every function here is the payload's own work: the hand loop does the same, so the
/// difference between a contender and the hand loop of the same payload is the framework's.
protocol Payload {
    /// The payload's name in the table's rows.
    static var label: String { get }
    /// The payload's name on the command line (`--payload`).
    static var choice: PayloadChoice { get }
    /// The `index`-th value sent.
    static func make(_ index: Int) -> Self
    /// A cheap integer derived from the value.
    var key: Int { get }
    /// A new value one step on (the chain's first map).
    func incremented() -> Self
    /// A new value three times this one (the chain's second map).
    func tripled() -> Self
    /// The scan's initial value.
    static var initial: Self { get }
    /// The scan's running combination: a new value.
    static func combine(_ accumulated: Self, _ next: Self) -> Self
}

/// The payloads by their command-line names.
enum PayloadChoice: String, CaseIterable, ExpressibleByArgument {
    case int, string, `struct`, `enum`, optional
}

/// Short names, under 16 bytes (Swift keeps those inline, as most short user strings are),
/// not all identical: "sensor-a" … "sensor-p". A string's key is its letter's place.
let sensorNames: [String] = [
    "sensor-a", "sensor-b", "sensor-c", "sensor-d", "sensor-e", "sensor-f", "sensor-g", "sensor-h",
    "sensor-i", "sensor-j", "sensor-k", "sensor-l", "sensor-m", "sensor-n", "sensor-o", "sensor-p",
]

/// Tags a reading carries: arrays shared by the values that hold them (a copy retains one).
let sensorTags: [[String]] = [["indoor"], ["outdoor"], ["indoor", "floor-1"], ["outdoor", "roof"]]

/// Units of a `Message.reading`.
let sensorUnits: [String] = ["°C", "hPa", "%", "lx"]

extension Int: Payload {
    static var label: String { "Int" }
    static var choice: PayloadChoice { .int }
    static func make(_ index: Int) -> Int { index }
    var key: Int { self }
    func incremented() -> Int { self &+ 1 }
    func tripled() -> Int { self &* 3 }
    static var initial: Int { 0 }
    static func combine(_ accumulated: Int, _ next: Int) -> Int { accumulated &+ next }
}

extension String: Payload {
    static var label: String { "String" }
    static var choice: PayloadChoice { .string }
    static func make(_ index: Int) -> String { sensorNames[index & 15] }
    /// The place of the name's last letter ("sensor-a" is 0), read from the string's bytes in
    /// place (a few nanoseconds, where `utf8.last` walks the view's indices for about ten).
    var key: Int {
        let last = utf8.withContiguousStorageIfAvailable { $0.last ?? UInt8(ascii: "a") } ?? UInt8(ascii: "a")
        return Int(last) &- Int(UInt8(ascii: "a"))
    }
    func incremented() -> String { sensorNames[(key &+ 1) & 15] }
    func tripled() -> String { sensorNames[(key &* 3) & 15] }
    static var initial: String { sensorNames[0] }
    static func combine(_ accumulated: String, _ next: String) -> String {
        sensorNames[(accumulated.key &+ next.key) & 15]
    }
}

/// A user's struct: Codable, no custom description.
struct Reading: Codable, Payload {
    var name: String
    var value: Double
    var tags: [String]

    static var label: String { "Reading (struct)" }
    static var choice: PayloadChoice { .struct }
    static func make(_ index: Int) -> Reading {
        Reading(name: sensorNames[index & 15], value: Double(index), tags: sensorTags[index & 3])
    }
    var key: Int { Int(value) }
    func incremented() -> Reading { Reading(name: name, value: value + 1, tags: tags) }
    func tripled() -> Reading { Reading(name: name, value: value * 3, tags: tags) }
    static var initial: Reading { Reading(name: "total", value: 0, tags: []) }
    static func combine(_ accumulated: Reading, _ next: Reading) -> Reading {
        Reading(name: next.name, value: accumulated.value + next.value, tags: next.tags)
    }
}

/// A user's enum with associated values: Codable, no custom description.
enum Message: Codable, Payload {
    case text(String)
    case reading(Double, unit: String)
    case ping

    static var label: String { "Message (enum)" }
    static var choice: PayloadChoice { .enum }
    /// Of every 8 values, 4 readings, 2 texts and 2 pings.
    static func make(_ index: Int) -> Message {
        switch index & 7 {
        case 0...3: return .reading(Double(index), unit: sensorUnits[index & 3])
        case 4, 5: return .text(sensorNames[index & 15])
        default: return .ping
        }
    }
    var key: Int {
        switch self {
        case let .text(text): return text.key
        case let .reading(value, _): return Int(value)
        case .ping: return 0
        }
    }
    func incremented() -> Message {
        switch self {
        case let .text(text): return .text(text.incremented())
        case let .reading(value, unit): return .reading(value + 1, unit: unit)
        case .ping: return .ping
        }
    }
    func tripled() -> Message {
        switch self {
        case let .text(text): return .text(text.tripled())
        case let .reading(value, unit): return .reading(value * 3, unit: unit)
        case .ping: return .ping
        }
    }
    static var initial: Message { .reading(0, unit: "sum") }
    static func combine(_ accumulated: Message, _ next: Message) -> Message {
        .reading(Double(accumulated.key &+ next.key), unit: "sum")
    }
}

/// An optional integer: every eighth value is nil (key 0).
extension Optional: Payload where Wrapped == Int {
    static var label: String { "Int?" }
    static var choice: PayloadChoice { .optional }
    static func make(_ index: Int) -> Int? { index & 7 == 7 ? nil : index }
    var key: Int { self ?? 0 }
    func incremented() -> Int? { map { $0 &+ 1 } }
    func tripled() -> Int? { map { $0 &* 3 } }
    static var initial: Int? { 0 }
    static func combine(_ accumulated: Int?, _ next: Int?) -> Int? { (accumulated ?? 0) &+ (next ?? 0) }
}
