import Foundation
import Signals
import TraceLog
import Synchronization

/// Records what instrumented streams report into a trace: attach it, run the pipeline,
/// stop it.
///
/// ```swift
/// try Recorder.record(to: url) { runPipeline() }
/// ```
///
/// The recorder renumbers nodes, subscriptions and threads to trace-local ids in the order it
/// first meets them, and writes a node's record (after its upstream nodes') the first time
/// the node is referenced, so two recordings of the same virtual-time run in one process are
/// byte-identical.
///
/// **Concurrency and memory.** Values are formatted on the calling thread, outside any lock;
/// then one short critical section assigns the sequence number, renumbers ids and appends the
/// formatted line to the buffer. One lock keeps sequence order and file order the same, so a
/// reader can rely on every id being defined before it is used. When the buffer holds
/// `bufferCapacity` bytes it is handed to the writer thread; a producer that fills the next
/// one while the writer is still writing the previous one waits for it: under an event flood
/// the recorder *blocks* producers rather than drop records or grow, so memory stays bounded
/// by two buffers. Records are dropped (and counted in the summary) only when the file cannot
/// be written.
///
/// **Crash safety.** A recorder writing to a file has a writer thread that appends what was
/// recorded, in whole lines, at least every `flushInterval` (100 ms by default) and at
/// `stop()`. A process killed mid-run (`kill -9`) loses at most the records of the last
/// interval; the file is readable up to its last whole line (the reader warns that the trace
/// was cut off).
public final class Recorder: Probe, @unchecked Sendable {
    /// Where the recorder's times come from.
    public enum Clock {
        /// Real time: monotonic nanoseconds from the start of the recording. The header
        /// carries the wall clock at the origin, the process and the host.
        case real
        /// Virtual time: the scheduler's `now`. The header carries no wall clock, host or
        /// process, so the file is deterministic.
        case virtual(TestScheduler)
    }

    /// Where the records go.
    private enum Sink {
        case file(Int32)
        case memory
    }

    /// The longest display string kept for a value, in characters.
    public static let maxTextLength = 120
    /// The largest JSON payload kept for a value, in bytes; larger ones are omitted (counted).
    public static let maxJSONLength = 64 << 10

    /// Bytes buffered before they are written out.
    public let bufferCapacity: Int
    /// The longest a record waits in memory before the writer thread appends it to the file:
    /// what a killed process can lose.
    public let flushInterval: Duration
    /// The path written, or nil for an in-memory recording.
    public let url: URL?

    private let clock: Clock
    /// For a virtual recording, the thread that started it: a virtual-time run is driven by
    /// one thread, and what other threads of the process do meanwhile (a live pipeline still
    /// winding down, another test) is not part of it and would make the bytes differ.
    /// Kept apart from `hot`: it is read without the lock by every probe call, and Swift
    /// tracks access to a pointee as a whole, so a field of `hot` would race with the locked
    /// writes to its neighbours.
    private var owner: pthread_t? {
        get { ownerSlot.pointee }
        set { ownerSlot.pointee = newValue }
    }
    private let ownerSlot: UnsafeMutablePointer<pthread_t?> = {
        let slot = UnsafeMutablePointer<pthread_t?>.allocate(capacity: 1)
        slot.initialize(to: nil)
        return slot
    }()
    private let sink: Sink
    private let origin: Int64
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// This recorder's number in the process: tells its entries in the per-thread cache
    /// (`ThreadInfo`) from those of an earlier recorder.
    private let serial = Recorder.serials.add(1, ordering: .relaxed).oldValue
    private static let serials = Atomic<UInt64>(1)
    /// In front of `nodeIDs` and `subscriptionIDs`, guarded by `mutex` like them.
    private let nodeCache = IDCache(capacity: 256)
    private let subscriptionCache = IDCache(capacity: 1024)

    /// The state every recorded event reads or writes, behind a pointer: a class's stored
    /// `var`s are checked for exclusive access at run time on every access (about a sixth of
    /// the recorder's instructions per event), a pointer's pointee is not.
    private let hot = UnsafeMutablePointer<HotState>.allocate(capacity: 1)
    private struct HotState {
        var buffer: [UInt8] = []
        var bufferedRecords: UInt64 = 0
        var stopped = false
        var sequence: UInt64 = 0
        var highWater = 0
    }

    // Everything below (and `hot`) is guarded by `mutex`.
    private var buffer: [UInt8] {
        get { hot.pointee.buffer }
        _modify { yield &hot.pointee.buffer }
    }
    private var bufferedRecords: UInt64 {
        get { hot.pointee.bufferedRecords }
        _modify { yield &hot.pointee.bufferedRecords }
    }
    private var stopped: Bool {
        get { hot.pointee.stopped }
        _modify { yield &hot.pointee.stopped }
    }
    private var sequence: UInt64 {
        get { hot.pointee.sequence }
        _modify { yield &hot.pointee.sequence }
    }
    private var highWater: Int {
        get { hot.pointee.highWater }
        _modify { yield &hot.pointee.highWater }
    }
    private var memory: [UInt8] = []
    /// The writer thread's hand-off (file recorders): a full buffer waiting to be written,
    /// the records it holds, and an empty buffer to swap in for it.
    private var pending: [UInt8]?
    private var pendingRecords: UInt64 = 0
    private var spare: [UInt8] = []
    /// Buffers handed to the writer and buffers it has written: `synchronize()` waits for
    /// the second to reach the first.
    private var handedOff: UInt64 = 0
    private var writtenOff: UInt64 = 0
    private var writerRunning = false
    /// Wakes the writer (a hand-off, a stop) and wakes waiters on the writer (space for a
    /// hand-off, a buffer written, the writer gone); both with `mutex`.
    private let writerWake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let writerDone = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var started = false
    private var nodeIDs: [UInt64: UInt64] = [:]
    private var nodesWritten: [(id: UInt64, node: Node, label: String?)] = []
    /// Live subscriptions only: an entry leaves when its subscription is disposed, so a long
    /// recording of many short inner streams does not grow this table.
    private var subscriptionIDs: [UInt64: UInt64] = [:]
    private var subscriptionCount: UInt64 = 0
    private var threadIDs: [ThreadKey: UInt64] = [:]
    private var lastThread: (key: ThreadKey, id: UInt64)?
    private var pendingHops: [UInt64: HopRecord] = [:]
    private var hopCount: UInt64 = 0
    private var nextHop: UInt64 = 0
    private var markCount: UInt64 = 0
    private var dropped: UInt64 = 0
    private var writeError: String?
    private var fileClosed = false
    /// The summary written at `stop()`, kept because the tables it counts are then released.
    private var finalSummary: SummaryRecord?

    /// A recorder writing to `url` (created or truncated now). Call `start()` to attach it.
    ///
    /// A writer thread, started by `start()`, appends the records to the file at least every
    /// `flushInterval` (at least a millisecond) and whenever `bufferCapacity` bytes are waiting.
    public init(to url: URL, clock: Clock = .real, bufferCapacity: Int = 256 << 10,
                flushInterval: Duration = .milliseconds(100)) throws {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw TraceError(file: url.path, line: 0, column: 0,
                             message: "cannot create the trace: \(String(cString: strerror(errno)))")
        }
        self.url = url
        self.sink = .file(fd)
        self.clock = clock
        self.bufferCapacity = max(bufferCapacity, 4096)
        self.flushInterval = max(flushInterval, .milliseconds(1))
        self.origin = Self.monotonic()
        hot.initialize(to: HotState())
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(writerWake, nil)
        pthread_cond_init(writerDone, nil)
    }

    /// A recorder keeping the trace in memory (unbounded: for tests and in-process tools).
    public init(clock: Clock, bufferCapacity: Int = 256 << 10) {
        self.url = nil
        self.sink = .memory
        self.clock = clock
        self.bufferCapacity = max(bufferCapacity, 4096)
        self.flushInterval = .zero
        self.origin = Self.monotonic()
        hot.initialize(to: HotState())
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(writerWake, nil)
        pthread_cond_init(writerDone, nil)
    }

    deinit {
        if case let .file(fd) = sink, !fileClosed { close(fd) }
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        pthread_cond_destroy(writerWake)
        writerWake.deallocate()
        pthread_cond_destroy(writerDone)
        writerDone.deallocate()
        hot.deinitialize(count: 1)
        hot.deallocate()
        ownerSlot.deinitialize(count: 1)
        ownerSlot.deallocate()
        nodeCache.deallocate()
        subscriptionCache.deallocate()
    }

    /// Records everything `body` makes happen into a new trace at `url`.
    @discardableResult
    public static func record<R>(to url: URL, clock: Clock = .real, _ body: () throws -> R) throws -> R {
        let recorder = try Recorder(to: url, clock: clock)
        recorder.start()
        let result: R
        do {
            result = try body()
        } catch {
            _ = try? recorder.stop()
            throw error
        }
        try recorder.stop()
        return result
    }

    /// Records everything `body` makes happen in virtual time on `scheduler` and returns the
    /// trace's bytes.
    public static func record(virtual scheduler: TestScheduler, _ body: () throws -> Void) rethrows -> [UInt8] {
        let recorder = Recorder(clock: .virtual(scheduler))
        recorder.start()
        // An in-memory recorder cannot fail to write; the defer also detaches it when `body` throws.
        defer { _ = try? recorder.stop() }
        try body()
        _ = try? recorder.stop()
        return recorder.bytes
    }

    /// A user's mark in the timeline of the recording attached now.
    public static func mark(_ label: String) {
        Instrumentation.mark(label)
    }

    /// Writes the header, starts the writer thread of a file recorder and attaches the
    /// recorder to the probe (replacing any other).
    public func start() {
        lock()
        if !started {
            started = true
            if case .virtual = clock { owner = pthread_self() }
            append(.header(makeHeader()))
            if case .file = sink {
                writerRunning = true
                let writer = Thread { [self] in runWriter() }
                writer.name = "marbles.recorder"
                writer.start()
            }
        }
        unlock()
        Instrumentation.attach(self)
    }

    /// Detaches the recorder, writes the closing summary and flushes. Later calls do nothing.
    /// Throws when the file could not be written (records were dropped).
    @discardableResult
    public func stop() throws -> SummaryRecord {
        Instrumentation.detach(self)
        lock()
        defer { unlock() }
        let summary = summaryRecord()
        guard started, !stopped else { return summary }
        stopped = true
        for hop in pendingHops.keys.sorted() {
            if let record = pendingHops[hop] { append(.hop(record)) }
        }
        hopCount += UInt64(pendingHops.count)
        pendingHops = [:]
        for written in nodesWritten {
            let label = written.node.label
            if label != written.label, let label {
                append(.label(LabelRecord(node: written.id, label: label)))
            }
        }
        let closing = summaryRecord()
        append(.summary(closing))
        flush()
        while writerRunning { pthread_cond_wait(writerDone, mutex) }
        if case let .file(fd) = sink {
            fsync(fd)
            close(fd)
            fileClosed = true
        }
        // The core keeps every probe it attached alive for the process, so a stopped
        // recorder lets go of everything but its result (and, in memory, the trace).
        finalSummary = SummaryRecord(events: closing.events, nodes: closing.nodes, subscriptions: closing.subscriptions,
                                     threads: closing.threads, hops: closing.hops, marks: closing.marks,
                                     dropped: dropped, duration: closing.duration)
        nodeIDs = [:]
        nodesWritten = []
        subscriptionIDs = [:]
        nodeCache.removeAll()
        subscriptionCache.removeAll()
        threadIDs = [:]
        lastThread = nil
        buffer = []
        if let writeError, let url {
            throw TraceError(file: url.path, line: 0, column: 0,
                             message: "could not write the trace (\(writeError)); \(dropped) records were dropped")
        }
        return finalSummary ?? closing
    }

    /// Writes buffered records out now, and returns when they are written.
    public func synchronize() {
        lock()
        flush()
        while writerRunning && writtenOff < handedOff { pthread_cond_wait(writerDone, mutex) }
        unlock()
    }

    /// The trace written so far, for an in-memory recorder (whole after `stop()`).
    public var bytes: [UInt8] {
        lock()
        defer { unlock() }
        return memory + buffer
    }

    /// The largest number of bytes the buffer held: bounded by `bufferCapacity` plus one record.
    public var bufferHighWater: Int {
        lock()
        defer { unlock() }
        return highWater
    }

    // MARK: Probe

    public func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64) {
        guard isRecordedThread else { return }
        let context = ProbeContext.current
        lock()
        defer { release() }
        guard !stopped else { return }
        let time = now()
        let thread = threadID(context)
        let nodeID = self.nodeID(node)
        let parentID = parent == 0 ? 0 : subscriptionCache.lookup(parent) ?? subscriptionIDs[parent] ?? 0
        subscriptionCount += 1
        let id = subscriptionCount
        subscriptionIDs[subscription] = id
        subscriptionCache.store(subscription, id)
        append(.subscribe(SubscriptionRecord(id: id, node: nodeID, parent: parentID, time: time, thread: thread)))
    }

    public func willSend(_ node: Node, subscription: UInt64, kind: EventKind, value: Any?, causes: Causes) -> UInt64 {
        guard isRecordedThread else { return 0 }
        let context = ProbeContext.current
        let formatted = value.map(Self.format)
        lock()
        defer { release() }
        sequence += 1
        guard !stopped else { return sequence }
        let time = now()
        let thread = threadID(context)
        let subscriptionID = self.subscriptionID(subscription, node: node, time: time, thread: thread)
        let nodeID = self.nodeID(node)
        if causes.others.isEmpty {
            switch formatted {
            case nil:
                appendEvent(node: nodeID, subscription: subscriptionID, kind: kind, time: time, thread: thread,
                            cause: causes.primary, integer: nil)
                return sequence
            case let .integer(integer):
                appendEvent(node: nodeID, subscription: subscriptionID, kind: kind, time: time, thread: thread,
                            cause: causes.primary, integer: integer)
                return sequence
            default:
                break
            }
        }
        var line = JSONLine(capacity: 0)
        swap(&line.bytes, &buffer)
        line.begin()
        line.writeEventFields(sequence: sequence, time: time, node: nodeID, subscription: subscriptionID, kind: kind,
                              thread: thread, causes: { $0.causesField(primary: causes.primary, others: causes.others, below: sequence) },
                              value: { line in formatted?.write(to: &line) })
        line.end()
        swap(&line.bytes, &buffer)
        appended()
        return sequence
    }

    public func didDispose(_ node: Node, subscription: UInt64) {
        guard isRecordedThread else { return }
        let context = ProbeContext.current
        lock()
        defer { release() }
        guard !stopped else { return }
        let time = now()
        let thread = threadID(context)
        let id = subscriptionID(subscription, node: node, time: time, thread: thread)
        subscriptionIDs[subscription] = nil
        subscriptionCache.remove(subscription)
        append(.dispose(DisposeRecord(subscription: id, time: time, thread: thread)))
    }

    public func hopEnqueued(_ node: Node?, subscription: UInt64, scheduler: String) -> UInt64 {
        guard isRecordedThread else { return 0 }
        let context = ProbeContext.current
        lock()
        defer { release() }
        nextHop += 1
        let id = nextHop
        guard !stopped else { return id }
        let time = now()
        let thread = threadID(context)
        let nodeID = node.map(self.nodeID) ?? 0
        let subscriptionID = node.map { self.subscriptionID(subscription, node: $0, time: time, thread: thread) } ?? 0
        pendingHops[id] = HopRecord(id: id, node: nodeID, subscription: subscriptionID, scheduler: scheduler,
                                    enqueued: time, from: thread)
        return id
    }

    public func hopStarted(_ hop: UInt64) {
        guard isRecordedThread else { return }
        let context = ProbeContext.current
        lock()
        defer { release() }
        guard !stopped, var record = pendingHops.removeValue(forKey: hop) else { return }
        record.started = now()
        record.to = threadID(context)
        hopCount += 1
        append(.hop(record))
    }

    public func mark(_ label: String) {
        guard isRecordedThread else { return }
        let context = ProbeContext.current
        lock()
        defer { release() }
        guard !stopped else { return }
        markCount += 1
        append(.mark(MarkRecord(time: now(), thread: threadID(context), label: label)))
    }

    /// Whether the calling thread's activity belongs in this recording: any thread for a real
    /// one, the starting thread for a virtual one. `owner` is set once, before attaching.
    @inline(__always) private var isRecordedThread: Bool {
        guard let owner else { return true }
        return pthread_equal(owner, pthread_self()) != 0
    }

    // MARK: Internals (called with the lock held)

    @inline(__always) private func lock() { pthread_mutex_lock(mutex) }
    @inline(__always) private func unlock() { pthread_mutex_unlock(mutex) }

    private func append(_ record: TraceRecord) {
        var line = JSONLine(capacity: 0)
        swap(&line.bytes, &buffer)
        record.write(to: &line)
        swap(&line.bytes, &buffer)
        appended()
    }

    /// Bookkeeping after a record was appended to the buffer: counts, high water.
    private func appended() {
        bufferedRecords += 1
        highWater = max(highWater, buffer.count)
    }

    /// Ends a probe call: moves a full buffer on, then unlocks. A full buffer is moved only
    /// here, once the call's records are all appended, because moving it may wait for the
    /// writer and so let other producers in.
    @inline(__always) private func release() {
        if buffer.count >= bufferCapacity { flush(onlyWhenFull: true) }
        unlock()
    }

    /// Appends an event record with at most one cause and an integer value or none, the
    /// commonest shape, assembled on the stack and appended in one piece: the same bytes as
    /// `writeEventFields`, without an `Array.append` per key.
    private func appendEvent(node: UInt64, subscription: UInt64, kind: EventKind, time: Int64, thread: UInt64,
                             cause: UInt64, integer: Int64?) {
        // Seven numbers of at most 20 digits and a minus sign each, and under 130 bytes of keys.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 320) { scratch in
            var out = EventBytes(scratch.baseAddress!)
            out.literal("{\"type\":\"event\",\"seq\":")
            out.number(sequence)
            out.literal(",\"time\":")
            out.signed(time)
            out.literal(",\"node\":")
            out.number(node)
            out.literal(",\"sub\":")
            out.number(subscription)
            switch kind {
            case .value: out.literal(",\"kind\":\"value\",\"thread\":")
            case .failed: out.literal(",\"kind\":\"failed\",\"thread\":")
            case .completed: out.literal(",\"kind\":\"completed\",\"thread\":")
            case .interrupted: out.literal(",\"kind\":\"interrupted\",\"thread\":")
            }
            out.number(thread)
            out.literal(",\"causes\":[")
            // As `causesField`: a cause not below this event's number is left over from an earlier recording.
            if cause != 0 && cause < sequence { out.number(cause) }
            out.literal("]")
            if let integer {
                out.literal(",\"text\":\"")
                out.signed(integer)
                out.literal("\",\"json\":")
                out.signed(integer)
            }
            out.literal("}\n")
            buffer.append(contentsOf: UnsafeBufferPointer(start: scratch.baseAddress, count: out.count(from: scratch.baseAddress!)))
        }
        appended()
    }

    /// Moves the buffer on: into the in-memory trace, or to the writer thread of a file
    /// recorder, first waiting for the writer to take the buffer handed to it before (the
    /// back-pressure that bounds memory). Called with the lock held; may wait on it.
    private func flush(onlyWhenFull: Bool = false) {
        guard !buffer.isEmpty else { return }
        switch sink {
        case .memory:
            memory.append(contentsOf: buffer)
            buffer.removeAll(keepingCapacity: true)
        case .file:
            guard writerRunning else {
                // Nothing will write it: only after a stop, when nothing is recorded any more.
                dropped += bufferedRecords
                buffer.removeAll(keepingCapacity: true)
                bufferedRecords = 0
                return
            }
            while pending != nil { pthread_cond_wait(writerDone, mutex) }
            // Another producer may have handed the buffer off while this one waited.
            guard onlyWhenFull ? buffer.count >= bufferCapacity : !buffer.isEmpty else { return }
            var next = spare
            spare = []
            swap(&next, &buffer)
            pending = next
            pendingRecords = bufferedRecords
            handedOff += 1
            pthread_cond_signal(writerWake)
        }
        bufferedRecords = 0
    }

    /// The writer thread: appends the buffers handed to it, and every `flushInterval` takes
    /// whatever the buffer holds, until the recorder stops and everything is written. The
    /// buffer only ever holds whole lines, so the file does too.
    private func runWriter() {
        guard case let .file(fd) = sink else { return }
        lock()
        while true {
            if pending == nil {
                if stopped && buffer.isEmpty { break }
                if !stopped { waitForWriterWork() }
                if pending == nil && !buffer.isEmpty {
                    pending = buffer
                    pendingRecords = bufferedRecords
                    buffer = spare
                    spare = []
                    bufferedRecords = 0
                    handedOff += 1
                }
                guard pending != nil else { continue }
            }
            var chunk = pending ?? []
            let records = pendingRecords
            pending = nil
            pthread_cond_broadcast(writerDone)
            let failed = writeError != nil
            unlock()
            let failure = failed ? nil : Self.writeAll(chunk, to: fd)
            lock()
            if let failure, writeError == nil { writeError = failure }
            if writeError != nil { dropped += records }
            chunk.removeAll(keepingCapacity: true)
            if spare.capacity < chunk.capacity { spare = chunk }
            writtenOff += 1
            pthread_cond_broadcast(writerDone)
        }
        writerRunning = false
        pthread_cond_broadcast(writerDone)
        unlock()
    }

    /// Waits (lock held) until a buffer is handed off, the recorder stops, or `flushInterval`
    /// passes.
    private func waitForWriterWork() {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let (seconds, attoseconds) = flushInterval.components
        var nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
        var deadline = timespec()
        deadline.tv_sec = now.tv_sec + Int(seconds) + nanoseconds / 1_000_000_000
        nanoseconds %= 1_000_000_000
        deadline.tv_nsec = nanoseconds
        pthread_cond_timedwait(writerWake, mutex, &deadline)
    }

    /// Writes all of `bytes`; the reason when the file cannot be written.
    private static func writeAll(_ bytes: [UInt8], to fd: Int32) -> String? {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                offset += written
            }
            return nil
        }
    }

    private func now() -> Int64 {
        switch clock {
        case .real: return Self.monotonic() - origin
        case let .virtual(scheduler): return scheduler.now
        }
    }

    private static func monotonic() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    private var isVirtual: Bool {
        if case .virtual = clock { return true }
        return false
    }

    private func makeHeader() -> TraceHeader {
        guard !isVirtual else { return TraceHeader(clock: .virtual) }
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let wall = Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
        let elapsed = Self.monotonic() - origin
        return TraceHeader(clock: .real, wallClock: Self.iso8601(nanoseconds: wall - elapsed),
                           wallClockNanoseconds: wall - elapsed, pid: Int64(getpid()),
                           process: ProcessInfo.processInfo.processName, host: Self.hostName())
    }

    private static func hostName() -> String {
        var raw = [CChar](repeating: 0, count: 256)
        guard gethostname(&raw, raw.count - 1) == 0 else { return "unknown" }
        return String(cString: raw)
    }

    /// `2026-11-21T22:36:04.123456789Z`.
    static func iso8601(nanoseconds: Int64) -> String {
        var seconds = time_t(nanoseconds / 1_000_000_000)
        let fraction = nanoseconds % 1_000_000_000
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))T"
            + "\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2))."
            + "\(pad(Int(fraction), 9))Z"
    }

    private func nodeID(_ node: Node) -> UInt64 {
        if let id = nodeCache.lookup(node.id) { return id }
        if let id = nodeIDs[node.id] {
            nodeCache.store(node.id, id)
            return id
        }
        var upstream: [NodeRecord.Edge] = []
        for edge in node.upstream {
            upstream.append(.init(node: nodeID(edge.node), role: edge.role))
        }
        let id = UInt64(nodeIDs.count + 1)
        nodeIDs[node.id] = id
        nodeCache.store(node.id, id)
        let label = node.label
        nodesWritten.append((id, node, label))
        append(.node(NodeRecord(id: id, kind: node.kind, name: node.name, parameters: node.parameters,
                                file: node.file, line: UInt64(node.line), label: label, upstream: upstream)))
        return id
    }

    /// The trace id of a subscription, writing a late subscription record for one that began
    /// before the recording.
    private func subscriptionID(_ subscription: UInt64, node: Node, time: Int64, thread: UInt64) -> UInt64 {
        if let id = subscriptionCache.lookup(subscription) { return id }
        if let id = subscriptionIDs[subscription] {
            subscriptionCache.store(subscription, id)
            return id
        }
        let nodeID = self.nodeID(node)
        subscriptionCount += 1
        let id = subscriptionCount
        subscriptionIDs[subscription] = id
        subscriptionCache.store(subscription, id)
        append(.subscribe(SubscriptionRecord(id: id, node: nodeID, parent: 0, time: time, thread: thread, late: true)))
        return id
    }

    private func threadID(_ context: ProbeContext) -> UInt64 {
        let info = ThreadInfo.current
        // The thread's last answer, kept on the thread: no key built, no hashing. Only this
        // thread touches its `ThreadInfo`, so the lock is not what makes this safe.
        if info.cachedRecorder == serial && info.cachedScheduler == context.schedulerName { return info.cachedID }
        let id = threadID(info, context)
        info.cachedRecorder = serial
        info.cachedScheduler = context.schedulerName
        info.cachedID = id
        return id
    }

    private func threadID(_ info: ThreadInfo, _ context: ProbeContext) -> UInt64 {
        let key: ThreadKey
        if isVirtual {
            key = ThreadKey(os: 0, name: context.schedulerName ?? info.name, scheduler: nil)
        } else {
            key = ThreadKey(os: info.tid, name: info.name, scheduler: context.schedulerName)
        }
        if let last = lastThread, last.key == key { return last.id }
        let id: UInt64
        if let known = threadIDs[key] {
            id = known
        } else {
            id = UInt64(threadIDs.count + 1)
            threadIDs[key] = id
            append(.thread(ThreadRecord(id: id, name: key.name, scheduler: key.scheduler,
                                        os: isVirtual ? nil : key.os)))
        }
        lastThread = (key, id)
        return id
    }

    private func summaryRecord() -> SummaryRecord {
        if let finalSummary { return finalSummary }
        return SummaryRecord(events: sequence, nodes: UInt64(nodeIDs.count), subscriptions: subscriptionCount,
                      threads: UInt64(threadIDs.count), hops: hopCount, marks: markCount, dropped: dropped,
                      duration: started ? now() : 0)
    }

    // MARK: Values

    /// A value made ready to write. Integers and strings, the most common values, are kept
    /// as they are and written straight into the buffer (no intermediate strings).
    enum FormattedValue {
        case integer(Int64)
        case string(String)
        case other(text: String, json: String?)

        /// Writes `text`, `truncated`, `json` and `jsonOmitted` as FORMAT.md orders them.
        func write(to line: inout JSONLine) {
            switch self {
            case let .integer(value):
                line.field("text", decimal: value)
                line.field("json", value)
            case let .string(string):
                writeText(string, to: &line)
                let size = string.utf8.count
                if size > Recorder.maxJSONLength {
                    line.field("jsonOmitted", Int64(size))
                } else {
                    line.field("json", string)
                }
            case let .other(text, json):
                writeText(text, to: &line)
                guard let json else { return }
                if json.utf8.count > Recorder.maxJSONLength {
                    line.field("jsonOmitted", Int64(json.utf8.count))
                } else {
                    line.field("json", rawJSON: json)
                }
            }
        }

        private func writeText(_ text: String, to line: inout JSONLine) {
            // At most maxTextLength bytes means at most that many characters: no counting.
            if text.utf8.count <= Recorder.maxTextLength || text.count <= Recorder.maxTextLength {
                line.field("text", text)
            } else {
                line.field("text", String(text.prefix(Recorder.maxTextLength)) + "…")
                line.field("truncated", true)
            }
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The value ready to write: fast paths for the common scalar types; other `Encodable`
    /// values through `JSONEncoder` with sorted keys; anything else as its description only.
    static func format(_ value: Any) -> FormattedValue {
        // Exactly an `Int` is told by comparing type metadata, where `as? Int` on an `Any` goes
        // through the runtime's general cast (about 260 instructions per recorded event).
        func exactInteger<T>(_ value: T) -> Int64? {
            T.self == Int.self ? Int64(unsafeBitCast(value, to: Int.self)) : nil
        }
        if let integer = _openExistential(value, do: exactInteger) { return .integer(integer) }
        switch value {
        case let integer as Int:
            return .integer(Int64(integer))
        case let string as String:
            return .string(string)
        case let double as Double:
            let text = String(double)
            return .other(text: text, json: double.isFinite ? text : nil)
        case let bool as Bool:
            let text = bool ? "true" : "false"
            return .other(text: text, json: text)
        case let encodable as Encodable:
            let json = (try? encoder.encode(encodable)).map { String(decoding: $0, as: UTF8.self) }
            return .other(text: String(describing: value), json: json)
        default:
            return .other(text: String(describing: value), json: nil)
        }
    }
}

/// A thread as the trace names it.
private struct ThreadKey: Hashable {
    let os: UInt64
    let name: String
    let scheduler: String?
}

/// The OS thread id and name of the current thread, looked up once per thread.
private final class ThreadInfo {
    let tid: UInt64
    let name: String
    /// The `serial` of the recorder that last numbered this thread, the scheduler name it
    /// was numbered under, and the id it got.
    var cachedRecorder: UInt64 = 0
    var cachedScheduler: String?
    var cachedID: UInt64 = 0

    // Swift cannot call `gettid` or `pthread_getname_np` from Glibc (GNU extensions), so the
    // id and name come from `/proc/thread-self/stat`: "TID (NAME) ...", read once per thread.
    private init() {
        var tid: UInt64 = 0
        var osName = ""
        let fd = open("/proc/thread-self/stat", O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            var raw = [UInt8](repeating: 0, count: 256)
            let count = read(fd, &raw, raw.count)
            close(fd)
            if count > 0 {
                let text = String(decoding: raw[0..<count], as: UTF8.self)
                if let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")"), open < close {
                    tid = UInt64(text[..<open].trimmingCharacters(in: .whitespaces)) ?? 0
                    osName = String(text[text.index(after: open)..<close])
                }
            }
        }
        self.tid = tid
        if Thread.isMainThread {
            name = "main"
        } else {
            name = osName.isEmpty ? "thread-\(tid)" : osName
        }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<ThreadInfo>.fromOpaque(pointer).release() }
        }
        return key
    }()

    static var current: ThreadInfo {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<ThreadInfo>.fromOpaque(pointer).takeUnretainedValue()
        }
        let info = ThreadInfo()
        pthread_setspecific(key, Unmanaged.passRetained(info).toOpaque())
        return info
    }
}

/// Writes ASCII into memory the caller sized: the recorder's event fast path.
private struct EventBytes {
    private var cursor: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) { cursor = start }

    /// Bytes written since `start`.
    func count(from start: UnsafeMutablePointer<UInt8>) -> Int { cursor - start }

    /// A literal of two or more characters (always stored as a pointer to its UTF-8).
    @inline(__always) mutating func literal(_ text: StaticString) {
        let length = text.utf8CodeUnitCount
        cursor.update(from: text.utf8Start, count: length)
        cursor += length
    }

    @inline(__always) mutating func number(_ value: UInt64) {
        cursor += JSONLine.digits(value, to: cursor)
    }

    @inline(__always) mutating func signed(_ value: Int64) {
        if value < 0 {
            cursor.pointee = UInt8(ascii: "-")
            cursor += 1
        }
        number(value.magnitude)
    }
}

/// A direct-mapped cache from process-wide ids (of nodes, of subscriptions) to trace-local
/// ones, in front of the recorder's dictionaries: a load and a compare where a lookup would
/// hash. Each slot keeps the last key stored into it; the dictionaries stay the record.
private struct IDCache {
    private let mask: Int
    /// Pairs of key and trace id; a trace id is never 0, so 0 marks an empty slot.
    private let slots: UnsafeMutablePointer<UInt64>

    /// `capacity` must be a power of two.
    init(capacity: Int) {
        mask = capacity - 1
        slots = .allocate(capacity: 2 * capacity)
        slots.initialize(repeating: 0, count: 2 * capacity)
    }

    @inline(__always) private func index(_ key: UInt64) -> Int {
        2 * (Int(truncatingIfNeeded: key) & mask)
    }

    @inline(__always) func lookup(_ key: UInt64) -> UInt64? {
        let slot = index(key)
        let id = slots[slot + 1]
        return slots[slot] == key && id != 0 ? id : nil
    }

    @inline(__always) func store(_ key: UInt64, _ id: UInt64) {
        let slot = index(key)
        slots[slot] = key
        slots[slot + 1] = id
    }

    func remove(_ key: UInt64) {
        let slot = index(key)
        if slots[slot] == key {
            slots[slot] = 0
            slots[slot + 1] = 0
        }
    }

    func removeAll() {
        slots.update(repeating: 0, count: 2 * (mask + 1))
    }

    func deallocate() {
        slots.deallocate()
    }
}
