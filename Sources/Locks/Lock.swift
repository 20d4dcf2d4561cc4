/// The package's lock, for every module that guards shared state. Package access only:
/// nothing here is API. Imports nothing but the C library.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The package's one lock: a small mutex over `pthread_mutex_t`, allocated once so its
/// address is stable.
///
/// Foundation's `NSLock` adds a class hop and error checking on Linux; this is the plain
/// primitive, used on every hot path of the core and wherever the package guards state.
/// A pthread mutex rather than `Synchronization.Mutex`, whose futex word the thread
/// sanitizer cannot see on Linux (it reported every guarded access as a race).
@usableFromInline
package final class Lock: @unchecked Sendable {  // the mutex makes every access exclusive
    @usableFromInline package let mutex: UnsafeMutablePointer<pthread_mutex_t>

    @usableFromInline
    package init(recursive: Bool = false) {
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
    package func lock() { pthread_mutex_lock(mutex) }

    @inlinable @inline(__always)
    package func unlock() { pthread_mutex_unlock(mutex) }

    /// Takes the lock if it is free (or, for a recursive lock, already held by this thread).
    @inlinable @inline(__always)
    package func tryLock() -> Bool { pthread_mutex_trylock(mutex) == 0 }

    @inlinable @inline(__always)
    package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A value guarded by a `Lock`.
@usableFromInline
package final class Protected<Value>: @unchecked Sendable {  // every access goes through `lock`
    @usableFromInline package let lock = Lock()
    @usableFromInline package var value: Value

    @usableFromInline
    package init(_ value: Value) { self.value = value }

    @inlinable @inline(__always)
    package func modify<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    @inlinable
    package var current: Value { lock.withLock { value } }
}
