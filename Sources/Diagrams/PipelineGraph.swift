import TraceLog

/// A pipeline as a graph: operators as nodes, the data flow as edges. Built from a trace
/// (`PipelineGraph(trace:options:)`) or by hand, and laid out and drawn by Graphviz
/// (`PipelineRenderer`).
public struct PipelineGraph: Sendable, Equatable {
    /// Whether a node creates, transforms or consumes events; sources and sinks are drawn
    /// in their own shapes.
    public enum Kind: String, Sendable {
        case source, `operator`, sink
    }

    /// One operator, source or sink.
    public struct Node: Sendable, Equatable {
        /// Unique within the graph; used to connect edges.
        public var id: String
        public var kind: Kind
        /// The operator's name: `filter`, `throttle`, `flatMap`.
        public var name: String
        /// The operator's parameters as recorded: `0.5s`, `latest`.
        public var parameters: String
        /// The user's name for the node, if any.
        public var label: String?
        /// `File.swift:12`, shown on hover.
        public var callSite: String?
        /// The scheduler or thread the node delivers on; nodes with the same group are drawn
        /// in one box. Nil for a node that delivered on several (a `merge` of events from
        /// several threads), which sits in no thread's box.
        public var group: String?
        /// The threads the node delivered on when they are several (no `group`), in the order
        /// the trace names them: shown on hover.
        public var threads: [String]
        /// The node's latency in nanoseconds, for heat colouring.
        public var latency: Int64?
        /// Whether the node holds values on purpose (`debounce`, `throttle`, `delay`,
        /// `timeout`, `sample`): its latency is the wait it was asked for, not work, so the
        /// heat scale leaves it out and draws it apart.
        public var waitsOnPurpose: Bool
        /// Extra lines under the name (event counts, a summary).
        public var note: String?

        public init(id: String, kind: Kind, name: String, parameters: String = "", label: String? = nil,
                    callSite: String? = nil, group: String? = nil, latency: Int64? = nil,
                    waitsOnPurpose: Bool = false, note: String? = nil, threads: [String] = []) {
            self.id = id
            self.kind = kind
            self.name = name
            self.parameters = parameters
            self.label = label
            self.callSite = callSite
            self.group = group
            self.latency = latency
            self.waitsOnPurpose = waitsOnPurpose
            self.note = note
            self.threads = threads
        }
    }

    /// What an edge carries, which decides how it is drawn.
    public enum EdgeStyle: String, Sendable {
        /// Values flowing downstream: solid.
        case data
        /// A higher-order operator's inner stream: dashed.
        case inner
        /// A stream that starts, ends or samples the node (`then`, `take(until:)`): dotted.
        case control
        /// A failure skipping the remaining steps to where it is handled: dashed red.
        case error
    }

    /// A connection from an upstream node to a downstream one.
    public struct Edge: Sendable, Equatable {
        public var from: String
        public var to: String
        public var style: EdgeStyle
        /// The label on the arrow: event counts, the error.
        public var label: String?
        /// Whether failures crossed the edge: drawn red and heavier, in its style.
        public var failed: Bool

        public init(from: String, to: String, style: EdgeStyle = .data, label: String? = nil, failed: Bool = false) {
            self.from = from
            self.to = to
            self.style = style
            self.label = label
            self.failed = failed
        }
    }

    public var title: String?
    public var nodes: [Node]
    public var edges: [Edge]
    /// Operators that hold values on purpose (the name before any `(`): a debounce's quiet
    /// period, a throttle's or audit's interval, a delay, a timeout's watch, a sample's hold
    /// until its trigger.
    public static let intendedWaits: Set<String> = IntendedWaits.names

    /// Of `intendedWaits`, the operators whose value's primary cause is their trigger's event
    /// (`sample(on:)`): their latency is the trigger's delivery, not the hold, which depends
    /// on when the trigger fires.
    public static let triggeredWaits: Set<String> = ["sample", "sampleLatest"]

    /// Whether an operator named `name` waits for a trigger (see `triggeredWaits`).
    public static func waitsForTrigger(_ name: String) -> Bool {
        triggeredWaits.contains(String(name.prefix { $0 != "(" }))
    }

    /// Whether an operator named `name` (`throttle(quietPeriod:)`, `sample(on:)`) waits on purpose.
    public static func waitsOnPurpose(_ name: String) -> Bool {
        intendedWaits.contains(String(name.prefix { $0 != "(" }))
    }

    /// Colour nodes by `latency` on a heat scale, with a legend; nodes that wait on purpose
    /// are drawn apart, off the scale.
    public var heat: Bool
    /// The colour (`#rrggbb`) of each group's box and its label's mark: the colour of the
    /// thread in the marble figure (`ThreadColours`). A group without one is drawn grey.
    public var groupColours: [String: String]

    public init(title: String? = nil, nodes: [Node] = [], edges: [Edge] = [], heat: Bool = false,
                groupColours: [String: String] = [:]) {
        self.title = title
        self.nodes = nodes
        self.edges = edges
        self.heat = heat
        self.groupColours = groupColours
    }
}
