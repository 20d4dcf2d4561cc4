/// A direct-mapped cache from process-wide ids (of nodes, of subscriptions) to trace-local
/// ones, in front of the recorder's dictionaries: a load and a compare where a lookup would
/// hash. Each slot keeps the last key stored into it; the dictionaries stay the record.
struct IDCache {
    private let mask: Int
    /// Pairs of key and trace id; a trace id is never 0, so 0 marks an empty slot.
    private let slots: UnsafeMutablePointer<UInt64>

    /// `capacity` must be a power of two.
    init(capacity: Int) {
        mask = capacity - 1
        slots = .allocate(capacity: 2 * capacity)
        slots.initialize(repeating: 0, count: 2 * capacity)
    }

    /// (Wrapping arithmetic: the masked key cannot overflow, and a checked one costs a
    /// compare and a branch per lookup on the send path.)
    @inline(__always) private func index(_ key: UInt64) -> Int {
        (Int(truncatingIfNeeded: key) & mask) &<< 1
    }

    @inline(__always) func lookup(_ key: UInt64) -> UInt64? {
        let id = find(key)
        return id != 0 ? id : nil
    }

    /// The trace id stored for `key`, or 0 when the slot holds another key or none: one
    /// compare and a select, for the send path, which tests the result once with others.
    @inline(__always) func find(_ key: UInt64) -> UInt64 {
        let slot = slots + index(key)
        return slot[0] == key ? slot[1] : 0
    }

    @inline(__always) func store(_ key: UInt64, _ id: UInt64) {
        let slot = index(key)
        slots[slot] = key
        slots[slot + 1] = id
    }

    func remove(_ key: UInt64) {
        let slot = index(key)
        if slots[slot] == key {
            slots[slot] = 0
            slots[slot + 1] = 0
        }
    }

    func removeAll() {
        slots.update(repeating: 0, count: 2 * (mask + 1))
    }

    func deallocate() {
        slots.deallocate()
    }
}
