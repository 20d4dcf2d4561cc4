import Foundation

/// A type that gives its values a `reactive` namespace (ReactiveSwift's
/// `ReactiveExtensionsProvider`): extensions of `Reactive where Base == YourType` add the
/// streams and binding targets of `YourType` there, apart from its own members.
///
/// ```swift
/// final class Thermometer: ReactiveExtensionsProvider {
///     let readings = MutableProperty(20.0)
/// }
/// extension Reactive where Base: Thermometer {
///     var celsius: SignalProducer<Double, Never> { base.readings.producer }
/// }
/// Thermometer().reactive.celsius.startWithValues { print($0, "°C") }   // prints "20.0 °C"
/// ```
public protocol ReactiveExtensionsProvider {}

extension ReactiveExtensionsProvider {
    /// The reactive namespace of this value.
    public var reactive: Reactive<Self> { Reactive(self) }

    /// The reactive namespace of this type.
    public static var reactive: Reactive<Self>.Type { Reactive<Self>.self }
}

/// The `reactive` namespace of a value: extend it to add reactive members to `Base`.
///
/// ```swift
/// let saved = Notification.Name("saved")
/// let notifications = NotificationCenter.default.reactive.notifications(forName: saved)
/// notifications.observeValues { print("saved:", $0.name.rawValue) }
/// NotificationCenter.default.post(name: saved, object: nil)   // prints "saved: saved"
/// ```
public struct Reactive<Base> {
    /// The value whose namespace this is.
    public let base: Base

    fileprivate init(_ base: Base) { self.base = base }
}

extension NotificationCenter: ReactiveExtensionsProvider {}

extension Reactive where Base: NotificationCenter {
    /// The notifications named `name` (any name when nil) that `object` posts (any object
    /// when nil), as a signal that never ends by itself: a source node `notifications` whose
    /// parameter is the name. The center's observer is removed when the signal's last
    /// observer leaves.
    public func notifications(forName name: Notification.Name?, object: AnyObject? = nil,
                              file: StaticString = #fileID, line: UInt = #line) -> Signal<Notification, Never> {
        let center = base
        let node = Node.make(.source, "notifications", parameters: name?.rawValue ?? "any", file: file, line: line)
        return Signal(node: node, detachWhenUnobserved: true) { observer, lifetime in
            let token = center.addObserver(forName: name, object: object, queue: nil) { observer.send(value: $0) }
            lifetime.observeEnded { center.removeObserver(token) }
        }
    }
}
