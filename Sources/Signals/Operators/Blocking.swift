import Dispatch

// first, single, last, wait: start a producer and block until it has answered.

extension SignalProducer {
    /// Starts the producer and blocks until it sends its first value (the start is then
    /// interrupted) or ends: the value, the failure, or nil when it ended without a value.
    public func first(file: StaticString = #fileID, line: UInt = #line) -> Result<Value, Error>? {
        take(first: 1, file: file, line: line).awaitSingle(sink: "first", file: file, line: line)
    }

    /// Starts the producer and blocks until it ends: its one value, its failure, or nil when
    /// it sent no value or more than one (the start is interrupted at the second).
    public func single(file: StaticString = #fileID, line: UInt = #line) -> Result<Value, Error>? {
        take(first: 2, file: file, line: line).awaitSingle(sink: "single", file: file, line: line)
    }

    /// Starts the producer and blocks until it ends: its last value, its failure, or nil when
    /// it ended without a value.
    public func last(file: StaticString = #fileID, line: UInt = #line) -> Result<Value, Error>? {
        take(last: 1, file: file, line: line).awaitSingle(sink: "last", file: file, line: line)
    }

    /// Starts the producer and blocks until it ends: success when it completed (or was
    /// interrupted), its failure when it failed. Its values are ignored.
    public func wait(file: StaticString = #fileID, line: UInt = #line) -> Result<Void, Error> {
        let ended = DispatchSemaphore(value: 0)
        let outcome = LockedState<Result<Void, Error>>(.success(()))
        startWithSignal { signal, _ in
            signal.registerSink("wait", file: file, line: line)
            signal.observeInternally { event in
                switch event {
                case .value: return
                case let .failed(error): outcome.withLock { $0 = .failure(error) }
                case .completed, .interrupted: break
                }
                ended.signal()
            }
        }
        ended.wait()
        return outcome.withLock { $0 }
    }

    /// Starts, blocks until the start ends, and gives its one value or failure (nil for no
    /// value or for more than one), observed by a sink named `sink`.
    private func awaitSingle(sink: String, file: StaticString, line: UInt) -> Result<Value, Error>? {
        let ended = DispatchSemaphore(value: 0)
        let answer = LockedState<(result: Result<Value, Error>?, values: Int)>((nil, 0))
        startWithSignal { signal, _ in
            signal.registerSink(sink, file: file, line: line)
            signal.observeInternally { event in
                switch event {
                case let .value(value):
                    answer.withLock { answer in
                        answer.values += 1
                        answer.result = answer.values == 1 ? .success(value) : nil
                    }
                    return
                case let .failed(error): answer.withLock { $0.result = .failure(error) }
                case .completed, .interrupted: break
                }
                ended.signal()
            }
        }
        ended.wait()
        return answer.withLock { $0.result }
    }
}
