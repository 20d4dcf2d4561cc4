import Locks
import Synchronization

/// Something that can be cancelled or released, at most once.
///
/// ```swift
/// let ticks = SignalProducer<Int, Never>([1, 2, 3]).delay(1, on: QueueScheduler.main)
/// let running: Disposable = ticks.startWithValues { print($0) }
/// running.dispose()   // interrupts the producer: nothing is printed
/// ```
public protocol Disposable: AnyObject, Sendable {
    /// Whether `dispose()` has been called.
    var isDisposed: Bool { get }
    /// Releases the resource. Calling it again does nothing.
    func dispose()
}

/// Runs an action once, on the first `dispose()`.
///
/// ```swift
/// let cleanup = AnyDisposable { print("closed the connection") }
/// cleanup.dispose()   // prints "closed the connection"
/// cleanup.dispose()   // does nothing: an action runs once
/// ```
public final class AnyDisposable: Disposable, @unchecked Sendable {  // the action is taken once, after the atomic flag is won
    private let state = Synchronization.Atomic<Bool>(false)
    private var action: (() -> Void)?

    /// A disposable that only remembers whether it was disposed.
    public init() { action = nil }

    /// A disposable that runs `action` on the first `dispose()`.
    public init(_ action: @escaping () -> Void) { self.action = action }

    /// A disposable that disposes `disposable`.
    public convenience init(_ disposable: Disposable) {
        self.init { disposable.dispose() }
    }

    public var isDisposed: Bool { state.load(ordering: .acquiring) }

    public func dispose() {
        guard !state.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let action = self.action
        self.action = nil
        action?()
    }
}

/// Disposes many disposables together; anything added after disposal is disposed at once.
///
/// ```swift
/// let (typed, input) = Signal<String, Never>.pipe()
/// let observations = CompositeDisposable()
/// observations += typed.observeValues { print("typed", $0) }
/// observations += { print("screen closed") }
/// input.send(value: "a")      // prints "typed a"
/// observations.dispose()      // ends both: prints "screen closed"
/// ```
public final class CompositeDisposable: Disposable, @unchecked Sendable {  // disposables only under `lock`
    /// Removes one added disposable from the composite without disposing it.
    public struct Handle {
        fileprivate weak var owner: CompositeDisposable?
        fileprivate let token: UInt64

        /// Takes the disposable back out of its composite (it is not disposed).
        public func remove() { owner?.remove(token) }

        /// `remove()`, by the name ReactiveSwift's handle has: the disposable is taken back
        /// out, not disposed.
        public func dispose() { remove() }
    }

    private let lock = Lock()
    private var disposables: [(UInt64, Disposable)]? = []
    private var nextToken: UInt64 = 0

    public init() {}

    public init<S: Sequence>(_ disposables: S) where S.Element == Disposable {
        self.disposables = disposables.enumerated().map { (UInt64($0.offset), $0.element) }
        nextToken = UInt64(self.disposables!.count)
    }

    public var isDisposed: Bool { lock.withLock { disposables == nil } }

    public func dispose() {
        let taken: [(UInt64, Disposable)]? = lock.withLock {
            defer { disposables = nil }
            return disposables
        }
        // Disposed in reverse order of addition, as resources are usually nested.
        taken?.reversed().forEach { $0.1.dispose() }
    }

    /// Adds a disposable; returns nil (and disposes it) when the composite is already disposed.
    @discardableResult
    public func add(_ disposable: Disposable?) -> Handle? {
        guard let disposable else { return nil }
        let token: UInt64? = lock.withLock {
            guard disposables != nil else { return nil }
            nextToken += 1
            disposables!.append((nextToken, disposable))
            return nextToken
        }
        guard let token else {
            disposable.dispose()
            return nil
        }
        return Handle(owner: self, token: token)
    }

    /// Adds an action to run on disposal.
    @discardableResult
    public func add(_ action: @escaping () -> Void) -> Handle? {
        add(AnyDisposable(action))
    }

    fileprivate func remove(_ token: UInt64) {
        lock.withLock { disposables?.removeAll { $0.0 == token } }
    }

    @discardableResult
    public static func += (lhs: CompositeDisposable, rhs: Disposable?) -> Handle? {
        lhs.add(rhs)
    }

    @discardableResult
    public static func += (lhs: CompositeDisposable, rhs: @escaping () -> Void) -> Handle? {
        lhs.add(rhs)
    }
}

/// Holds one disposable at a time; replacing it disposes the previous one.
///
/// ```swift
/// let search = SerialDisposable()
/// for text in ["s", "sw", "swift"] {
///     // each new search disposes the one before
///     search.inner = SignalProducer(value: text).startWithValues { print("searching", $0) }
/// }
/// search.dispose()
/// ```
public final class SerialDisposable: Disposable, @unchecked Sendable {  // state only under `lock`
    private let lock = Lock()
    private var current: Disposable?
    private var disposed = false

    public init(_ disposable: Disposable? = nil) { current = disposable }

    public var isDisposed: Bool { lock.withLock { disposed } }

    /// The disposable held now. Setting it disposes the previous one; after disposal,
    /// a new one is disposed at once.
    public var inner: Disposable? {
        get { lock.withLock { current } }
        set {
            let (old, rejected): (Disposable?, Bool) = lock.withLock {
                if disposed { return (nil, true) }
                defer { current = newValue }
                return (current, false)
            }
            old?.dispose()
            if rejected { newValue?.dispose() }
        }
    }

    public func dispose() {
        let old: Disposable? = lock.withLock {
            if disposed { return nil }
            disposed = true
            defer { current = nil }
            return current
        }
        old?.dispose()
    }
}

/// Disposes what it wraps when it is deinitialised.
///
/// ```swift
/// final class Screen {
///     let observations = ScopedDisposable(CompositeDisposable())   // disposed with the screen
///     init(typed: Signal<String, Never>) {
///         observations += typed.observeValues { print("typed", $0) }
///     }
/// }
/// ```
public final class ScopedDisposable<Inner: Disposable>: Disposable, @unchecked Sendable {  // immutable; the inner disposable guards itself
    /// The wrapped disposable.
    public let inner: Inner

    public init(_ inner: Inner) { self.inner = inner }

    deinit { inner.dispose() }

    public var isDisposed: Bool { inner.isDisposed }
    public func dispose() { inner.dispose() }
}

extension ScopedDisposable where Inner == AnyDisposable {
    /// Wraps any disposable.
    public convenience init(_ disposable: Disposable) {
        self.init(AnyDisposable(disposable))
    }
}

extension ScopedDisposable where Inner == CompositeDisposable {
    @discardableResult
    public static func += (lhs: ScopedDisposable<CompositeDisposable>, rhs: Disposable?) -> CompositeDisposable.Handle? {
        lhs.inner.add(rhs)
    }
}
