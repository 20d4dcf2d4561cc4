/// Why a diagram could not be made.
public enum DiagramError: Error, Equatable, CustomStringConvertible {
    /// libgraphviz reported a failure.
    case graphviz(String)
    /// cairo reported a failure while drawing PNG or PDF.
    case cairo(String)
    /// The options ask for something the trace cannot give (an unknown node, nothing to draw).
    case invalidRequest(String)

    public var description: String {
        switch self {
        case let .graphviz(message): return "Graphviz: \(message)"
        case let .cairo(message): return "cairo: \(message)"
        case let .invalidRequest(message): return message
        }
    }
}
