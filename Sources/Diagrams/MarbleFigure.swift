/// A marble diagram as data, independent of any output: lanes (one per stream, in pipeline
/// order), operator boxes between them, and the threads that delivered the marbles.
///
/// Made from a trace (`MarbleFigure(trace:options:)`) or by hand; drawn by `MarbleRenderer`
/// as SVG, PNG or PDF, or as plain text by `MarbleText`. Times are nanoseconds on the
/// trace's clock (virtual or real).
public struct MarbleFigure: Sendable, Equatable {
    /// One value event on a lane.
    public struct Marble: Sendable, Equatable {
        /// Identifies the marble for causal arrows (the event's sequence number in a trace).
        public var id: UInt64
        public var time: Int64
        /// The short text drawn in the marble.
        public var display: String
        /// The whole value, shown on hover.
        public var full: String
        /// The index of the delivering thread in `MarbleFigure.threads`.
        public var thread: Int
        /// The thread the value's cause was delivered on, when it is another one: the value
        /// hopped threads here (drawn with the `hop` class).
        public var hoppedFrom: Int?

        public init(id: UInt64, time: Int64, display: String, full: String? = nil, thread: Int = 0, hoppedFrom: Int? = nil) {
            self.id = id
            self.time = time
            self.display = display
            self.full = full ?? display
            self.thread = thread
            self.hoppedFrom = hoppedFrom
        }
    }

    /// How a lane ended, if it did.
    public enum End: Sendable, Equatable {
        /// `completed`: a vertical bar.
        case completed(at: Int64)
        /// `failed`: a red cross; the message is shown on hover.
        case failed(at: Int64, message: String)
        /// `interrupted` (cancelled before it ended by itself): a double bar.
        case interrupted(at: Int64)
        /// Disposed without a terminal event: the line stops at a short dashed tick.
        case disposed(at: Int64)

        public var time: Int64 {
            switch self {
            case let .completed(at), let .failed(at, _), let .interrupted(at), let .disposed(at): return at
            }
        }
    }

    /// A subscription or terminal event drawn on a lane besides the lane's own start and end:
    /// a resubscription or failure of a node in an inner stream's chain (a `retry`'s), or
    /// one subscription's start and end in a lane merging several.
    public struct Mark: Sendable, Equatable {
        /// What the mark shows: a subscription beginning at a time, or one ending as `End` says.
        public enum Kind: Sendable, Equatable {
            /// A subscription began at this time.
            case subscribed(at: Int64)
            /// A subscription ended so.
            case ended(End)
        }

        /// What the mark shows.
        public var kind: Kind
        /// The node whose subscription it was (its trace id).
        public var node: UInt64?

        public init(_ kind: Kind, node: UInt64? = nil) {
            self.kind = kind
            self.node = node
        }

        public var time: Int64 {
            switch kind {
            case let .subscribed(at): return at
            case let .ended(end): return end.time
            }
        }
    }

    /// One stream: a time line with its marbles.
    public struct Lane: Sendable, Equatable {
        /// The stream's name, left of the line: the node's label, or its operator.
        public var title: String
        /// Shown on hover over the title: the call site.
        public var detail: String?
        /// An inner stream of a higher-order operator: drawn shorter and indented.
        public var isInner: Bool
        /// When the lane was subscribed (its line starts here), or nil for the figure's start.
        public var subscribed: Int64?
        public var marbles: [Marble]
        public var end: End?
        /// The node the lane draws (its trace id), written on every mark of the lane.
        public var node: UInt64?
        /// Further subscriptions and terminal events drawn on the lane, in time order.
        public var marks: [Mark]

        public init(title: String, detail: String? = nil, isInner: Bool = false, subscribed: Int64? = nil,
                    marbles: [Marble] = [], end: End? = nil, node: UInt64? = nil, marks: [Mark] = []) {
            self.title = title
            self.detail = detail
            self.isInner = isInner
            self.subscribed = subscribed
            self.marbles = marbles
            self.end = end
            self.node = node
            self.marks = marks
        }
    }

    /// The operator between two lanes, drawn as a box across the figure.
    public struct Operator: Sendable, Equatable {
        public var name: String
        public var parameters: String
        /// Shown on hover: the call site.
        public var detail: String?
        /// The stream the operator reads, when it is not the lane just above the box.
        public var input: String?

        public init(name: String, parameters: String = "", detail: String? = nil, input: String? = nil) {
            self.name = name
            self.parameters = parameters
            self.detail = detail
            self.input = input
        }

        /// `throttle(0.5s)`, `observe(on: main)`, or the bare name without parameters; with
        /// `← input` when the input is not the lane above.
        public var text: String {
            let call = OperatorText.format(name: name, parameters: parameters)
            return input.map { "\(call)  \u{2190} \($0)" } ?? call
        }
    }

    /// The figure top to bottom.
    public enum Row: Sendable, Equatable {
        case lane(Lane)
        case `operator`(Operator)
    }

    /// An arrow from the marble that caused an event to the marble it caused.
    public struct Cause: Sendable, Equatable {
        public var from: UInt64
        public var to: UInt64

        public init(from: UInt64, to: UInt64) {
            self.from = from
            self.to = to
        }
    }

    public var title: String?
    public var rows: [Row]
    /// Names of the delivering threads or schedulers, in legend order; a marble's `thread`
    /// indexes this.
    public var threads: [String]
    /// The colour of each of `threads` (by index), as `ThreadColours` decides: a figure of a
    /// trace has the colours of the whole trace's threads (as `marbles view` and the pipeline
    /// figure of that trace), so a figure showing some of its lanes keeps them. When it does
    /// not hold one per thread, the threads are coloured in their legend order.
    public var threadColours: [ThreadColours.Colour]
    /// Causal arrows to draw (empty unless asked for).
    public var causes: [Cause]
    /// Whether long idle gaps are cut out of the time axis (`~` in text, a break mark with
    /// the time cut in figures); when false, time runs linearly end to end and every wait
    /// is drawn at its true length.
    public var cutsIdleTime: Bool

    /// - Parameter threadColours: one colour per thread; nil colours `threads` in their order
    ///   (`ThreadColours.assign(_:)`).
    public init(title: String? = nil, rows: [Row] = [], threads: [String] = [],
                threadColours: [ThreadColours.Colour]? = nil, causes: [Cause] = [], cutsIdleTime: Bool = true) {
        self.title = title
        self.rows = rows
        self.threads = threads
        self.threadColours = threadColours ?? Self.colours(of: threads)
        self.causes = causes
        self.cutsIdleTime = cutsIdleTime
    }

    /// `ThreadColours.assign(_:)` of `threads`, in their order.
    static func colours(of threads: [String]) -> [ThreadColours.Colour] {
        let assigned = ThreadColours.assign(threads)
        return threads.map { assigned[$0] ?? ThreadColours.several }
    }

    /// The colour of `threads[thread]`: its entry in `threadColours` when there is one per
    /// thread, else the colour of its place in `threads`.
    func colour(ofThread thread: Int) -> ThreadColours.Colour {
        if threadColours.count == threads.count, threadColours.indices.contains(thread) { return threadColours[thread] }
        if threads.indices.contains(thread) { return Self.colours(of: threads)[thread] }
        return ThreadColours.made(thread)
    }

    /// The lanes, top to bottom.
    public var lanes: [Lane] {
        rows.compactMap { if case let .lane(lane) = $0 { return lane } else { return nil } }
    }
}
