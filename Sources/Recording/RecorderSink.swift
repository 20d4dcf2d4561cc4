import Foundation
import Signals
import TraceLog

/// The recorder's buffer and where it goes: the lock, appending records, handing full
/// buffers to the writer thread (or to memory), and the writer thread itself.
extension RecorderCore {
    // MARK: Internals (called with the lock held)

    @inline(__always) func lock() { pthread_mutex_lock(mutex) }
    @inline(__always) func unlock() { pthread_mutex_unlock(mutex) }

    func append(_ record: TraceRecord) {
        var line = JSONLine(capacity: 0)
        swap(&line.bytes, &buffer)
        record.write(to: &line)
        swap(&line.bytes, &buffer)
        appended()
    }

    /// Bookkeeping after a record was appended to the buffer: counts, high water.
    func appended() {
        bufferedRecords += 1
        highWater = max(highWater, buffer.count)
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
        guard !buffer.isEmpty else { return }
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

    /// The writer thread: formats and appends the buffers handed to it, and every
    /// `flushInterval` takes whatever the buffer holds, until the recorder stops and
    /// everything is written. A buffer only ever holds whole records, so the file gets whole
    /// lines.
    func runWriter() {
        guard case let .file(fd) = sink else { return }
        var lines: [UInt8] = []
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
            var failure: String?
            if !failed {
                lines.removeAll(keepingCapacity: true)
                BinaryEvent.expand(chunk, into: &lines)
                failure = Self.writeAll(lines, to: fd)
            }
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
