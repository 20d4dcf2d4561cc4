import Signals
import TraceLog

/// A trace that does not fit the pipeline replayed from it: the pipeline asks for an input or
/// a call the trace lacks, starts a call more often than recorded, or a recorded value does
/// not decode into the type the pipeline asks for.
public struct ReplayError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What does not fit.
    public enum Kind: String, Sendable {
        /// The pipeline asks for an input whose label no `input` node of the trace has.
        case missingInput
        /// The pipeline makes a call whose label no `call` node of the trace has.
        case missingCall
        /// The pipeline starts a call more often than the trace recorded starts of it.
        case extraCall
        /// A recorded value or error has no JSON payload to re-inject.
        case missingPayload
        /// A recorded JSON payload does not decode into the type the pipeline asks for.
        case undecodable
        /// A recorded event the boundary cannot re-emit (an input cannot fail).
        case unexpectedEvent
    }

    public var kind: Kind
    /// The trace's file name (or the name given to it).
    public var trace: String
    /// The pipeline's node: `input "searchText" @App/Search.swift:12`.
    public var node: String
    /// The record of the trace: `event seq 7`, `subscription 4`; nil when the trace lacks
    /// the node altogether.
    public var record: String?
    /// What was expected and what was found.
    public var message: String

    public init(kind: Kind, trace: String, node: String, record: String?, message: String) {
        self.kind = kind
        self.trace = trace
        self.node = node
        self.record = record
        self.message = message
    }

    public var description: String {
        let at = record.map { " (\($0))" } ?? ""
        return "\(trace): replay error: \(node)\(at): \(message)"
    }
}

extension Node {
    /// How replay errors and diffs name a node: `call "search" @App/Search.swift:14`.
    var replayDescription: String {
        let params = parameters.isEmpty || parameters == label ? "" : "(\(parameters))"
        let label = self.label.map { " \"\($0)\"" } ?? ""
        return "\(name)\(params)\(label) @\(file):\(line)"
    }
}
