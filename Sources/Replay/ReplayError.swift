import Signals
import TraceLog

/// A trace that does not fit the pipeline replayed from it: the pipeline asks for an input, a
/// call or a timer the trace lacks, starts a call or a timer more often than recorded, makes a
/// call with a request the trace never recorded, or a recorded value does not decode into the
/// type the pipeline asks for.
///
/// ```swift
/// func searching(in environment: Environment) -> Disposable {
///     environment.input("query", of: String.self).observeValues { print($0) } ?? AnyDisposable()
/// }
/// do {
///     _ = try Replayer(contentsOf: URL(fileURLWithPath: "traces/search.trace")).replay(searching)
/// } catch let error as ReplayError where error.kind == .missingInput {
///     print(error)   // names the input, the trace and the labels it has
/// }
/// ```
public struct ReplayError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What does not fit.
    ///
    /// ```swift
    /// func explain(_ error: ReplayError) -> String {
    ///     switch error.kind {
    ///     case .missingInput, .missingCall, .missingTimer: return "the trace lacks " + error.node
    ///     case .extraCall, .extraTimer: return "started more often than recorded: " + error.node
    ///     default: return error.message
    ///     }
    /// }
    /// ```
    public enum Kind: String, Sendable {
        /// The pipeline asks for an input whose label no `input` node of the trace has.
        case missingInput
        /// The pipeline makes a call whose label no `call` node of the trace has.
        case missingCall
        /// The pipeline starts a call more often than the trace recorded starts of it.
        case extraCall
        /// The pipeline makes a call with a request that no unused recorded start of the call
        /// has: never recorded, or recorded fewer times than asked.
        case unrecordedRequest
        /// The pipeline starts a timer whose label no `timer` node of the trace has.
        case missingTimer
        /// The pipeline starts a timer more often than the trace recorded starts of it.
        case extraTimer
        /// A recorded value or error has no JSON payload to re-inject.
        case missingPayload
        /// A recorded JSON payload does not decode into the type the pipeline asks for.
        case undecodable
        /// A recorded event the boundary cannot re-emit (an input cannot fail).
        case unexpectedEvent
    }

    /// What does not fit.
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
    /// The call's request as JSON, for an `unrecordedRequest`.
    public var request: String?
    /// The recorded requests of the call nearest to `request` (by edit distance of their
    /// JSON, nearest first), for an `unrecordedRequest`.
    public var nearestRecordedRequests: [String]

    public init(kind: Kind, trace: String, node: String, record: String?, message: String,
                request: String? = nil, nearestRecordedRequests: [String] = []) {
        self.kind = kind
        self.trace = trace
        self.node = node
        self.record = record
        self.message = message
        self.request = request
        self.nearestRecordedRequests = nearestRecordedRequests
    }

    /// Up to `count` of `candidates` nearest to `target` by edit distance (in characters),
    /// nearest first; ties keep the candidates' order. Only the first `compared` characters of
    /// each are compared (the distance takes time in the product of the lengths: a request of
    /// megabytes would take hours), then the lengths break ties.
    static func nearest(to target: String, among candidates: [String], count: Int) -> [String] {
        let goal = Array(target.prefix(compared))
        let ranked = candidates.enumerated().map { candidate in
            (index: candidate.offset, text: candidate.element,
             distance: editDistance(goal, Array(candidate.element.prefix(compared))),
             lengths: abs(candidate.element.utf8.count - target.utf8.count))
        }
        return ranked.sorted { ($0.distance, $0.lengths, $0.index) < ($1.distance, $1.lengths, $1.index) }.prefix(count).map(\.text)
    }

    /// How many characters of two texts `nearest` compares.
    static let compared = 256

    /// The Levenshtein distance between two character sequences, in one row of memory.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        var row = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var diagonal = row[0]
            row[0] = i + 1
            for (j, y) in b.enumerated() {
                let above = row[j + 1]
                row[j + 1] = min(above + 1, row[j] + 1, diagonal + (x == y ? 0 : 1))
                diagonal = above
            }
        }
        return row[b.count]
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
