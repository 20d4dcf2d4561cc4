/// The commonest event — an integer value or none, at most one cause — as a recorder keeps
/// it: fixed-size and binary, its line formatted later, off the producing thread (a file
/// recorder's threads' rings and buffer; an in-memory recorder's event columns give it back,
/// `TraceEvents.recordedBinaryEvent(at:)`).
@usableFromInline
package struct BinaryEvent {
    @usableFromInline package var sequence: UInt64
    @usableFromInline package var time: Int64
    @usableFromInline package var node: UInt64
    @usableFromInline package var subscription: UInt64
    @usableFromInline package var thread: UInt64
    @usableFromInline package var cause: UInt64
    @usableFromInline package var integer: Int64
    @usableFromInline package var kind: UInt8
    @usableFromInline package var hasInteger: Bool

    // Inlined into the recorder's send path (which needs `@usableFromInline` above).
    @inlinable @inline(__always)
    package init(sequence: UInt64, time: Int64, node: UInt64, subscription: UInt64, kind: EventKind, thread: UInt64,
                 cause: UInt64, integer: Int64?) {
        self.sequence = sequence
        self.time = time
        self.node = node
        self.subscription = subscription
        self.thread = thread
        self.cause = cause
        self.integer = integer ?? 0
        self.hasInteger = integer != nil
        switch kind {
        case .value: self.kind = 0
        case .failed: self.kind = 1
        case .completed: self.kind = 2
        case .interrupted: self.kind = 3
        case .pull: self.kind = 4
        }
    }

    /// The event's kind.
    @inlinable @inline(__always)
    package var eventKind: EventKind {
        switch kind {
        case 0: return .value
        case 1: return .failed
        case 2: return .completed
        case 3: return .interrupted
        default: return .pull
        }
    }

    /// The cause its line carries, 0 for none: a cause not below this event's number is left
    /// over from an earlier recording and is not written.
    @inlinable @inline(__always)
    package var writtenCause: UInt64 { cause != 0 && cause < sequence ? cause : 0 }
}
