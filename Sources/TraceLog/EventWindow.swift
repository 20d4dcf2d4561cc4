/// What a streaming reader keeps of the most recent events, found by sequence number: the
/// slot of sequence `s` is `s % size`, so an event is kept until a later one takes its slot
/// (with sequence numbers 1, 2, 3, …, until `capacity` more events were read).
///
/// The storage grows with the events read, doubling up to `capacity`: a trace of 89 events
/// asked to keep a window of 10⁸ takes memory for 128, not for 10⁸.
struct EventWindow<Entry> {
    let capacity: Int
    private let empty: Entry
    /// 0 marks an empty slot (sequence numbers start at 1).
    private var sequences: [UInt64] = []
    private var entries: [Entry] = []
    private var added = 0

    init(capacity: Int, empty: Entry) {
        self.capacity = max(capacity, 16)
        self.empty = empty
    }

    /// The entry of `sequence`, if it is still kept.
    func entry(_ sequence: UInt64) -> Entry? {
        guard !sequences.isEmpty else { return nil }
        let index = Int(sequence % UInt64(sequences.count))
        return sequences[index] == sequence ? entries[index] : nil
    }

    /// Keeps `entry` as the one of `sequence`, in place of whichever shared its slot.
    mutating func insert(_ sequence: UInt64, _ entry: Entry) {
        if added >= sequences.count && sequences.count < capacity { grow() }
        added += 1
        let index = Int(sequence % UInt64(sequences.count))
        sequences[index] = sequence
        entries[index] = entry
    }

    private mutating func grow() {
        let size = min(capacity, max(16, sequences.count * 2))
        var newSequences = [UInt64](repeating: 0, count: size)
        var newEntries = [Entry](repeating: empty, count: size)
        for (index, sequence) in sequences.enumerated() where sequence != 0 {
            let slot = Int(sequence % UInt64(size))
            // Two kept events may share a slot of the new size: the later one stays.
            if newSequences[slot] < sequence {
                newSequences[slot] = sequence
                newEntries[slot] = entries[index]
            }
        }
        sequences = newSequences
        entries = newEntries
    }
}
