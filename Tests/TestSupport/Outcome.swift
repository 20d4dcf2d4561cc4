import Dispatch
import Locks
import Signals
import XCTest

/// What a test pipeline's sink saw, thread-safely: its values and how it ended.
public final class Outcome<Value>: @unchecked Sendable {  // state only under `lock`
    private let lock = Lock()
    private var storedValues: [Value] = []
    private var storedTerminal: String?
    private let finished = DispatchSemaphore(value: 0)

    public init() {}

    public var values: [Value] { lock.withLock { storedValues } }
    public var terminal: String? { lock.withLock { storedTerminal } }

    public func observe<E>(_ event: Signals.Event<Value, E>) {
        let ended: Bool = lock.withLock {
            switch event {
            case let .value(value): storedValues.append(value)
            case let .failed(error): storedTerminal = "failed \(error)"
            case .completed: storedTerminal = "completed"
            case .interrupted: storedTerminal = "interrupted"
            }
            return event.isTerminating
        }
        if ended { finished.signal() }
    }

    /// Waits for the terminal event at most `seconds` (a safety limit, not a timing
    /// assertion); whether it came.
    public func ended(within seconds: Double) -> Bool {
        finished.wait(timeout: .now() + seconds) == .success
    }

    /// Waits (a safety limit, not a timing assertion) for the terminal event; fails the test
    /// when it does not come.
    public func waitForEnd(file: StaticString = #filePath, line: UInt = #line) {
        if !ended(within: 20) {
            XCTFail("the live pipeline did not finish", file: file, line: line)
        }
    }
}
