
extension TraceRecord {
    /// The record as one JSON line, newline included, keys in the order FORMAT.md gives.
    public var jsonLine: [UInt8] {
        var line = JSONLine()
        write(to: &line)
        return line.bytes
    }

    /// Appends the record as one JSON line to `line`.
    public func write(to line: inout JSONLine) {
        line.begin()
        switch self {
        case let .header(header):
            line.field("type", "header")
            line.field("format", TraceFormat.name)
            line.field("version", "\(header.major).\(header.minor)")
            line.field("unit", "ns")
            line.field("clock", header.clock.rawValue)
            line.field("wallClock", ifPresent: header.wallClock)
            if let nanoseconds = header.wallClockNanoseconds { line.field("wallClockNs", nanoseconds) }
            if let pid = header.pid { line.field("pid", pid) }
            line.field("process", ifPresent: header.process)
            line.field("host", ifPresent: header.host)
        case let .node(node):
            line.field("type", "node")
            line.field("id", node.id)
            line.field("kind", node.kind.rawValue)
            line.field("name", node.name)
            line.field("parameters", node.parameters)
            line.field("file", node.file)
            line.field("line", node.line)
            line.field("label", ifPresent: node.label)
            line.field("upstream", objects: node.upstream) { object, edge in
                object.field("node", edge.node)
                object.field("role", edge.role.rawValue)
            }
        case let .subscribe(subscription):
            line.field("type", "subscribe")
            line.field("id", subscription.id)
            line.field("node", subscription.node)
            line.field("parent", subscription.parent)
            line.field("time", subscription.time)
            line.field("thread", subscription.thread)
            if subscription.late { line.field("late", true) }
            if let request = subscription.request { line.field("request", rawJSON: request) }
            if let omitted = subscription.requestOmitted {
                line.field("requestOmitted", Int64(omitted.bytes))
                line.field("requestHash", omitted.hashText)
            }
            if let observes = subscription.observes { line.field("observes", observes) }
            if let observedBy = subscription.observedBy { line.field("observedBy", observedBy) }
        case let .dispose(dispose):
            line.field("type", "dispose")
            line.field("sub", dispose.subscription)
            line.field("time", dispose.time)
            line.field("thread", dispose.thread)
        case let .thread(thread):
            line.field("type", "thread")
            line.field("id", thread.id)
            line.field("name", thread.name)
            line.field("scheduler", ifPresent: thread.scheduler)
            if let os = thread.os { line.field("os", os) }
        case let .event(event):
            line.writeEventFields(sequence: event.sequence, time: event.time, node: event.node,
                                  subscription: event.subscription, kind: event.kind, thread: event.thread,
                                  causes: { $0.field("causes", event.causes) }) { line in
                line.field("text", ifPresent: event.text)
                if event.truncated { line.field("truncated", true) }
                if let json = event.json { line.field("json", rawJSON: json) }
                if event.omittedJSONBytes > 0 { line.field("jsonOmitted", event.omittedJSONBytes) }
                line.field("jsonError", ifPresent: event.jsonError)
            }
        case let .hop(hop):
            line.field("type", "hop")
            line.field("id", hop.id)
            line.field("node", hop.node)
            line.field("sub", hop.subscription)
            line.field("scheduler", hop.scheduler)
            line.field("enqueued", hop.enqueued)
            line.field("from", hop.from)
            if let due = hop.due { line.field("due", due) }
            if let started = hop.started { line.field("started", started) }
            if let to = hop.to { line.field("to", to) }
        case let .mark(mark):
            line.field("type", "mark")
            line.field("time", mark.time)
            line.field("thread", mark.thread)
            line.field("label", mark.label)
        case let .label(label):
            line.field("type", "label")
            line.field("node", label.node)
            line.field("label", label.label)
        case let .summary(summary):
            line.field("type", "summary")
            line.field("events", summary.events)
            line.field("nodes", summary.nodes)
            line.field("subscriptions", summary.subscriptions)
            line.field("threads", summary.threads)
            line.field("hops", summary.hops)
            line.field("marks", summary.marks)
            line.field("dropped", summary.dropped)
            line.field("duration", summary.duration)
        }
        line.end()
    }
}

extension JSONLine {
    /// The fields of an event record, in FORMAT.md's order: shared by `TraceRecord.write`
    /// and the recorder's hot path, which writes events without building a record first.
    package mutating func writeEventFields(sequence: UInt64, time: Int64, node: UInt64, subscription: UInt64, kind: EventKind,
                                   thread: UInt64, causes: (inout JSONLine) -> Void, value: (inout JSONLine) -> Void) {
        field("type", "event")
        field("seq", sequence)
        field("time", time)
        field("node", node)
        field("sub", subscription)
        field("kind", kind.rawValue)
        field("thread", thread)
        causes(&self)
        value(&self)
    }
}
