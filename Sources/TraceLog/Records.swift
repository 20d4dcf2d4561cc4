@_exported import TraceKinds


/// The format's name and the version this library writes and reads (`traces/FORMAT.md`).
public enum TraceFormat {
    /// The `format` of every header.
    public static let name = "marbles-trace"
    /// Readers refuse a newer major version; they read any minor version of theirs,
    /// skipping record kinds they do not know.
    public static let major = 1
    /// Minor versions add record kinds or optional fields only.
    public static let minor = 1
}

/// Whether a trace's times come from a real clock or from virtual time.
public enum TraceClock: String, Sendable {
    /// Recorded in real time: monotonic nanoseconds from the trace's origin.
    case real
    /// Produced in virtual time: a `TestScheduler`'s nanoseconds. Deterministic.
    case virtual
}

/// The first line of every trace.
public struct TraceHeader: Equatable, Sendable {
    public var major: Int = TraceFormat.major
    public var minor: Int = TraceFormat.minor
    public var clock: TraceClock
    /// Wall clock at the origin, ISO 8601 UTC with nanoseconds (real time only).
    public var wallClock: String?
    /// Wall clock at the origin in nanoseconds since 1970 (real time only).
    public var wallClockNanoseconds: Int64?
    /// The recording process's id (real time only).
    public var pid: Int64?
    /// The recording process's name (real time only).
    public var process: String?
    /// The host's name (real time only).
    public var host: String?

    public init(clock: TraceClock, wallClock: String? = nil, wallClockNanoseconds: Int64? = nil,
                pid: Int64? = nil, process: String? = nil, host: String? = nil) {
        self.clock = clock
        self.wallClock = wallClock
        self.wallClockNanoseconds = wallClockNanoseconds
        self.pid = pid
        self.process = process
        self.host = host
    }
}

/// A node: an operator, source or sink at a call site, with its upstream nodes.
public struct NodeRecord: Equatable, Sendable {
    /// An upstream node and how it feeds this one (`data`, `inner`, `trigger`, ...).
    public struct Edge: Equatable, Sendable {
        public var node: UInt64
        public var role: EdgeRole
        public init(node: UInt64, role: EdgeRole) {
            self.node = node
            self.role = role
        }
    }

    /// Trace-local id, 1, 2, ... in order of first appearance.
    public var id: UInt64
    /// `source`, `operator` or `sink`.
    public var kind: NodeKind
    public var name: String
    public var parameters: String
    public var file: String
    public var line: UInt64
    public var label: String?
    public var upstream: [Edge]

    public init(id: UInt64, kind: NodeKind, name: String, parameters: String = "", file: String, line: UInt64,
                label: String? = nil, upstream: [Edge] = []) {
        self.id = id
        self.kind = kind
        self.name = name
        self.parameters = parameters
        self.file = file
        self.line = line
        self.label = label
        self.upstream = upstream
    }

    /// The label if there is one, else the name: what figures and tables show.
    public var displayName: String { label ?? name }
}

/// A subscription (a running instance) of a node began.
public struct SubscriptionRecord: Equatable, Sendable {
    public var id: UInt64
    public var node: UInt64
    /// The higher-order subscription that started it, the observed subscription for a sink,
    /// or 0.
    public var parent: UInt64
    public var time: Int64
    public var thread: UInt64
    /// True when the recorder first saw it after it began (it started before recording).
    public var late: Bool
    /// The request of a boundary call made with one (`environment.call("search", request:)`),
    /// as JSON text: what a replay matches the call by (format 1.1).
    public var request: String?
    /// A request whose JSON was longer than `RequestDigest.limit`, left out of the trace: its
    /// size and hash, which a replay matches the call by instead.
    public var requestOmitted: RequestDigest?
    /// The subscriptions whose events this one receives, as its operator was given them when
    /// it began (a `combineLatest`: both inputs' subscriptions), each defined before it; nil
    /// when the recorder wrote none (traces recorded before 2026-11-29, a source).
    public var observes: [UInt64]?
    /// The subscriptions that receive this one's events, already running when it began (the
    /// `flatMap` that started it as an inner stream, the `MutableProperty` a `<~` binding
    /// sets), each defined before it; nil when the recorder wrote none.
    public var observedBy: [UInt64]?

    public init(id: UInt64, node: UInt64, parent: UInt64, time: Int64, thread: UInt64, late: Bool = false,
                request: String? = nil, requestOmitted: RequestDigest? = nil,
                observes: [UInt64]? = nil, observedBy: [UInt64]? = nil) {
        self.id = id
        self.node = node
        self.parent = parent
        self.time = time
        self.thread = thread
        self.late = late
        self.request = request
        self.requestOmitted = requestOmitted
        self.observes = observes
        self.observedBy = observedBy
    }

    /// What tells this start's request from another's: its JSON, or for one left out, its
    /// digest's `key`. Nil for a start without a request.
    public var requestKey: String? {
        request ?? requestOmitted?.key
    }
}

/// A request too long to keep in a trace, as a subscription record keeps it instead: the size
/// of its JSON and a hash of those bytes (`requestOmitted`, `requestHash`). Two requests with
/// the same JSON have the same digest in every process and on every machine.
///
/// ```swift
/// let digest = RequestDigest(json: String(repeating: "a", count: 100_000))
/// print(digest.bytes, digest.hashText)   // 100000 fnv1a64:…
/// ```
public struct RequestDigest: Equatable, Hashable, Sendable {
    /// The longest request JSON a trace keeps whole, in bytes: as for values (64 KiB).
    public static let limit = 64 << 10

    /// The size of the request's JSON, in bytes.
    public var bytes: Int
    /// FNV-1a (64 bits) of the request's JSON bytes.
    public var hash: UInt64

    public init(bytes: Int, hash: UInt64) {
        self.bytes = bytes
        self.hash = hash
    }

    /// The digest of `json`.
    public init(json: String) {
        var json = json
        self = json.withUTF8 { RequestDigest(utf8: $0) }
    }

    /// The digest of JSON text given as UTF-8 bytes.
    public init(utf8: UnsafeBufferPointer<UInt8>) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        self.init(bytes: utf8.count, hash: hash)
    }

    /// The hash as the trace writes it: `fnv1a64:` and 16 lowercase hexadecimal digits.
    public var hashText: String {
        let digits = String(hash, radix: 16)
        return "fnv1a64:" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Reads `hashText`'s form back; nil for any other text.
    public static func hash(fromText text: String) -> UInt64? {
        guard text.hasPrefix("fnv1a64:") else { return nil }
        let digits = text.dropFirst(8)
        guard digits.count == 16, digits.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        return UInt64(digits, radix: 16)
    }

    /// The text that stands for the request where requests are compared and shown: never
    /// valid JSON, so never equal to a request kept whole.
    public var key: String {
        "<request of \(bytes) bytes left out, \(hashText)>"
    }

    /// What a subscription record holds for a request's JSON: the JSON itself up to `limit`
    /// bytes, else its digest.
    public static func recorded(_ json: String) -> (request: String?, omitted: RequestDigest?) {
        json.utf8.count > limit ? (nil, RequestDigest(json: json)) : (json, nil)
    }

    /// `requestKey` for a request's JSON: the JSON up to `limit` bytes, else its digest's key.
    public static func key(of json: String) -> String {
        json.utf8.count > limit ? RequestDigest(json: json).key : json
    }
}

/// A subscription ended: disposed, or terminated and released.
public struct DisposeRecord: Equatable, Sendable {
    public var subscription: UInt64
    public var time: Int64
    public var thread: UInt64

    public init(subscription: UInt64, time: Int64, thread: UInt64) {
        self.subscription = subscription
        self.time = time
        self.thread = thread
    }
}

/// A thread of the trace: a real thread (with the scheduler running on it, in real time) or
/// a logical one (a scheduler's or lane's name, in virtual time).
public struct ThreadRecord: Equatable, Sendable {
    public var id: UInt64
    public var name: String
    public var scheduler: String?
    /// The OS thread id (real time only).
    public var os: UInt64?

    public init(id: UInt64, name: String, scheduler: String? = nil, os: UInt64? = nil) {
        self.id = id
        self.name = name
        self.scheduler = scheduler
        self.os = os
    }

    /// The scheduler's name when one runs, else the thread's name.
    public var displayName: String {
        guard let scheduler, scheduler != name else { return name }
        return "\(scheduler) (\(name))"
    }
}

/// One event a subscription sent.
public struct EventRecord: Equatable, Sendable {
    /// One global order, 1, 2, ...
    public var sequence: UInt64
    public var time: Int64
    public var node: UInt64
    public var subscription: UInt64
    public var kind: EventKind
    public var thread: UInt64
    /// Sequence numbers of the causing events, the primary one first.
    public var causes: [UInt64]
    /// A short display string of the value or error (value and failed events).
    public var text: String?
    /// Whether `text` was cut short.
    public var truncated: Bool
    /// The value as JSON text, when it is `Encodable` (what a replay re-injects).
    public var json: String?
    /// The size of a JSON payload that was too large to keep, else 0.
    public var omittedJSONBytes: Int64
    /// Why an `Encodable` value has no JSON: what its `encode(to:)` threw.
    public var jsonError: String?

    /// Nothing (no bytes, always equal): here so that the struct keeps the memberwise
    /// initialiser the compiler makes, which the public one calls (see below).
    private var memberwise = Memberwise()
    private struct Memberwise: Equatable, Sendable {}
}

extension EventRecord {
    // Written in an extension, delegating to the memberwise initialiser: an initialiser
    // assigning each field (`self.causes = causes`, …) was compiled (Swift 6.3, -O) to build
    // the record, copy it and destroy the first (a retain and a release of its array and
    // strings, each a locked instruction): some 15 % of reading an event line.
    public init(sequence: UInt64, time: Int64, node: UInt64, subscription: UInt64, kind: EventKind, thread: UInt64,
                causes: [UInt64] = [], text: String? = nil, truncated: Bool = false, json: String? = nil,
                omittedJSONBytes: Int64 = 0, jsonError: String? = nil) {
        self.init(sequence: sequence, time: time, node: node, subscription: subscription, kind: kind, thread: thread,
                  causes: causes, text: text, truncated: truncated, json: json, omittedJSONBytes: omittedJSONBytes,
                  jsonError: jsonError, memberwise: Memberwise())
    }
}

/// A thread hop: an action enqueued on a scheduler, and when and where it ran.
public struct HopRecord: Equatable, Sendable {
    public var id: UInt64
    /// The node that hopped, or 0.
    public var node: UInt64
    public var subscription: UInt64
    public var scheduler: String
    public var enqueued: Int64
    public var from: UInt64
    /// When the action started; nil when it never ran (cancelled, or recording stopped).
    public var started: Int64?
    public var to: UInt64?
    /// For an operator's timer (format 1.2: `debounce`, `throttle`, `delay`, `timeout`…), when
    /// it was due: armed at `enqueued` to run this much later. `started - due` is how late it
    /// ran, and a timer that never started was cancelled (or outlived the recording) before
    /// it ran. Nil for a plain hop (`observe(on:)`, `start(on:)`), which is due at once. Only
    /// a live recording writes it: in virtual time a timer runs when it is due.
    public var due: Int64?

    public init(id: UInt64, node: UInt64, subscription: UInt64, scheduler: String, enqueued: Int64, from: UInt64,
                started: Int64? = nil, to: UInt64? = nil, due: Int64? = nil) {
        self.id = id
        self.node = node
        self.subscription = subscription
        self.scheduler = scheduler
        self.enqueued = enqueued
        self.from = from
        self.started = started
        self.to = to
        self.due = due
    }

    /// How late an operator's timer started after it was due (`due`); nil for a plain hop or
    /// one that never started (saturated at `Int64`'s bounds).
    public var lateness: Int64? {
        guard let due, let started else { return nil }
        return started.saturatingSubtracting(due)
    }

    /// Time from enqueue to start, when it ran (saturated at `Int64`'s bounds).
    public var queueWait: Int64? { started.map { $0.saturatingSubtracting(enqueued) } }
}

/// A user's mark in the timeline.
public struct MarkRecord: Equatable, Sendable {
    public var time: Int64
    public var thread: UInt64
    public var label: String

    public init(time: Int64, thread: UInt64, label: String) {
        self.time = time
        self.thread = thread
        self.label = label
    }
}

/// A node's label, set after its node record was written.
public struct LabelRecord: Equatable, Sendable {
    public var node: UInt64
    public var label: String

    public init(node: UInt64, label: String) {
        self.node = node
        self.label = label
    }
}

/// The closing line: counts, dropped records and duration.
public struct SummaryRecord: Equatable, Sendable {
    public var events: UInt64
    public var nodes: UInt64
    public var subscriptions: UInt64
    public var threads: UInt64
    public var hops: UInt64
    public var marks: UInt64
    /// Records lost because the file could not be written.
    public var dropped: UInt64
    /// Time of the end of the recording.
    public var duration: Int64

    public init(events: UInt64 = 0, nodes: UInt64 = 0, subscriptions: UInt64 = 0, threads: UInt64 = 0,
                hops: UInt64 = 0, marks: UInt64 = 0, dropped: UInt64 = 0, duration: Int64 = 0) {
        self.events = events
        self.nodes = nodes
        self.subscriptions = subscriptions
        self.threads = threads
        self.hops = hops
        self.marks = marks
        self.dropped = dropped
        self.duration = duration
    }
}

/// One line of a trace.
public enum TraceRecord: Equatable, Sendable {
    case header(TraceHeader)
    case node(NodeRecord)
    case subscribe(SubscriptionRecord)
    case dispose(DisposeRecord)
    case thread(ThreadRecord)
    case event(EventRecord)
    case hop(HopRecord)
    case mark(MarkRecord)
    case label(LabelRecord)
    case summary(SummaryRecord)
}
