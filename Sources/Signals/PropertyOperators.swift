// Operators on properties: each gives a read-only `Property` derived from this one's producer
// (a node of its own, fed by the operator's node), as in ReactiveSwift.

extension PropertyProtocol {
    /// A read-only property holding `value`, which each change of this property sends again.
    @_disfavoredOverload
    public func map<U>(value: U, file: StaticString = #fileID, line: UInt = #line) -> Property<U> {
        map(file: file, line: line) { _ in value }
    }

    /// A read-only property holding the value at `keyPath` of this one's value.
    public func map<U>(_ keyPath: KeyPath<Value, U>, file: StaticString = #fileID, line: UInt = #line) -> Property<U> {
        map(file: file, line: line) { $0[keyPath: keyPath] }
    }

    /// A read-only property holding the latest value of this property that satisfies
    /// `predicate`, `initial` until one does (the current value counts).
    public func filter(initial: Value, file: StaticString = #fileID, line: UInt = #line,
                       _ predicate: @escaping (Value) -> Bool) -> Property<Value> {
        Property(deriving: producer.filter(file: file, line: line, predicate), initial: initial, file: file, line: line)
    }

    /// A read-only property holding this property's value paired with `other`'s, the n-th
    /// value of one with the n-th of the other (their current values first).
    public func zip<P: PropertyProtocol>(with other: P, file: StaticString = #fileID, line: UInt = #line)
        -> Property<(Value, P.Value)> {
        Property(deriving: producer.zip(with: other.producer, file: file, line: line), file: file, line: line)
    }

    /// A read-only property holding this property's value paired with the one before it,
    /// `initial` standing in before the first change.
    public func combinePrevious(_ initial: Value, file: StaticString = #fileID, line: UInt = #line)
        -> Property<(Value, Value)> {
        Property(deriving: producer.combinePrevious(initial, file: file, line: line), file: file, line: line)
    }

    /// A read-only property that follows this one but does not change for a value
    /// `isEquivalent` says repeats the one before it.
    public func skipRepeats(file: StaticString = #fileID, line: UInt = #line,
                            _ isEquivalent: @escaping (Value, Value) -> Bool) -> Property<Value> {
        Property(deriving: producer.skipRepeats(file: file, line: line, isEquivalent), file: file, line: line)
    }

    /// A read-only property that follows this one but changes only to values whose identity
    /// (`transform` of the value) it has not held before.
    public func uniqueValues<Identity: Hashable>(file: StaticString = #fileID, line: UInt = #line,
                                                 _ transform: @escaping (Value) -> Identity) -> Property<Value> {
        Property(deriving: producer.uniqueValues(file: file, line: line, transform), file: file, line: line)
    }

    /// A read-only property holding the value of the property `transform` makes of this
    /// one's value, switched or merged by `strategy` as this one changes.
    public func flatMap<P: PropertyProtocol>(_ strategy: FlattenStrategy, file: StaticString = #fileID, line: UInt = #line,
                                             _ transform: @escaping (Value) -> P) -> Property<P.Value> {
        Property(deriving: producer.flatMap(strategy, file: file, line: line) { transform($0).producer },
                 file: file, line: line)
    }
}

extension PropertyProtocol where Value: Equatable {
    /// A read-only property that follows this one but does not change for a value equal to
    /// the one it holds.
    public func skipRepeats(file: StaticString = #fileID, line: UInt = #line) -> Property<Value> {
        Property(deriving: producer.skipRepeats(file: file, line: line), file: file, line: line)
    }
}

extension PropertyProtocol where Value: Hashable {
    /// A read-only property that follows this one but changes only to values it has not
    /// held before.
    public func uniqueValues(file: StaticString = #fileID, line: UInt = #line) -> Property<Value> {
        Property(deriving: producer.uniqueValues(file: file, line: line), file: file, line: line)
    }
}

extension PropertyProtocol where Value: PropertyProtocol {
    /// A read-only property holding the value of the property this one holds, switched or
    /// merged by `strategy` as this one changes.
    public func flatten(_ strategy: FlattenStrategy, file: StaticString = #fileID, line: UInt = #line)
        -> Property<Value.Value> {
        flatMap(strategy, file: file, line: line) { $0 }
    }
}

extension PropertyProtocol {
    /// A read-only property holding the values of `a` and `b` paired, each change of either
    /// changing it.
    public static func combineLatest<A: PropertyProtocol, B: PropertyProtocol>(
        _ a: A, _ b: B, file: StaticString = #fileID, line: UInt = #line
    ) -> Property<(A.Value, B.Value)> where A.Value == Value {
        a.combineLatest(with: b, file: file, line: line)
    }

    /// A read-only property holding the values of `a` and `b` zipped: the n-th change of
    /// one paired with the n-th of the other.
    public static func zip<A: PropertyProtocol, B: PropertyProtocol>(
        _ a: A, _ b: B, file: StaticString = #fileID, line: UInt = #line
    ) -> Property<(A.Value, B.Value)> where A.Value == Value {
        a.zip(with: b, file: file, line: line)
    }

    /// A read-only property holding the values of all `properties` in order, each change
    /// of any changing it; nil when there are none.
    public static func combineLatest<S: Sequence>(_ properties: S, file: StaticString = #fileID, line: UInt = #line)
        -> Property<[S.Element.Value]>? where S.Element: PropertyProtocol {
        let producers = properties.map(\.producer)
        guard !producers.isEmpty else { return nil }
        return Property(deriving: SignalProducer.combineLatest(producers, file: file, line: line), file: file, line: line)
    }

    /// A read-only property holding the values of all `properties` zipped; nil when there
    /// are none.
    public static func zip<S: Sequence>(_ properties: S, file: StaticString = #fileID, line: UInt = #line)
        -> Property<[S.Element.Value]>? where S.Element: PropertyProtocol {
        let producers = properties.map(\.producer)
        guard !producers.isEmpty else { return nil }
        return Property(deriving: SignalProducer.zip(producers, file: file, line: line), file: file, line: line)
    }
}

extension PropertyProtocol {
    /// A read-only property holding the values of all `properties` in order, each change of
    /// any changing it; `emptySentinel` for good when there are none.
    public static func combineLatest<S: Sequence>(_ properties: S, emptySentinel: [S.Element.Value],
                                                  file: StaticString = #fileID, line: UInt = #line)
        -> Property<[S.Element.Value]> where S.Element: PropertyProtocol {
        let producers = properties.map(\.producer)
        return Property(deriving: SignalProducer.combineLatest(producers, emptySentinel: emptySentinel, file: file, line: line),
                        file: file, line: line)
    }

    /// A read-only property holding the values of all `properties` zipped; `emptySentinel`
    /// for good when there are none.
    public static func zip<S: Sequence>(_ properties: S, emptySentinel: [S.Element.Value],
                                        file: StaticString = #fileID, line: UInt = #line)
        -> Property<[S.Element.Value]> where S.Element: PropertyProtocol {
        let producers = properties.map(\.producer)
        return Property(deriving: SignalProducer.zip(producers, emptySentinel: emptySentinel, file: file, line: line),
                        file: file, line: line)
    }
}
