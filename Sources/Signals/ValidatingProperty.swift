import Locks

/// A mutable property that validates each value set on it (ReactiveSwift's
/// `ValidatingProperty`): a valid value is stored, an invalid one is refused, and a value the
/// validator coerces is stored as its replacement. `result` says what became of the latest
/// value, including values set on the inner property directly (validated, never written back).
///
/// ```swift
/// struct TooShort: Error {}
/// let password = ValidatingProperty<String, TooShort>("") { $0.count >= 8 ? .valid : .invalid(TooShort()) }
/// password.value = "secret"
/// print(password.result.value.isInvalid)   // true: "secret" is refused
/// password.value = "long secret"
/// print(password.value)                    // "long secret"
/// ```
public final class ValidatingProperty<Value, ValidationError: Swift.Error>: PropertyProtocol, BindingTargetProvider,
    @unchecked Sendable {  // changes only under `lock`
    /// What the validator decides about a value.
    public enum Decision {
        /// The value is stored as it is.
        case valid
        /// The value given is stored instead, with an error saying why, if any.
        case coerced(Value, ValidationError?)
        /// The value is refused.
        case invalid(ValidationError)
    }

    /// What became of a value set on the property.
    public enum Result {
        /// It was stored.
        case valid(Value)
        /// `replacement` was stored instead of `proposed`.
        case coerced(replacement: Value, proposed: Value, error: ValidationError?)
        /// It was refused, for the error given.
        case invalid(Value, ValidationError)

        /// Whether the value was refused.
        public var isInvalid: Bool {
            if case .invalid = self { return true }
            return false
        }

        /// The value stored: the valid value or the replacement; nil when refused.
        public var value: Value? {
            switch self {
            case let .valid(value): return value
            case let .coerced(replacement, _, _): return replacement
            case .invalid: return nil
            }
        }

        /// The error of a refused or coerced value.
        public var error: ValidationError? {
            switch self {
            case .valid: return nil
            case let .coerced(_, _, error): return error
            case let .invalid(_, error): return error
            }
        }

        /// The value that was set, before validation.
        var proposed: Value {
            switch self {
            case let .valid(value): return value
            case let .coerced(_, proposed, _): return proposed
            case let .invalid(value, _): return value
            }
        }

        init(_ value: Value, _ decision: Decision) {
            switch decision {
            case .valid: self = .valid(value)
            case let .coerced(replacement, error): self = .coerced(replacement: replacement, proposed: value, error: error)
            case let .invalid(error): self = .invalid(value, error)
            }
        }
    }

    /// What became of the latest value.
    public let result: Property<Result>

    private let inner: MutableProperty<Value>
    private let results: MutableProperty<Result>
    private let validator: (Value) -> Decision
    /// Recursive: an observer of the result or of the value may set the property again.
    private let lock = Lock(recursive: true)
    /// Set while a validated value is written to the inner property, whose change must not
    /// be validated a second time.
    private var writingBack = false
    /// This property's observations of the inner property and of what it depends on, which
    /// may outlive it: ended when it is released.
    private let observations = CompositeDisposable()

    /// A property validating the values set on `inner`, which it keeps alive.
    public init(_ inner: MutableProperty<Value>, file: StaticString = #fileID, line: UInt = #line,
                _ validator: @escaping (Value) -> Decision) {
        self.inner = inner
        self.validator = validator
        let node = Node.make(.operator, "ValidatingProperty", upstream: [.init(node: inner.node, role: .data)],
                             file: file, line: line)
        results = MutableProperty(Result(inner.value, validator(inner.value)), node: node)
        result = Property(capturing: results)
        let lock = self.lock
        // The property's instance observes the inner property's changes from now on.
        if Instrumentation.isAttached { Instrumentation.link(observer: results.signal.core, observed: inner.signal.core) }
        observations += inner.signal.observeInternally { [weak self] event in
            guard case let .value(value) = event, let self else { return }
            lock.withLock {
                if !self.writingBack { self.results.value = Result(value, self.validator(value)) }
            }
        }
    }

    /// A property holding `initial`, validating each value set on it.
    public convenience init(_ initial: Value, file: StaticString = #fileID, line: UInt = #line,
                            _ validator: @escaping (Value) -> Decision) {
        self.init(MutableProperty(initial, file: file, line: line), file: file, line: line, validator)
    }

    /// A property validating the values set on `inner` against the value of `other` too, and
    /// validating its latest value again whenever `other` changes. `other` is not kept alive.
    public convenience init<Other: PropertyProtocol>(_ inner: MutableProperty<Value>, with other: Other,
                                                     file: StaticString = #fileID, line: UInt = #line,
                                                     _ validator: @escaping (Value, Other.Value) -> Decision) {
        let other = Property(other, file: file, line: line)
        self.init(inner, file: file, line: line) { validator($0, other.value) }
        revalidate(whenever: other.signal)
    }

    /// A property holding `initial`, validating each value against `other` too.
    public convenience init<Other: PropertyProtocol>(_ initial: Value, with other: Other,
                                                     file: StaticString = #fileID, line: UInt = #line,
                                                     _ validator: @escaping (Value, Other.Value) -> Decision) {
        self.init(MutableProperty(initial, file: file, line: line), with: other, file: file, line: line, validator)
    }

    /// A property validating the values set on `inner` against the latest value set on
    /// `other` (valid or not), and validating again whenever `other`'s result changes.
    public convenience init<U, E>(_ inner: MutableProperty<Value>, with other: ValidatingProperty<U, E>,
                                  file: StaticString = #fileID, line: UInt = #line,
                                  _ validator: @escaping (Value, U) -> Decision) {
        let otherResult = other.result
        self.init(inner, file: file, line: line) { validator($0, otherResult.value.proposed) }
        revalidate(whenever: otherResult.signal)
    }

    /// A property holding `initial`, validating each value against the latest value set on
    /// `other`.
    public convenience init<U, E>(_ initial: Value, with other: ValidatingProperty<U, E>,
                                  file: StaticString = #fileID, line: UInt = #line,
                                  _ validator: @escaping (Value, U) -> Decision) {
        self.init(MutableProperty(initial, file: file, line: line), with: other, file: file, line: line, validator)
    }

    deinit { observations.dispose() }

    /// The value stored; setting it validates the new value first.
    public var value: Value {
        get { inner.value }
        set { set(newValue) }
    }

    /// The stored value, then every change.
    public var producer: SignalProducer<Value, Never> { inner.producer }
    /// The changes of the stored value.
    public var signal: Signal<Value, Never> { inner.signal }
    /// Ends when the inner property is released.
    public var lifetime: Lifetime { inner.lifetime }

    /// Setting the property from a binding.
    public var bindingTarget: BindingTarget<Value> {
        BindingTarget(lifetime: lifetime, file: inner.node.file, line: inner.node.line) { [weak self] in self?.value = $0 }
    }

    private func set(_ proposed: Value) {
        lock.withLock {
            let outcome = Result(proposed, validator(proposed))
            results.value = outcome
            guard let stored = outcome.value else { return }
            writingBack = true
            defer { writingBack = false }
            inner.value = stored
        }
    }

    /// Validates the latest value set again, valid or not, at each value of `changes`.
    private func revalidate<T>(whenever changes: Signal<T, Never>) {
        observations += changes.observeInternally { [weak self] event in
            guard case .value = event, let self else { return }
            self.set(self.results.value.proposed)
        }
    }
}

extension Action {
    /// An action enabled while `state` holds a valid value (and nothing executes).
    public convenience init<T, E>(validated state: ValidatingProperty<T, E>, file: StaticString = #fileID,
                                  line: UInt = #line, execute: @escaping (T, Input) -> SignalProducer<Output, Error>) {
        self.init(state: state.result, enabledIf: { !$0.isInvalid }, file: file, line: line) { result, input in
            // Enabled only while the result holds a value.
            execute(result.value!, input)
        }
    }

    /// An action of no input enabled while `state` holds a valid value, whose work depends
    /// on it only.
    public convenience init<T, E>(validated state: ValidatingProperty<T, E>, file: StaticString = #fileID,
                                  line: UInt = #line, execute: @escaping (T) -> SignalProducer<Output, Error>)
    where Input == Void {
        self.init(validated: state, file: file, line: line) { value, _ in execute(value) }
    }
}
