// negate, and, or, all, any: logic over streams and properties of Bool.

extension Signal where Value == Bool {
    /// The logical NOT of each value.
    public func negate(file: StaticString = #fileID, line: UInt = #line) -> Signal {
        map({ !$0 }, node: .operator("negate", (node, .data), file: file, line: line))
    }

    /// The logical AND of the latest values of this signal and `other`, each time either
    /// sends once both have sent (a `combineLatest`).
    public func and(_ other: Signal, file: StaticString = #fileID, line: UInt = #line) -> Signal {
        Signal.combineLatest([self, other], node: .joining("and", [node, other.node], file: file, line: line),
                             reduce: { $0.allSatisfy { $0 } })
    }

    /// The logical OR of the latest values of this signal and `other`, each time either
    /// sends once both have sent.
    public func or(_ other: Signal, file: StaticString = #fileID, line: UInt = #line) -> Signal {
        Signal.combineLatest([self, other], node: .joining("or", [node, other.node], file: file, line: line),
                             reduce: { $0.contains(true) })
    }

    /// The logical AND of the latest values of all `booleans`, each time any sends once all
    /// have sent. Completes at once when there are none.
    public static func all<Booleans: Collection>(_ booleans: Booleans, file: StaticString = #fileID, line: UInt = #line)
        -> Signal where Booleans.Element == Signal {
        let list = Array(booleans)
        return combineLatest(list, node: .joining("all", list.map(\.node), file: file, line: line),
                             reduce: { $0.allSatisfy { $0 } })
    }

    /// The logical AND of the latest values of all `booleans`.
    public static func all(_ booleans: Signal..., file: StaticString = #fileID, line: UInt = #line) -> Signal {
        all(booleans, file: file, line: line)
    }

    /// The logical OR of the latest values of all `booleans`, each time any sends once all
    /// have sent. Completes at once when there are none.
    public static func any<Booleans: Collection>(_ booleans: Booleans, file: StaticString = #fileID, line: UInt = #line)
        -> Signal where Booleans.Element == Signal {
        let list = Array(booleans)
        return combineLatest(list, node: .joining("any", list.map(\.node), file: file, line: line),
                             reduce: { $0.contains(true) })
    }

    /// The logical OR of the latest values of all `booleans`.
    public static func any(_ booleans: Signal..., file: StaticString = #fileID, line: UInt = #line) -> Signal {
        any(booleans, file: file, line: line)
    }
}

extension SignalProducer where Value == Bool {
    /// The logical NOT of each value.
    public func negate(file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        let node = Node.operator("negate", (self.node, .data), file: file, line: line)
        return lift(node) { $0.map({ !$0 }, node: node) }
    }

    /// Starts this producer and `other`; the logical AND of their latest values, each time
    /// either sends once both have sent.
    public func and(_ other: SignalProducer, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        SignalProducer.combineLatest([self, other], node: .joining("and", [node, other.node], file: file, line: line),
                                     reduce: { $0.allSatisfy { $0 } })
    }

    /// `and(_:)` with anything convertible to a producer (a property, a signal).
    @_disfavoredOverload
    public func and<Booleans: SignalProducerConvertible>(_ other: Booleans, file: StaticString = #fileID,
                                                         line: UInt = #line) -> SignalProducer
    where Booleans.Value == Value, Booleans.Error == Error {
        and(other.producer, file: file, line: line)
    }

    /// Starts this producer and `other`; the logical OR of their latest values, each time
    /// either sends once both have sent.
    public func or(_ other: SignalProducer, file: StaticString = #fileID, line: UInt = #line) -> SignalProducer {
        SignalProducer.combineLatest([self, other], node: .joining("or", [node, other.node], file: file, line: line),
                                     reduce: { $0.contains(true) })
    }

    /// `or(_:)` with anything convertible to a producer (a property, a signal).
    @_disfavoredOverload
    public func or<Booleans: SignalProducerConvertible>(_ other: Booleans, file: StaticString = #fileID,
                                                         line: UInt = #line) -> SignalProducer
    where Booleans.Value == Value, Booleans.Error == Error {
        or(other.producer, file: file, line: line)
    }

    /// Starts all `booleans`; the logical AND of their latest values, each time any sends
    /// once all have sent. With none, sends `true` (the AND of nothing) and completes.
    public static func all<Booleans: Collection>(_ booleans: Booleans, file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer where Booleans.Element: SignalProducerConvertible, Booleans.Element.Value == Value,
        Booleans.Element.Error == Error {
        let list = booleans.map(\.producer)
        let node = Node.joining("all", list.map(\.node), file: file, line: line)
        guard !list.isEmpty else { return SignalProducer(node: node, sendingOnce: true) }
        return combineLatest(list, node: node, reduce: { $0.allSatisfy { $0 } })
    }

    /// Starts all `booleans`; the logical AND of their latest values.
    public static func all(_ booleans: SignalProducer..., file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer {
        all(booleans, file: file, line: line)
    }

    /// Starts all `booleans`; the logical OR of their latest values, each time any sends
    /// once all have sent. With none, sends `false` (the OR of nothing) and completes.
    public static func any<Booleans: Collection>(_ booleans: Booleans, file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer where Booleans.Element: SignalProducerConvertible, Booleans.Element.Value == Value,
        Booleans.Element.Error == Error {
        let list = booleans.map(\.producer)
        let node = Node.joining("any", list.map(\.node), file: file, line: line)
        guard !list.isEmpty else { return SignalProducer(node: node, sendingOnce: false) }
        return combineLatest(list, node: node, reduce: { $0.contains(true) })
    }

    /// Starts all `booleans`; the logical OR of their latest values.
    public static func any(_ booleans: SignalProducer..., file: StaticString = #fileID, line: UInt = #line)
        -> SignalProducer {
        any(booleans, file: file, line: line)
    }
}

extension PropertyProtocol where Value == Bool {
    /// A read-only property holding the logical NOT of this one's value.
    public func negate(file: StaticString = #fileID, line: UInt = #line) -> Property<Bool> {
        Property(deriving: producer.negate(file: file, line: line), file: file, line: line)
    }

    /// A read-only property holding the logical AND of this property's value and `other`'s.
    public func and<P: PropertyProtocol>(_ other: P, file: StaticString = #fileID, line: UInt = #line) -> Property<Bool>
    where P.Value == Bool {
        Property(deriving: producer.and(other.producer, file: file, line: line), file: file, line: line)
    }

    /// A read-only property holding the logical OR of this property's value and `other`'s.
    public func or<P: PropertyProtocol>(_ other: P, file: StaticString = #fileID, line: UInt = #line) -> Property<Bool>
    where P.Value == Bool {
        Property(deriving: producer.or(other.producer, file: file, line: line), file: file, line: line)
    }

    /// A read-only property holding the logical AND of the values of all `properties`
    /// (true when there are none).
    public static func all<P: PropertyProtocol, Properties: Collection>(
        _ properties: Properties, file: StaticString = #fileID, line: UInt = #line
    ) -> Property<Bool> where P.Value == Bool, Properties.Element == P {
        Property(deriving: SignalProducer.all(properties.map(\.producer), file: file, line: line),
                        file: file, line: line)
    }

    /// A read-only property holding the logical AND of the values of all `properties`.
    public static func all<P: PropertyProtocol>(_ properties: P..., file: StaticString = #fileID, line: UInt = #line)
        -> Property<Bool> where P.Value == Bool {
        all(properties, file: file, line: line)
    }

    /// A read-only property holding the logical OR of the values of all `properties`
    /// (false when there are none).
    public static func any<P: PropertyProtocol, Properties: Collection>(
        _ properties: Properties, file: StaticString = #fileID, line: UInt = #line
    ) -> Property<Bool> where P.Value == Bool, Properties.Element == P {
        Property(deriving: SignalProducer.any(properties.map(\.producer), file: file, line: line),
                        file: file, line: line)
    }

    /// A read-only property holding the logical OR of the values of all `properties`.
    public static func any<P: PropertyProtocol>(_ properties: P..., file: StaticString = #fileID, line: UInt = #line)
        -> Property<Bool> where P.Value == Bool {
        any(properties, file: file, line: line)
    }
}

extension SignalProducer {
    /// A producer of `node` that sends `value` and completes: `all` or `any` of no streams.
    fileprivate init(node: Node, sendingOnce value: Value) {
        self.init(node: node) { observer, _ in
            observer.send(value: value)
            observer.sendCompleted()
        }
    }
}
