import Foundation
import Locks
import Synchronization

/// Receives the events of a stream. Sending into an observer calls its action.
///
/// An `Observer` is also the input end of a `Signal.pipe()` and what a `SignalProducer`'s
/// start handler sends into.
///
/// ```swift
/// let printer = Signal<Int, Never>.Observer(value: { print("got", $0) },
///                                           completed: { print("done") })
/// SignalProducer<Int, Never>([1, 2]).start(printer)   // got 1, got 2, done
/// ```
public final class Observer<Value, Error: Swift.Error>: @unchecked Sendable {  // immutable; an action of any type, serialised by its signal
    /// What an observer calls with each event (ReactiveSwift's `Signal.Observer.Action`).
    public typealias Action = (Event<Value, Error>) -> Void

    @usableFromInline let action: (Event<Value, Error>) -> Void
    /// What `send(value:)` calls when `takesValues`: the value lent as it is, with no event
    /// made around it, so a value passes from stage to stage of a pipeline without a copy
    /// (making an event of a value copies it, and reading it back out of one copies it again:
    /// a retain and a release of each reference the value holds, at every stage).
    @usableFromInline let valueAction: (Value) -> Void
    /// Whether `valueAction` is the observer's own; otherwise values go to `action` as events.
    /// A flag and not an optional closure: calling an optional closure retains its context.
    @usableFromInline let takesValues: Bool

    /// An observer that calls `action` with each event.
    public init(_ action: @escaping (Event<Value, Error>) -> Void) {
        self.action = action
        self.valueAction = { _ in }
        self.takesValues = false
    }

    /// An observer that calls `value` with each value and `action` with every other event.
    /// `action` must also take a value event as `value` would (`send(_:)` with a value event
    /// calls it): the two are one observer, and which one a value reaches is not a meaning.
    @inlinable
    init(_ action: @escaping (Event<Value, Error>) -> Void, value: @escaping (Value) -> Void) {
        self.action = action
        self.valueAction = value
        self.takesValues = true
    }

    /// An observer with a callback per kind of event.
    @inlinable
    public convenience init(
        value: ((Value) -> Void)? = nil,
        failed: ((Error) -> Void)? = nil,
        completed: (() -> Void)? = nil,
        interrupted: (() -> Void)? = nil
    ) {
        self.init({ event in
            switch event {
            case let .value(v): value?(v)
            case let .failed(e): failed?(e)
            case .completed: completed?()
            case .interrupted: interrupted?()
            }
        }, value: value ?? { _ in })
    }

    @inlinable @inline(__always)
    public func send(_ event: Event<Value, Error>) { action(event) }

    @inlinable @inline(__always)
    public func send(value: Value) {
        if takesValues {
            valueAction(value)
        } else {
            action(.value(value))
        }
    }

    public func send(error: Error) { action(.failed(error)) }

    public func sendCompleted() { action(.completed) }

    public func sendInterrupted() { action(.interrupted) }
}

extension Observer where Value == Void {
    /// Sends `()`.
    public func send() { action(.value(())) }
}

/// An observer's place in a signal: checked before each delivery so that nothing reaches an
/// observer once its observation has been disposed.
@usableFromInline
final class Observation<Value, Error: Swift.Error>: @unchecked Sendable {  // immutable; `disposed` is atomic, delivery serialised by `gate` or the signal
    @usableFromInline let observer: Observer<Value, Error>
    @usableFromInline let disposed = Synchronization.Atomic<Bool>(false)
    /// Held for each delivery of a gated observation, so disposal can wait one out.
    /// Recursive: an observer may dispose itself, or be re-entered, from inside a delivery.
    @usableFromInline let gate: Lock?
    /// The gate's mutex, kept by `gate`: taken through it without a retain of the lock.
    @usableFromInline let gateMutex: UnsafeMutablePointer<pthread_mutex_t>?

    @usableFromInline
    init(_ observer: Observer<Value, Error>, gated: Bool = false) {
        self.observer = observer
        self.gate = gated ? Lock(recursive: true) : nil
        self.gateMutex = gate?.mutex
    }

    /// Calls the observer with `event` unless the observation was disposed (the caller keeps
    /// `self`, and so the observer, alive: it is used without a retain).
    @inlinable @inline(__always)
    func deliver(_ event: Event<Value, Error>) {
        guard let gateMutex else {
            if !disposed.load(ordering: .acquiring) {
                Unmanaged.passUnretained(observer)._withUnsafeGuaranteedRef { $0.action(event) }
            }
            return
        }
        pthread_mutex_lock(gateMutex)
        if !disposed.load(ordering: .acquiring) {
            Unmanaged.passUnretained(observer)._withUnsafeGuaranteedRef { $0.action(event) }
        }
        pthread_mutex_unlock(gateMutex)
    }

    /// Calls the observer with `value`, lent, unless the observation was disposed. Written
    /// out as `deliver(_:)` is: a closure shared by the two stayed a call of its own.
    @inlinable @inline(__always)
    func deliver(value: Value) {
        guard let gateMutex else {
            if !disposed.load(ordering: .acquiring) {
                Unmanaged.passUnretained(observer)._withUnsafeGuaranteedRef { $0.send(value: value) }
            }
            return
        }
        pthread_mutex_lock(gateMutex)
        if !disposed.load(ordering: .acquiring) {
            Unmanaged.passUnretained(observer)._withUnsafeGuaranteedRef { $0.send(value: value) }
        }
        pthread_mutex_unlock(gateMutex)
    }

    /// Returns once no delivery is in flight on another thread (call after setting `disposed`).
    func waitForDelivery() {
        gate?.lock()
        gate?.unlock()
    }
}
