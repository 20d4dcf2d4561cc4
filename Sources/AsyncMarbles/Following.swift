import Locks
import Signals

extension MarbledSequence {
    /// Runs `body` following the element this task last received from this tap: work that
    /// `body` starts is linked to that element, while a recorder runs.
    ///
    /// A `for await` loop that starts a `Task` per element (latest-only work, fan-out) is no
    /// operator: nothing tells a recording that the task's work was done for the element. Swift
    /// gives no way to find a task's parent, and a task-local value is bound only around a
    /// closure, so the link is made here, around the code that starts the task; a `Task {}`
    /// inherits it. Inside `body`, and in the tasks it starts:
    ///
    /// - a call (`environment.call`) is a child of this tap's subscription, and its events are
    ///   caused by the element; once the call has answered, what the same task does next is
    ///   caused by the answer (a second call, an element yielded into a `MarbledStream`);
    /// - an element yielded into a `MarbledStream` is caused by the element, or by the last
    ///   answer the task received.
    ///
    /// ```swift
    /// let (hits, found) = MarbledStream.makeStream(of: [String].self)
    /// for await query in settled {
    ///     settled.following {                        // the search follows this query
    ///         Task { found.yield(try await environment.call("search", request: query) { try await search(query) }) }
    ///     }
    /// }
    /// ```
    ///
    /// With no recorder running, or when this task has received no element from this tap in
    /// the running recording, it is `body()`, after one check of the probe slot. A task that
    /// started after another one ended may reuse its identity; `following` in a task that never
    /// iterated this tap, started after one that did and broke out of its loop, may follow that
    /// task's last element.
    public func following<Result>(_ body: () throws -> Result) rethrows -> Result {
        guard Instrumentation.isAttached, let element = lastElements.received() else { return try body() }
        return try Following.$current.withValue(element, operation: body)
    }
}

/// The element a task's work follows (`MarbledSequence.following`): its event, the
/// subscription of the tap that delivered it, and, per task that inherited it, the last answer
/// that task received since (a call's value or failure), which causes what the task does next.
final class Following: @unchecked Sendable {  // `answers` only under `lock`; the rest immutable
    @TaskLocal static var current: Following?
    /// The element's event.
    let element: UInt64
    /// The subscription of the tap that delivered it: the parent of the calls made following it.
    let subscription: UInt64
    /// The recorder that numbered `element`: events of another recording name no causes from it.
    private let probe: ObjectIdentifier
    private let lock = Lock()
    /// The last answer each task received, by task (a handful of tasks at most inherit one element).
    private var answers: [(task: UnsafeCurrentTask, event: UInt64)] = []

    init(element: UInt64, subscription: UInt64, probe: ObjectIdentifier) {
        self.element = element
        self.subscription = subscription
        self.probe = probe
    }

    /// Whether `probe` is the recorder that numbered the element.
    func belongs(to probe: Probe) -> Bool { ObjectIdentifier(probe) == self.probe }

    /// What the current task's next event is caused by: the last answer it received, else the
    /// element.
    var cause: UInt64 {
        guard let task = withUnsafeCurrentTask(body: { $0 }) else { return element }
        return lock.withLock { answers.last { $0.task == task }?.event } ?? element
    }

    /// Records `event` (an answer) as what the current task's next event is caused by.
    func answered(_ event: UInt64) {
        guard event != 0, let task = withUnsafeCurrentTask(body: { $0 }) else { return }
        lock.withLock {
            answers.removeAll { $0.task == task }
            answers.append((task, event))
        }
    }

    /// The following in effect for an event `probe` records in the current task, if any.
    static func current(for probe: Probe) -> Following? {
        guard let following = current, following.belongs(to: probe) else { return nil }
        return following
    }
}

/// The element each task last received from the iterators of one tap, for `following`: a
/// tap's iterators share it, and it is written only while a recorder runs.
@usableFromInline
final class LastElements: @unchecked Sendable {  // `entries` only under `lock`
    private let lock = Lock()
    /// By task: what it last received (one entry a task iterating the tap).
    private var entries: [(task: UnsafeCurrentTask, following: Following)] = []

    /// Records that the current task received the element `event` from `subscription`.
    func receive(_ event: UInt64, subscription: UInt64, probe: Probe) {
        guard event != 0, let task = withUnsafeCurrentTask(body: { $0 }) else { return }
        let following = Following(element: event, subscription: subscription, probe: ObjectIdentifier(probe))
        lock.withLock {
            entries.removeAll { $0.task == task }
            entries.append((task, following))
        }
    }

    /// Forgets what the current task received from `subscription` (its iteration ended).
    func end(_ subscription: UInt64) {
        guard let task = withUnsafeCurrentTask(body: { $0 }) else { return }
        lock.withLock { entries.removeAll { $0.task == task && $0.following.subscription == subscription } }
    }

    /// What the current task last received, in the running recording.
    func received() -> Following? {
        guard let probe = Instrumentation.probe, let task = withUnsafeCurrentTask(body: { $0 }) else { return nil }
        return lock.withLock { entries.last { $0.task == task }?.following }.flatMap { $0.belongs(to: probe) ? $0 : nil }
    }
}
