/// The vocabulary shared by the reactive runtime and the trace format: the kinds of event a
/// stream sends, of node a pipeline holds, and of edge between two nodes.
///
/// `Signals` names these when it reports to a probe; `TraceLog` writes and reads them in
/// trace files. Both re-export this module, so neither depends on the other. It imports
/// nothing.

/// The kinds of event a stream sends, as the probe and the trace log name them: the four a
/// stream sends, and the demand an `AsyncSequence`'s consumer makes.
public enum EventKind: String, Sendable, CaseIterable {
    case value, failed, completed, interrupted
    /// A pull: the consumer of a tapped `AsyncSequence` called `next()` (the demand), which a
    /// value or an end answers. `Signals` streams push and never send one.
    case pull

    /// Whether this is an event a stream sends (a value or an end), not a pull.
    public var isSent: Bool { self != .pull }

    /// The kind's number, 0 to 4 in the order of the cases: what the binary encoding writes
    /// (FORMAT.md, an event record's `kind`) and what a trace's event column holds. The one
    /// numbering; `init(number:)` reads it back.
    @inlinable
    public var number: UInt8 {
        switch self {
        case .value: 0
        case .failed: 1
        case .completed: 2
        case .interrupted: 3
        case .pull: 4
        }
    }

    /// The kind numbered `number` (`number`), nil for none.
    @inlinable
    public init?(number: UInt8) {
        switch number {
        case 0: self = .value
        case 1: self = .failed
        case 2: self = .completed
        case 3: self = .interrupted
        case 4: self = .pull
        default: return nil
        }
    }
}

/// Whether a node creates events, transforms them, or consumes them.
///
/// A struct over its trace spelling rather than an enum, so a reader keeps a kind written by a
/// newer minor version of the format instead of refusing the trace.
public struct NodeKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Makes events: an input, a property, a timer, a service call, a producer.
    public static let source = NodeKind(rawValue: "source")
    /// Transforms the events of its upstream nodes.
    public static let `operator` = NodeKind(rawValue: "operator")
    /// Consumes events: an observer at the end of a pipeline.
    public static let sink = NodeKind(rawValue: "sink")

    public var description: String { rawValue }
}

/// How an upstream feeds a node: plain data, an inner stream, a trigger, a sampler...
public struct EdgeRole: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The values of the upstream become (or decide) the node's values.
    public static let data = EdgeRole(rawValue: "data")
    /// An inner stream of a higher-order operator (`flatMap`, `flatten`).
    public static let inner = EdgeRole(rawValue: "inner")
    /// A stream whose events end or start the node (`take(until:)`, `then`).
    public static let trigger = EdgeRole(rawValue: "trigger")
    /// A stream that says when to sample (`sample(on:)`, `sample(with:)`).
    public static let sampler = EdgeRole(rawValue: "sampler")
    /// A stream the node reads the latest value of (`withLatest(from:)`).
    public static let latest = EdgeRole(rawValue: "latest")
    /// A stream used after a failure or timeout (`flatMapError`, `timeout(with:)`).
    public static let fallback = EdgeRole(rawValue: "fallback")

    public var description: String { rawValue }
}
