import Foundation
import Signals
import Synchronization
import TraceLog

/// One thread's buffer of a live recording to a file: a ring of fixed-size binary events, each
/// with its value as it was sent (`CapturedValue`), that the thread appends to without a lock, and the recorder's writer thread drains (one
/// producer, one consumer), with the trace ids the thread last used, kept on the thread.
///
/// The producer writes a slot, then publishes it by storing `head` (releasing); the writer
/// reads up to `head` (acquiring) and gives slots back by storing `tail`. A full ring makes
/// its producer wait for the writer (back-pressure), so memory is bounded by one ring a live
/// thread: a thread that ends marks its ring (`threadEnded`), and the writer lets go of it once
/// drained.
final class ThreadRing: ThreadLocalObject, @unchecked Sendable {  // head/tail/ended are atomics; `local` is the producer's, `slots` are handed over by them
    /// The `ThreadInfo.serial` of the thread it belongs to.
    let owner: UInt64
    /// Set when the thread ended (after its last push): once drained, the writer lets go of it.
    let ended = Synchronization.Atomic<Bool>(false)
    let capacity: Int
    private let mask: Int
    let slots: UnsafeMutablePointer<RingEvent>
    /// Slots published by the producer, and slots given back by the writer (both only grow).
    let head = Synchronization.Atomic<Int>(0)
    let tail = Synchronization.Atomic<Int>(0)
    /// The producer's own state, behind a pointer (a class's stored `var`s are checked for
    /// exclusive access on every access, a pointee is not). Only the owning thread touches it.
    let local: UnsafeMutablePointer<Local>
    struct Local {
        var head = 0
        /// The writer's `tail` when last read: space is known without an atomic load.
        var tail = 0
        /// The thread's trace id, and the scheduler and queue it was given under.
        var thread: UInt64 = 0
        var scheduler: String?
        var isMain = false
        var label: [CChar] = [0]
    }
    /// The trace ids of nodes and subscriptions this thread has used (the recorder's tables
    /// stay the record; a process-wide id is never reused, so an entry never goes stale).
    let nodes = IDCache(capacity: 64)
    let subscriptions = IDCache(capacity: 256)

    init(capacity: Int, owner: UInt64) {
        // A capture's storage is found at its start (`CapturedValue`), and a slot's capture at
        // the slot's: checked once a ring, not at every send.
        precondition(CapturedValue.storageIsFirst, "a captured value's storage is not at its start")
        precondition(RingEvent.valueIsFirst, "a ring slot's captured value is not at its start")
        self.owner = owner
        var size = 64
        while size < capacity { size <<= 1 }
        self.capacity = size
        mask = size - 1
        slots = .allocate(capacity: size)
        local = .allocate(capacity: 1)
        local.initialize(to: Local())
    }

    deinit {
        // Events pushed after the writer's last round (a send racing the stop) hold values.
        var index = tail.load(ordering: .acquiring)
        let end = head.load(ordering: .acquiring)
        while index != end {
            withUnsafeMutablePointer(to: &slots[index & mask].value) { CapturedValue.discard($0) }
            index &+= 1
        }
        slots.deallocate()
        local.deinitialize(count: 1)
        local.deallocate()
        nodes.deallocate()
        subscriptions.deallocate()
    }

    func threadEnded() {
        ended.store(true, ordering: .releasing)
    }

    /// Writer: whether the ring's thread has ended and the writer took every event it pushed.
    var isFinished: Bool {
        ended.load(ordering: .acquiring) && tail.load(ordering: .relaxed) == head.load(ordering: .acquiring)
    }

    /// Producer: whether a slot is free, reading the writer's progress only when the last
    /// reading says the ring is full.
    /// (The positions only grow and the head stays within `capacity` of the tail: wrapping
    /// arithmetic here and in `push`, which the send path would otherwise check each event.)
    @inline(__always) func hasSpace() -> Bool {
        if local.pointee.head &- local.pointee.tail < capacity { return true }
        local.pointee.tail = tail.load(ordering: .acquiring)
        return local.pointee.head &- local.pointee.tail < capacity
    }

    /// Producer: the next slot, to be filled and then published (`publish()`); `hasSpace()`
    /// was true.
    @inline(__always) func nextSlot() -> UnsafeMutablePointer<RingEvent> {
        slots + (local.pointee.head & mask)
    }

    /// Producer: publishes the slot `nextSlot()` gave, filled: the writer may take it now.
    @inline(__always) func publish() {
        let next = local.pointee.head &+ 1
        local.pointee.head = next
        head.store(next, ordering: .releasing)
    }

    /// Producer: the thread's trace id when it was given under the scheduler and queue the
    /// thread runs now, else nil.
    @inline(__always) func cachedThread(_ context: ProbeContext) -> UInt64? {
        let state = local
        guard state.pointee.thread != 0, state.pointee.scheduler == context.schedulerName else { return nil }
        if state.pointee.isMain { return state.pointee.thread }
        return state.pointee.label.withUnsafeBufferPointer { strcmp($0.baseAddress!, currentQueueLabel()) == 0 }
            ? state.pointee.thread : nil
    }

    /// Producer: remembers the thread's trace id under the current scheduler and queue.
    func cacheThread(_ id: UInt64, _ context: ProbeContext, isMain: Bool) {
        local.pointee.thread = id
        local.pointee.scheduler = context.schedulerName
        local.pointee.isMain = isMain
        let label = currentQueueLabel()
        local.pointee.label = Array(UnsafeBufferPointer(start: label, count: strlen(label) + 1))
    }

    /// Writer: the slot at position `index` (between `tail` and `head`).
    @inline(__always) func slot(at index: Int) -> UnsafeMutablePointer<RingEvent> {
        slots + (index & mask)
    }
}
