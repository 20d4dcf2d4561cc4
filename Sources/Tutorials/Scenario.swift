import Foundation
import Signals

/// One tutorial pipeline, runnable live (real threads, simulated user and services) and
/// replayable (the same code on a virtual-time environment).
///
/// A scenario's pipeline takes everything nondeterministic from its `Environment`: the user's
/// inputs, its schedulers and its service calls. Its script is what the simulated user does,
/// and when; a replay does not run the script, it re-emits the recorded inputs.
public protocol Scenario: Sendable {
    /// The name on the command line and in file names: `signin`, `twitter-instant`.
    var name: String { get }
    /// A one-line title for tables and figures.
    var title: String { get }
    /// How long a live run lasts, in seconds, counting the last responses.
    var duration: TimeInterval { get }
    /// Seeds the fake services' draws (latency, failures) in a live run, and the script the
    /// runner uses.
    var seed: UInt64 { get }
    /// The nodes its marble figure shows (labels or names, in pipeline order), or nil for
    /// every path from a source to a sink.
    var figureNodes: [String]? { get }
    /// Builds the pipeline; the returned disposable tears it down.
    func build(in environment: Environment) -> Disposable
    /// What the simulated user does, in time order; `seed` makes the timing reproducible.
    func script(seed: UInt64) -> [ScriptStep]
}

extension Scenario {
    /// Every path from a source to a sink.
    public var figureNodes: [String]? { nil }

    /// The script for the scenario's own seed.
    public func script() -> [ScriptStep] { script(seed: seed) }
}

/// Where a script's steps send: the inputs of a live environment (or of a test's
/// virtual-time one).
public protocol ScriptTarget: AnyObject {
    /// Sends a value into the input `label`; throws `InputError` when no input of that label
    /// and type takes it.
    func send<Value: Codable>(_ value: Value, to label: String) throws
}

extension LiveEnvironment: ScriptTarget {}

/// One thing the simulated user does at a time from the start of the run.
public struct ScriptStep: Sendable {
    /// Seconds from the start of the run.
    public let at: TimeInterval
    /// What happens, for progress output and the trace's marks: `searchText = "mag"`.
    public let description: String
    /// Sends into the environment's inputs; throws what a send throws (`InputError`).
    public let perform: @Sendable (ScriptTarget) throws -> Void

    /// A step at `at` seconds from the start, described for progress output.
    public init(at: TimeInterval, _ description: String, _ perform: @escaping @Sendable (ScriptTarget) throws -> Void) {
        self.at = at
        self.description = description
        self.perform = perform
    }
}

/// A script step whose send was refused (`InputError`): which step, and why.
public struct ScriptError: Error, CustomStringConvertible {
    public let step: ScriptStep
    public let error: Error

    public var description: String {
        "the script's step at \(step.at) s (\(step.description)) failed: \(error)"
    }
}

/// A small, seedable random number generator (SplitMix64), so a script's timing is the same
/// for the same seed on every machine.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
