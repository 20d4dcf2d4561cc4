import Foundation

/// The events of a `Trace`, in the order they were read, held as columns of fixed-size fields
/// rather than as `EventRecord`s: an event costs some 45 bytes and its causes 8 bytes each,
/// where a record costs a few hundred (its strings and its causes' array are allocations of
/// their own). Nodes, subscriptions and threads are kept as positions in the trace's lists;
/// texts and JSON payloads are kept once each, so a value sent over and over costs one copy.
///
/// Reading an element builds its `EventRecord`; the column accessors (`sequence(at:)`,
/// `node(at:)`, ...) read one field without building a record.
public struct TraceEvents: RandomAccessCollection, Sendable {
    /// Sequence numbers. While each event's is the one before's plus one (as a recorder
    /// numbers them), only the first is kept (`firstSequence`) and this stays empty: 8 bytes
    /// an event saved. The first event out of that order fills it in.
    private var sequences: [UInt64] = []
    private var firstSequence: UInt64 = 0
    private var sequencesAreConsecutive = true
    private var times: [Int64] = []
    /// Positions in `nodeIDs`, `subscriptionIDs` and `threadIDs`.
    private var nodes: [UInt32] = []
    private var subscriptionPositions: [UInt32] = []
    private var threads: [UInt32] = []
    /// The kind's number (`EventKind.number`), plus `truncatedFlag` when the text was cut.
    private var kinds: [UInt8] = []
    /// Numbers of texts and payloads in `payloads`; 0 for none.
    private var texts: [UInt32] = []
    private var jsons: [UInt32] = []
    /// Where each event's causes begin in `causePool`; they end where the next event's begin.
    private var causeStarts: [UInt32] = []
    private var causePool: [UInt64] = []
    /// `omittedJSONBytes` of the few events with a payload too large to keep, by position.
    private var omitted: [Int: Int64] = [:]
    /// `jsonError` of the few events whose value would not encode, by position.
    private var jsonErrors: [Int: String] = [:]

    /// The distinct texts and payloads, numbered from 1 in order of first appearance.
    private var payloads = PayloadTable()

    /// The ids behind the positions the events hold, shared with the trace.
    var nodeIDs: [UInt64] = []
    var subscriptionIDs: [UInt64] = []
    var threadIDs: [UInt64] = []

    private static let truncatedFlag: UInt8 = 0x80

    package init() {}

    public var startIndex: Int { 0 }
    public var endIndex: Int { times.count }

    public subscript(position: Int) -> EventRecord {
        let start = Int(causeStarts[position])
        let end = position + 1 < causeStarts.count ? Int(causeStarts[position + 1]) : causePool.count
        return EventRecord(sequence: sequence(at: position), time: times[position], node: node(at: position),
                           subscription: subscriptionIDs[Int(subscriptionPositions[position])], kind: kind(at: position),
                           thread: threadIDs[Int(threads[position])], causes: Array(causePool[start..<end]),
                           text: string(texts[position]), truncated: kinds[position] & Self.truncatedFlag != 0,
                           json: string(jsons[position]), omittedJSONBytes: omitted[position] ?? 0,
                           jsonError: jsonErrors[position])
    }

    /// The sequence number of the event at `position`.
    public func sequence(at position: Int) -> UInt64 {
        guard sequencesAreConsecutive else { return sequences[position] }
        precondition(position >= 0 && position < times.count, "Index out of range")
        return firstSequence + UInt64(position)
    }

    /// The sequence number of the last event, if any. Always inlined: called, the whole
    /// struct was copied (176 bytes, a call to memcpy) to pass it at each event added.
    var lastSequence: UInt64? {
        @inline(__always) get { times.isEmpty ? nil : sequence(at: times.count - 1) }
    }

    /// Notes the sequence number of the event being appended (before its time is).
    private mutating func appendSequence(_ sequence: UInt64) {
        if sequencesAreConsecutive {
            let count = times.count
            if count == 0 {
                firstSequence = sequence
                return
            }
            if sequence > firstSequence, sequence - firstSequence == UInt64(count) { return }
            sequences = (0..<count).map { firstSequence + UInt64($0) }
            sequencesAreConsecutive = false
        }
        sequences.append(sequence)
    }

    /// The time of the event at `position`.
    public func time(at position: Int) -> Int64 { times[position] }

    /// The latest time of any event, nil when there are none: one pass over the time column
    /// (events are in sequence order, which threads can stamp out of time order).
    public var latestTime: Int64? { times.max() }

    /// The node id of the event at `position`.
    public func node(at position: Int) -> UInt64 { nodeIDs[Int(nodes[position])] }

    /// The index in the trace's `subscriptions` of the subscription of the event at `position`.
    public func subscriptionIndex(at position: Int) -> Int { Int(subscriptionPositions[position]) }

    /// The thread id of the event at `position`.
    public func thread(at position: Int) -> UInt64 { threadIDs[Int(threads[position])] }

    /// The index in the trace's `threads` of the thread of the event at `position`.
    public func threadIndex(at position: Int) -> Int { Int(threads[position]) }

    /// The text of the event at `position`, nil for none.
    public func text(at position: Int) -> String? { string(texts[position]) }

    /// The number of the text of the event at `position` among this trace's distinct strings
    /// (as `payloadNumber(at:)`), 0 for none.
    public func textNumber(at position: Int) -> Int { Int(texts[position]) }

    /// Whether the text of the event at `position` was cut short by its recorder.
    public func isTruncated(at position: Int) -> Bool { kinds[position] & Self.truncatedFlag != 0 }

    /// The kind of the event at `position`.
    public func kind(at position: Int) -> EventKind {
        EventKind(number: kinds[position] & ~Self.truncatedFlag) ?? .pull
    }

    /// The number of the payload of the event at `position` (its JSON, else its text) among
    /// this trace's distinct strings, 0 for none: two events of one trace carry the same payload
    /// exactly when their numbers are equal.
    public func payloadNumber(at position: Int) -> Int { Int(jsons[position] != 0 ? jsons[position] : texts[position]) }

    /// The payload of the event at `position` (its JSON, else its text).
    public func payload(at position: Int) -> String? { string(jsons[position]) ?? string(texts[position]) }

    /// The JSON payload of the event at `position`, nil for none.
    public func json(at position: Int) -> String? { string(jsons[position]) }

    /// The JSON payload of the event at `position` when it is exactly an integer's digits, read
    /// without making its string; nil for any other payload or none.
    public func jsonInteger(at position: Int) -> Int64? { payloads.integer(jsons[position]) }

    /// The primary cause of the event at `position`, if it has causes.
    public func firstCause(at position: Int) -> UInt64? {
        let start = Int(causeStarts[position])
        let end = position + 1 < causeStarts.count ? Int(causeStarts[position + 1]) : causePool.count
        return start < end ? causePool[start] : nil
    }

    /// The causes of the event at `position`, without building its record.
    public func causes(at position: Int) -> ArraySlice<UInt64> {
        let start = Int(causeStarts[position])
        let end = position + 1 < causeStarts.count ? Int(causeStarts[position + 1]) : causePool.count
        return causePool[start..<end]
    }

    /// Appends the columns every event has, whichever way it was read: where and when it
    /// happened and its kind.
    @inline(__always)
    private mutating func appendPlace(sequence: UInt64, time: Int64, kind: EventKind, truncated: Bool,
                                      node: Int, subscription: Int, thread: Int) {
        appendSequence(sequence)
        times.append(time)
        nodes.append(UInt32(node))
        subscriptionPositions.append(UInt32(subscription))
        threads.append(UInt32(thread))
        let number = kind.number
        kinds.append(truncated ? number | Self.truncatedFlag : number)
    }

    /// Appends `event`, whose node, subscription and thread are at these positions of the id lists.
    mutating func append(_ event: EventRecord, node: Int, subscription: Int, thread: Int) {
        let position = times.count
        appendPlace(sequence: event.sequence, time: event.time, kind: event.kind, truncated: event.truncated,
                    node: node, subscription: subscription, thread: thread)
        texts.append(intern(event.text))
        jsons.append(intern(event.json))
        causeStarts.append(UInt32(causePool.count))
        causePool.append(contentsOf: event.causes)
        if event.omittedJSONBytes != 0 { omitted[position] = event.omittedJSONBytes }
        if let error = event.jsonError { jsonErrors[position] = error }
    }

    /// Appends an event scanned from a line (`bytes`), as `append(_:node:subscription:thread:)`
    /// appends its record: its text and JSON are numbered from their bytes.
    mutating func append(_ event: inout WrittenEvent, _ bytes: UnsafeBufferPointer<UInt8>, node: Int, subscription: Int,
                         thread: Int) {
        let position = times.count
        appendPlace(sequence: event.sequence, time: event.time, kind: event.kind, truncated: event.truncated,
                    node: node, subscription: subscription, thread: thread)
        // The text first, then the JSON, as the record's are numbered; a text written as its
        // JSON (a number's) is the same payload.
        var text: UInt32 = 0
        var textIsJSON = false
        switch event.text {
        case .none:
            break
        case let .plain(range):
            if event.textIsJSON(in: bytes) {
                textIsJSON = true
            } else {
                text = payloads.number(of: UnsafeBufferPointer(rebasing: bytes[range]))
            }
        case .escaped:
            text = intern(JSONParser.text(of: event, in: bytes))
        }
        var json: UInt32 = 0
        if let integer = event.jsonInteger {
            json = payloads.number(of: integer)
        } else if let range = event.json {
            json = payloads.number(of: UnsafeBufferPointer(rebasing: bytes[range]))
        }
        texts.append(textIsJSON ? json : text)
        jsons.append(json)
        causeStarts.append(UInt32(causePool.count))
        if event.firstCause != 0 {
            if event.moreCauses.isEmpty {
                causePool.append(event.firstCause)
            } else {
                causePool.append(contentsOf: JSONParser.causes(of: event, in: bytes))
            }
        }
        if event.omittedJSONBytes != 0 { omitted[position] = event.omittedJSONBytes }
        if let error = JSONParser.jsonError(of: event, in: bytes) { jsonErrors[position] = error }
    }

    /// Makes room for `count` more events, `causes` of them with a cause, so that appending
    /// them grows no column: each is allocated once at its final size, not doubled as it fills.
    mutating func reserveCapacity(events count: Int, causes: Int) {
        let total = times.count + count
        if !sequencesAreConsecutive { sequences.reserveCapacity(total) }
        times.reserveCapacity(total)
        nodes.reserveCapacity(total)
        subscriptionPositions.reserveCapacity(total)
        threads.reserveCapacity(total)
        kinds.reserveCapacity(total)
        texts.reserveCapacity(total)
        jsons.reserveCapacity(total)
        causeStarts.reserveCapacity(total)
        causePool.reserveCapacity(causePool.count + causes)
    }

    /// Events appended together (`append(_:)`), their columns written one event at a time
    /// through unsafe buffers: each column of the trace is then grown and checked once for the
    /// whole batch, not at every event. Their sequence numbers follow one another from
    /// `firstSequence`; their value is an integer or none (`payload`, a number from
    /// `number(ofInteger:)`), with at most one cause.
    struct Batch {
        static let capacity = 512
        private(set) var count = 0
        private(set) var causeCount = 0
        var firstSequence: UInt64 = 0
        private let storage: UnsafeMutableRawPointer
        fileprivate let times: UnsafeMutablePointer<Int64>
        fileprivate let causes: UnsafeMutablePointer<UInt64>
        fileprivate let nodes: UnsafeMutablePointer<UInt32>
        fileprivate let subscriptions: UnsafeMutablePointer<UInt32>
        fileprivate let threads: UnsafeMutablePointer<UInt32>
        fileprivate let payloads: UnsafeMutablePointer<UInt32>
        /// Where each event's causes begin in `causes`.
        fileprivate let causeStarts: UnsafeMutablePointer<UInt32>
        fileprivate let kinds: UnsafeMutablePointer<UInt8>

        /// Room for `capacity` events; `deallocate()` it when done.
        init() {
            let n = Self.capacity
            storage = .allocate(byteCount: n * (8 + 8 + 5 * 4 + 1), alignment: 8)
            times = storage.bindMemory(to: Int64.self, capacity: n)
            causes = (storage + n * 8).bindMemory(to: UInt64.self, capacity: n)
            nodes = (storage + n * 16).bindMemory(to: UInt32.self, capacity: n)
            subscriptions = (storage + n * 20).bindMemory(to: UInt32.self, capacity: n)
            threads = (storage + n * 24).bindMemory(to: UInt32.self, capacity: n)
            payloads = (storage + n * 28).bindMemory(to: UInt32.self, capacity: n)
            causeStarts = (storage + n * 32).bindMemory(to: UInt32.self, capacity: n)
            kinds = (storage + n * 36).bindMemory(to: UInt8.self, capacity: n)
        }

        func deallocate() { storage.deallocate() }

        var isFull: Bool { count == Self.capacity }

        /// The node position of the event at `index` of the batch.
        func node(at index: Int) -> Int { Int(nodes[index]) }

        /// Empties the batch for events numbered from `first`.
        mutating func reset(firstSequence first: UInt64) {
            count = 0
            causeCount = 0
            firstSequence = first
        }

        /// Adds the next event (numbered `firstSequence + count`); `cause` 0 is none.
        @inline(__always)
        mutating func add(time: Int64, node: Int, subscription: Int, thread: Int, kind: EventKind, payload: UInt32,
                          cause: UInt64) {
            times[count] = time
            nodes[count] = UInt32(node)
            subscriptions[count] = UInt32(subscription)
            threads[count] = UInt32(thread)
            kinds[count] = kind.number
            payloads[count] = payload
            causeStarts[count] = UInt32(causeCount)
            if cause != 0 {
                causes[causeCount] = cause
                causeCount += 1
            }
            count += 1
        }
    }

    /// The number of the payload written as the digits of `integer` (numbered if new): an
    /// event of a `Batch` carries it as both its text and its JSON.
    mutating func number(ofInteger integer: Int64) -> UInt32 { payloads.number(of: integer) }

    /// Appends the events of `batch`, exactly as `append(sequence:time:node:…)` appends each.
    mutating func append(_ batch: Batch) {
        let count = batch.count
        guard count > 0 else { return }
        appendSequence(batch.firstSequence)
        if !sequencesAreConsecutive {
            sequences.append(contentsOf: batch.firstSequence + 1 ..< batch.firstSequence + UInt64(count))
        }
        times.append(contentsOf: UnsafeBufferPointer(start: batch.times, count: count))
        nodes.append(contentsOf: UnsafeBufferPointer(start: batch.nodes, count: count))
        subscriptionPositions.append(contentsOf: UnsafeBufferPointer(start: batch.subscriptions, count: count))
        threads.append(contentsOf: UnsafeBufferPointer(start: batch.threads, count: count))
        kinds.append(contentsOf: UnsafeBufferPointer(start: batch.kinds, count: count))
        texts.append(contentsOf: UnsafeBufferPointer(start: batch.payloads, count: count))
        jsons.append(contentsOf: UnsafeBufferPointer(start: batch.payloads, count: count))
        // The batch counts its causes from 0; the pool already holds some.
        let pooled = UInt32(causePool.count)
        for index in 0..<count { batch.causeStarts[index] += pooled }
        causeStarts.append(contentsOf: UnsafeBufferPointer(start: batch.causeStarts, count: count))
        causePool.append(contentsOf: UnsafeBufferPointer(start: batch.causes, count: batch.causeCount))
    }

    private mutating func intern(_ string: String?) -> UInt32 {
        guard var string else { return 0 }
        return string.withUTF8 { payloads.number(of: $0) }
    }

    private func string(_ number: UInt32) -> String? { payloads.string(number) }
}

// MARK: Events placed by a recorder as it records them

/// The events an in-memory recorder places as it records them, in the columns of the trace
/// the recording reads as (`Trace.init(header:recordedEvents:)`), so that the trace takes
/// them as they are. Node, subscription and thread are given as positions: a recorder's ids,
/// numbered 1, 2, 3, … in the order defined, less one.
///
/// The commonest event (an integer value or none, at most one cause, numbered one above the
/// one before) goes into a `TraceEvents.Batch` first, a store into each of its columns, and
/// the batch into the trace's columns when full: appending each event to each of the nine
/// columns in turn cost some 300 instructions an event (each append checks its array's
/// uniqueness and capacity), the batch about a tenth of that. `events` is whole after `flush()`.
package struct RecordedColumns {
    /// The events placed, but for those still in the batch (`flush()`).
    package private(set) var events = TraceEvents()
    /// Allocated at the first event, let go of by `release()`.
    private var batch: TraceEvents.Batch?

    package init() {}

    /// The events placed.
    package var count: Int { events.count + (batch?.count ?? 0) }

    /// Makes room for about `count` events, one cause each: the columns are allocated once,
    /// at that size, when a recording is expected to hold about that many.
    package mutating func reserve(_ count: Int) {
        events.reserveCapacity(events: count, causes: count)
    }

    /// Places an event with an integer value or none and at most one cause (0: none, else
    /// below `sequence`).
    package mutating func append(sequence: UInt64, time: Int64, node: Int, subscription: Int, thread: Int,
                                 kind: EventKind, cause: UInt64, integer: Int64?) {
        // In place, not copied out and back: a copy of the batch cost some 30 instructions an
        // event (callgrind).
        if batch == nil { batch = TraceEvents.Batch() }
        if batch.unsafelyUnwrapped.count != 0,
           sequence != batch.unsafelyUnwrapped.firstSequence &+ UInt64(batch.unsafelyUnwrapped.count) {
            flush()
        }
        if batch.unsafelyUnwrapped.count == 0 { batch!.reset(firstSequence: sequence) }
        let payload = integer.map { events.number(ofInteger: $0) } ?? 0
        batch!.add(time: time, node: node, subscription: subscription, thread: thread, kind: kind, payload: payload,
                   cause: cause)
        if batch.unsafelyUnwrapped.isFull { flush() }
    }

    /// Places the event a recorder wrote as `line` (its closing brace last, no newline),
    /// scanned as a reader scans it, so that its text, JSON and causes are exactly what the
    /// line reads as. False, with nothing placed, when `line` is not an event line as the
    /// writer writes it or names id 0.
    package mutating func append(line: UnsafeBufferPointer<UInt8>) -> Bool {
        var event = WrittenEvent()
        guard JSONParser.scanWrittenEvent(line, into: &event), event.node != 0, event.subscription != 0,
              event.thread != 0, event.node <= UInt32.max, event.subscription <= UInt32.max,
              event.thread <= UInt32.max else { return false }
        flush()
        events.append(&event, line, node: Int(event.node - 1), subscription: Int(event.subscription - 1),
                      thread: Int(event.thread - 1))
        return true
    }

    /// Moves the batch's events into `events`.
    package mutating func flush() {
        guard let batch, batch.count > 0 else { return }
        events.append(batch)
        self.batch!.reset(firstSequence: 0)
    }

    /// Lets go of the batch (the events stay): called once, when done placing.
    package mutating func release() {
        batch?.deallocate()
        batch = nil
    }
}

extension TraceEvents {
    /// The event at `position` of events a recorder placed (`RecordedColumns`) as its binary
    /// record: its ids are its positions plus one. Only for an event with an integer value or
    /// none and at most one cause, as `RecordedColumns.append(sequence:…)` takes.
    package func recordedBinaryEvent(at position: Int) -> BinaryEvent {
        BinaryEvent(sequence: sequence(at: position), time: times[position], node: UInt64(nodes[position]) + 1,
                    subscription: UInt64(subscriptionPositions[position]) + 1, kind: kind(at: position),
                    thread: UInt64(threads[position]) + 1, cause: firstCause(at: position) ?? 0,
                    integer: payloads.integer(jsons[position]))
    }

    /// Whether every event's node, subscription and thread position is within the trace's
    /// lists, and its sequence numbers ascend one by one.
    func recordedPositionsFit() -> Bool {
        guard sequencesAreConsecutive else { return false }
        func highest(_ column: [UInt32]) -> Int { Int(column.max() ?? 0) }
        return times.isEmpty || (highest(nodes) < nodeIDs.count && highest(subscriptionPositions) < subscriptionIDs.count
            && highest(threads) < threadIDs.count)
    }

    /// Calls `body` with each event's node position, in order, through one buffer.
    func forEachNodePosition(_ body: (Int, Int) -> Void) {
        nodes.withUnsafeBufferPointer { nodes in
            for position in nodes.indices { body(position, Int(nodes[position])) }
        }
    }
}
