import Signals

/// An `AsyncStream` whose elements keep what caused them: an element yielded in work that
/// follows a tap's element (`MarbledSequence.following`) is caused by that element, or by the
/// answer the yielding task last received, and a tap on the stream names it as its element's
/// cause. Made and used as `AsyncStream.makeStream(of:)` is.
///
/// ```swift
/// let (results, display) = MarbledStream.makeStream(of: String.self)
/// for await text in settled {
///     settled.following { Task { display.yield("searched \(text)") } }   // caused by text
/// }
/// display.finish()
/// for await line in results.marbles("results") { print(line) }
/// ```
///
/// An element yielded outside such work has no cause. With no recorder running, a yield
/// costs one check of the probe slot more than an `AsyncStream`'s.
public struct MarbledStream<Element>: AsyncSequence {
    /// A stream never fails: it finishes.
    public typealias Failure = Never

    /// An element and the event that caused it (0: none).
    struct Carried {
        let element: Element
        let cause: UInt64
    }

    let base: AsyncStream<Carried>

    /// A stream and the continuation that yields into it, buffering as `bufferingPolicy` says
    /// (every element, by default).
    public static func makeStream(of elementType: Element.Type = Element.self,
                                  bufferingPolicy: BufferingPolicy = .unbounded) -> (stream: MarbledStream, continuation: Continuation) {
        let policy: AsyncStream<Carried>.Continuation.BufferingPolicy
        switch bufferingPolicy {
        case .unbounded: policy = .unbounded
        case let .bufferingOldest(count): policy = .bufferingOldest(count)
        case let .bufferingNewest(count): policy = .bufferingNewest(count)
        }
        let (base, continuation) = AsyncStream<Carried>.makeStream(bufferingPolicy: policy)
        return (MarbledStream(base: base), Continuation(base: continuation))
    }

    /// How many elements a stream keeps while nobody takes them, as `AsyncStream`'s.
    public enum BufferingPolicy: Sendable {
        /// Every element.
        case unbounded
        /// The first `count` elements waiting; later ones are dropped.
        case bufferingOldest(Int)
        /// The last `count` elements waiting; older ones are dropped.
        case bufferingNewest(Int)
    }

    /// What yields into a `MarbledStream` and finishes it.
    public struct Continuation {
        let base: AsyncStream<Carried>.Continuation

        /// Yields `value`, caused by what the current task's work follows, if it follows an
        /// element in the running recording. After `finish()`, it is dropped.
        public func yield(_ value: sending Element) {
            var cause: UInt64 = 0
            if Instrumentation.isAttached, let probe = Instrumentation.probe, let following = Following.current(for: probe) {
                cause = following.cause
            }
            base.yield(Carried(element: value, cause: cause))
        }

        /// Finishes the stream: its iteration ends once the elements yielded are taken.
        public func finish() {
            base.finish()
        }
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator())
    }

    /// An iteration of a `MarbledStream`: gives each element's cause to the tap pulling it.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<Carried>.Iterator

        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Element? {
            guard let carried = await base.next(isolation: actor) else { return nil }
            if carried.cause != 0 { Pull.current?.add(carried.cause) }
            return carried.element
        }
    }
}

extension MarbledStream: Sendable where Element: Sendable {}
extension MarbledStream.Carried: Sendable where Element: Sendable {}
extension MarbledStream.Continuation: Sendable where Element: Sendable {}
