import Locks

/// State guarded by a `Lock` and reached through a pointer: `withLock` hands it out `inout`
/// without the run-time exclusivity check a class `var` pays on every access (the lock already
/// makes the accesses exclusive). A pthread mutex rather than `Synchronization.Mutex`, whose
/// futex word the thread sanitizer cannot see on Linux (it reported every send as a race).
@usableFromInline
final class LockedState<State>: OperatorState<State>, @unchecked Sendable {  // the state only under `lock`
    @usableFromInline let lock = Lock()

    @inlinable @inline(__always)
    func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&pointer.pointee)
    }
}
