import MarbleNotation
import Signals

/// A test of an async pipeline in marble lines: inputs written as lines play in virtual time,
/// the pipeline runs on a `VirtualTimeDriver`, and what it produced comes back as a line.
/// Values are typed (each input maps its symbols to values), and a test has as many inputs
/// as it likes.
///
/// ```swift
/// let test = AsyncMarbleTest(frame: .milliseconds(100))
/// let typed = try test.input("ab----c--|", values: ["a": "s", "b": "sw", "c": "swift"])
/// let settled = typed.debounce(for: .milliseconds(200), clock: test.clock)
/// let line = try test.output(of: settled) { "\($0.count)" }
/// print(line)   // "---2----5|": "sw" two frames after it was typed, "swift" likewise
/// ```
///
/// An input plays its line from virtual time 0 whether or not it is being iterated (its
/// elements wait, buffered, for a pull): the line says when things happen in the world, not
/// when the pipeline asks. `|` finishes it; `#` makes its iteration throw `MarbleFailure`;
/// `(ab)` sends both at one frame, in order.
public final class AsyncMarbleTest: @unchecked Sendable {  // driven from one thread
    /// The driver the pipeline runs on.
    public let driver: VirtualTimeDriver
    /// How long one frame of a line lasts.
    public let frame: Swift.Duration
    /// The virtual clock to give the pipeline's timing operators.
    public var clock: VirtualClock { driver.clock }
    private var longestInput: Int64 = 0

    /// A test whose lines' frames last `frame` (a millisecond by default, as in RxJS).
    public init(frame: Swift.Duration = .milliseconds(1), driver: VirtualTimeDriver = VirtualTimeDriver()) {
        self.frame = frame
        self.driver = driver
    }

    private var frameNanoseconds: Int64 { max(VirtualClock.Instant.nanoseconds(of: frame), 1) }

    /// An input playing `line`, whose symbols stand for `values` (a symbol missing from
    /// `values` is an error naming its column).
    ///
    /// - Throws: `MarbleSyntaxError` for a line that does not parse or names a value not given.
    public func input<Value: Sendable>(_ line: String, values: [String: Value]) throws -> MarbleInput<Value> {
        let events = try MarbleNotation.parse(line, frame: frameNanoseconds)
        for event in events {
            if case let .value(symbol) = event.kind, values[symbol] == nil {
                throw MarbleSyntaxError(line: 1, column: event.column,
                                        message: "expected a value for '\(symbol)'; the values given are for "
                                            + values.keys.sorted().map { "'\($0)'" }.joined(separator: ", "))
            }
            if case .interrupted = event.kind {
                throw MarbleSyntaxError(line: 1, column: event.column, message: "an input cannot be interrupted ('‖')")
            }
        }
        let (stream, continuation) = AsyncThrowingStream<Value, any Error>.makeStream()
        let scheduler = driver.scheduler
        for event in events {
            let at = scheduler.now + max(event.time, 0)
            longestInput = max(longestInput, event.time + frameNanoseconds)
            scheduler.schedule(atNanoseconds: at) {
                switch event.kind {
                case let .value(symbol): continuation.yield(values[symbol]!)
                case .complete: continuation.finish()
                case .error: continuation.finish(throwing: MarbleFailure(column: event.column))
                case .interrupted: break
                }
            }
        }
        return MarbleInput(stream: stream)
    }

    /// An input playing `line` whose values are its symbols.
    public func input(_ line: String) throws -> MarbleInput<String> {
        let events = try MarbleNotation.parse(line, frame: frameNanoseconds)
        var values: [String: String] = [:]
        for case let .value(symbol) in events.map(\.kind) { values[symbol] = symbol }
        return try input(line, values: values)
    }

    /// Runs `sequence` from time 0, in virtual time, and returns the line of what it did: each
    /// element at its frame as `symbol` names it, `|` when it finished, `#` when it threw.
    /// Iteration stops at `horizon` frames (by default twice the longest input's), where the
    /// iterating task is cancelled: an output never finished ends there without a mark.
    ///
    /// - Throws: `VirtualTimeError` when the run cannot complete.
    public func output<S: AsyncSequence>(of sequence: S, frames horizon: Int? = nil,
                                         symbol: @escaping (S.Element) -> String) throws -> String {
        let frameLength = frameNanoseconds
        let end = horizon.map { Int64($0) * frameLength } ?? max(2 * longestInput, frameLength)
        let clock = driver.clock
        let start = clock.now.nanoseconds
        let recorded = Recorded()
        try driver.run(until: VirtualClock.Instant(nanoseconds: start + end)) {
            var iterator = sequence.makeAsyncIterator()
            do {
                while let element = try await iterator.next() {
                    recorded.events.append(.init(time: clock.now.nanoseconds - start, kind: .value(symbol(element))))
                }
                if !Task.isCancelled {
                    recorded.events.append(.init(time: clock.now.nanoseconds - start, kind: .complete))
                }
            } catch is CancellationError {
            } catch {
                recorded.events.append(.init(time: clock.now.nanoseconds - start, kind: .error))
            }
        }
        return MarbleNotation.print(recorded.events, frame: frameLength)
    }

    /// `output(of:frames:symbol:)` for elements that name themselves (`String(describing:)`).
    public func output<S: AsyncSequence>(of sequence: S, frames horizon: Int? = nil) throws -> String {
        try output(of: sequence, frames: horizon) { "\($0)" }
    }

    private final class Recorded: @unchecked Sendable {  // touched only by the driver's thread
        var events: [MarbleNotation.Event] = []
    }
}

/// An input of an `AsyncMarbleTest`: its line's values, played in virtual time. One iterator
/// at a time, as an `AsyncThrowingStream`.
///
/// ```swift
/// let test = AsyncMarbleTest()
/// let clicks: MarbleInput<Int> = try test.input("1-2|", values: ["1": 1, "2": 2])
/// print(try test.output(of: clicks.map { $0 * 10 }) { $0 == 10 ? "a" : "b" })   // "a-b|"
/// ```
public struct MarbleInput<Element: Sendable>: AsyncSequence, Sendable {
    /// What iterating it throws: `MarbleFailure` for the line's `#`.
    public typealias Failure = any Error
    let stream: AsyncThrowingStream<Element, any Error>

    public func makeAsyncIterator() -> AsyncThrowingStream<Element, any Error>.AsyncIterator {
        stream.makeAsyncIterator()
    }
}

/// What an input's `#` throws: the failure of the line, at its column.
///
/// ```swift
/// let test = AsyncMarbleTest()
/// let broken = try test.input("a-#")
/// let column = try test.driver.run {
///     do {
///         for try await _ in broken {}
///         return 0
///     } catch let failure as MarbleFailure {
///         return failure.column
///     }
/// }
/// print(column)   // 3
/// ```
public struct MarbleFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The column of the `#` in its line.
    public let column: Int
    public var description: String { "marble failure (#) at column \(column)" }
}
