import CValueWitnesses
import Foundation
import Synchronization
import TraceLog

/// A value of any type as a live recording's ring keeps it between the send and the writer:
/// a copy of the value itself and its type, made on the producing thread, formatted into text
/// and JSON only on the writer thread (`ValueFormatter`, made once per type).
///
/// A value of up to `inlineCapacity` bytes (an `Int`, a `String`, a struct of a few fields, most
/// enums) is copied into the slot: its bytes, with its references retained, as any copy of it
/// retains them. A larger one is copied into memory of its own, whose address the slot keeps.
/// Either way the producing thread does what assigning the value would do, whatever its type:
/// no description, no cast through the runtime, no encoding.
///
/// What a value shows is what it holds when the writer formats it, within the recorder's
/// flush interval of the send. A value type is a copy and cannot change meanwhile; an object
/// (a class instance, or a value holding one) is kept alive, and a change made to it after the
/// send and before the writer reaches it shows in the trace.
struct CapturedValue {
    /// The bytes a value may take to be kept in the slot.
    static let inlineCapacity = 48

    /// The value, or its address when `boxed`. First, so that its address is the capture's
    /// (`storageIsFirst`): a stored offset would be a lazily made global, checked at every send.
    fileprivate var storage: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
    /// The value's type (`Any.Type`'s bits); nil when the event carries no value.
    fileprivate var type: UnsafeRawPointer?
    /// Whether `storage` holds the address of the value rather than the value.
    fileprivate var boxed = false

    /// Whether `storage` lies at the start of a capture, as `UnsafeMutablePointer<CapturedValue>.storage`
    /// takes it to (Swift lays out a struct's stored properties in order; the tests check it).
    static var storageIsFirst: Bool {
        MemoryLayout<CapturedValue>.offset(of: \CapturedValue.storage) == 0
    }

    /// Copies `value` into the capture at `slot` (whose memory may hold anything: it is
    /// overwritten, never released). Called by the sending thread.
    ///
    /// The send path is not specialised for the value's type, so every step here reads the
    /// type's metadata: a trivial value is copied as its bytes, a word at a time; any other by
    /// its type's one-value copy, called straight into the slot (`marbles_initialize_with_copy`;
    /// Swift's own copy would go through a temporary of dynamic size on the stack).
    @inline(__always)
    static func capture<Value>(_ value: UnsafePointer<Value>, into slot: UnsafeMutablePointer<CapturedValue>) {
        let type = unsafeBitCast(Value.self as Any.Type, to: UnsafeRawPointer.self)
        slot.pointee.type = type
        let storage = slot.storage
        if MemoryLayout<Value>.size <= inlineCapacity && MemoryLayout<Value>.alignment <= 8 {
            slot.pointee.boxed = false
            if _isPOD(Value.self) {
                copyBytes(from: UnsafeRawPointer(value), to: storage, count: MemoryLayout<Value>.size)
            } else {
                marbles_initialize_with_copy(storage, value, type)
            }
            storage.bindMemory(to: Value.self, capacity: 1)
        } else {
            slot.pointee.boxed = true
            storage.storeBytes(of: box(value), as: UnsafeMutableRawPointer.self)
        }
    }

    /// Copies `count` bytes (at most `inlineCapacity`): whole words, then the bytes left, with
    /// no call (`memcpy` of a size known only at run time is one) and no loop (whose set-up,
    /// unrolled by the compiler, cost more than copying one word): each word behind the test
    /// of the one before, so that a one-word value takes two tests.
    @inline(__always)
    private static func copyBytes(from source: UnsafeRawPointer, to target: UnsafeMutableRawPointer, count: Int) {
        func word(_ offset: Int) {
            target.storeBytes(of: source.loadUnaligned(fromByteOffset: offset, as: UInt64.self), toByteOffset: offset,
                              as: UInt64.self)
        }
        if count >= 8 {
            word(0)
            if count >= 16 {
                word(8)
                if count >= 24 {
                    word(16)
                    if count >= 32 {
                        word(24)
                        if count >= 40 {
                            word(32)
                            if count >= 48 { word(40) }
                        }
                    }
                }
            }
        }
        var offset = count & ~7
        if count & 4 != 0 {
            target.storeBytes(of: source.loadUnaligned(fromByteOffset: offset, as: UInt32.self), toByteOffset: offset,
                              as: UInt32.self)
            offset &+= 4
        }
        if count & 2 != 0 {
            target.storeBytes(of: source.loadUnaligned(fromByteOffset: offset, as: UInt16.self), toByteOffset: offset,
                              as: UInt16.self)
            offset &+= 2
        }
        if count & 1 != 0 {
            target.storeBytes(of: source.load(fromByteOffset: offset, as: UInt8.self), toByteOffset: offset, as: UInt8.self)
        }
    }

    /// A capture of `value` copied into memory of its own, whatever its size: one that holds
    /// only an address and a type, so it can move bitwise with a byte buffer (`DeferredEvent`).
    static func boxing<Value>(_ value: UnsafePointer<Value>) -> CapturedValue {
        var captured = CapturedValue()
        captured.type = unsafeBitCast(Value.self as Any.Type, to: UnsafeRawPointer.self)
        captured.boxed = true
        withUnsafeMutablePointer(to: &captured) { $0.storage.storeBytes(of: box(value), as: UnsafeMutableRawPointer.self) }
        return captured
    }

    /// A copy of `value` in memory of its own.
    private static func box<Value>(_ value: UnsafePointer<Value>) -> UnsafeMutableRawPointer {
        let box = UnsafeMutablePointer<Value>.allocate(capacity: 1)
        box.initialize(to: value.pointee)
        return UnsafeMutableRawPointer(box)
    }

    /// Marks the capture at `slot` as holding no value.
    @inline(__always)
    static func clear(_ slot: UnsafeMutablePointer<CapturedValue>) {
        slot.pointee.type = nil
    }

    /// Moves the value out of the capture at `slot` (which then holds none): an `Int` as
    /// itself, any other value formatted by its type's formatter (`ValueFormatter`). Called by
    /// the writer thread.
    static func take(from slot: UnsafeMutablePointer<CapturedValue>) -> Taken {
        guard let raw = slot.pointee.type else { return .none }
        slot.pointee.type = nil
        let storage = slot.storage
        let boxed = slot.pointee.boxed
        if unsafeBitCast(raw, to: Any.Type.self) == Int.self && !boxed { return .integer(Int64(storage.load(as: Int.self))) }
        let formatted = ValueFormatter.formatter(of: raw).take(storage, boxed)
        // A value formatted as an integer (an optional one that holds one) is written as one.
        if case let .integer(integer) = formatted { return .integer(integer) }
        return .value(formatted)
    }

    /// Lets go of the value in the capture at `slot`, if any, unformatted: a ring freed with
    /// events its writer never took.
    static func discard(_ slot: UnsafeMutablePointer<CapturedValue>) {
        guard let raw = slot.pointee.type else { return }
        slot.pointee.type = nil
        ValueFormatter.formatter(of: raw).discard(slot.storage, slot.pointee.boxed)
    }

    /// What `take(from:)` hands the writer.
    enum Taken {
        case none
        case integer(Int64)
        case value(RecorderCore.FormattedValue)

        /// The integer of `.integer`, else nil.
        var integer: Int64? {
            if case let .integer(integer) = self { return integer }
            return nil
        }

        /// Whether it is a formatted value (`.value`).
        var isValue: Bool {
            if case .value = self { return true }
            return false
        }
    }
}

/// What the writer does with the captured values of one type, made once per type: move a value
/// out of a capture and format it, or let go of it. The value is moved and formatted as its
/// own type, so the writer neither boxes it in an `Any` nor asks the runtime what it is at every
/// event (five dynamic casts an event, about 2,800 instructions, for a struct).
struct ValueFormatter: @unchecked Sendable {  // immutable; its closures capture only types
    /// Moves the value out of a capture's storage (`boxed`: the storage holds its address)
    /// and formats it.
    let take: (UnsafeMutableRawPointer, Bool) -> RecorderCore.FormattedValue
    /// Destroys the value in a capture's storage, unformatted.
    let discard: (UnsafeMutableRawPointer, Bool) -> Void

    /// A formatter made for a type, kept for the life of the process (as the formatters are).
    private final class Made: Sendable {
        /// The type's metadata address.
        let type: UInt
        let formatter: ValueFormatter

        init(type: UnsafeRawPointer, formatter: ValueFormatter) {
            (self.type, self.formatter) = (UInt(bitPattern: type), formatter)
        }
    }

    private static let made = Mutex<[ObjectIdentifier: Made]>([:])
    /// The address of the `Made` last looked up (0 before the first): a run of values of one
    /// type, the common case, finds its formatter without the lock and the hashed lookup. Every
    /// `Made` lives as long as `made`, which never lets one go.
    private static let last = Atomic<UInt>(0)

    /// The formatter of the type whose metadata is `type`.
    static func formatter(of type: UnsafeRawPointer) -> ValueFormatter {
        if let address = UnsafeRawPointer(bitPattern: last.load(ordering: .acquiring)) {
            let recent = Unmanaged<Made>.fromOpaque(address)._withUnsafeGuaranteedRef { made in
                made.type == UInt(bitPattern: type) ? made.formatter : nil
            }
            if let recent { return recent }
        }
        let metatype = unsafeBitCast(type, to: Any.Type.self)
        let key = ObjectIdentifier(metatype)
        let made = made.withLock { $0[key] } ?? {
            func make<T>(_: T.Type) -> ValueFormatter { ValueFormatter(T.self) }
            let fresh = Made(type: type, formatter: _openExistential(metatype, do: make))
            return Self.made.withLock { made in
                if let other = made[key] { return other }
                made[key] = fresh
                return fresh
            }
        }()
        last.store(UInt(bitPattern: Unmanaged.passUnretained(made).toOpaque()), ordering: .releasing)
        return made.formatter
    }

    private init<T>(_: T.Type) {
        func moved(_ storage: UnsafeMutableRawPointer, _ boxed: Bool) -> T {
            if boxed {
                let box = storage.load(as: UnsafeMutablePointer<T>.self)
                defer { box.deallocate() }
                return box.move()
            }
            return storage.assumingMemoryBound(to: T.self).move()
        }
        let format = RecorderCore.formatter(of: T.self)
        take = { storage, boxed in format(moved(storage, boxed)) }
        discard = { storage, boxed in _ = moved(storage, boxed) }
    }
}

extension UnsafeMutablePointer<CapturedValue> {
    /// Where the capture's bytes lie.
    @inline(__always) fileprivate var storage: UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(self)
    }
}

/// One slot of a thread's ring: the event, and its value as it was sent.
struct RingEvent {
    /// First, so that the slot's address is its capture's (`UnsafeMutablePointer<RingEvent>.capture`):
    /// the send path, not specialised for the value's type, would otherwise reach it through
    /// a closure of its own (`withUnsafeMutablePointer(to:)`), a call at every event.
    var value: CapturedValue
    var event: BinaryEvent

    /// Whether `value` lies at the start of a slot, as `capture` takes it to (Swift lays out a
    /// struct's stored properties in order; the ring checks it once when made).
    static var valueIsFirst: Bool {
        MemoryLayout<RingEvent>.offset(of: \RingEvent.value) == 0
    }
}

extension UnsafeMutablePointer<RingEvent> {
    /// The slot's capture of its value.
    @inline(__always) var capture: UnsafeMutablePointer<CapturedValue> {
        UnsafeMutableRawPointer(self).assumingMemoryBound(to: CapturedValue.self)
    }
}
