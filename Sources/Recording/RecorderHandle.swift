import Foundation
import Signals
import TraceLog

/// Records what instrumented streams report into a trace: attach it, run the pipeline,
/// stop it.
///
/// ```swift
/// let live = LiveEnvironment()
/// try Recorder.record(to: URL(fileURLWithPath: "traces/count.trace")) {
///     let doubled = live.input("count", of: Int.self).map { $0 * 2 }.observeValues { print($0) }
///     try live.send(3, to: "count")
///     live.completeInputs()
///     doubled?.dispose()
/// }
/// ```
///
/// The recorder renumbers nodes, subscriptions and threads to trace-local ids in the order it
/// first meets them, and writes a node's record (after its upstream nodes') the first time
/// the node is referenced, so two recordings of the same virtual-time run in one process are
/// byte-identical.
///
/// **Values.** In a live recording to a file the sending thread formats nothing: a thread that
/// knows the event's ids appends the event and a copy of its value, whatever its type, to a
/// ring of its own without a lock, numbered by an atomic counter, and the writer thread makes
/// the value's text (`String(describing:)`) and JSON (`Encodable`) when it writes the line.
/// So a value slow or large to describe or encode costs the writer, not the sender; and a
/// huge one costs a scan, not a copy: its JSON past `maxJSONLength` is measured without being
/// written (`jsonOmitted` gives its size), and its text is described only as far as the first
/// `maxTextLength` characters need (a struct's fields, an array's elements and a string's
/// characters past a few kilobytes are not visited for it). A value
/// type's copy cannot change meanwhile; an object, or a value holding one, is kept alive until
/// written and shows what it holds *when written*, within `flushInterval` of the send: a
/// mutation made in between shows in the trace (send a value type, or a copy of the object's
/// state, to record the state at the send). The first event a thread sends for a subscription
/// (which teaches the thread's ring its ids) and an event with several causes are formatted on
/// the sending thread, as is every value of an in-memory or virtual-time recording (which has
/// no writer thread; a virtual recording's times do not move with it).
///
/// **Concurrency and memory.** Any record that does not take a thread's ring goes through one
/// short critical section that renumbers ids and
/// appends it to the shared buffer, marked with the last sequence number given. The writer
/// merges rings and buffer in sequence order (a virtual or in-memory recording has no rings:
/// its file order is its lock order), so a reader can rely on every id being defined before it
/// is used and on causes across threads. When the buffer holds `bufferCapacity` bytes it is
/// handed to the writer thread; a producer that fills the next one, or its ring, while the
/// writer is still behind waits for it: under an event flood, or values the writer is slow to
/// format, the recorder *blocks* producers rather than drop records or grow, so memory stays
/// bounded by two buffers and one ring of `bufferCapacity` bytes per live recording thread
/// (plus what the values in a ring hold: a value wider than a slot's 48 bytes is copied into
/// memory of its own until written) (the ring of a thread that ended is let
/// go once the writer has drained it). Records are dropped (and counted in the
/// summary) only when the file cannot be written.
///
/// **Crash safety.** A recorder writing to a file has a writer thread that appends what was
/// recorded, in whole lines, at least every `flushInterval` (100 ms by default) and at
/// `stop()`. A process killed mid-run (`kill -9`) loses at most the records of the last
/// interval; the file is readable up to its last whole line (the reader warns that the trace
/// was cut off).
///
/// **Lifetime.** The recorder is a handle on what records (its core, which the probe set holds
/// strongly, so an event costs no `weak` load): releasing the handle stops a recording still
/// running, and a stopped recorder keeps nothing but its result (and, in memory, the trace)
/// while the handle lives.
public final class Recorder: Probe, @unchecked Sendable {  // immutable; the core guards its own state
    /// Where the recorder's times come from.
    ///
    /// ```swift
    /// let scheduler = TestScheduler()
    /// let recorder = Recorder(clock: .virtual(scheduler))   // times are the scheduler's: deterministic
    /// recorder.start()
    /// SignalProducer(value: 1).delay(1, on: scheduler).start()
    /// scheduler.run()
    /// _ = try recorder.stop()
    /// let trace = recorder.bytes   // a virtual trace, the same bytes every run
    /// ```
    public enum Clock {
        /// Real time: monotonic nanoseconds from the start of the recording. The header
        /// carries the wall clock at the origin, the process and the host.
        case real
        /// Virtual time: the scheduler's `now`. The header carries no wall clock, host or
        /// process, so the file is deterministic.
        case virtual(TestScheduler)
    }

    /// The longest display string kept for a value, in characters.
    public static let maxTextLength = 120
    /// The largest JSON payload kept for a value, in bytes; larger ones are omitted (counted).
    public static let maxJSONLength = 64 << 10

    let core: RecorderCore

    /// Bytes buffered before they are written out.
    public var bufferCapacity: Int { core.bufferCapacity }
    /// The longest a record waits in memory before the writer thread appends it to the file:
    /// what a killed process can lose.
    public var flushInterval: Duration { core.flushInterval }
    /// The path written, or nil for an in-memory recording.
    public var url: URL? { core.url }

    /// A recorder writing to `url`. Call `start()` to attach it.
    ///
    /// A regular file already at `url` is replaced only when the recording stops: until then
    /// the recorder writes a temporary file beside it (`.NAME.marbles-XXXXXXXX`), so a process
    /// killed while recording leaves the earlier file whole, and its own partial trace in that
    /// file, readable up to its last flush. A new file (or a device or pipe) is written in
    /// place from the start.
    ///
    /// A writer thread, started by `start()`, appends the records to the file at least every
    /// `flushInterval` (at least a millisecond) and whenever `bufferCapacity` bytes are waiting.
    ///
    /// `encoding` is the file's (FORMAT.md); by default it goes by the name: the binary
    /// encoding for a `.mtrace` file, JSON Lines for any other. JSON Lines is the open format,
    /// read by people and by any JSON tool, and the one goldens and reviews use; the binary
    /// encoding is for long or busy live recordings: its writer formats no text but the values,
    /// so it keeps up with faster senders, and its files are smaller. Every verb reads both,
    /// and `marbles convert` turns one into the other.
    ///
    /// ```swift
    /// let recorder = try Recorder(to: URL(fileURLWithPath: "traces/burst.mtrace"))   // binary
    /// recorder.start()
    /// try recorder.stop()
    /// ```
    public init(to url: URL, clock: Clock = .real, bufferCapacity: Int = 256 << 10,
                flushInterval: Duration = .milliseconds(100), encoding: TraceEncoding? = nil) throws {
        core = try RecorderCore(to: url, clock: clock, bufferCapacity: bufferCapacity, flushInterval: flushInterval,
                                encoding: encoding)
    }

    /// A recorder writing to the file at `path`, its bytes used as given (a name that is not
    /// UTF-8 too), as `init(to:)` writes to a URL's; `url` is what its `url` and messages show.
    package init(to path: PathName, url: URL, clock: Clock = .real) throws {
        core = try RecorderCore(to: path, url: url, clock: clock)
    }

    /// A recorder writing to `descriptor`, a file its caller has already opened (and the
    /// recorder now owns and closes at stop), known to the user as `url`. The command line
    /// records into files it made itself this way: opening them again by path could make a
    /// file anew that an interruption had just removed.
    package init(writingTo descriptor: Int32, url: URL, clock: Clock = .real, bufferCapacity: Int = 256 << 10,
                 flushInterval: Duration = .milliseconds(100)) {
        core = RecorderCore(descriptor: descriptor, url: url, clock: clock, bufferCapacity: bufferCapacity,
                            flushInterval: flushInterval)
    }

    /// A live recorder writing to `url` whose threads' events are stamped by `clock_gettime`
    /// when `counterClock` is false, even where the CPU's time-stamp counter would stamp them
    /// (for tests of both clocks).
    package init(to url: URL, bufferCapacity: Int = 256 << 10, flushInterval: Duration = .milliseconds(100),
                 counterClock: Bool) throws {
        core = try RecorderCore(to: url, bufferCapacity: bufferCapacity, flushInterval: flushInterval,
                                counterClock: counterClock)
    }

    /// A recorder keeping the trace in memory (unbounded: for tests and in-process tools).
    public init(clock: Clock, bufferCapacity: Int = 256 << 10) {
        core = RecorderCore(clock: clock, bufferCapacity: bufferCapacity)
    }

    deinit {
        core.abandon()
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
    /// recorder to the probe (beside any others).
    public func start() {
        core.start()
    }

    /// Detaches the recorder, writes the closing summary and flushes. Later calls do nothing.
    /// Throws when the file could not be written (records were dropped).
    @discardableResult
    public func stop() throws -> SummaryRecord {
        try core.stop()
    }

    /// Writes buffered records out now, and returns when they are written.
    public func synchronize() {
        core.synchronize()
    }

    /// The per-thread rings a live recording to a file holds now (for tests of its memory).
    package var ringCount: Int {
        core.lock()
        defer { core.unlock() }
        return core.ringList.count
    }

    /// The trace written so far, for an in-memory recorder (whole after `stop()`).
    public var bytes: [UInt8] { core.bytes }

    /// The trace an in-memory recorder recorded, as `Trace(bytes: bytes, name: name)` reads it;
    /// once stopped, built from the records without formatting its events (see `RecorderCore`).
    package func trace(name: String) throws -> Trace { try core.trace(name: name) }

    /// `trace(name:)` as built from the event columns placed while recording, nil where it
    /// would be read from the bytes instead (for tests: that the columns are taken).
    package func placedTrace(name: String) throws -> Trace? {
        core.lock()
        defer { core.unlock() }
        return try core.placedTrace(name: name)
    }

    /// Makes room for about `count` events in an in-memory recording, so that its columns are
    /// allocated once rather than doubled as they fill (a replay expects as many events as
    /// the trace it replays holds).
    package func reserveEvents(_ count: Int) { core.reserveEvents(count) }

    /// The largest number of bytes the buffer held: bounded by `bufferCapacity` plus one record.
    public var bufferHighWater: Int { core.bufferHighWater }

    // MARK: Probe (what the core hears when it is attached; for a probe that forwards to a recorder)

    /// A recorder numbers events: its sequence numbers are the causes other probes see.
    public var numbersEvents: Bool { true }

    public func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64) {
        core.didSubscribe(node, subscription: subscription, parent: parent)
    }

    /// Writes the request into the subscription record (`request`, format 1.1), as JSON with
    /// sorted keys; a request that does not encode is left out.
    public func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64, request: Any) {
        core.didSubscribe(node, subscription: subscription, parent: parent, request: request)
    }

    /// Writes what the subscription observes and what observes it into its record: a probe
    /// that wraps a recorder (a replay keeping hop waits, `HopNotingProbe`) passes them on
    /// through here, where the protocol's default would drop them.
    public func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64, request: Any?,
                             observes: [UInt64], observedBy: [UInt64]) {
        core.didSubscribe(node, subscription: subscription, parent: parent, request: request,
                          observes: observes, observedBy: observedBy)
    }

    public func willSend(_ node: Node, subscription: UInt64, kind: EventKind, value: Any?, causes: Causes) -> UInt64 {
        core.willSend(node, subscription: subscription, kind: kind, value: value, causes: causes)
    }

    public func willSend<Value>(_ node: Node, subscription: UInt64, kind: EventKind, value: UnsafePointer<Value>?,
                                context: ProbeContext) -> UInt64 {
        core.willSend(node, subscription: subscription, kind: kind, value: value, context: context)
    }

    public func didDispose(_ node: Node, subscription: UInt64) {
        core.didDispose(node, subscription: subscription)
    }

    public func hopEnqueued(_ node: Node?, subscription: UInt64, scheduler: String) -> UInt64 {
        core.hopEnqueued(node, subscription: subscription, scheduler: scheduler)
    }

    public func timerArmed(_ node: Node, subscription: UInt64, scheduler: String, delay: Int64) -> UInt64 {
        core.timerArmed(node, subscription: subscription, scheduler: scheduler, delay: delay)
    }

    public func hopStarted(_ hop: UInt64) {
        core.hopStarted(hop)
    }

    /// Records operator timers (`HopRecord.due`) in virtual time too, as a live recording
    /// always does: for tests of what a replay makes of a timer that ran late. Set before
    /// `start()`.
    package var recordsTimersInVirtualTime: Bool {
        get { core.recordsTimersInVirtualTime }
        set { core.recordsTimersInVirtualTime = newValue }
    }

    public func mark(_ label: String) {
        core.mark(label)
    }
}

extension Recorder: ProbeStandIn {
    package var standsFor: Probe { core }
}

extension Recorder {
    /// A call's request as JSON, as a subscription record holds it (sorted keys,
    /// `JSONEncoder`'s bytes), made by `DirectJSONEncoder`: a big request costs one buffer of
    /// its size, not `JSONEncoder`'s tree of boxed values. Nil when it does not encode. A
    /// replay encodes the requests it is asked for the same way, to find them among the
    /// recorded ones.
    package static func requestJSON(_ request: some Encodable) -> String? {
        guard case let .success(.json(json)) = RecorderCore.json(of: request, limit: .max) else { return nil }
        return json
    }
}
