import Locks
import Signals
import XCTest

/// The error `#` stands for in these tests.
struct TestError: Swift.Error, Equatable, CustomStringConvertible {
    var message = "error"
    var description: String { message }
}

/// Marble strings for the Signals tests: `-` is one frame (1 ms), a letter or digit is a
/// one-character string value, `|` completes, `#` fails with `TestError()`, `!` interrupts,
/// `(ab)` puts its events in one frame (every character still takes a frame, as in RxJS).
enum MarbleLine {
    struct Entry {
        let frame: Int64
        let event: Event<String, TestError>
    }

    static let frame: Int64 = 1_000_000

    static func parse(_ line: String) -> [Entry] {
        var entries: [Entry] = []
        var frame: Int64 = 0
        var groupStart: Int64?
        for character in line where character != " " {
            let at = groupStart ?? frame
            switch character {
            case "-": break
            case "(": groupStart = frame
            case ")": groupStart = nil
            case "|": entries.append(Entry(frame: at, event: .completed))
            case "#": entries.append(Entry(frame: at, event: .failed(TestError())))
            case "!": entries.append(Entry(frame: at, event: .interrupted))
            default: entries.append(Entry(frame: at, event: .value(String(character))))
            }
            frame += 1
        }
        return entries
    }

    /// Prints events as a marble line (values by their first character).
    static func print<V, E>(_ events: [(time: Int64, event: Event<V, E>)]) -> String {
        var byFrame: [Int64: [String]] = [:]
        for (time, event) in events {
            let symbol: String
            switch event {
            case let .value(value): symbol = String("\(value)".prefix(1))
            case .failed: symbol = "#"
            case .completed: symbol = "|"
            case .interrupted: symbol = "!"
            }
            byFrame[time / frame, default: []].append(symbol)
        }
        var out = ""
        var frame: Int64 = 0
        let last = byFrame.keys.max() ?? -1
        while frame <= last {
            if let symbols = byFrame[frame] {
                if symbols.count == 1 {
                    out += symbols[0]
                    frame += 1
                } else {
                    out += "(" + symbols.joined() + ")"
                    frame += Int64(symbols.count + 2)
                }
            } else {
                out += "-"
                frame += 1
            }
        }
        return out
    }
}

extension TestScheduler {
    /// A hot signal that sends the marble line's events at their frames.
    func hot(_ line: String, file: StaticString = #fileID, lineNumber: UInt = #line) -> Signal<String, TestError> {
        let (signal, input) = Signal<String, TestError>.pipe(file: file, line: lineNumber)
        for entry in MarbleLine.parse(line) {
            schedule(atNanoseconds: entry.frame * MarbleLine.frame) { input.send(entry.event) }
        }
        return signal
    }

    /// A cold producer that, on each start, sends the line's events relative to the start.
    func cold(_ line: String, file: StaticString = #fileID, lineNumber: UInt = #line) -> SignalProducer<String, TestError> {
        let entries = MarbleLine.parse(line)
        return SignalProducer(file: file, line: lineNumber) { observer, lifetime in
            let start = self.now
            for entry in entries {
                lifetime += self.schedule(atNanoseconds: start + entry.frame * MarbleLine.frame) {
                    observer.send(entry.event)
                }
            }
        }
    }
}

/// Collects the events a stream sends, with their virtual times.
final class Collector<Value, Error: Swift.Error> {
    private(set) var events: [(time: Int64, event: Event<Value, Error>)] = []
    let scheduler: TestScheduler

    init(_ scheduler: TestScheduler) { self.scheduler = scheduler }

    var observer: Signals.Observer<Value, Error> {
        Signals.Observer { [unowned self] in self.events.append((self.scheduler.now, $0)) }
    }

    var values: [Value] { events.compactMap { $0.event.value } }
    var marbles: String { MarbleLine.print(events) }
}

/// Runs `build` over the marble inputs on a fresh scheduler and checks the output line.
func expectMarbles<V, E>(
    _ expected: String,
    file: StaticString = #filePath, line: UInt = #line,
    _ build: (TestScheduler) -> Signal<V, E>
) {
    let scheduler = TestScheduler()
    let collector = Collector<V, E>(scheduler)
    build(scheduler).observe(collector.observer)
    scheduler.run()
    XCTAssertEqual(collector.marbles, expected.replacingOccurrences(of: " ", with: ""),
                   "\nexpected: \(expected)\n  actual: \(collector.marbles)", file: file, line: line)
}

/// As `expectMarbles`, for a producer started at frame 0.
func expectMarbles<V, E>(
    _ expected: String,
    file: StaticString = #filePath, line: UInt = #line,
    _ build: (TestScheduler) -> SignalProducer<V, E>
) {
    let scheduler = TestScheduler()
    let collector = Collector<V, E>(scheduler)
    build(scheduler).start(collector.observer)
    scheduler.run()
    XCTAssertEqual(collector.marbles, expected.replacingOccurrences(of: " ", with: ""),
                   "\nexpected: \(expected)\n  actual: \(collector.marbles)", file: file, line: line)
}

/// A probe that keeps what it is told, for tests.
final class TestProbe: Probe, @unchecked Sendable {
    struct Sent: Equatable {
        let node: String
        let subscription: UInt64
        let kind: EventKind
        let value: String?
        let sequence: UInt64
        let causes: [UInt64]
    }

    private let lock = Lock()
    private var nextSequence: UInt64 = 0
    private(set) var subscriptions: [(node: Node, subscription: UInt64, parent: UInt64)] = []
    private(set) var sent: [Sent] = []
    private(set) var disposed: [(node: Node, subscription: UInt64)] = []
    private(set) var hops: [(node: String?, scheduler: String, started: Bool)] = []
    private(set) var marks: [String] = []

    func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64) {
        lock.withLock { subscriptions.append((node, subscription, parent)) }
    }

    func willSend(_ node: Node, subscription: UInt64, kind: EventKind, value: Any?, causes: Causes) -> UInt64 {
        lock.withLock {
            nextSequence += 1
            sent.append(Sent(node: node.name, subscription: subscription, kind: kind,
                             value: value.map { "\($0)" }, sequence: nextSequence, causes: causes.all))
            return nextSequence
        }
    }

    func didDispose(_ node: Node, subscription: UInt64) {
        lock.withLock { disposed.append((node, subscription)) }
    }

    func hopEnqueued(_ node: Node?, subscription: UInt64, scheduler: String) -> UInt64 {
        lock.withLock {
            hops.append((node?.name, scheduler, false))
            return UInt64(hops.count)
        }
    }

    func hopStarted(_ hop: UInt64) {
        lock.withLock { hops[Int(hop) - 1].started = true }
    }

    func mark(_ label: String) {
        lock.withLock { marks.append(label) }
    }

    /// Attaches for the duration of `body`.
    @discardableResult
    func attached<R>(_ body: () throws -> R) rethrows -> R {
        Instrumentation.attach(self)
        defer { Instrumentation.detach(self) }
        return try body()
    }
}
