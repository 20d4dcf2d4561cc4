@_spi(Reflection) import Swift
import CValueWitnesses
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
/// on. An enum's plan checks the first values of each of its cases itself, wherever the enum is
/// (a field, an element). What is not planned goes to the standard library as before: classes
/// without a description, indirect enums, enums whose payload is an existential, and any type
/// with a custom mirror.
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
        describe(value, plan: Plans.plan(for: T.self), verify: verify)
    }

    /// `String(describing:)` of the values of `T` that the returned function is handed, with
    /// `T`'s plan looked up once, not at every value (a lock and a hashed lookup).
    static func describer<T>(of _: T.Type) -> (UnsafePointer<T>) -> String {
        let plan = Plans.plan(for: T.self)
        return { describe($0, plan: plan, verify: true) }
    }

    /// `String(describing: value.pointee)` made with `plan`, `T`'s plan (nil: there is none).
    private static func describe<T>(_ value: UnsafePointer<T>, plan: DescriptionPlan?, verify: Bool) -> String {
        guard let plan, !plan.disowned.load(ordering: .relaxed) else { return String(describing: value.pointee) }
        var bytes = TextBytes()
        plan.write(UnsafeRawPointer(value), debug: false, to: &bytes)
        let text = bytes.string
        if bytes.count > cutoff {
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

    /// The standard library's text of `value`: as `print` writes it, or as `debugPrint` does.
    static func standard<T>(_ value: T, debug: Bool) -> String {
        debug ? String(reflecting: value) : String(describing: value)
    }

    /// The bytes of text past which a plan stops writing (a struct's next field, an array's next
    /// element, the rest of a string): the trace keeps only the first `Recorder.maxTextLength`
    /// characters, so a huge value is described in time proportional to this, not to its size.
    /// The text is then a beginning of `String(describing:)`'s.
    static let cutoff = 4096
}

/// Text as UTF-8 bytes, which plans write into: appending to bytes costs a fraction of
/// appending to a `String` (about 300 instructions an append, most of a struct's description),
/// and a `ByteStore` a fraction of an array's `append(contentsOf:)`.
struct TextBytes: TextOutputStream {
    private var bytes = ByteStore(capacity: 128)

    init() {}

    /// The bytes written so far.
    var count: Int { bytes.count }

    /// The text written.
    var string: String { bytes.string }

    /// Appends `bytes` from `start` on.
    @inline(__always)
    mutating func append(_ bytes: [UInt8], from start: Int = 0) {
        self.bytes.append(bytes, from: start)
    }

    mutating func write(_ string: String) {
        bytes.append(string)
    }

    /// Appends `utf8` in quotes.
    mutating func write(quoted utf8: UnsafeBufferPointer<UInt8>) {
        bytes.write(upTo: utf8.count + 2) { out in
            out[0] = UInt8(ascii: "\"")
            if let source = utf8.baseAddress { (out + 1).update(from: source, count: utf8.count) }
            out[utf8.count + 1] = UInt8(ascii: "\"")
            return utf8.count + 2
        }
    }

    static func += (text: inout TextBytes, string: String) {
        text.write(string)
    }
}

/// How to write a value of one type, as `print` does (`debug` false) and as `debugPrint` does
/// (`debug` true: how a struct prints its fields).
final class DescriptionPlan: @unchecked Sendable {  // immutable but for its atomics
    /// A value read in place at the address it is handed, written to a string.
    typealias Writer = (UnsafeRawPointer, inout TextBytes) -> Void

    enum Body {
        /// A type that describes itself: what `print` and what `debugPrint` call.
        case described(print: Writer, debug: Writer)
        /// A plain struct: its name (unqualified for `print`, with its module for
        /// `debugPrint`) and `(` as UTF-8, then each field's label and text in order.
        case fields(opening: [UInt8], qualifiedOpening: [UInt8], fields: [Field])
        /// A tuple: its elements in parentheses, each with its label when it has one, for
        /// `print` and `debugPrint` alike.
        case tuple([Field])
        /// An enum without a description of its own (`EnumPlan`).
        case enumeration(EnumPlan)
        /// Anything else: the standard library's text of the value loaded as it is.
        case reflected(print: Writer, debug: Writer)
    }

    struct Field {
        let label: String
        let offset: Int
        let plan: DescriptionPlan
        /// `, label: ` as UTF-8: what a struct writes before the field (without the first two
        /// bytes for its first field).
        let listed: [UInt8]

        init(label: String, offset: Int, plan: DescriptionPlan) {
            (self.label, self.offset, self.plan) = (label, offset, plan)
            listed = Array(", \(label): ".utf8)
        }
    }

    let body: Body
    /// The writer `print` and the one `debugPrint` use when the body is `described` or
    /// `reflected` (nil otherwise): kept apart from the body, so that writing a value reads one
    /// of them and does not copy the whole body (its closures retained and released).
    private let printWriter: Writer?
    private let debugWriter: Writer?
    /// Values of the type still to compare with the standard library's text: only a plan
    /// that lists fields is checked (one that calls the type's own description would only
    /// call it twice).
    let checksLeft: Atomic<Int>
    /// Set when the plan's text differed from the standard library's: not used again.
    let disowned = Atomic<Bool>(false)

    init(_ body: Body) {
        self.body = body
        switch body {
        case let .described(print, debug), let .reflected(print, debug): (printWriter, debugWriter) = (print, debug)
        default: (printWriter, debugWriter) = (nil, nil)
        }
        let listsFields = if case .fields = body { true } else { false }
        checksLeft = Atomic(listsFields ? ValueDescription.checkedValues : 0)
    }

    func write(_ value: UnsafeRawPointer, debug: Bool, to text: inout TextBytes) {
        if let writer = debug ? debugWriter : printWriter { return writer(value, &text) }
        switch body {
        case .described, .reflected:
            break  // written above
        case let .fields(opening, qualifiedOpening, fields):
            text.append(debug ? qualifiedOpening : opening)
            for index in fields.indices {
                if text.count > ValueDescription.cutoff { return }
                let field = fields[index]
                text.append(field.listed, from: index == 0 ? 2 : 0)
                field.plan.write(value + field.offset, debug: true, to: &text)
            }
            text += ")"
        case let .tuple(elements):
            text += "("
            for (index, element) in elements.enumerated() {
                if text.count > ValueDescription.cutoff { return }
                if index > 0 { text += ", " }
                // An element without a label is listed as `.0`, `.1`…, and printed without one.
                if !element.label.hasPrefix(".") {
                    text += element.label
                    text += ": "
                }
                element.plan.write(value + element.offset, debug: true, to: &text)
            }
            text += ")"
        case let .enumeration(plan):
            plan.write(value, debug: debug, &text)
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
        var making: Set<ObjectIdentifier> = []
        let plan = make(type, making: &making)
        // A top-level value only printed by the standard library gains nothing from a plan.
        let kept: DescriptionPlan? = if case .reflected = plan.body { nil } else { plan }
        made.withLock { $0[key] = kept }
        return kept
    }

    /// The plan of `T`. `making` holds the types whose plans are being made on this thread,
    /// around this one: a type met again inside itself (a struct with an array of its own type,
    /// an enum with an optional of itself) gets a plan that finds the finished one when it
    /// writes, rather than a plan made forever.
    static func make<T>(_ type: T.Type, making: inout Set<ObjectIdentifier>) -> DescriptionPlan {
        let key = ObjectIdentifier(type)
        guard making.insert(key).inserted else { return found(type) }
        defer { making.remove(key) }
        if type == String.self { return DescriptionPlan(.described(print: { $1 += $0.load(as: String.self) }, debug: quoted)) }
        if let container = type as? any PlannedContainer.Type { return DescriptionPlan(container.descriptionBody(making: &making)) }
        if let described = selfDescribed(type) { return DescriptionPlan(described) }
        if isStruct(type), !(type is any CustomReflectable.Type), let fields = fields(of: type, making: &making) {
            return DescriptionPlan(.fields(opening: Array((_typeName(type, qualified: false) + "(").utf8),
                                           qualifiedOpening: Array((_typeName(type, qualified: true) + "(").utf8), fields: fields))
        }
        let kind = metadataKind(type)
        if kind == MetadataKind.tuple, let elements = elements(of: type, making: &making) { return DescriptionPlan(.tuple(elements)) }
        if kind == MetadataKind.enumeration, !(type is any CustomReflectable.Type), let plan = EnumPlan(type, making: &making) {
            return DescriptionPlan(.enumeration(plan))
        }
        return DescriptionPlan(.reflected(
            print: { value, text in text += String(describing: value.assumingMemoryBound(to: T.self).pointee) },
            debug: { value, text in text += String(reflecting: value.assumingMemoryBound(to: T.self).pointee) }))
    }

    /// A plan for `T` met inside its own plan: it writes with `T`'s finished plan.
    static func found<T>(_: T.Type) -> DescriptionPlan {
        func writer(debug: Bool) -> DescriptionPlan.Writer {
            { value, text in
                if let plan = plan(for: T.self), !plan.disowned.load(ordering: .relaxed) {
                    plan.write(value, debug: debug, to: &text)
                } else {
                    text += ValueDescription.standard(value.assumingMemoryBound(to: T.self).pointee, debug: debug)
                }
            }
        }
        return DescriptionPlan(.reflected(print: writer(debug: false), debug: writer(debug: true)))
    }

    /// The fields of the struct `T` with their plans, or nil when one cannot be read in place:
    /// a `weak` or `unowned` field (its storage is not a value of its type), or a function or
    /// metatype, as the standard library's own listing of stored properties tells.
    static func fields<T>(of type: T.Type, making: inout Set<ObjectIdentifier>) -> [DescriptionPlan.Field]? {
        guard _forEachFieldWithKeyPath(of: type, body: { _, _ in true }) else { return nil }
        return elements(of: type, making: &making)
    }

    /// The stored fields of `T` (a struct's, or a tuple's elements, which are stored as values
    /// of their types whatever they are) with their plans, as the standard library lists them,
    /// or nil when it cannot list them.
    static func elements<T>(of type: T.Type, making: inout Set<ObjectIdentifier>) -> [DescriptionPlan.Field]? {
        var elements: [DescriptionPlan.Field] = []
        let listed = _forEachField(of: type) { name, offset, elementType, _ in
            func plan<E>(_: E.Type) -> DescriptionPlan { make(E.self, making: &making) }
            elements.append(DescriptionPlan.Field(label: String(cString: name), offset: offset,
                                                  plan: _openExistential(elementType, do: plan)))
            return true
        }
        return listed ? elements : nil
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
    static func quoted(_ value: UnsafeRawPointer, _ text: inout TextBytes) {
        var string = value.load(as: String.self)
        if string.utf8.count > ValueDescription.cutoff {
            // The beginning only: its escaped text, without the closing quote, begins the whole one's.
            var head = String(string.prefix(ValueDescription.cutoff)).debugDescription
            head.removeLast()
            return text += head
        }
        let plain = string.withUTF8 { utf8 in
            let plain = !utf8.contains { byte in
                byte < 0x20 || byte > 0x7E || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\\")
            }
            if plain { text.write(quoted: utf8) }
            return plain
        }
        if !plain { text += string.debugDescription }
    }
}

/// A standard container whose description prints its elements with `debugPrint`: its plan
/// writes them with their own plans, not through a runtime cast per element.
private protocol PlannedContainer {
    static func descriptionBody(making: inout Set<ObjectIdentifier>) -> DescriptionPlan.Body
}

extension Array: PlannedContainer {
    /// `[` and the elements as `debugPrint` writes them, separated by `, `, and `]`, for
    /// `description` and `debugDescription` alike.
    fileprivate static func descriptionBody(making: inout Set<ObjectIdentifier>) -> DescriptionPlan.Body {
        let element = Plans.make(Element.self, making: &making)
        let write: DescriptionPlan.Writer = { value, text in
            value.assumingMemoryBound(to: [Element].self).pointee.withUnsafeBufferPointer { elements in
                text += "["
                for index in elements.indices {
                    if text.count > ValueDescription.cutoff { return }
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
    fileprivate static func descriptionBody(making: inout Set<ObjectIdentifier>) -> DescriptionPlan.Body {
        let wrapped = Plans.make(Wrapped.self, making: &making)
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

/// The kind the runtime gives a type's metadata (`MetadataKind`).
@_silgen_name("swift_getMetadataKind")
func metadataKind(_ type: Any.Type) -> UInt

/// The runtime's metadata kinds the plans and the writer's formatters tell apart.
enum MetadataKind {
    static let structure: UInt = 0x200
    static let enumeration: UInt = 0x201
    static let tuple: UInt = 0x301
    /// An existential (`any P`, `Any`), an existential metatype, an extended existential: a
    /// value whose printing depends on the type of what it holds.
    static let existentials: Set<UInt> = [0x303, 0x306, 0x307]
}

extension Plans {
    /// Whether `T` is a struct (not an enum, a tuple, a class or an existential).
    static func isStruct(_ type: Any.Type) -> Bool {
        metadataKind(type) == MetadataKind.structure
    }
}

/// How to write a value of an enum with no description of its own, as the standard library
/// does, without reflecting it: the case from the enum's `getEnumTag` value witness, its name
/// from the enum's field records, and its payload, laid bare in a copy of the value, written
/// with the payload type's plan. `print` writes `case(payload)`; `debugPrint` puts the
/// qualified type name and a dot before the case. A tuple payload brings its own parentheses.
///
/// Each case checks its first values against the standard library's text and, on any
/// difference, leaves its values to the standard library from then on.
///
/// No plan is made (the standard library describes the enum) for an enum whose field records
/// are missing or not in the runtime's case order, an enum with an indirect case (its payload
/// is a box), or a payload whose type the runtime cannot resolve from its mangled name. A case
/// whose payload is an existential is left to the standard library, which prints it by the
/// type of the value it holds.
final class EnumPlan: @unchecked Sendable {  // immutable but for its cases' atomics
    final class Case: @unchecked Sendable {
        let name: String
        /// The payload's plan, and whether the payload is a tuple (no parentheses of the
        /// case's own); nil for a case without a payload.
        let payload: (plan: DescriptionPlan, isTuple: Bool)?
        /// Whether the standard library writes this case's values.
        let reflected: Bool
        let checksLeft = Atomic<Int>(EnumPlan.checkedValues)
        let disowned = Atomic<Bool>(false)

        init(name: String, payload: (plan: DescriptionPlan, isTuple: Bool)?, reflected: Bool) {
            (self.name, self.payload, self.reflected) = (name, payload, reflected)
        }
    }

    /// How many values of each case are checked against the standard library's text.
    static let checkedValues = 2

    let cases: [Case]
    /// `type(of:)`'s qualified name, which `debugPrint` writes before the case.
    let qualifiedName: String
    /// Writes a value of the enum with the plan of its case.
    private let writer: (EnumPlan, UnsafeRawPointer, Bool, inout TextBytes) -> Void

    init?<T>(_ type: T.Type, making: inout Set<ObjectIdentifier>) {
        let metadata = unsafeBitCast(type as Any.Type, to: UnsafeRawPointer.self)
        guard let records = Self.caseRecords(metadata) else { return nil }
        var cases: [Case] = []
        for record in records {
            guard let payloadName = record.payloadName else {
                cases.append(Case(name: record.name, payload: nil, reflected: false))
                continue
            }
            // The generic arguments follow the kind and the descriptor in an enum's metadata.
            guard let payloadType = _getTypeByMangledNameInContext(
                payloadName.baseAddress!, UInt(payloadName.count), genericContext: record.descriptor,
                genericArguments: metadata + 2 * MemoryLayout<UnsafeRawPointer>.stride) else { return nil }
            let kind = metadataKind(payloadType)
            if MetadataKind.existentials.contains(kind) {
                cases.append(Case(name: record.name, payload: nil, reflected: true))
                continue
            }
            func plan<P>(_: P.Type) -> DescriptionPlan { Plans.make(P.self, making: &making) }
            let payloadPlan: DescriptionPlan = _openExistential(payloadType, do: plan)
            cases.append(Case(name: record.name, payload: (payloadPlan, kind == MetadataKind.tuple), reflected: false))
        }
        self.cases = cases
        qualifiedName = _typeName(type, qualified: true)
        writer = { plan, value, debug, text in plan.writeValue(value.assumingMemoryBound(to: T.self), debug: debug, &text) }
        Self.made.withLock { $0.append(self) }
    }

    /// Every enum plan made (one or a few per enum type a recording meets), for
    /// `disownedCases`.
    private static let made = Mutex<[EnumPlan]>([])

    /// The enum types (qualified names) that have plans: what the tests check was planned.
    static var plannedTypes: Set<String> {
        made.withLock { Set($0.map(\.qualifiedName)) }
    }

    /// The cases, as `Type.case`, whose text differed from the standard library's, in every
    /// enum plan made so far: what the tests assert is empty.
    static var disownedCases: [String] {
        made.withLock { plans in
            plans.flatMap { plan in
                plan.cases.filter { $0.disowned.load(ordering: .relaxed) }.map { "\(plan.qualifiedName).\($0.name)" }
            }
        }
    }

    func write(_ value: UnsafeRawPointer, debug: Bool, _ text: inout TextBytes) {
        writer(self, value, debug, &text)
    }

    private func writeValue<T>(_ value: UnsafePointer<T>, debug: Bool, _ text: inout TextBytes) {
        let metadata = unsafeBitCast(T.self as Any.Type, to: UnsafeRawPointer.self)
        let tag = Int(marbles_enum_tag(value, metadata))
        guard tag < cases.count, case let entry = cases[tag], !entry.reflected,
              !entry.disowned.load(ordering: .relaxed) else {
            return text += ValueDescription.standard(value.pointee, debug: debug)
        }
        guard entry.checksLeft.load(ordering: .relaxed) > 0 else { return writeCase(entry, tag: tag, value, debug: debug, &text) }
        entry.checksLeft.subtract(1, ordering: .relaxed)
        var mine = TextBytes()
        writeCase(entry, tag: tag, value, debug: debug, &mine)
        let expected = ValueDescription.standard(value.pointee, debug: debug)
        if mine.string != expected { entry.disowned.store(true, ordering: .relaxed) }
        text += expected
    }

    private func writeCase<T>(_ entry: Case, tag: Int, _ value: UnsafePointer<T>, debug: Bool, _ text: inout TextBytes) {
        if debug {
            text += qualifiedName
            text += "."
        }
        text += entry.name
        guard let payload = entry.payload else { return }
        // The payload is laid bare in a copy, read in place, and covered again, so that the
        // copy is a value of the enum when it is destroyed.
        var copy = value.pointee
        withUnsafeMutablePointer(to: &copy) { copy in
            let metadata = unsafeBitCast(T.self as Any.Type, to: UnsafeRawPointer.self)
            marbles_enum_project(copy, metadata)
            if !payload.isTuple { text += "(" }
            payload.plan.write(UnsafeRawPointer(copy), debug: true, to: &text)
            if !payload.isTuple { text += ")" }
            marbles_enum_inject(copy, UInt32(tag), metadata)
        }
    }

    /// A case as the enum's field records list it.
    struct CaseRecord {
        let name: String
        /// The payload type's mangled name (which may hold symbolic references), nil for a case
        /// without a payload.
        let payloadName: UnsafeBufferPointer<UInt8>?
        /// The enum's type context descriptor, which the mangled name is resolved in.
        let descriptor: UnsafeRawPointer
    }

    /// The cases of the enum whose metadata is given, in the runtime's case order (payload
    /// cases first), read from its type context descriptor and field records; nil when they are
    /// missing, an indirect case is among them, or they do not list the payload cases first.
    static func caseRecords(_ metadata: UnsafeRawPointer) -> [CaseRecord]? {
        // Enum metadata: the kind, then the type context descriptor.
        guard let descriptor = metadata.load(fromByteOffset: 8, as: UnsafeRawPointer?.self) else { return nil }
        // The descriptor's flags (the kind in the low 5 bits: 18, an enum), its parent, name and
        // access function, its field descriptor, and its payload and empty case counts.
        guard descriptor.load(as: UInt32.self) & 0x1F == 18,
              let fields = relative(descriptor, at: 16) else { return nil }
        let payloadCases = Int(descriptor.load(fromByteOffset: 20, as: UInt32.self) & 0xFF_FFFF)
        let emptyCases = Int(descriptor.load(fromByteOffset: 24, as: UInt32.self))
        // A field descriptor: two names, its kind, its records' size, their count, the records.
        let recordSize = Int(fields.load(fromByteOffset: 10, as: UInt16.self))
        let count = Int(fields.load(fromByteOffset: 12, as: UInt32.self))
        guard count == payloadCases + emptyCases, recordSize >= 12 else { return nil }
        var records: [CaseRecord] = []
        for index in 0..<count {
            // A record: its flags (0x1: an indirect case), its type's mangled name, its name.
            let record = fields + 16 + index * recordSize
            guard record.load(as: UInt32.self) & 0x1 == 0, let name = relative(record, at: 8) else { return nil }
            let payloadName = relative(record, at: 4).map { mangled in
                UnsafeBufferPointer(start: mangled.assumingMemoryBound(to: UInt8.self), count: mangledLength(mangled))
            }
            // The runtime numbers the payload cases first: the records must say the same.
            guard (payloadName != nil) == (index < payloadCases) else { return nil }
            records.append(CaseRecord(name: String(cString: name.assumingMemoryBound(to: CChar.self)),
                                      payloadName: payloadName, descriptor: descriptor))
        }
        return records
    }

    /// The address a 32-bit relative pointer at `offset` from `base` points to; nil for 0.
    private static func relative(_ base: UnsafeRawPointer, at offset: Int) -> UnsafeRawPointer? {
        let distance = base.loadUnaligned(fromByteOffset: offset, as: Int32.self)
        return distance == 0 ? nil : base + offset + Int(distance)
    }

    /// The length of a mangled name: up to its zero byte, past the 4-byte relative (bytes 1 to
    /// 0x17) and pointer-sized absolute (0x18 to 0x1F) symbolic references it may hold.
    private static func mangledLength(_ name: UnsafeRawPointer) -> Int {
        var length = 0
        while true {
            let byte = name.load(fromByteOffset: length, as: UInt8.self)
            switch byte {
            case 0: return length
            case 0x01...0x17: length += 1 + 4
            case 0x18...0x1F: length += 1 + MemoryLayout<UnsafeRawPointer>.size
            default: length += 1
            }
        }
    }
}
