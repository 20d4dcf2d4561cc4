import Foundation
import Signals
import TraceLog

/// The recorder's buffer and where it goes: the lock, appending records, handing full
/// buffers to the writer thread (or to memory), and the writer thread itself.
extension RecorderCore {
    // MARK: Internals (called with the lock held)

    @inline(__always) func lock() {
        if let spin { pthread_spin_lock(spin) } else { pthread_mutex_lock(mutex) }
    }

    @inline(__always) func unlock() {
        if let spin { pthread_spin_unlock(spin) } else { pthread_mutex_unlock(mutex) }
    }

    func append(_ record: TraceRecord) {
        // A live or binary file's records wait as the recorder made them, for the writer
        // thread to write: nothing is formatted on the producing thread (issue 26). An
        // in-memory or virtual recording keeps lines, which its reader takes as they are.
        if defersValues {
            if !PlainRecord.append(record, to: &buffer) { BoxedRecord.append(record, to: &buffer) }
            appended()
            return
        }
        hot.pointee.events.noteRun(in: &buffer)
        var line = JSONLine(capacity: 0)
        swap(&line.bytes, &buffer)
        record.write(to: &line)
        swap(&line.bytes, &buffer)
        appended()
    }

    /// Bookkeeping after a record was appended to the buffer: counts, high water, and for a
    /// merging recorder the record's place among the events (`event`: its sequence number
    /// when it is an event, else 0).
    @inline(__always) func appended(event: UInt64 = 0) {
        bufferedRecords += 1
        highWater = max(highWater, buffer.count)
        if merging { mark(event: event) }
    }

    private func mark(event: UInt64) {
        marks.append(SharedMark(end: buffer.count, key: event == 0 ? sequence : event - 1, isEvent: event != 0))
    }

    /// Ends a probe call: moves a full buffer on, then unlocks. A full buffer is moved only
    /// here, once the call's records are all appended, because moving it may wait for the
    /// writer and so let other producers in.
    @inline(__always) func release() {
        if buffer.count >= bufferCapacity { flush(onlyWhenFull: true) }
        unlock()
    }

    /// Moves the buffer on: into the in-memory trace, or to the writer thread of a file
    /// recorder, first waiting for the writer to take the buffer handed to it before (the
    /// back-pressure that bounds memory). Called with the lock held; may wait on it.
    func flush(onlyWhenFull: Bool = false) {
        // A merging recorder hands off even an empty buffer when asked to flush: the writer
        // then drains the threads' rings.
        guard !buffer.isEmpty || (merging && !onlyWhenFull) else { return }
        switch sink {
        case .memory:
            // Kept as recorded (binary events and lines), formatted only when the trace is
            // read (`bytes`): formatting here would be on the producing thread.
            var full: [UInt8] = []
            full.reserveCapacity(bufferCapacity + bufferCapacity / 4)
            swap(&full, &buffer)
            memory.append(full)
        case .file:
            guard writerRunning else {
                // Nothing will write it: only after a stop, when nothing is recorded any more.
                dropped += bufferedRecords
                if defersValues { buffer.withUnsafeBytes { DeferredEvent.discardValues(in: $0) } }
                buffer.removeAll(keepingCapacity: true)
                bufferedRecords = 0
                return
            }
            while pending != nil { pthread_cond_wait(writerDone, mutex) }
            // Another producer may have handed the buffer off while this one waited.
            guard onlyWhenFull ? buffer.count >= bufferCapacity : !buffer.isEmpty || merging else { return }
            handOff()
            pthread_cond_signal(writerWake)
        }
        bufferedRecords = 0
    }

    /// Makes the buffer the pending one (there is none), cut at the last sequence number
    /// given: everything appended later has a later place.
    private func handOff() {
        var next = spare
        spare = []
        swap(&next, &buffer)
        pending = next
        pendingRecords = bufferedRecords
        bufferedRecords = 0
        pendingMarks = marks
        marks = []
        pendingLimit = sequence
        handedOff += 1
    }

    /// Registers a ring for the calling thread (a merging recorder, lock held) unless it has
    /// one, and keeps the ids an event just used on it, so that the thread's next events with
    /// them take the ring.
    func remember(node: UInt64, _ nodeID: UInt64, subscription: UInt64, _ subscriptionID: UInt64, thread: UInt64,
                  _ context: ProbeContext) {
        let ring: ThreadRing
        if let pointer = context.probeLocal(for: serial) {
            ring = Unmanaged<ThreadRing>.fromOpaque(pointer).takeUnretainedValue()
        } else {
            let info = ThreadInfo.current
            if let known = rings[info.serial] {
                ring = known
            } else {
                ring = ThreadRing(capacity: bufferCapacity / MemoryLayout<RingEvent>.stride, owner: info.serial)
                rings[info.serial] = ring
                ringList.append(ring)
            }
            context.setProbeLocal(ring, for: serial)
        }
        ring.nodes.store(node, nodeID)
        ring.subscriptions.store(subscription, subscriptionID)
        if ring.cachedThread(context) != thread { ring.cacheThread(thread, context, isMain: ThreadInfo.current.isMain) }
    }

    /// Waits until the writer has drained some of the calling thread's full `ring` (the
    /// back-pressure of a merging recorder: a lock and a wait per ring full, not per event).
    /// Returns whether it has room; not when the recorder stopped meanwhile.
    @inline(never)
    func waitForSpace(on ring: ThreadRing) -> Bool {
        lock()
        defer { unlock() }
        while !ring.hasSpace() {
            guard writerRunning, !stopped else { return false }
            pthread_cond_signal(writerWake)
            pthread_cond_wait(writerDone, mutex)
        }
        return true
    }

    /// The writer thread: formats and appends the buffers handed to it, and every
    /// `flushInterval` takes whatever the buffer holds, until the recorder stops and
    /// everything is written. A buffer only ever holds whole records, so the file gets whole
    /// lines. A merging recorder's writer also drains the threads' rings each time, merging
    /// them with the buffer in sequence order (`RingMerger`), and once more after the stop.
    func runWriter() {
        guard case let .file(fd) = sink else { return }
        lock()
        var output = writerOutput ?? WriterOutput(encoding: binary ? .binary : .jsonLines)
        writerOutput = nil
        var merger = RingMerger(ticks: countsTicks ? TickConverter(start: tickStart, origin: origin) : nil)
        while true {
            var final = false
            if pending == nil {
                if stopped && buffer.isEmpty {
                    guard merging else { break }
                    final = true
                } else {
                    if !stopped { waitForWriterWork() }
                    if pending == nil && (!buffer.isEmpty || merging) { handOff() }
                    guard pending != nil else { continue }
                }
            }
            var chunk = pending ?? []
            var records = pendingRecords
            let marks = pendingMarks
            let limit = final ? sequence : pendingLimit
            let rings = ringList
            pending = nil
            pendingMarks = []
            pthread_cond_broadcast(writerDone)
            let failed = writeError != nil
            unlock()
            var failure: String?
            if merging {
                records = merger.merge(chunk, marks: marks, through: limit, rings: rings, final: final, into: &output)
            } else {
                chunk.withUnsafeBytes { output.records($0) }
            }
            let bytes = output.take()
            if !failed { failure = Self.writeAll(bytes, to: fd) }
            // The rings of threads that ended, drained now (their last events are written):
            // let go, so that many short-lived threads do not grow one recording's memory.
            let finished = merging ? Set(rings.filter(\.isFinished).map(ObjectIdentifier.init)) : []
            lock()
            if !finished.isEmpty {
                ringList.removeAll { finished.contains(ObjectIdentifier($0)) }
                for ring in rings where finished.contains(ObjectIdentifier(ring)) { self.rings[ring.owner] = nil }
            }
            if let failure, writeError == nil { writeError = failure }
            if writeError != nil { dropped += records }
            if final { break }
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
    func waitForWriterWork() {
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
    static func writeAll(_ bytes: [UInt8], to fd: Int32) -> String? {
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
}

/// A record in a merging recorder's shared buffer: where it ends, and its place among the
/// events: an event's is its sequence number less one (`key`, with `isEvent`), any other
/// record's the last sequence number given when it was appended (it follows that event and
/// precedes the next).
struct SharedMark {
    var end: Int
    var key: UInt64
    var isEvent: Bool
}

/// The writer's merge of a live recording: the shared buffer's records and the threads' ring
/// events, in one order. Each event comes in sequence order; a record of the shared buffer
/// comes after the event its key names. The events of a ring are in sequence order, so the
/// next event is at the front of one ring or of the buffer.
///
/// An event taken but not yet in its ring (its thread is between the two) stops the merge
/// until the next round; so does the limit of the buffer handed over (a record appended after
/// the cut may come before a later event). After the stop (`final`) a missing event is one
/// that will never come (a thread sending as the recorder stopped) and is passed over.
struct RingMerger {
    /// Turns ring events' counter ticks into nanoseconds, when they hold ticks (`TickClock`).
    private var ticks: TickConverter?
    /// The time of the last event written from each ring, by its thread's serial (converted
    /// from ticks): a later event of the same thread is written no earlier, though a new
    /// round's conversion may place it a few nanoseconds before.
    private var lastTimes: [UInt64: Int64] = [:]
    /// The next event sequence number to write.
    private var next: UInt64 = 1
    /// Records of the shared buffer not yet written, and their marks (`end` relative to it).
    private var shared: [UInt8] = []
    private var marks: [SharedMark] = []

    init(ticks: TickConverter?) {
        self.ticks = ticks
    }

    /// Writes what can be written now into `out`; returns the records written.
    mutating func merge(_ chunk: [UInt8], marks chunkMarks: [SharedMark], through limit: UInt64, rings: [ThreadRing],
                        final: Bool, into out: inout WriterOutput) -> UInt64 {
        let base = shared.count
        shared.append(contentsOf: chunk)
        marks.append(contentsOf: chunkMarks.map { SharedMark(end: $0.end + base, key: $0.key, isEvent: $0.isEvent) })
        var cursors = rings.map { (position: $0.tail.load(ordering: .relaxed), end: $0.head.load(ordering: .acquiring)) }
        // After the heads are read: every event this round takes was stamped before the pair.
        ticks?.advance()
        var floors = ticks == nil ? [] : rings.map { lastTimes[$0.owner] ?? 0 }
        var written: UInt64 = 0
        var start = 0
        var index = 0
        var current = 0
        shared.withUnsafeBytes { bytes in
            while true {
                // The buffer's records due before event `next`, and event `next` if it is there.
                while index < marks.count {
                    let mark = marks[index]
                    if mark.isEvent ? mark.key + 1 != next : mark.key >= next { break }
                    out.records(UnsafeRawBufferPointer(rebasing: bytes[start..<mark.end]))
                    start = mark.end
                    index += 1
                    written += 1
                    if mark.isEvent { next += 1 }
                }
                guard next <= limit else { break }
                if let ring = ringHolding(next, rings, cursors, first: current) {
                    current = ring
                    // A run of the ring's events, up to a record of the buffer due first.
                    while cursors[ring].position < cursors[ring].end, next <= limit {
                        let slot = rings[ring].slot(at: cursors[ring].position)
                        var event = slot.pointee.event
                        guard event.sequence == next else { break }
                        if let ticks {
                            event.time = max(ticks.nanoseconds(event.time), floors[ring])
                            floors[ring] = event.time
                        }
                        let value = withUnsafeMutablePointer(to: &slot.pointee.value) { CapturedValue.take(from: $0) }
                        out.event(event, value: value)
                        cursors[ring].position += 1
                        next += 1
                        written += 1
                        if index < marks.count, !marks[index].isEvent, marks[index].key < next { break }
                    }
                    continue
                }
                guard final else { break }
                next += 1
            }
        }
        for (ring, cursor) in zip(rings, cursors) { ring.tail.store(cursor.position, ordering: .releasing) }
        if ticks != nil { lastTimes = Dictionary(uniqueKeysWithValues: zip(rings.map(\.owner), floors)) }
        shared.removeFirst(start)
        marks.removeFirst(index)
        for position in marks.indices { marks[position].end -= start }
        return written
    }

    /// The ring whose front event is number `sequence`, trying `first` before the others.
    private func ringHolding(_ sequence: UInt64, _ rings: [ThreadRing], _ cursors: [(position: Int, end: Int)],
                             first: Int) -> Int? {
        func holds(_ ring: Int) -> Bool {
            cursors[ring].position < cursors[ring].end
                && rings[ring].slot(at: cursors[ring].position).pointee.event.sequence == sequence
        }
        if first < rings.count, holds(first) { return first }
        return rings.indices.first(where: holds)
    }
}
