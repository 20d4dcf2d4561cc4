import Locks
import Foundation
import Signals

/// State shared between the pipeline (which writes it on the main scheduler) and whoever
/// reads it afterwards (a test, the runner): a value behind a lock.
public final class Guarded<Value>: @unchecked Sendable {  // storage only under `lock`
    private let lock = Lock()
    private var storage: Value

    /// A guarded `value`.
    public init(_ value: Value) { storage = value }

    /// The current value.
    public var value: Value {
        get { lock.withLock { storage } }
        set { lock.withLock { storage = newValue } }
    }

    /// Changes the value in place under the lock; returns what `body` returns.
    @discardableResult
    public func modify<R>(_ body: (inout Value) -> R) -> R {
        lock.withLock { body(&storage) }
    }
}

/// A simulated remote service. The latency and outcome of each call are drawn from a seeded
/// generator when the call starts, so a live run with the same seed makes the same decisions
/// in the same order; a replay never asks (it re-delivers what was recorded).
public final class FakeService: @unchecked Sendable {  // immutable; the generator is Guarded
    /// The label of the node a fake response is an instance of: it runs inside a call's
    /// `perform`, so it is in live traces only.
    public static let nodeLabel = "fake service"

    private let generator: Guarded<SeededGenerator>

    /// A service whose draws start from `seed`.
    public init(seed: UInt64) {
        generator = Guarded(SeededGenerator(seed: seed))
    }

    /// A latency in seconds, uniform in `range`, rounded to the millisecond.
    public func latency(_ range: ClosedRange<TimeInterval>) -> TimeInterval {
        let fraction = generator.modify { Double($0.next() >> 11) / Double(1 << 53) }
        return ((range.lowerBound + fraction * (range.upperBound - range.lowerBound)) * 1000).rounded() / 1000
    }

    /// True with probability `probability`.
    public func chance(_ probability: Double) -> Bool {
        generator.modify { Double($0.next() >> 11) / Double(1 << 53) } < probability
    }

    /// A producer that answers with `result` `latency` seconds after it starts, on
    /// `scheduler` (the network thread): a value then completion, or a failure.
    public func respond<Value, Failure: Swift.Error>(
        _ result: Result<Value, Failure>, after latency: TimeInterval, on scheduler: DateScheduler
    ) -> SignalProducer<Value, Failure> {
        SignalProducer<Value, Failure> { observer, lifetime in
            lifetime += scheduler.schedule(after: latency) {
                switch result {
                case let .success(value):
                    observer.send(value: value)
                    observer.sendCompleted()
                case let .failure(error):
                    observer.send(error: error)
                }
            }
        }
        .named(Self.nodeLabel)
    }
}

/// A text field's background colour in the tutorials: clear (or white) when the text is
/// valid, yellow when it is not.
public enum FieldColour: String, Codable, Sendable, CustomStringConvertible {
    case clear, white, yellow

    public var description: String { rawValue }
}

extension ScriptStep {
    /// The user types into a text field: the field's whole text becomes `text`
    /// (`rac_textSignal` sends the full text on every change).
    public static func type(_ text: String, into field: String, at time: TimeInterval) -> ScriptStep {
        ScriptStep(at: time, "\(field) = \"\(text)\"") { try $0.send(text, to: field) }
    }

    /// The user taps a button (or a cell); `index` numbers the taps or names the cell.
    public static func tap(_ button: String, _ index: Int, at time: TimeInterval) -> ScriptStep {
        ScriptStep(at: time, "tap \(button) #\(index)") { try $0.send(index, to: button) }
    }
}

extension SeededGenerator {
    /// A duration in seconds, uniform in `range`, rounded to the millisecond.
    mutating func seconds(_ range: ClosedRange<TimeInterval>) -> TimeInterval {
        let fraction = Double(next() >> 11) / Double(1 << 53)
        return ((range.lowerBound + fraction * (range.upperBound - range.lowerBound)) * 1000).rounded() / 1000
    }
}

/// Builds a script of typing: each text in `texts` after a gap drawn from `gaps`, starting at
/// `start`; returns the steps and the time of the last one.
func typing(_ texts: [String], into field: String, from start: TimeInterval, gaps: ClosedRange<TimeInterval>,
            _ generator: inout SeededGenerator) -> (steps: [ScriptStep], end: TimeInterval) {
    var time = start
    var steps: [ScriptStep] = []
    for (index, text) in texts.enumerated() {
        if index > 0 { time += generator.seconds(gaps) }
        steps.append(.type(text, into: field, at: time))
    }
    return (steps, time)
}

/// The successive texts of a field as `word` is typed one character at a time.
func prefixes(of word: String) -> [String] {
    (1...max(word.count, 1)).map { String(word.prefix($0)) }
}

/// A producer that completes at once (RAC2's `[RACSignal empty]`), as a node of its own call
/// site. `SignalProducer.empty` is one node shared by the whole process, so a label another
/// pipeline gives it would show in these scenarios' traces too.
func empty<Value>(file: StaticString = #fileID, line: UInt = #line) -> SignalProducer<Value, Never> {
    SignalProducer(node: Node.make(.source, "empty", file: file, line: line)) { observer, _ in observer.sendCompleted() }
}
