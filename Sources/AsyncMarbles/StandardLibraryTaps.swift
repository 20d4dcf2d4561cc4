// Taps on the standard library's own sequences, each pulling its base where the base's type is
// named, so that a pull with no recorder is specialised through (see `MarbledSequence.DirectNext`).
// Each overload is chosen over `AsyncSequence.marbles(_:)` where the sequence's type is known.

extension AsyncMapSequence where Base: SendableMetatype {
    /// This `map`, recorded (`AsyncSequence.marbles(_:)`), its pull specialised.
    ///
    /// ```swift
    /// let lengths = typed.marbles("typed").map(\.count).marbles("lengths")
    /// ```
    @inlinable
    public func marbles(_ label: String, file: StaticString = #fileID, line: UInt = #line) -> MarbledSequence<Self> {
        MarbledSequence(self, label: label, file: file, line: line) { iterator, actor throws(Failure) in
            try await iterator.next(isolation: actor)
        }
    }
}

extension AsyncFilterSequence where Base: SendableMetatype {
    /// This `filter`, recorded (`AsyncSequence.marbles(_:)`), its pull specialised.
    ///
    /// ```swift
    /// let long = typed.marbles("typed").filter { $0.count > 2 }.marbles("long")
    /// ```
    @inlinable
    public func marbles(_ label: String, file: StaticString = #fileID, line: UInt = #line) -> MarbledSequence<Self> {
        MarbledSequence(self, label: label, file: file, line: line) { iterator, actor throws(Failure) in
            try await iterator.next(isolation: actor)
        }
    }
}

extension AsyncCompactMapSequence where Base: SendableMetatype {
    /// This `compactMap`, recorded (`AsyncSequence.marbles(_:)`), its pull specialised.
    ///
    /// ```swift
    /// let numbers = typed.marbles("typed").compactMap { Int($0) }.marbles("numbers")
    /// ```
    @inlinable
    public func marbles(_ label: String, file: StaticString = #fileID, line: UInt = #line) -> MarbledSequence<Self> {
        MarbledSequence(self, label: label, file: file, line: line) { iterator, actor throws(Failure) in
            try await iterator.next(isolation: actor)
        }
    }
}

extension AsyncThrowingMapSequence where Base: SendableMetatype {
    /// This throwing `map`, recorded (`AsyncSequence.marbles(_:)`), its pull specialised.
    ///
    /// ```swift
    /// let parsed = typed.marbles("typed").map { try parse($0) }.marbles("parsed")
    /// ```
    @inlinable
    public func marbles(_ label: String, file: StaticString = #fileID, line: UInt = #line) -> MarbledSequence<Self> {
        MarbledSequence(self, label: label, file: file, line: line) { iterator, actor throws(Failure) in
            try await iterator.next(isolation: actor)
        }
    }
}

extension AsyncThrowingFilterSequence where Base: SendableMetatype {
    /// This throwing `filter`, recorded (`AsyncSequence.marbles(_:)`), its pull specialised.
    ///
    /// ```swift
    /// let valid = typed.marbles("typed").filter { try validate($0) }.marbles("valid")
    /// ```
    @inlinable
    public func marbles(_ label: String, file: StaticString = #fileID, line: UInt = #line) -> MarbledSequence<Self> {
        MarbledSequence(self, label: label, file: file, line: line) { iterator, actor throws(Failure) in
            try await iterator.next(isolation: actor)
        }
    }
}

extension AsyncThrowingCompactMapSequence where Base: SendableMetatype {
    /// This throwing `compactMap`, recorded (`AsyncSequence.marbles(_:)`), its pull specialised.
    ///
    /// ```swift
    /// let numbers = typed.marbles("typed").compactMap { try Int(strict: $0) }.marbles("numbers")
    /// ```
    @inlinable
    public func marbles(_ label: String, file: StaticString = #fileID, line: UInt = #line) -> MarbledSequence<Self> {
        MarbledSequence(self, label: label, file: file, line: line) { iterator, actor throws(Failure) in
            try await iterator.next(isolation: actor)
        }
    }
}
