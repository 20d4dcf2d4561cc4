/// The span during which a resource is in use: a stream's life, an object's life.
///
/// A `Lifetime` ends once; what was added to it is disposed then. A stream's start handler
/// gets the stream's lifetime, which ends when the stream terminates or is disposed.
///
/// ```swift
/// let (lifetime, token) = Lifetime.make()
/// let (clicks, click) = Signal<Void, Never>.pipe()
/// lifetime += clicks.observeValues { print("clicked") }
/// click.send(value: ())   // prints "clicked"
/// token.end()             // ends the lifetime: the observation stops
/// click.send(value: ())   // prints nothing
/// ```
public final class Lifetime: @unchecked Sendable {  // immutable; CompositeDisposable guards itself
    /// Ends its lifetime when it is deinitialised (an object's lifetime: keep the token as
    /// a stored property).
    ///
    /// ```swift
    /// final class SearchScreen {
    ///     private let token = Lifetime.Token()
    ///     lazy var lifetime = Lifetime(token)   // ends when the screen is deinitialised
    /// }
    /// ```
    public final class Token: @unchecked Sendable {  // immutable; CompositeDisposable guards itself
        fileprivate let disposables = CompositeDisposable()
        public init() {}
        deinit { disposables.dispose() }
        /// Ends the lifetime now.
        public func end() { disposables.dispose() }
        /// Ends the lifetime now (ReactiveSwift's name for `end()`).
        public func dispose() { end() }
    }

    fileprivate let disposables: CompositeDisposable

    /// A lifetime that ends when `disposables` is disposed.
    public init(_ disposables: CompositeDisposable) { self.disposables = disposables }

    /// A lifetime bound to a token.
    public convenience init(_ token: Token) { self.init(token.disposables) }

    /// A new lifetime and the token that ends it.
    public static func make() -> (lifetime: Lifetime, token: Token) {
        let token = Token()
        return (Lifetime(token), token)
    }

    /// A lifetime that has already ended.
    public static let empty: Lifetime = {
        let disposables = CompositeDisposable()
        disposables.dispose()
        return Lifetime(disposables)
    }()

    /// Whether the lifetime has ended.
    public var hasEnded: Bool { disposables.isDisposed }

    /// Runs `action` when the lifetime ends (at once if it has, returning nil then). The
    /// disposable returned takes `action` back out: disposed first, it never runs.
    @discardableResult
    public func observeEnded(_ action: @escaping () -> Void) -> Disposable? {
        guard let handle = disposables.add(AnyDisposable(action)) else { return nil }
        return AnyDisposable { handle.remove() }
    }

    /// A signal that completes when the lifetime ends.
    public var ended: Signal<Never, Never> {
        let (signal, input) = Signal<Never, Never>.pipe()
        observeEnded { input.sendCompleted() }
        return signal
    }

    /// Disposes `disposable` when the lifetime ends.
    @discardableResult
    public static func += (lifetime: Lifetime, disposable: Disposable?) -> Disposable? {
        guard let disposable else { return nil }
        lifetime.disposables.add(disposable)
        return disposable
    }
}
