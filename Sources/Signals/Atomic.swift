import Locks

/// A variable whose every access holds a lock (ReactiveSwift's `Atomic`): a read, a write,
/// or a read-modify-write in `modify` happens as one step with respect to other threads.
///
/// Swift's `Synchronization` module has an `Atomic` type of its own. A file that imports
/// only `Signals` gets this one; a file that imports both names the one it means:
/// `Signals.Atomic` or `Synchronization.Atomic`.
///
/// ```swift
/// let hits = Atomic(0)
/// DispatchQueue.concurrentPerform(iterations: 100) { _ in hits.modify { $0 += 1 } }
/// print(hits.value)   // 100
/// ```
public final class Atomic<Value>: @unchecked Sendable {  // the value only under `lock`
    private let lock = Lock()
    private var stored: Value

    /// A variable holding `value`.
    public init(_ value: Value) {
        stored = value
    }

    /// The current value; setting it replaces the value under the lock.
    public var value: Value {
        get { withValue { $0 } }
        set { swap(newValue) }
    }

    /// Runs `action` on the value, in place, under the lock; returns what `action` returns.
    @discardableResult
    public func modify<Result>(_ action: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try action(&stored)
    }

    /// Runs `action` with the value under the lock (no one changes it meanwhile); returns
    /// what `action` returns.
    @discardableResult
    public func withValue<Result>(_ action: (Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try action(stored)
    }

    /// Replaces the value with `newValue`; returns the value it had.
    @discardableResult
    public func swap(_ newValue: Value) -> Value {
        modify { value in
            let old = value
            value = newValue
            return old
        }
    }
}
