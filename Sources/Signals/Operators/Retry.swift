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

    private func retrying(_ count: Int, node: Node, wait: (TimeInterval, DateScheduler)?) -> SignalProducer {
        let upstream = self
        return SignalProducer(parenting: node) { observer, lifetime, subscription in
            let current = SerialDisposable()
            lifetime += current
            var remaining = count
            func attempt() {
                upstream.startAsChild(of: subscription, in: current) { event in
                    guard case .failed = event, remaining > 0 else {
                        observer.send(event)
                        return
                    }
                    remaining -= 1
                    if let (interval, scheduler) = wait {
                        current.inner = scheduler.schedule(after: interval) { attempt() }
                    } else {
                        attempt()
                    }
                }
            }
            attempt()
        }
    }
}
