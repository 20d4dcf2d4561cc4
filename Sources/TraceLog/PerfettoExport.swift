import Foundation

/// Exports a trace as Chrome trace-event JSON, which Perfetto's UI (ui.perfetto.dev) and
/// chrome://tracing open. Streaming: one pass over the reader, bounded memory.
///
/// - one process; one track per trace thread (`thread_name` metadata, sorted by id), named
///   uniquely by `TrackNames`: its logical name, the scheduler whose work it ran, and, when
///   that is still not unique, its OS thread id or its trace id;
/// - each event is a zero-length complete slice (`ph:"X"`) on its thread, named by node and
///   value, with the node's name as its category and seq, causes and value as arguments;
/// - causality that crosses threads is a flow arrow (`ph:"s"` at the cause, `ph:"f"` with
///   `bp:"e"` at the effect);
/// - each subscription is an async slice (`ph:"b"`/`"e"`) from subscribe to dispose;
/// - each hop's queue wait is a slice on the thread it hopped to, from enqueue to start;
/// - marks are global instants (`ph:"i"`, `s:"g"`).
///
/// Timestamps are microseconds written with exactly three decimals (the trace's integer
/// nanoseconds), so the output is deterministic.
///
/// Records are checked as `Trace` checks them (`TraceValidator`): an undefined or repeated id,
/// or a cause that is not an earlier event, is an error at its line.
public enum PerfettoExport {
    /// What an export wrote.
    public struct Summary: Equatable, Sendable {
        public var traceEvents = 0
        public var flows = 0
    }

    /// Exports the trace `reader` reads into a new file at `url`.
    @discardableResult
    public static func export(_ reader: TraceReader, to url: URL) throws -> Summary {
        guard FileManager.default.createFile(atPath: url.path, contents: nil),
              let handle = FileHandle(forWritingAtPath: url.path) else {
            throw TraceError(file: url.path, line: 0, column: 0, message: "cannot create the output file")
        }
        defer { try? handle.close() }
        return try export(reader) { bytes in try handle.write(contentsOf: bytes) }
    }

    /// A subscription not yet disposed: its node, which of the node's display names it
    /// began under, and its thread.
    private struct Open {
        var node: UInt64
        var display: UInt32
        var thread: UInt64
    }

    private struct Cause {
        var time: Int64 = 0
        var thread: UInt64 = 0
    }

    /// Exports the trace `reader` reads, handing the output to `write` in chunks; causes are
    /// found among the last `window` events (the window's storage grows with the events read).
    @discardableResult
    public static func export(_ reader: TraceReader, window: Int = 1 << 18,
                              write: ([UInt8]) throws -> Void) throws -> Summary {
        var summary = Summary()
        var out: [UInt8] = []
        out.reserveCapacity(1 << 20)
        var first = true
        func emit(_ build: (inout JSONLine) -> Void) throws {
            var line = JSONLine(capacity: 0)
            swap(&line.bytes, &out)
            if !first { JSONLine.appendLiteral(",\n", to: &line.bytes) }
            first = false
            line.begin()
            build(&line)
            line.close()
            swap(&line.bytes, &out)
            summary.traceEvents += 1
            if out.count >= 1 << 20 {
                try write(out)
                out.removeAll(keepingCapacity: true)
            }
        }

        let header = reader.header
        var preamble = JSONLine()
        preamble.begin()
        preamble.field("displayTimeUnit", "ns")
        preamble.field("otherData") { data in
            data.field("format", "\(TraceFormat.name) \(header.major).\(header.minor)")
            data.field("clock", header.clock.rawValue)
            data.field("wallClock", ifPresent: header.wallClock)
            data.field("host", ifPresent: header.host)
        }
        out += preamble.bytes
        JSONLine.appendLiteral(",\"traceEvents\":[\n", to: &out)
        let processName = header.process.map { "\($0) (pid \(header.pid ?? 0))" } ?? "Marbles \(header.clock.rawValue)-time trace"
        try emit { event in
            event.field("name", "process_name")
            event.field("ph", "M")
            event.field("pid", 1)
            event.field("tid", 0)
            event.field("args") { $0.field("name", processName) }
        }

        var nodes: [UInt64: NodeRecord] = [:]
        // Each node's display names so far (a label record renames it): a running
        // subscription keeps the index of its name, not the text, so a trace whose
        // subscriptions are never disposed costs a few words per subscription.
        var displays: [UInt64: [String]] = [:]
        var live: [UInt64: Open] = [:]
        var recent = EventWindow(capacity: window, empty: Cause())
        var validator = TraceValidator()
        var trackNames = TrackNames()
        var lastTime: Int64 = 0

        func display(_ node: NodeRecord?) -> String {
            guard let node else { return "?" }
            return node.label.map { "\(node.name) \"\($0)\"" } ?? node.name
        }
        func subscriptionName(of subscription: UInt64, _ open: Open) -> String {
            let shown = displays[open.node].map { $0[Int(open.display)] } ?? "?"
            return "\(shown) #\(subscription)"
        }

        while let record = try reader.next() {
            try validator.check(record, readBy: reader)
            switch record {
            case let .thread(thread):
                let trackName = trackNames.name(for: thread)
                try emit { event in
                    event.field("name", "thread_name")
                    event.field("ph", "M")
                    event.field("pid", 1)
                    event.field("tid", thread.id)
                    event.field("args") { $0.field("name", trackName) }
                }
                try emit { event in
                    event.field("name", "thread_sort_index")
                    event.field("ph", "M")
                    event.field("pid", 1)
                    event.field("tid", thread.id)
                    event.field("args") { $0.field("sort_index", thread.id) }
                }
            case let .node(node):
                nodes[node.id] = node
                displays[node.id] = [display(node)]
            case let .label(label):
                nodes[label.node]?.label = label.label
                if let node = nodes[label.node] { displays[label.node]?.append(display(node)) }
            case let .subscribe(subscription):
                lastTime = max(lastTime, subscription.time)
                let names = displays[subscription.node]
                let open = Open(node: subscription.node, display: UInt32((names?.count ?? 1) - 1),
                                thread: subscription.thread)
                live[subscription.id] = open
                let name = subscriptionName(of: subscription.id, open)
                let category = nodes[subscription.node]?.name ?? "?"
                try emit { event in
                    event.field("name", name)
                    event.field("cat", category)
                    event.field("ph", "b")
                    event.field("id", subscription.id)
                    event.field("ts", thousandths: subscription.time)
                    event.field("pid", 1)
                    event.field("tid", subscription.thread)
                    event.field("args") { args in
                        args.field("node", subscription.node)
                        args.field("parent", subscription.parent)
                    }
                }
            case let .dispose(dispose):
                lastTime = max(lastTime, dispose.time)
                guard let open = live.removeValue(forKey: dispose.subscription) else { break }
                try emit { event in
                    event.field("name", subscriptionName(of: dispose.subscription, open))
                    event.field("cat", nodes[open.node]?.name ?? "?")
                    event.field("ph", "e")
                    event.field("id", dispose.subscription)
                    event.field("ts", thousandths: dispose.time)
                    event.field("pid", 1)
                    event.field("tid", dispose.thread)
                }
            case let .event(record):
                lastTime = max(lastTime, record.time)
                let node = nodes[record.node]
                recent.insert(record.sequence, Cause(time: record.time, thread: record.thread))
                try emit { event in
                    event.field("name", "\(display(node)) \(record.text ?? record.kind.rawValue)")
                    event.field("cat", node?.name ?? "?")
                    event.field("ph", "X")
                    event.field("ts", thousandths: record.time)
                    event.field("dur", thousandths: 0)
                    event.field("pid", 1)
                    event.field("tid", record.thread)
                    event.field("args") { args in
                        args.field("seq", record.sequence)
                        args.field("kind", record.kind.rawValue)
                        args.field("sub", record.subscription)
                        args.field("causes", record.causes)
                        args.field("value", ifPresent: record.text)
                    }
                }
                for causeSequence in record.causes {
                    guard let cause = recent.entry(causeSequence), cause.thread != record.thread else { continue }
                    summary.flows += 1
                    let id = summary.flows
                    try emit { event in
                        event.field("name", "cause")
                        event.field("cat", "causality")
                        event.field("ph", "s")
                        event.field("id", id)
                        event.field("ts", thousandths: cause.time)
                        event.field("pid", 1)
                        event.field("tid", cause.thread)
                    }
                    try emit { event in
                        event.field("name", "cause")
                        event.field("cat", "causality")
                        event.field("ph", "f")
                        event.field("bp", "e")
                        event.field("id", id)
                        event.field("ts", thousandths: record.time)
                        event.field("pid", 1)
                        event.field("tid", record.thread)
                    }
                }
            case let .hop(hop):
                lastTime = max(lastTime, hop.started ?? hop.enqueued)
                try emit { event in
                    // An operator's timer is a slice from when it was armed to when it ran: its
                    // wait and its lateness (in args).
                    let what = hop.due == nil ? "queue wait" : "timer"
                    event.field("name", hop.started == nil ? "never ran on \(hop.scheduler)" : "\(what): \(hop.scheduler)")
                    event.field("cat", "hop")
                    event.field("ph", "X")
                    event.field("ts", thousandths: hop.enqueued)
                    event.field("dur", thousandths: hop.queueWait ?? 0)
                    event.field("pid", 1)
                    event.field("tid", hop.to ?? hop.from)
                    event.field("args") { args in
                        args.field("node", hop.node)
                        args.field("from", hop.from)
                        args.field("scheduler", hop.scheduler)
                        if let late = hop.lateness { args.field("lateNs", late) }
                    }
                }
            case let .mark(mark):
                lastTime = max(lastTime, mark.time)
                try emit { event in
                    event.field("name", mark.label)
                    event.field("cat", "mark")
                    event.field("ph", "i")
                    event.field("s", "g")
                    event.field("ts", thousandths: mark.time)
                    event.field("pid", 1)
                    event.field("tid", mark.thread)
                }
            case let .summary(closing):
                lastTime = max(lastTime, closing.duration)
            case .header:
                break
            }
        }
        // Subscriptions still running when the trace ends close at its end.
        for id in live.keys.sorted() {
            guard let open = live[id] else { continue }
            try emit { event in
                event.field("name", subscriptionName(of: id, open))
                event.field("cat", nodes[open.node]?.name ?? "?")
                event.field("ph", "e")
                event.field("id", id)
                event.field("ts", thousandths: lastTime)
                event.field("pid", 1)
                event.field("tid", open.thread)
            }
        }
        JSONLine.appendLiteral("\n]}\n", to: &out)
        try write(out)
        return summary
    }

    /// Names the tracks of an export so that no two are the same, in the order threads are
    /// defined (deterministic).
    ///
    /// A real trace can hold one OS thread several times (the main thread outside any
    /// scheduler and again running the `main` scheduler's actions), and several OS threads
    /// with one logical name (the worker threads of one dispatch queue). A track is named by
    /// the thread's logical name, then `· scheduler S` when a scheduler ran the work; a name
    /// already given gets `· os TID` (the kernel thread id), then `· thread ID` (the trace's
    /// thread id, unique in a trace).
    public struct TrackNames: Sendable {
        private var used: Set<String> = []

        public init() {}

        /// The track name of `thread`, distinct from every name this has given before.
        public mutating func name(for thread: ThreadRecord) -> String {
            var name = thread.name
            if let scheduler = thread.scheduler { name += " \u{00B7} scheduler \(scheduler)" }
            if used.contains(name), let os = thread.os { name += " \u{00B7} os \(os)" }
            if used.contains(name) { name += " \u{00B7} thread \(thread.id)" }
            while used.contains(name) { name += "'" }
            used.insert(name)
            return name
        }
    }
}
