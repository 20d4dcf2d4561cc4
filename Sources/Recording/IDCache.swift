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

    @inline(__always) private func index(_ key: UInt64) -> Int {
        2 * (Int(truncatingIfNeeded: key) & mask)
    }

    @inline(__always) func lookup(_ key: UInt64) -> UInt64? {
        let slot = index(key)
        let id = slots[slot + 1]
        return slots[slot] == key && id != 0 ? id : nil
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
