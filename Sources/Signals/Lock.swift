import Foundation

/// A small mutex over `pthread_mutex_t`, allocated once so its address is stable.
///
/// Foundation's `NSLock` adds a class hop and error checking on Linux; this is the
/// plain primitive, used on every hot path of the core.
@usableFromInline
final class Lock: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    @usableFromInline
    init(recursive: Bool = false) {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        if recursive {
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        }
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inlinable @inline(__always)
    func lock() { pthread_mutex_lock(mutex) }

    @inlinable @inline(__always)
    func unlock() { pthread_mutex_unlock(mutex) }

    @inlinable @inline(__always)
    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A value guarded by a `Lock`.
@usableFromInline
final class Protected<Value>: @unchecked Sendable {
    @usableFromInline let lock = Lock()
    @usableFromInline var value: Value

    @usableFromInline
    init(_ value: Value) { self.value = value }

    @inlinable @inline(__always)
    func modify<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    @inlinable
    var current: Value { lock.withLock { value } }
}

/// State guarded by a `Lock` and reached through a pointer: `withLock` hands it out `inout`
/// without the run-time exclusivity check a class `var` pays on every access (the lock already
/// makes the accesses exclusive). A pthread mutex rather than `Synchronization.Mutex`, whose
/// futex word the thread sanitizer cannot see on Linux (it reported every send as a race).
@usableFromInline
final class LockedState<State>: OperatorState<State>, @unchecked Sendable {
    @usableFromInline let lock = Lock()

    @inlinable @inline(__always)
    func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&pointer.pointee)
    }
}
