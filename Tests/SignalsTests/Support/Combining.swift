import Locks
import MarbleStreams
import MarblesTesting
import Signals
import Synchronization
import XCTest

extension TestScheduler {
    /// A hot signal that cannot fail: each value symbol of the marble line is a `()` at its
    /// frame; `|` completes, `‖` interrupts.
    func hotTrigger(_ line: String, fileID: StaticString = #fileID, file: StaticString = #filePath,
                    lineNumber: UInt = #line) -> Signal<(), Never> {
        hot(line, symbols: MarbleSymbols(error: nil) { _ in () }, fileID: fileID, file: file, line: lineNumber)
    }

    /// A hot signal that cannot fail, of the line's one-character values; `|` completes.
    func hotValues(_ line: String, fileID: StaticString = #fileID, file: StaticString = #filePath,
                   lineNumber: UInt = #line) -> Signal<String, Never> {
        hot(line, symbols: MarbleSymbols(error: nil), fileID: fileID, file: file, line: lineNumber)
    }
}

/// Runs `build` on a fresh scheduler to the end and returns what the signal sent.
func collect<V, E>(_ build: (TestScheduler) -> Signal<V, E>) -> Collector<V, E> {
    let scheduler = TestScheduler()
    let collector = Collector<V, E>(scheduler)
    build(scheduler).observe(collector.observer)
    scheduler.run()
    return collector
}

/// Records what a stream delivers from several threads, and whether two deliveries ever
/// overlapped (an atomic "in delivery" flag set for the length of each delivery).
final class DeliveryRecorder<Value, Error: Swift.Error>: @unchecked Sendable {
    private let inDelivery = Synchronization.Atomic<Bool>(false)
    private let overlapped = Synchronization.Atomic<Bool>(false)
    private let lock = Lock()
    private var recorded: [Event<Value, Error>] = []

    var observer: Signals.Observer<Value, Error> {
        Signals.Observer { event in
            if self.inDelivery.exchange(true, ordering: .acquiringAndReleasing) {
                self.overlapped.store(true, ordering: .relaxed)
            }
            self.lock.withLock { self.recorded.append(event) }
            // Widens the window in which an unserialised second delivery would be caught.
            for _ in 0..<200 { _ = self.inDelivery.load(ordering: .relaxed) }
            self.inDelivery.store(false, ordering: .releasing)
        }
    }

    var events: [Event<Value, Error>] { lock.withLock { recorded } }
    var didOverlap: Bool { overlapped.load(ordering: .acquiring) }

    /// The number of events after the first terminal event (must be 0).
    var eventsAfterTerminal: Int {
        let events = self.events
        guard let terminal = events.firstIndex(where: \.isTerminating) else { return 0 }
        return events.count - terminal - 1
    }
}

/// Runs `body(index)` on `count` threads of their own, started together; returns when all end.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let ready = DispatchGroup()
    let go = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    for index in 0..<count {
        ready.enter()
        done.enter()
        Thread {
            ready.leave()
            go.wait()
            body(index)
            done.leave()
        }.start()
    }
    ready.wait()
    for _ in 0..<count { go.signal() }
    done.wait()
}
