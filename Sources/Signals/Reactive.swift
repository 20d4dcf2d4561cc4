/// A type that gives its values a `reactive` namespace (ReactiveSwift's
/// `ReactiveExtensionsProvider`): extensions of `Reactive where Base == YourType` add the
/// streams and binding targets of `YourType` there, apart from its own members.
public protocol ReactiveExtensionsProvider {}

extension ReactiveExtensionsProvider {
    /// The reactive namespace of this value.
    public var reactive: Reactive<Self> { Reactive(self) }

    /// The reactive namespace of this type.
    public static var reactive: Reactive<Self>.Type { Reactive<Self>.self }
}

/// The `reactive` namespace of a value: extend it to add reactive members to `Base`.
public struct Reactive<Base> {
    /// The value whose namespace this is.
    public let base: Base

    fileprivate init(_ base: Base) { self.base = base }
}
