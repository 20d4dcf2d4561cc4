import Foundation
import Signals
import TraceLog
import Synchronization
import Locks

/// What a `Recorder` is made of, and what is attached as the probe: everything but the
/// handle. The probe set holds it strongly (no `weak` load per event), until the set is
/// replaced and no thread reads it any more (`Instrumentation`'s reclamation), which may be
/// after `stop()`; so a stopped core lets go of every table, buffer and recorded byte it holds
/// and only its small shell stays until it is freed; the handle stops it when released.
final class RecorderCore: Probe, @unchecked Sendable {
    typealias Clock = Recorder.Clock

    /// Where the records go.
    enum Sink {
        case file(Int32)
        case memory
    }

    /// Bytes buffered before they are written out.
    let bufferCapacity: Int
    /// The longest a record waits in memory before the writer thread appends it to the file:
    /// what a killed process can lose.
    let flushInterval: Duration
    /// The path written, or nil for an in-memory recording.
    let url: URL?

    let clock: Clock
    /// A virtual clock's scheduler, read unretained (`clock` holds it): no retain and release
    /// of it per event stamped.
    let virtualScheduler: Unmanaged<TestScheduler>?
    /// The recording scope this recorder takes events from (`ProbeContext.scope`): its own
    /// `serial`. A recording claims the thread that starts it, and a virtual one its
    /// `TestScheduler` (whichever thread drives it); a stream made in the scope reports in it
    /// from any thread. A virtual recording takes only its scope, so what other threads do
    /// meanwhile (a live pipeline winding down, another test's recording) is not part of it;
    /// a real one also takes work of no recording running now.
    @inline(__always) var scope: UInt64 { serial }
    /// What the recording claimed at `start()`, to give back at `stop()`: the starting
    /// thread and its previous scope, and the scheduler's previous scope. Guarded by `mutex`.
    var claim: (thread: pthread_t, threadScope: UInt64, schedulerScope: UInt64)?
    /// The high bits of the sequence numbers `willSend` returns: a cause numbered by another
    /// recorder attached at the same time is told apart and left out, never taken for one of
    /// this recorder's.
    var tag: UInt64 { serial << Self.sequenceBits }
    static let sequenceBits: UInt64 = 40
    let sink: Sink
    /// Whether the file is written in the binary encoding (`TraceEncoding.binary`): every
    /// event waits in the buffer as a binary or deferred one, for the writer to encode;
    /// nothing is formatted as text. (Records other than events wait as they are,
    /// `BoxedRecord`, whenever `defersValues`.)
    let binary: Bool
    /// Whether an event the send path reports with a value (of any type) or with several causes,
    /// and which does not take a thread's ring, goes to the shared buffer with a copy of its
    /// value for the writer to format (`DeferredEvent`): a live recording's, and a binary
    /// file's. Such a buffer dropped unwritten lets go of the values (and boxed records) it holds.
    /// Its records other than events wait as the recorder made them too (`BoxedRecord`,
    /// `PlainRecord`), for the writer to write or encode.
    var defersValues: Bool { merging || binary }
    /// What the writer makes of the records, from `start()` (which writes the header at once)
    /// until the writer thread takes it.
    var writerOutput: WriterOutput?
    let origin: Int64
    /// The recorder's lock, adaptive (`PTHREAD_MUTEX_ADAPTIVE_NP`): a thread that finds it
    /// taken spins a little before it sleeps. The lock is held for a record's bookkeeping (ids,
    /// a box), well under a microsecond, but TwitterInstant's main and network threads met at
    /// it often enough that with a plain mutex each meeting put a thread to sleep and woke it
    /// again: about 25 futex calls a query, two thirds of the process's (perf's
    /// `syscalls:sys_enter_futex`), and +70–90 % on the query's end-to-end time. Spinning
    /// first took the recorder's futex calls to about a tenth (BENCHMARKS.md).
    let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// A virtual in-memory recording's lock, taken instead of `mutex` (nil for any other
    /// recording): such a recording has no writer thread, so nothing ever waits on a
    /// condition with its lock (an in-memory flush never waits; `stop` and `synchronize` wait
    /// only while a writer runs), its events nearly all come from the one thread driving its
    /// scheduler, and what it does under the lock is short and does no I/O. Taking and
    /// giving back a spin lock is an exchange and a store, where the mutex took about 57
    /// instructions per recorded event (a replay's recording).
    let spin: UnsafeMutablePointer<pthread_spinlock_t>?
    /// This recorder's number in the process: tells its entries in the per-thread cache
    /// (`ThreadInfo`) from those of an earlier recorder.
    let serial = RecorderCore.serials.add(1, ordering: .relaxed).oldValue
    static let serials = Synchronization.Atomic<UInt64>(1)
    /// In front of `nodeIDs` and `subscriptionIDs`, guarded by `mutex` like them.
    let nodeCache = IDCache(capacity: 256)
    let subscriptionCache = IDCache(capacity: 1024)

    /// The state every recorded event reads or writes, behind a pointer: a class's stored
    /// `var`s are checked for exclusive access at run time on every access (about a sixth of
    /// the recorder's instructions per event), a pointer's pointee is not.
    let hot = UnsafeMutablePointer<HotState>.allocate(capacity: 1)
    struct HotState {
        var buffer: [UInt8] = []
        var bufferedRecords: UInt64 = 0
        var stopped = false
        var highWater = 0
        /// Where each record in `buffer` ends and where it goes among the events (a merging
        /// recorder only, see `SharedMark`).
        var marks: [SharedMark] = []
        /// A virtual recording's last thread: the scheduler whose action ran, and its id.
        var virtualThread: (scheduler: String, id: UInt64)?
        /// An in-memory recorder's events, placed in a trace's columns (a file recorder's go
        /// into `buffer`).
        var events = StoredEvents()
    }

    // Everything below (and `hot`) is guarded by `mutex`.
    var buffer: [UInt8] {
        get { hot.pointee.buffer }
        _modify { yield &hot.pointee.buffer }
    }
    var bufferedRecords: UInt64 {
        get { hot.pointee.bufferedRecords }
        _modify { yield &hot.pointee.bufferedRecords }
    }
    var stopped: Bool {
        get { hot.pointee.stopped }
        _modify { yield &hot.pointee.stopped }
    }
    var marks: [SharedMark] {
        get { hot.pointee.marks }
        _modify { yield &hot.pointee.marks }
    }
    /// The last event sequence number given; events are numbered from 1 (`takeSequence()`).
    let sequenceCounter = Synchronization.Atomic<UInt64>(0)
    var sequence: UInt64 { sequenceCounter.load(ordering: .relaxed) }
    @inline(__always) func takeSequence() -> UInt64 {
        if merging { return sequenceCounter.wrappingAdd(1, ordering: .relaxed).newValue }
        // Without threads' rings every number is taken under the lock (`record`), which
        // orders them: a load and a store, not a locked add (about 12 ns on the Intel Xeon
        // of BENCHMARKS.md's machine, once per event of an in-memory recording or a replay).
        let next = sequenceCounter.load(ordering: .relaxed) &+ 1
        sequenceCounter.store(next, ordering: .relaxed)
        return next
    }
    /// Whether threads record onto rings of their own (a live recording to a file): the
    /// writer then merges the rings and the shared buffer in sequence order.
    let merging: Bool
    /// Whether operator timers are recorded as hops with their due time (`timerArmed`): in a
    /// live recording, or in virtual time when a test asks (`recordsTimersInVirtualTime`, set
    /// before `start()`).
    var recordsTimers: Bool { !isVirtual || recordsTimersInVirtualTime }
    var recordsTimersInVirtualTime = false
    /// Whether the ring events of this live recording to a file are stamped by the CPU's
    /// time-stamp counter (`TickClock`; the writer turns the ticks into nanoseconds), where
    /// it is usable, rather than by `clock_gettime`.
    let countsTicks: Bool
    /// The counter and the monotonic clock read together at `start()`: where the writer's
    /// first conversion of ticks begins. Guarded by `mutex`.
    var tickStart: (ticks: Int64, nanoseconds: Int64) = (0, 0)
    /// Cleared when the recorder stops: a thread's ring takes no event after.
    let running = Synchronization.Atomic<Bool>(false)
    /// The rings of the threads that recorded, by `ThreadInfo.serial`, and in the order they
    /// were made (the writer's list). Guarded by `mutex`.
    var rings: [UInt64: ThreadRing] = [:]
    var ringList: [ThreadRing] = []
    var highWater: Int {
        get { hot.pointee.highWater }
        _modify { yield &hot.pointee.highWater }
    }
    /// An in-memory recorder's full buffers, as recorded (each ends with a whole record): its
    /// lines, and run entries for its events without a line (`StoredEvents`), formatted when
    /// the trace is read, not on the producing thread.
    var memory: [[UInt8]] = []
    /// The writer thread's hand-off (file recorders): a full buffer waiting to be written,
    /// the records it holds, and an empty buffer to swap in for it.
    var pending: [UInt8]?
    var pendingRecords: UInt64 = 0
    /// The pending buffer's marks, and the last sequence number given when it was cut: every
    /// record appended after has a later place (a merging recorder).
    var pendingMarks: [SharedMark] = []
    var pendingLimit: UInt64 = 0
    var spare: [UInt8] = []
    /// Buffers handed to the writer and buffers it has written: `synchronize()` waits for
    /// the second to reach the first.
    var handedOff: UInt64 = 0
    var writtenOff: UInt64 = 0
    var writerRunning = false
    /// Wakes the writer (a hand-off, a stop) and wakes waiters on the writer (space for a
    /// hand-off, a buffer written, the writer gone); both with `mutex`.
    let writerWake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    let writerDone = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    var started = false
    /// Whether work in the scope of another running real recording belongs here too: a whole
    /// program's recording (`ProcessRecording`) takes what the program's own recorders take.
    /// Set before `start()`.
    nonisolated(unsafe) var takesEveryRealScope = false
    var nodeIDs: [UInt64: UInt64] = [:]
    /// Live subscriptions only: an entry leaves when its subscription is disposed, so a long
    /// recording of many short inner streams does not grow this table.
    var subscriptionIDs: [UInt64: UInt64] = [:]
    var subscriptionCount: UInt64 = 0
    var threadIDs: [ThreadKey: UInt64] = [:]
    var lastThread: (key: ThreadKey, id: UInt64)?
    var pendingHops: [UInt64: HopRecord] = [:]
    /// The subscription (and node) of each pending timer hop armed before its subscription
    /// was reported (`timerArmed`), by hop id. Guarded by `mutex`.
    var timerSubscriptions: [UInt64: (subscription: UInt64, node: Node)] = [:]
    var hopCount: UInt64 = 0
    var nextHop: UInt64 = 0
    var markCount: UInt64 = 0
    var dropped: UInt64 = 0
    var writeError: String?
    var fileClosed = false
    /// For a recording that replaces an existing trace: the temporary file it writes, renamed
    /// over `target` when it stops (see `init(to:)`).
    var replacing: (temporary: PathName, target: PathName)?
    /// The summary written at `stop()`, kept because the tables it counts are then released.
    var finalSummary: SummaryRecord?

    /// A recorder writing to `url` (created or truncated now). Call `start()` to attach it.
    ///
    /// A writer thread, started by `start()`, appends the records to the file at least every
    /// `flushInterval` (at least a millisecond) and whenever `bufferCapacity` bytes are waiting.
    ///
    /// `counterClock` false stamps every event by `clock_gettime`, even where the time-stamp
    /// counter is usable (for tests of both clocks).
    ///
    /// An existing regular file is replaced only when the recording stops: until then the
    /// trace goes to its `ReplacementFile` (`.NAME.marbles-XXXXXXXX` beside it, with its
    /// permissions), renamed over it by `stop()`, so a process killed meanwhile leaves the
    /// earlier file whole and its partial trace in the temporary one, and a recording whose
    /// writes failed leaves the earlier file and removes its own. A new file, a device or a
    /// pipe is written in place from the start.
    convenience init(to url: URL, clock: Clock = .real, bufferCapacity: Int = 256 << 10,
                     flushInterval: Duration = .milliseconds(100), counterClock: Bool = true,
                     encoding: TraceEncoding? = nil) throws {
        try self.init(to: PathName(url.path), url: url, clock: clock, bufferCapacity: bufferCapacity,
                      flushInterval: flushInterval, counterClock: counterClock, encoding: encoding)
    }

    /// A recorder writing to the file at `path`, its bytes used as given (a name that is not
    /// UTF-8 too), as `init(to:)` does; `url` is what the recorder's `url` and its messages
    /// show.
    convenience init(to path: PathName, url: URL, clock: Clock = .real, bufferCapacity: Int = 256 << 10,
                     flushInterval: Duration = .milliseconds(100), counterClock: Bool = true,
                     encoding: TraceEncoding? = nil) throws {
        let fd: Int32
        var replacing: (temporary: PathName, target: PathName)?
        if let (target, existing) = Self.existingFile(at: path) {
            switch ReplacementFile.make(beside: target, keeping: existing) {
            case let .failure(error):
                throw TraceError(file: url.path, line: 0, column: 0,
                                 message: "cannot create the trace: cannot create a file in the folder "
                                     + "\(target.folder.shown) to replace it with: \(error.reason)")
            case let .success((temporary, descriptor)):
                fd = descriptor
                replacing = (temporary, target)
            }
        } else {
            fd = path.withCString { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
            guard fd >= 0 else {
                throw TraceError(file: url.path, line: 0, column: 0,
                                 message: "cannot create the trace: \(String(cString: strerror(errno)))")
            }
            // Locked while recorded into, as the command line locks its outputs: another
            // `marbles` run that would replace the file is refused instead of replacing it
            // under this recording.
            _ = flock(fd, LOCK_EX | LOCK_NB)
        }
        self.init(descriptor: fd, url: url, clock: clock, bufferCapacity: bufferCapacity, flushInterval: flushInterval,
                  counterClock: counterClock, encoding: encoding)
        self.replacing = replacing
    }

    /// The regular file at `path`, by its real path (a symbolic link to it stays a link), and
    /// its status; nil when there is none there (or something else: a device, a pipe).
    private static func existingFile(at path: PathName) -> (path: PathName, status: stat)? {
        var status = stat()
        guard path.withCString({ stat($0, &status) }) == 0, status.st_mode & S_IFMT == S_IFREG,
              let resolved = path.withCString({ realpath($0, nil) }) else {
            return nil
        }
        defer { free(resolved) }
        return (PathName(cString: resolved), status)
    }

    /// A recorder writing to the open file `fd` (which it owns and closes at stop), known to
    /// the user as `url`.
    /// `encoding` nil: by the file's name, binary for `*.mtrace` (FORMAT.md's convention),
    /// else JSON Lines.
    init(descriptor fd: Int32, url: URL, clock: Clock, bufferCapacity: Int, flushInterval: Duration,
         counterClock: Bool = true, encoding: TraceEncoding? = nil) {
        self.url = url
        self.sink = .file(fd)
        binary = (encoding ?? Self.encoding(named: url)) == .binary
        self.clock = clock
        if case let .virtual(scheduler) = clock { virtualScheduler = Unmanaged.passUnretained(scheduler) } else { virtualScheduler = nil }
        self.bufferCapacity = max(bufferCapacity, 4096)
        self.flushInterval = max(flushInterval, .milliseconds(1))
        self.origin = Self.monotonic()
        if case .real = clock { merging = true } else { merging = false }
        countsTicks = merging && counterClock && TickClock.isUsable
        spin = nil
        hot.initialize(to: HotState())
        Self.initializeAdaptive(mutex)
        pthread_cond_init(writerWake, nil)
        pthread_cond_init(writerDone, nil)
    }

    /// A recorder keeping the trace in memory (unbounded: for tests and in-process tools).
    init(clock: Clock, bufferCapacity: Int = 256 << 10) {
        self.url = nil
        self.sink = .memory
        binary = false
        self.clock = clock
        if case let .virtual(scheduler) = clock { virtualScheduler = Unmanaged.passUnretained(scheduler) } else { virtualScheduler = nil }
        self.bufferCapacity = max(bufferCapacity, 4096)
        self.flushInterval = .zero
        self.origin = Self.monotonic()
        merging = false
        countsTicks = false
        if case .virtual = clock {
            let spin = UnsafeMutablePointer<pthread_spinlock_t>.allocate(capacity: 1)
            pthread_spin_init(spin, Int32(PTHREAD_PROCESS_PRIVATE))
            self.spin = spin
        } else {
            spin = nil
        }
        hot.initialize(to: HotState())
        Self.initializeAdaptive(mutex)
        pthread_cond_init(writerWake, nil)
        pthread_cond_init(writerDone, nil)
    }

    /// Initializes `mutex` as an adaptive one (`mutex`'s documentation says why).
    private static func initializeAdaptive(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    /// What releasing the `Recorder` handle does: stops the recording if it still runs and
    /// lets go of the in-memory trace. The core's shell goes when no probe set holds it.
    func abandon() {
        _ = try? stop()
        lock()
        memory = []
        if defersValues { buffer.withUnsafeBytes { DeferredEvent.discardValues(in: $0) } }
        buffer = []
        hot.pointee.events.release()
        unlock()
    }

    deinit {
        // A core never started, or one stopped, which has let go of its caches already (a
        // started one is held by the probe set until it stops).
        if !stopped {
            nodeCache.deallocate()
            subscriptionCache.deallocate()
        }
        if case let .file(fd) = sink, !fileClosed { close(fd) }
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        if let spin {
            pthread_spin_destroy(spin)
            spin.deallocate()
        }
        pthread_cond_destroy(writerWake)
        writerWake.deallocate()
        pthread_cond_destroy(writerDone)
        writerDone.deallocate()
        hot.pointee.events.release()
        hot.deinitialize(count: 1)
        hot.deallocate()
    }

    /// Writes the header, starts the writer thread of a file recorder and attaches the
    /// core to the probe, held strongly (beside any others).
    func start() {
        lock()
        if !started {
            started = true
            let context = ProbeContext.current
            claim = (pthread_self(), context.scope, 0)
            context.scope = scope
            if case let .virtual(scheduler) = clock {
                claim?.schedulerScope = scheduler.recordingScope
                scheduler.recordingScope = scope
            }
            Self.runningScopes.modify { _ = $0.insert(scope) }
            if isVirtual { Self.virtualScopes.modify { _ = $0.insert(scope) } }
            append(.header(makeHeader()))
            if case let .file(fd) = sink { writeHeaderNow(to: fd) }
            if countsTicks { tickStart = TickClock.pair() }
            running.store(true, ordering: .relaxed)
            if case .file = sink {
                writerRunning = true
                let writer = Thread { [self] in runWriter() }
                writer.name = "marbles.recorder"
                writer.start()
            }
        }
        unlock()
        Instrumentation.attach(self, retained: true)
    }

    /// Writes the buffer, which holds the header line only, to the trace file at once (lock
    /// held, before anything is recorded), instead of leaving it to the writer's first round
    /// a flush interval later: a process killed at any moment after `start()` leaves a trace
    /// that reads, with no events, rather than an empty file.
    private func writeHeaderNow(to fd: Int32) {
        var output = WriterOutput(encoding: binary ? .binary : .jsonLines)
        buffer.withUnsafeBytes { output.records($0) }
        if let failure = Self.writeAll(output.take(), to: fd) { writeError = failure }
        writerOutput = output
        buffer.removeAll(keepingCapacity: true)
        marks.removeAll()
        bufferedRecords = 0
    }

    /// Detaches the recorder, writes the closing summary and flushes. Later calls do nothing.
    /// Throws when the file could not be written (records were dropped).
    @discardableResult
    func stop() throws -> SummaryRecord {
        Instrumentation.detach(self)
        lock()
        defer { unlock() }
        let summary = summaryRecord()
        guard started, !stopped else { return summary }
        stopped = true
        running.store(false, ordering: .relaxed)
        if let claim {
            if case let .virtual(scheduler) = clock, scheduler.recordingScope == scope {
                scheduler.recordingScope = claim.schedulerScope
            }
            let context = ProbeContext.current
            if pthread_equal(claim.thread, pthread_self()) != 0, context.scope == scope { context.scope = claim.threadScope }
            self.claim = nil
            Self.runningScopes.modify { _ = $0.remove(scope) }
            Self.virtualScopes.modify { _ = $0.remove(scope) }
        }
        for hop in pendingHops.keys.sorted() {
            guard var record = pendingHops[hop] else { continue }
            resolveTimerSubscription(of: hop, in: &record, time: record.enqueued, thread: record.from)
            append(.hop(record))
        }
        hopCount += UInt64(pendingHops.count)
        pendingHops = [:]
        let closing = summaryRecord()
        append(.summary(closing))
        flush()
        while writerRunning { pthread_cond_wait(writerDone, mutex) }
        if case let .file(fd) = sink {
            fsync(fd)
            close(fd)
            fileClosed = true
        }
        if let replacing {
            self.replacing = nil
            if writeError == nil {
                let renamed = replacing.temporary.withCString { temporary in
                    replacing.target.withCString { rename(temporary, $0) }
                }
                if renamed != 0 {
                    writeError = "cannot replace the earlier trace with it: \(String(cString: strerror(errno)))"
                }
            }
            // Not renamed: the earlier trace stays, the incomplete one goes.
            if writeError != nil { _ = replacing.temporary.withCString(unlink) }
        }
        // A stopped recorder lets go of everything but its result (and, in memory, the
        // trace) at once, whoever still holds it.
        finalSummary = SummaryRecord(events: closing.events, nodes: closing.nodes, subscriptions: closing.subscriptions,
                                     threads: closing.threads, hops: closing.hops, marks: closing.marks,
                                     dropped: dropped, duration: closing.duration)
        nodeIDs = [:]
        subscriptionIDs = [:]
        nodeCache.deallocate()
        subscriptionCache.deallocate()
        threadIDs = [:]
        lastThread = nil
        hot.pointee.virtualThread = nil
        buffer = []
        marks = []
        rings = [:]
        ringList = []
        // The writer's hand-off buffers (a quarter of a megabyte each by default): a stopped
        // recorder's core may stay referenced a while by the probe set it was in.
        spare = []
        pending = nil
        pendingMarks = []
        if let writeError, let url {
            throw TraceError(file: url.path, line: 0, column: 0,
                             message: "could not write the trace (\(writeError)); \(dropped) records were dropped")
        }
        return finalSummary ?? closing
    }

    /// Writes buffered records out now, and returns when they are written.
    func synchronize() {
        lock()
        flush()
        while writerRunning && writtenOff < handedOff { pthread_cond_wait(writerDone, mutex) }
        unlock()
    }

    /// The trace written so far, for an in-memory recorder (whole after `stop()`).
    var bytes: [UInt8] {
        lock()
        defer { unlock() }
        return formatted()
    }

    /// The in-memory trace's lines, every event without a line formatted from the columns.
    /// Called with the lock held.
    private func formatted() -> [UInt8] {
        // The events recorded since the last line are noted too, as a line would note them.
        hot.pointee.events.noteRun(in: &buffer)
        let events = hot.pointee.events.placed()
        var trace: [UInt8] = []
        var next = 0
        for chunk in memory + [buffer] {
            StoredEvents.forEachRun(of: chunk, events: { count in
                for index in next..<next + count { events.recordedBinaryEvent(at: index).format(into: &trace) }
                next += count
            }, line: { line, isEvent in
                trace.append(contentsOf: line)
                if isEvent { next += 1 }
            })
        }
        return trace
    }

    /// The trace an in-memory recorder recorded, as `Trace(bytes: bytes, name: name)` reads it.
    /// Once stopped, the trace takes the events' columns as they were placed while recording
    /// (`StoredEvents`), shared, not copied: only the lines of other records (header, nodes,
    /// subscriptions, hops…) go through the reader. Anything that does not check out that
    /// way (never, for what the recorder writes) is read from the formatted bytes instead, so
    /// its error names the line.
    package func trace(name: String) throws -> Trace {
        lock()
        defer { unlock() }
        // A running recording has no summary yet: the reader's warning about that counts lines.
        guard let trace = try? placedTrace(name: name) else { return try Trace(bytes: formatted(), name: name) }
        return trace
    }

    /// `trace(name:)` from the columns, nil (or an error) where the bytes must be read
    /// instead: before the recording stopped, or when its records do not check out. Called
    /// with the lock held.
    func placedTrace(name: String) throws -> Trace? {
        guard stopped, hot.pointee.events.columnsAreWhole else { return nil }
        // Stopping wrote the summary line last, so every event is noted in the buffer.
        var lines: [UInt8] = []
        // How many events came before each of those lines (the header's first): where each
        // record stood among the events (`Trace.subscriptionEventPositions`).
        var eventsBefore: [Int] = []
        var events = 0
        for chunk in buffer.isEmpty ? memory : memory + [buffer] {
            StoredEvents.forEachRun(of: chunk, events: { events += $0 }, line: { line, isEvent in
                if isEvent {
                    events += 1
                } else {
                    lines.append(contentsOf: line)
                    eventsBefore.append(events)
                }
            })
        }
        let reader = try TraceReader(bytes: lines, name: name)
        var trace = Trace(header: reader.header, recordedEvents: hot.pointee.events.placed())
        var index = 1
        while let record = try reader.next() {
            guard index < eventsBefore.count else { return nil }
            guard trace.add(record, eventsBefore: eventsBefore[index]) == nil else { return nil }
            index += 1
        }
        guard trace.finishRecordedEvents() == nil else { return nil }
        trace.setWarnings(reader.warnings)
        return trace
    }

    /// Makes room for about `count` events in an in-memory recording (a replay expects as
    /// many as the trace it replays).
    func reserveEvents(_ count: Int) {
        lock()
        if case .memory = sink { hot.pointee.events.reserve(count) }
        unlock()
    }

    /// The largest number of bytes the buffer held: bounded by `bufferCapacity` plus one record.
    var bufferHighWater: Int {
        lock()
        defer { unlock() }
        return highWater
    }

    // MARK: Probe

    /// A recorder numbers events: its sequence numbers are the causes other probes see.
    public var numbersEvents: Bool { true }

    public func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64) {
        didSubscribe(node, subscription: subscription, parent: parent, requestJSON: nil)
    }

    /// Writes the request into the subscription record (`request`, format 1.1), as JSON with
    /// sorted keys; a request that does not encode is left out, and one whose JSON is longer
    /// than `RequestDigest.limit` is written as its size and hash (`requestOmitted`).
    public func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64, request: Any) {
        guard isRecordedThread else { return }
        let json = (request as? Encodable).flatMap { Recorder.requestJSON($0) }
        didSubscribe(node, subscription: subscription, parent: parent, requestJSON: json)
    }

    /// Writes what the subscription observes and what observes it into its record
    /// (`observes`, `observedBy`): those the recording has met, by their trace ids.
    public func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64, request: Any?,
                             observes: [UInt64], observedBy: [UInt64]) {
        guard isRecordedThread else { return }
        let json = request.flatMap { ($0 as? Encodable).flatMap { Recorder.requestJSON($0) } }
        didSubscribe(node, subscription: subscription, parent: parent, requestJSON: json,
                     observes: observes, observedBy: observedBy)
    }

    private func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64, requestJSON json: String?,
                              observes: [UInt64] = [], observedBy: [UInt64] = []) {
        let (requestJSON, omitted) = json.map(RequestDigest.recorded) ?? (nil, nil)
        guard isRecordedThread else { return }
        let context = ProbeContext.current
        lock()
        defer { release() }
        guard !stopped else { return }
        let time = now()
        let thread = threadID(context)
        let nodeID = self.nodeID(node)
        let parentID = parent == 0 ? 0 : subscriptionCache.lookup(parent) ?? subscriptionIDs[parent] ?? 0
        // Subscriptions this recording never met (made before it, or outside its scope) are
        // left out; nil when none is left.
        func traceIDs(_ subscriptions: [UInt64]) -> [UInt64]? {
            let ids = subscriptions.compactMap { subscriptionCache.lookup($0) ?? subscriptionIDs[$0] }
            return ids.isEmpty ? nil : ids
        }
        let observesIDs = traceIDs(observes), observedByIDs = traceIDs(observedBy)
        subscriptionCount += 1
        let id = subscriptionCount
        subscriptionIDs[subscription] = id
        subscriptionCache.store(subscription, id)
        // The subscribing thread often sends the subscription's first events: its ring keeps
        // the ids, so that those take the ring and not this lock (a thread's ring caches are
        // written by that thread only, here as in `remember`).
        if merging, let pointer = context.probeLocal(for: serial) {
            let ring = Unmanaged<ThreadRing>.fromOpaque(pointer).takeUnretainedValue()
            ring.nodes.store(node.id, nodeID)
            ring.subscriptions.store(subscription, id)
        }
        append(.subscribe(SubscriptionRecord(id: id, node: nodeID, parent: parentID, time: time, thread: thread,
                                             request: requestJSON, requestOmitted: omitted,
                                             observes: observesIDs, observedBy: observedByIDs)))
    }

    public func willSend(_ node: Node, subscription: UInt64, kind: EventKind, value: Any?, causes tagged: Causes) -> UInt64 {
        let integer: Int64?? = Self.integerOrNone(value)
        return record(node, subscription: subscription, kind: kind, integer: integer, value: value,
                      cause: tagged.primary, hasOthers: !tagged.others.isEmpty, others: tagged.others,
                      context: ProbeContext.current)
    }

    /// Inlined into the protocol witness the send path calls, which then goes straight to
    /// one of the two paths (without it the witness calls this, which calls one of them).
    @inline(__always)
    public func willSend<Value>(_ node: Node, subscription: UInt64, kind: EventKind, value: UnsafePointer<Value>?,
                                context: ProbeContext) -> UInt64 {
        // Two paths out of line: one function holding both saves every register either needs.
        merging ? willSendMerging(node, subscription: subscription, kind: kind, value: value, context: context)
            : willSendOffRing(node, subscription: subscription, kind: kind, value: value, context: context)
    }

    /// A live recording to a file: an event with at most one cause goes onto the thread's
    /// ring with a copy of its value, whatever its type (`CapturedValue`), formatted later by
    /// the writer; anything else takes `willSendOffRing`, kept out of line so that this path
    /// stays short.
    @inline(never)
    private func willSendMerging<Value>(_ node: Node, subscription: UInt64, kind: EventKind, value: UnsafePointer<Value>?,
                                        context: ProbeContext) -> UInt64 {
        if let pointer = context.probeLocal(for: serial) {
            let ring = Unmanaged<ThreadRing>.fromOpaque(pointer)
            // The ring is read in closures of no generic type, which are inlined here; one
            // that took the value would be a call of its own (this function is not
            // specialised for the value's type).
            if let slot = ring._withUnsafeGuaranteedRef({
                reserveOnRing($0, node, subscription: subscription, kind: kind, context: context)
            }) {
                if let value { CapturedValue.capture(value, into: slot.capture) } else { CapturedValue.clear(slot.capture) }
                // Read before the slot is the writer's.
                let sequence = slot.pointee.event.sequence
                ring._withUnsafeGuaranteedRef { $0.publish() }
                return tag | sequence
            }
        }
        return willSendOffRing(node, subscription: subscription, kind: kind, value: value, context: context)
    }

    /// Writes the event into the next slot of the calling thread's `ring`, without a lock (see
    /// `ThreadRing`), and returns the slot for its value, to be published; when it has at most
    /// one cause, is in this recording's scope, and the thread knows its ids and has room.
    /// Else returns nil and leaves nothing behind.
    @inline(__always)
    private func reserveOnRing(_ ring: ThreadRing, _ node: Node, subscription: UInt64, kind: EventKind,
                               context: ProbeContext) -> UnsafeMutablePointer<RingEvent>? {
        guard context.scope == scope, !context.hasOtherCauses, let thread = ring.cachedThread(context) else { return nil }
        // The ids kept on the signal instance when this recorder left them there, else the
        // thread's caches (which then leave them there).
        let instance = context.instanceIDs
        var nodeID: UInt64, subscriptionID: UInt64
        if let instance, instance.pointee.owner == serial {
            (nodeID, subscriptionID) = (instance.pointee.node, instance.pointee.subscription)
        } else {
            nodeID = ring.nodes.find(node.id)
            subscriptionID = ring.subscriptions.find(subscription)
            guard nodeID != 0, subscriptionID != 0 else { return nil }
            instance?.pointee = InstanceIDs(owner: serial, node: nodeID, subscription: subscriptionID)
        }
        guard ring.hasSpace() || waitForSpace(on: ring), running.load(ordering: .relaxed) else { return nil }
        let slot = ring.nextSlot()
        slot.pointee.event = BinaryEvent(sequence: takeSequence(), time: countsTicks ? TickClock.read() : ringTimeFromClock(),
                                         node: nodeID, subscription: subscriptionID, kind: kind, thread: thread,
                                         cause: localCause(context.cause), integer: nil)
        return slot
    }

    /// A ring event's time where the time-stamp counter cannot stamp it: out of line, so
    /// that the send path keeps no `timespec` on its stack (and no stack guard with it).
    @inline(never)
    private func ringTimeFromClock() -> Int64 {
        Self.monotonic() - origin
    }

    /// Everything but a live recording's commonest event (see `record`).
    @inline(never)
    private func willSendOffRing<Value>(_ node: Node, subscription: UInt64, kind: EventKind, value: UnsafePointer<Value>?,
                                        context: ProbeContext) -> UInt64 {
        // A recording to a file formats nothing here: an event with a value, whatever its
        // type, or with several causes goes to the shared buffer with a copy of its value, for
        // the writer.
        if defersValues && (value != nil || context.hasOtherCauses) {
            guard belongs(context) else { return 0 }
            return recordDeferred(node, subscription: subscription, kind: kind, value: value, primary: localCause(context.cause),
                                  others: context.hasOtherCauses ? context.otherCauses.map(localCause) : [],
                                  context: context)
        }
        // In memory and on virtual time to JSON Lines, the event columns keep an `Int` (or no
        // value) as a fixed binary record and any other value as its line, formatted here
        // (`record`): the one type test left on the producing thread, until those recordings
        // keep values as captures too. The `Int` is told by its type's metadata and read where
        // it lies, without a copy into an `Any`.
        let integer: Int64??
        if let value {
            integer = Value.self == Int.self ? .some(Int64(UnsafeRawPointer(value).load(as: Int.self))) : nil
        } else {
            integer = .some(nil)
        }
        return record(node, subscription: subscription, kind: kind, integer: integer, value: value.map { $0.pointee as Any },
                      cause: context.cause, hasOthers: context.hasOtherCauses, others: context.otherCauses,
                      context: context)
    }

    /// Records an event: its causes are as the send path tagged them (`tag | sequence`).
    ///
    /// `integer` is the value when there is none (`.some(nil)`) or it is exactly an `Int`,
    /// else nil; `value` is only asked for then, and `others` only when `hasOthers`. An event
    /// with an `Int` value or none and at most one cause is a fixed-size binary record whose
    /// line is formatted later: here appended under the lock to the shared buffer (in memory,
    /// to the event columns), with the ids from the recorder's caches. Any other value is
    /// formatted here, before the lock. From the send path, a recording to a file brings here
    /// only events without a value and with one cause that did not take the thread's ring
    /// (`willSendMerging`): its values are captured, for the writer (`recordDeferred`); a
    /// probe's report through `Any` (several probes attached) comes here with any value.
    /// Under the lock the ids come first (their records may be written), then the sequence
    /// number.
    @inline(__always)
    func record(_ node: Node, subscription: UInt64, kind: EventKind, integer: Int64??, value: @autoclosure () -> Any?,
                cause tagged: UInt64, hasOthers: Bool, others: @autoclosure () -> [UInt64],
                context: ProbeContext) -> UInt64 {
        guard belongs(context) else { return 0 }
        let primary = localCause(tagged)
        if !hasOthers, let integer {
            // Not on the thread's ring (see `willSendMerging`): under the lock, and a live
            // recording to a file keeps the ids on the ring for the thread's next events.
            lock()
            defer { release() }
            guard !stopped else { return tag | takeSequence() }
            let (time, thread, subscriptionID, nodeID) = stamp(node, subscription: subscription, context: context)
            let sequence = takeSequence()
            if case .memory = sink {
                hot.pointee.events.append(BinaryEvent(sequence: sequence, time: time, node: nodeID,
                                                      subscription: subscriptionID, kind: kind, thread: thread,
                                                      cause: primary, integer: integer))
            } else {
                appendEvent(sequence: sequence, node: nodeID, subscription: subscriptionID, kind: kind, time: time,
                            thread: thread, cause: primary, integer: integer)
            }
            if merging { remember(node: node.id, nodeID, subscription: subscription, subscriptionID, thread: thread, context) }
            return tag | sequence
        }
        let causes = hasOthers ? Causes(primary: primary, others: others().map(localCause)) : Causes(primary: primary)
        if binary {
            // Nothing is formatted as text for a binary file: the writer formats the value.
            guard let boxed = value() else {
                return recordDeferred(node, subscription: subscription, kind: kind, value: UnsafePointer<Int>?.none,
                                      primary: causes.primary, others: causes.others, context: context)
            }
            return withUnsafePointer(to: boxed) {
                recordDeferred(node, subscription: subscription, kind: kind, value: $0, primary: causes.primary,
                               others: causes.others, context: context)
            }
        }
        let formatted = value().map(Self.format)
        lock()
        defer { release() }
        guard !stopped else { return tag | takeSequence() }
        let (time, thread, subscriptionID, nodeID) = stamp(node, subscription: subscription, context: context)
        let sequence = takeSequence()
        let write = { (buffer: inout [UInt8]) in
            var line = JSONLine(capacity: 0)
            swap(&line.bytes, &buffer)
            line.begin()
            line.writeEventFields(sequence: sequence, time: time, node: nodeID, subscription: subscriptionID, kind: kind,
                                  thread: thread,
                                  causes: { $0.causesField(primary: causes.primary, others: causes.others, below: sequence) },
                                  value: { line in formatted?.write(to: &line) })
            line.end()
            swap(&line.bytes, &buffer)
        }
        if case .memory = sink {
            // In memory, the event goes into the columns too, as its line reads (`StoredEvents`).
            hot.pointee.events.appendLine(in: &buffer, write)
        } else {
            write(&buffer)
        }
        appended(event: sequence)
        if merging && !hasOthers {
            remember(node: node.id, nodeID, subscription: subscription, subscriptionID, thread: thread, context)
        }
        return tag | sequence
    }

    /// Records an event of a recording to a file that did not take the thread's ring and has
    /// a value (of any type) or several causes: into the shared buffer with a copy of its
    /// value, formatted by the writer (`DeferredEvent`).
    @inline(never)
    private func recordDeferred<Value>(_ node: Node, subscription: UInt64, kind: EventKind, value: UnsafePointer<Value>?,
                                       primary: UInt64, others: [UInt64], context: ProbeContext) -> UInt64 {
        let hasOthers = !others.isEmpty
        lock()
        defer { release() }
        guard !stopped else { return tag | takeSequence() }
        let (time, thread, subscriptionID, nodeID) = stamp(node, subscription: subscription, context: context)
        let sequence = takeSequence()
        DeferredEvent.append(BinaryEvent(sequence: sequence, time: time, node: nodeID, subscription: subscriptionID,
                                         kind: kind, thread: thread, cause: primary, integer: nil),
                             value: value, others: others, to: &buffer)
        appended(event: sequence)
        if merging && !hasOthers {
            remember(node: node.id, nodeID, subscription: subscription, subscriptionID, thread: thread, context)
        }
        return tag | sequence
    }

    /// An event's time, and its thread, subscription and node as the trace numbers them.
    /// Called with the lock held.
    @inline(__always)
    private func stamp(_ node: Node, subscription: UInt64, context: ProbeContext)
        -> (time: Int64, thread: UInt64, subscription: UInt64, node: UInt64) {
        let time = now()
        let thread = threadID(context)
        // The ids kept on the signal instance when this recorder left them there.
        let instance = context.instanceIDs
        if let instance, instance.pointee.owner == serial {
            return (time, thread, instance.pointee.subscription, instance.pointee.node)
        }
        let subscriptionID = subscriptionID(subscription, node: node, time: time, thread: thread)
        let nodeID = nodeID(node)
        instance?.pointee = InstanceIDs(owner: serial, node: nodeID, subscription: subscriptionID)
        return (time, thread, subscriptionID, nodeID)
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
        enqueueHop(node, subscription: subscription, scheduler: scheduler, delay: nil)
    }

    /// A live recording follows each operator timer as a hop with its due time
    /// (`HopRecord.due`): how late it ran, or that it never did, is a decision a replay
    /// repeats. In virtual time a timer runs when it is due, so nothing is recorded (and
    /// virtual traces stay as they were), unless `recordsTimers` says so.
    ///
    /// A timer may be armed while its operator is made, before its subscription is reported
    /// (the probe set reports nothing pending for it): the hop's subscription is then found
    /// when the timer runs, or when the recording stops (`timerSubscriptions`).
    public func timerArmed(_ node: Node, subscription: UInt64, scheduler: String, delay: Int64) -> UInt64 {
        guard recordsTimers else { return 0 }
        return enqueueHop(node, subscription: subscription, scheduler: scheduler, delay: delay)
    }

    /// The trace id of a timer hop's subscription, recorded since it was armed (else a late
    /// subscription record). Called with the lock held.
    private func resolveTimerSubscription(of hop: UInt64, in record: inout HopRecord, time: Int64, thread: UInt64) {
        guard let (subscription, node) = timerSubscriptions.removeValue(forKey: hop) else { return }
        record.subscription = subscriptionID(subscription, node: node, time: time, thread: thread)
    }

    private func enqueueHop(_ node: Node?, subscription: UInt64, scheduler: String, delay: Int64?) -> UInt64 {
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
        var subscriptionID: UInt64 = 0
        if let node {
            if delay != nil, subscriptionCache.lookup(subscription) == nil, subscriptionIDs[subscription] == nil {
                timerSubscriptions[id] = (subscription, node)
            } else {
                subscriptionID = self.subscriptionID(subscription, node: node, time: time, thread: thread)
            }
        }
        pendingHops[id] = HopRecord(id: id, node: nodeID, subscription: subscriptionID, scheduler: scheduler,
                                    enqueued: time, from: thread, due: delay.map { time.saturatingAdding($0) })
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
        resolveTimerSubscription(of: hop, in: &record, time: record.started ?? 0, thread: record.to ?? 0)
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

    /// Whether the calling thread's activity belongs in this recording: work in its scope.
    @inline(__always) var isRecordedThread: Bool {
        belongs(ProbeContext.current)
    }

    /// Whether work in `context`'s scope belongs in this recording: its own scope; for a real
    /// recording also work of no recording still running (outside every scope, or in the
    /// scope of one stopped since, wherever it was stopped).
    @inline(__always) func belongs(_ context: ProbeContext) -> Bool {
        let current = context.scope
        if current == scope { return true }
        if isVirtual { return false }
        if current == 0 { return true }
        if takesEveryRealScope { return !Self.virtualScopes.modify { $0.contains(current) } }
        return !Self.runningScopes.modify { $0.contains(current) }
    }

    /// The scopes of the recordings running now. Under the package's pthread lock, which the
    /// thread sanitizer sees (it does not see `Synchronization.Mutex`'s futex on Linux, and
    /// reported two recordings starting at once as a race).
    static let runningScopes = Protected<Set<UInt64>>([])
    /// The scopes of the virtual recordings running now (replays, tests in virtual time).
    static let virtualScopes = Protected<Set<UInt64>>([])

    /// This recording's own sequence number in a cause, or 0 for another recorder's.
    @inline(__always) func localCause(_ cause: UInt64) -> UInt64 {
        cause >> Self.sequenceBits == serial ? cause & ((1 << Self.sequenceBits) - 1) : 0
    }
}
