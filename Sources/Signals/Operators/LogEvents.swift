// logEvents: print what passes through, for debugging.

/// The kinds of occurrence `logEvents` can report.
///
/// ```swift
/// SignalProducer([1, 2])
///     .logEvents(identifier: "numbers", events: [.value, .completed])
///     .start()   // prints "[numbers] value 1 …", "[numbers] value 2 …", "[numbers] completed …"
/// ```
public enum LoggingEvent: String, CaseIterable, Sendable {
    /// A producer start is about to begin its work; then it has begun.
    case starting, started
    /// An event of that kind passed.
    case value, failed, completed, interrupted
    /// A terminal event passed (after `failed`, `completed` or `interrupted`).
    case terminated
    /// The stream ended and released its resources.
    case disposed

    /// Everything a `Signal` can report (a signal has no start).
    public static let allSignalEvents: Set<LoggingEvent> = [.value, .failed, .completed, .interrupted, .terminated, .disposed]
    /// Everything a `SignalProducer` can report.
    public static let allProducerEvents: Set<LoggingEvent> = Set(allCases)
}

/// Receives what `logEvents` reports: the identifier, the occurrence (`value 3`,
/// `completed`...), and the call site of `logEvents`.
///
/// ```swift
/// var log: [String] = []
/// let logger: EventLogger = { identifier, event, _, _ in log.append("\(identifier): \(event)") }
/// SignalProducer(value: 1).logEvents(identifier: "one", events: [.value], logger: logger).start()
/// print(log)   // ["one: value 1"]
/// ```
public typealias EventLogger = (_ identifier: String, _ event: String, _ file: String, _ line: UInt) -> Void

/// Prints `[identifier] event file:line` to standard output.
public func defaultEventLog(identifier: String, event: String, file: String, line: UInt) {
    print("[\(identifier)] \(event) \(file):\(line)")
}

/// ReactiveSwift's form of an event logger: the identifier, the occurrence, and the call
/// site as a file name, a function name and an `Int` line. `logEvents` takes one of these
/// as well as an `EventLogger`.
///
/// ```swift
/// let logger: FunctionNamingEventLogger = { identifier, event, _, function, line in
///     print("\(identifier) \(event) in \(function):\(line)")
/// }
/// SignalProducer(value: 1).logEvents(identifier: "one", logger: logger).start()
/// ```
public typealias FunctionNamingEventLogger = (
    _ identifier: String, _ event: String, _ fileName: String, _ functionName: String, _ lineNumber: Int
) -> Void

extension Signal {
    /// Reports the chosen occurrences to `logger` (printing them by default).
    public func logEvents(identifier: String = "", events: Set<LoggingEvent> = LoggingEvent.allSignalEvents,
                          logger: @escaping EventLogger = defaultEventLog,
                          file: StaticString = #fileID, line: UInt = #line) -> Signal {
        let node = Node.operator("logEvents", parameters: identifier.isEmpty ? "" : "identifier: \(identifier)",
                                 (self.node, .data), file: file, line: line)
        return on(SideEffects(logging: events, identifier: identifier, logger: logger, file: "\(file)", line: line),
                  node: node)
    }

    /// Reports the chosen occurrences to a logger of ReactiveSwift's form, which also gets the
    /// name of the function `logEvents` is called in. Recorded as the other `logEvents`.
    public func logEvents(identifier: String = "", events: Set<LoggingEvent> = LoggingEvent.allSignalEvents,
                          fileName: String = #fileID, functionName: String = #function, lineNumber: Int = #line,
                          logger: @escaping FunctionNamingEventLogger) -> Signal {
        let (node, effects): (Node, SideEffects<Value, Error>) = functionNamingLog(
            of: self.node, identifier: identifier, events: events, fileName: fileName, functionName: functionName,
            lineNumber: lineNumber, logger: logger)
        return on(effects, node: node)
    }

    /// ReactiveCocoa 2's `logError`: reports failures only.
    public func logError(file: StaticString = #fileID, line: UInt = #line) -> Signal {
        let node = Node.operator("logEvents", parameters: "events: failed", (self.node, .data), file: file, line: line)
        return on(SideEffects(logging: [.failed], identifier: "", logger: defaultEventLog, file: "\(file)", line: line),
                  node: node)
    }
}

extension SignalProducer {
    /// Reports the chosen occurrences, including each start, to `logger` (printing them by
    /// default).
    public func logEvents(identifier: String = "", events: Set<LoggingEvent> = LoggingEvent.allProducerEvents,
                          logger: @escaping EventLogger = defaultEventLog,
                          file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("logEvents", parameters: identifier.isEmpty ? "" : "identifier: \(identifier)",
                                 (self.node, .data), file: file, line: line)
        return on(SideEffects(logging: events, identifier: identifier, logger: logger, file: "\(file)", line: line),
                  node: node)
    }

    /// Reports the chosen occurrences, including each start, to a logger of ReactiveSwift's
    /// form, which also gets the name of the function `logEvents` is called in. Recorded as
    /// the other `logEvents`.
    public func logEvents(identifier: String = "", events: Set<LoggingEvent> = LoggingEvent.allProducerEvents,
                          fileName: String = #fileID, functionName: String = #function, lineNumber: Int = #line,
                          logger: @escaping FunctionNamingEventLogger) -> SignalProducer {
        let (node, effects): (Node, SideEffects<Value, Error>) = functionNamingLog(
            of: self.node, identifier: identifier, events: events, fileName: fileName, functionName: functionName,
            lineNumber: lineNumber, logger: logger)
        return on(effects, node: node)
    }

    /// ReactiveCocoa 2's `logError`: reports failures only.
    public func logError(file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("logEvents", parameters: "events: failed", (self.node, .data), file: file, line: line)
        return on(SideEffects(logging: [.failed], identifier: "", logger: defaultEventLog, file: "\(file)", line: line),
                  node: node)
    }
}

extension SideEffects {
    /// Side effects that report the chosen occurrences to a logger.
    init(logging events: Set<LoggingEvent>, identifier: String, logger: @escaping EventLogger, file: String, line: UInt) {
        func report(_ kind: LoggingEvent) -> (() -> Void)? {
            guard events.contains(kind) else { return nil }
            return { logger(identifier, kind.rawValue, file, line) }
        }
        self.init(
            starting: report(.starting), started: report(.started),
            failed: events.contains(.failed) ? { error in logger(identifier, "failed \(error)", file, line) } : nil,
            completed: report(.completed), interrupted: report(.interrupted),
            terminated: report(.terminated), disposed: report(.disposed),
            value: events.contains(.value) ? { value in logger(identifier, "value \(value)", file, line) } : nil
        )
    }
}

/// The node and side effects of a `logEvents` with ReactiveSwift's logger form over a stream
/// of `upstream`: one `logEvents` node, as the other form records, its logger told the
/// function name and an `Int` line.
private func functionNamingLog<Value, Error>(of upstream: Node, identifier: String, events: Set<LoggingEvent>,
                                             fileName: String, functionName: String, lineNumber: Int,
                                             logger: @escaping FunctionNamingEventLogger) -> (Node, SideEffects<Value, Error>) {
    let line = UInt(clamping: lineNumber)
    let node = Node.make(.operator, "logEvents", parameters: identifier.isEmpty ? "" : "identifier: \(identifier)",
                         upstream: [Node.Edge(node: upstream, role: .data)], file: fileName, line: line)
    let report: EventLogger = { identifier, event, file, _ in logger(identifier, event, file, functionName, lineNumber) }
    return (node, SideEffects(logging: events, identifier: identifier, logger: report, file: fileName, line: line))
}
