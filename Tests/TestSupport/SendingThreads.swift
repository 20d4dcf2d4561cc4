import Foundation
import Synchronization

/// Threads that send all along while a test does something else (probes or recorders coming
/// and going): each runs `send` with its number and a counter, round after round, until
/// `stop()`, which returns once every thread has ended.
public final class SendingThreads: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let done = DispatchGroup()

    /// Starts `count` threads; `prepare` runs first on each thread and returns what it sends
    /// with (a pipe of its own, or a shared input).
    public init(count: Int, _ prepare: @escaping @Sendable (_ thread: Int) -> (Int) -> Void) {
        for thread in 0..<count {
            done.enter()
            Thread { [self] in
                let send = prepare(thread)
                var value = thread
                while !stopping.load(ordering: .relaxed) {
                    send(value)
                    value += 1
                }
                done.leave()
            }.start()
        }
    }

    /// Stops the threads and waits for them to end.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        done.wait()
    }
}
