extension Trace {
    /// Adds `count` events held as `BinaryEvent`s `stride` bytes apart from `base` (not
    /// necessarily aligned), as `addEvent` adds each one with its written cause. Returns the
    /// index of the first that is wrong and what is wrong with it (see `TraceValidator`),
    /// having added the ones before it.
    ///
    /// The events a recorder numbered one after another, of ids numbered in order, are checked
    /// and placed in a loop of their own and their columns appended a batch at a time; any
    /// other event takes `addEvent`, so an event is accepted or refused, with the same message,
    /// whichever way it goes.
    package mutating func addEvents(from base: UnsafeRawPointer, stride: Int, count: Int)
        -> (index: Int, problem: String)? {
        var batch = TraceEvents.Batch()
        defer { batch.deallocate() }
        var index = 0
        while index < count {
            index = addInOrder(from: base, stride: stride, indices: index..<count, batch: &batch)
            guard index < count else { break }
            let event = base.loadUnaligned(fromByteOffset: index * stride, as: BinaryEvent.self)
            if let problem = addEvent(sequence: event.sequence, time: event.time, node: event.node,
                                      subscription: event.subscription, kind: event.eventKind, thread: event.thread,
                                      cause: event.writtenCause, integer: event.hasInteger ? event.integer : nil) {
                return (index, problem)
            }
            index += 1
        }
        return nil
    }

    /// Adds the events at `indices` for as long as each is numbered above every one checked
    /// (one above the one before it, within a batch), and its node, subscription and thread
    /// are at `id - 1` of their lists; returns the index of the first that is not (or the end).
    private mutating func addInOrder(from base: UnsafeRawPointer, stride: Int, indices: Range<Int>,
                                     batch: inout TraceEvents.Batch) -> Int {
        // An index by sequence number is kept once events came out of order: `addEvent` keeps it.
        guard eventIndex == nil else { return indices.lowerBound }
        // Each node's list of positions, taken out so that appending to one checks only it.
        var byNode: [[UInt32]] = []
        swap(&byNode, &eventsByNode)
        defer { swap(&byNode, &eventsByNode) }
        let nodeIDs = events.nodeIDs, subscriptionIDs = events.subscriptionIDs, threadIDs = events.threadIDs
        var index = indices.lowerBound
        // Every sequence number above the highest checked is new.
        var highest = validator.highestSequence
        // The lists' array checked once for the whole run, not at every event.
        byNode.withUnsafeMutableBufferPointer { byNode in
            while index < indices.upperBound {
                var event = base.loadUnaligned(fromByteOffset: index * stride, as: BinaryEvent.self)
                guard highest.map({ event.sequence > $0 }) ?? true else { break }
                batch.reset(firstSequence: event.sequence)
                let position = events.endIndex
                repeat {
                    // An id found at its place in the trace's list is defined (only what the
                    // validator accepted is listed): the validator's question, answered.
                    guard event.sequence == batch.firstSequence &+ UInt64(batch.count), event.sequence != .max,
                          let node = Self.densePosition(event.node, in: nodeIDs),
                          let subscription = Self.densePosition(event.subscription, in: subscriptionIDs),
                          let thread = Self.densePosition(event.thread, in: threadIDs) else { break }
                    // A value passed on unchanged is found without probing (`PayloadTable`).
                    let payload = event.hasInteger ? events.number(ofInteger: event.integer) : 0
                    byNode[node].append(UInt32(position + batch.count))
                    batch.add(time: event.time, node: node, subscription: subscription, thread: thread,
                              kind: event.eventKind, payload: payload, cause: event.writtenCause)
                    index += 1
                    guard index < indices.upperBound else { break }
                    event = base.loadUnaligned(fromByteOffset: index * stride, as: BinaryEvent.self)
                } while !batch.isFull
                guard batch.count > 0 else { break }
                let last = batch.firstSequence + UInt64(batch.count - 1)
                validator.noteSequences(batch.firstSequence...last)
                events.append(batch)
                highest = last
            }
        }
        return index
    }
}
