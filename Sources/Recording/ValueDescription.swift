@_spi(Reflection) import Swift
import Synchronization

/// `String(describing:)` of a recorded value, made from a plan kept per type rather than by
/// reflecting every value.
///
/// The standard library describes a struct with no description of its own by reflecting it:
/// for every value it looks each field's type up by its mangled name and casts each field to
/// the printing protocols through the runtime. For a struct of three fields that is about
/// 5 µs, most of a recording writer's time per event (issue 26). The plan does that work once
/// per type: it lists the struct's fields (name, offset, the plan of the field's type) and,
/// for a type that describes itself, which of its descriptions printing uses. Describing a
/// value then reads its fields in place and calls those descriptions directly.
///
/// The text is the standard library's, byte for byte: a plan is made only for what it can
/// describe the same way, and is checked against `String(describing:)` on the first values
/// of its type; on any difference the type is described by `String(describing:)` from then
/// on. What is not planned goes to the standard library as before: enums, tuples, classes
/// without a description, and any type with a custom mirror.
enum ValueDescription {
    /// `String(describing: value)`.
    static func describe(_ value: Any) -> String {
        func opened<T>(_ value: T) -> String {
            withUnsafePointer(to: value) { describe($0, verify: true) }
        }
        return _openExistential(value, do: opened)
    }

    /// `String(describing: value.pointee)`; `verify` checks the plan's first values against
    /// it (tests turn it off to see the plan's own text).
    static func describe<T>(_ value: UnsafePointer<T>, verify: Bool) -> String {
        let plan = Plans.plan(for: T.self)
        guard let plan, !plan.disowned.load(ordering: .relaxed) else { return String(describing: value.pointee) }
        var text = ""
        plan.write(UnsafeRawPointer(value), debug: false, to: &text)
        if text.utf8.count > cutoff {
            // Perhaps cut: a beginning of the text, which the trace keeps only the first
            // characters of. Enough of them, or the whole text after all.
            let enough = text.index(text.startIndex, offsetBy: Recorder.maxTextLength + 1, limitedBy: text.endIndex)
            return enough.map { $0 < text.endIndex } == true ? text : String(describing: value.pointee)
        }
        if verify, plan.checksLeft.load(ordering: .relaxed) > 0 {
            plan.checksLeft.subtract(1, ordering: .relaxed)
            let expected = String(describing: value.pointee)
            if text != expected {
                plan.disowned.store(true, ordering: .relaxed)
                return expected
            }
        }
        return text
    }

    /// How many values of a type are checked against the standard library's text.
    static let checkedValues = 4

    /// The bytes of text past which a plan stops writing (a struct's next field, an array's next
    /// element, the rest of a string): the trace keeps only the first `Recorder.maxTextLength`
    /// characters, so a huge value is described in time proportional to this, not to its size.
    /// The text is then a beginning of `String(describing:)`'s.
    static let cutoff = 4096
}

/// How to write a value of one type, as `print` does (`debug` false) and as `debugPrint` does
/// (`debug` true: how a struct prints its fields).
final class DescriptionPlan: @unchecked Sendable {  // immutable but for its atomics
    /// A value read in place at the address it is handed, written to a string.
    typealias Writer = (UnsafeRawPointer, inout String) -> Void

    enum Body {
        /// A type that describes itself: what `print` and what `debugPrint` call.
        case described(print: Writer, debug: Writer)
        /// A plain struct: its name (unqualified for `print`, with its module for
        /// `debugPrint`), then each field's label and text in order.
        case fields(name: String, qualifiedName: String, fields: [Field])
        /// Anything else: the standard library's text of the value loaded as it is.
        case reflected(print: Writer, debug: Writer)
    }

    struct Field {
        let label: String
        let offset: Int
        let plan: DescriptionPlan
    }

    let body: Body
    /// Values of the type still to compare with the standard library's text: only a plan
    /// that lists fields is checked (one that calls the type's own description would only
    /// call it twice).
    let checksLeft: Atomic<Int>
    /// Set when the plan's text differed from the standard library's: not used again.
    let disowned = Atomic<Bool>(false)

    init(_ body: Body) {
        self.body = body
        let listsFields = if case .fields = body { true } else { false }
        checksLeft = Atomic(listsFields ? ValueDescription.checkedValues : 0)
    }

    func write(_ value: UnsafeRawPointer, debug: Bool, to text: inout String) {
        switch body {
        case let .described(print, debugPrint), let .reflected(print, debugPrint):
            (debug ? debugPrint : print)(value, &text)
        case let .fields(name, qualifiedName, fields):
            text += debug ? qualifiedName : name
            text += "("
            for (index, field) in fields.enumerated() {
                if text.utf8.count > ValueDescription.cutoff { return }
                if index > 0 { text += ", " }
                text += field.label
                text += ": "
                field.plan.write(value + field.offset, debug: true, to: &text)
            }
            text += ")"
        }
    }
}

/// The plans made so far, by type, shared by every recorder (a type's plan never changes).
private enum Plans {
    static let made = Mutex<[ObjectIdentifier: DescriptionPlan?]>([:])

    /// The plan for `T` (nil: describe it with `String(describing:)`).
    static func plan<T>(for type: T.Type) -> DescriptionPlan? {
        let key = ObjectIdentifier(type)
        if let known = made.withLock({ $0[key] }) { return known }
        let plan = make(type, isStruct: isStruct(type))
        // A top-level value only printed by the standard library gains nothing from a plan.
        let kept: DescriptionPlan? = if case .reflected = plan.body { nil } else { plan }
        made.withLock { $0[key] = kept }
        return kept
    }

    /// The plan of `T`, whose kind `isStruct` tells.
    static func make<T>(_ type: T.Type, isStruct: Bool) -> DescriptionPlan {
        if type == String.self { return DescriptionPlan(.described(print: { $1 += $0.load(as: String.self) }, debug: quoted)) }
        if let container = type as? any PlannedContainer.Type { return DescriptionPlan(container.descriptionBody()) }
        if let described = selfDescribed(type) { return DescriptionPlan(described) }
        if isStruct, !(type is any CustomReflectable.Type), let fields = fields(of: type) {
            return DescriptionPlan(.fields(name: _typeName(type, qualified: false),
                                           qualifiedName: _typeName(type, qualified: true), fields: fields))
        }
        return DescriptionPlan(.reflected(
            print: { value, text in text += String(describing: value.assumingMemoryBound(to: T.self).pointee) },
            debug: { value, text in text += String(reflecting: value.assumingMemoryBound(to: T.self).pointee) }))
    }

    /// The fields of the struct `T` with their plans, or nil when one cannot be read in place:
    /// a `weak` or `unowned` field (its storage is not a value of its type), or a function or
    /// metatype, as the standard library's own listing of stored properties tells.
    static func fields<T>(of type: T.Type) -> [DescriptionPlan.Field]? {
        guard _forEachFieldWithKeyPath(of: type, body: { _, _ in true }) else { return nil }
        var fields: [DescriptionPlan.Field] = []
        let listed = _forEachField(of: type) { name, offset, fieldType, kind in
            func plan<F>(_: F.Type) -> DescriptionPlan { make(F.self, isStruct: isStruct(F.self)) }
            fields.append(DescriptionPlan.Field(label: String(cString: name), offset: offset,
                                                plan: _openExistential(fieldType, do: plan)))
            return true
        }
        return listed ? fields : nil
    }

    /// The writers of a type that describes itself, in the orders `print` and `debugPrint`
    /// look for a description; nil for a type that does not.
    static func selfDescribed<T>(_ type: T.Type) -> DescriptionPlan.Body? {
        let streamed = (type as? any TextOutputStreamable.Type).map { streamWriter($0) }
        let plain = (type as? any CustomStringConvertible.Type).map { descriptionWriter($0) }
        let debug = (type as? any CustomDebugStringConvertible.Type).map { debugDescriptionWriter($0) }
        guard let print = streamed ?? plain ?? debug, let debugPrint = debug ?? plain ?? streamed else { return nil }
        return .described(print: print, debug: debugPrint)
    }

    static func streamWriter<T: TextOutputStreamable>(_: T.Type) -> DescriptionPlan.Writer {
        { value, text in value.assumingMemoryBound(to: T.self).pointee.write(to: &text) }
    }

    static func descriptionWriter<T: CustomStringConvertible>(_: T.Type) -> DescriptionPlan.Writer {
        { value, text in text += value.assumingMemoryBound(to: T.self).pointee.description }
    }

    static func debugDescriptionWriter<T: CustomDebugStringConvertible>(_: T.Type) -> DescriptionPlan.Writer {
        { value, text in text += value.assumingMemoryBound(to: T.self).pointee.debugDescription }
    }
}

extension Plans {
    /// A string as `debugPrint` writes it: in quotes, with `"`, `'`, `\\` and every control or
    /// non-ASCII scalar escaped as `String.debugDescription` escapes them. A string of printable
    /// ASCII with none of those three is written as it is, without the scalar-by-scalar walk.
    static func quoted(_ value: UnsafeRawPointer, _ text: inout String) {
        let string = value.load(as: String.self)
        if string.utf8.count > ValueDescription.cutoff {
            // The beginning only: its escaped text, without the closing quote, begins the whole one's.
            var head = String(string.prefix(ValueDescription.cutoff)).debugDescription
            head.removeLast()
            return text += head
        }
        var plain = true
        for byte in string.utf8 where byte < 0x20 || byte > 0x7E || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
            || byte == UInt8(ascii: "\\") {
            plain = false
            break
        }
        guard plain else { return text += string.debugDescription }
        text += "\""
        text += string
        text += "\""
    }
}

/// A standard container whose description prints its elements with `debugPrint`: its plan
/// writes them with their own plans, not through a runtime cast per element.
private protocol PlannedContainer {
    static func descriptionBody() -> DescriptionPlan.Body
}

extension Array: PlannedContainer {
    /// `[` and the elements as `debugPrint` writes them, separated by `, `, and `]`, for
    /// `description` and `debugDescription` alike.
    fileprivate static func descriptionBody() -> DescriptionPlan.Body {
        let element = Plans.make(Element.self, isStruct: Plans.isStruct(Element.self))
        let write: DescriptionPlan.Writer = { value, text in
            value.assumingMemoryBound(to: [Element].self).pointee.withUnsafeBufferPointer { elements in
                text += "["
                for index in elements.indices {
                    if text.utf8.count > ValueDescription.cutoff { return }
                    if index > 0 { text += ", " }
                    element.write(elements.baseAddress! + index, debug: true, to: &text)
                }
                text += "]"
            }
        }
        return .described(print: write, debug: write)
    }
}

extension Optional: PlannedContainer {
    /// `Optional(` and the wrapped value as `debugPrint` writes it, and `)`; or `nil`.
    fileprivate static func descriptionBody() -> DescriptionPlan.Body {
        let wrapped = Plans.make(Wrapped.self, isStruct: Plans.isStruct(Wrapped.self))
        let write: DescriptionPlan.Writer = { value, text in
            guard let some = value.assumingMemoryBound(to: Wrapped?.self).pointee else { return text += "nil" }
            withUnsafePointer(to: some) { some in
                text += "Optional("
                wrapped.write(some, debug: true, to: &text)
                text += ")"
            }
        }
        return .described(print: write, debug: write)
    }
}

/// The kind the runtime gives a type's metadata (0x200 for a struct).
@_silgen_name("swift_getMetadataKind")
private func metadataKind(_ type: Any.Type) -> UInt

extension Plans {
    /// Whether `T` is a struct (not an enum, a tuple, a class or an existential).
    static func isStruct(_ type: Any.Type) -> Bool {
        metadataKind(type) == 0x200
    }
}
