import Foundation

// retry: restart a producer that failed.

extension SignalProducer {
    /// On failure, starts this producer again, up to `count` more times; the failure of the
    /// last attempt is sent. Values of failed attempts are forwarded as they come. Each
    /// attempt is recorded as a child of the retry's subscription.
    ///
    /// - Precondition: `count` is not negative.
    public func retry(upTo count: Int, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        precondition(count >= 0, "retry(upTo:) needs a count of zero or more, got \(count)")
        let node = Node.operator("retry", parameters: "upTo: \(count)", (self.node, .data), file: file, line: line)
        return retrying(count, node: node, wait: nil)
    }

    /// As `retry(upTo:)`, waiting `interval` seconds on `scheduler` before each new attempt.
    /// The last failure is sent at once, without waiting.
    ///
    /// - Precondition: `count` is not negative.
    public func retry(upTo count: Int, interval: TimeInterval, on scheduler: DateScheduler,
                      file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        precondition(count >= 0, "retry(upTo:) needs a count of zero or more, got \(count)")
        let node = Node.operator("retry", parameters: "upTo: \(count), interval: \(interval), on: \(scheduler.name)",
                                 (self.node, .data), file: file, line: line)
        return retrying(count, node: node, wait: (interval, scheduler))
    }

    /// RxJS's `retry({ count, delay, resetOnSuccess })` with a notifier as its delay: on a
    /// failure, up to `count` times, starts `notifier(error, retries)` (retries counting from
    /// 1) and starts this producer again on its first value; when the notifier completes
    /// without one the result completes, when it fails the result fails with its error.
    /// With `resettingOnValue`, a value of an attempt resets the count of retries. Each
    /// attempt and each notifier is recorded as a child of the retry's subscription.
    ///
    /// - Precondition: `count` is not negative.
    public func retry<Notification>(
        upTo count: Int, resettingOnValue: Bool = false, file: StaticString = #fileID, line: UInt = #line,
        when notifier: @escaping (Error, Int) -> SignalProducer<Notification, Error>
    ) -> SignalProducer {
        precondition(count >= 0, "retry(upTo:) needs a count of zero or more, got \(count)")
        let node = Node.operator("retry", parameters: "upTo: \(count), when", (self.node, .data), file: file, line: line)
        return retrying(count, node: node, resettingOnValue: resettingOnValue, notifier: notifier)
    }

    /// RxJS's `retry({ count, resetOnSuccess: true })`: as `retry(upTo:)`, but a value of an
    /// attempt resets the count of retries.
    ///
    /// - Precondition: `count` is not negative.
    public func retry(upTo count: Int, resettingOnValue: Bool, file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer {
        precondition(count >= 0, "retry(upTo:) needs a count of zero or more, got \(count)")
        let node = Node.operator("retry", parameters: "upTo: \(count), resettingOnValue: \(resettingOnValue)",
                                 (self.node, .data), file: file, line: line)
        return retrying(count, node: node, resettingOnValue: resettingOnValue, wait: nil)
    }

    /// When a failed attempt is followed by the next: at once, after a delay on a scheduler,
    /// or when a notifier made from the failure sends a value.
    private enum NextAttempt<Notification> {
        case now
        case after(TimeInterval, DateScheduler)
        case notified(by: (Error, Int) -> SignalProducer<Notification, Error>)
    }

    private func retrying(_ count: Int, node: Node, resettingOnValue: Bool = false,
                          wait: (TimeInterval, DateScheduler)?) -> SignalProducer {
        retrying(count, node: node, resettingOnValue: resettingOnValue,
                 next: wait.map { NextAttempt<Never>.after($0.0, $0.1) } ?? .now)
    }

    private func retrying<Notification>(_ count: Int, node: Node, resettingOnValue: Bool,
                                        notifier: @escaping (Error, Int) -> SignalProducer<Notification, Error>)
        -> SignalProducer {
        retrying(count, node: node, resettingOnValue: resettingOnValue, next: .notified(by: notifier))
    }

    private func retrying<Notification>(_ count: Int, node: Node, resettingOnValue: Bool,
                                        next: NextAttempt<Notification>) -> SignalProducer {
        let upstream = self
        return SignalProducer(parenting: node) { observer, lifetime, subscription in
            let current = SerialDisposable()
            lifetime += current
            var failures = 0
            // A failure sent while its attempt starts (a producer that fails at once) asks for
            // the next attempt from inside that start: the trampoline runs it after the start
            // returns, so any number of retries runs in constant stack.
            let trampoline = Trampoline()
            func attempt() {
                trampoline.run(startAttempt)
            }
            func startAttempt() {
                upstream.startAsChild(of: subscription, in: current) { event in
                    if resettingOnValue, case .value = event { failures = 0 }
                    guard case let .failed(error) = event, failures < count else {
                        observer.send(event)
                        return
                    }
                    failures += 1
                    switch next {
                    case .now:
                        attempt()
                    case let .after(interval, scheduler):
                        current.inner = scheduleTimer(on: scheduler, after: scheduler.currentDate.addingTimeInterval(interval),
                                                      node: node, subscription: subscription) { attempt() }
                    case let .notified(by: notifier):
                        // Only the notifier's first event counts: its value starts the next
                        // attempt (which interrupts the notifier), its completion or failure
                        // ends the result.
                        var answered = false
                        notifier(error, failures).startAsChild(of: subscription, in: current) { notification in
                            guard !answered else { return }
                            switch notification {
                            case .value:
                                answered = true
                                attempt()
                            case .completed:
                                answered = true
                                observer.sendCompleted()
                            case let .failed(error):
                                answered = true
                                observer.send(error: error)
                            case .interrupted:
                                return
                            }
                        }
                    }
                }
            }
            attempt()
        }
    }
}
