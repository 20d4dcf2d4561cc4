import Foundation
import Signals
import TraceLog

/// Renumbering to trace-local ids in order of first appearance: nodes (upstream first),
/// subscriptions (a late subscription record for one begun before the recording) and
/// threads; each writes its defining record the first time it is met.
extension RecorderCore {
    @inline(__always) func nodeID(_ node: Node) -> UInt64 {
        if let id = nodeCache.lookup(node.id) { return id }
        return uncachedNodeID(node)
    }

    func uncachedNodeID(_ node: Node) -> UInt64 {
        if let id = nodeIDs[node.id] {
            nodeCache.store(node.id, id)
            return id
        }
        var upstream: [NodeRecord.Edge] = []
        for edge in node.upstream {
            upstream.append(.init(node: nodeID(edge.node), role: edge.role))
        }
        let id = UInt64(nodeIDs.count + 1)
        nodeIDs[node.id] = id
        nodeCache.store(node.id, id)
        append(.node(NodeRecord(id: id, kind: node.kind, name: node.name, parameters: node.parameters,
                                file: node.file, line: UInt64(node.line), label: node.label, upstream: upstream)))
        return id
    }

    /// The trace id of a subscription, writing a late subscription record for one that began
    /// before the recording.
    @inline(__always) func subscriptionID(_ subscription: UInt64, node: Node, time: Int64, thread: UInt64) -> UInt64 {
        if let id = subscriptionCache.lookup(subscription) { return id }
        return uncachedSubscriptionID(subscription, node: node, time: time, thread: thread)
    }

    func uncachedSubscriptionID(_ subscription: UInt64, node: Node, time: Int64, thread: UInt64) -> UInt64 {
        if let id = subscriptionIDs[subscription] {
            subscriptionCache.store(subscription, id)
            return id
        }
        let nodeID = self.nodeID(node)
        subscriptionCount += 1
        let id = subscriptionCount
        subscriptionIDs[subscription] = id
        subscriptionCache.store(subscription, id)
        append(.subscribe(SubscriptionRecord(id: id, node: nodeID, parent: 0, time: time, thread: thread, late: true)))
        return id
    }

    /// The trace id of the thread `context` belongs to. Called with the lock held.
    @inline(__always) func threadID(_ context: ProbeContext) -> UInt64 {
        // A virtual recording's thread is the scheduler running the action, whichever OS
        // thread runs it (see `threadID(_:name:_:)`): the last one's id answers for it again
        // without the OS thread's cache, in line on the send path.
        if virtualScheduler != nil, let last = hot.pointee.virtualThread, let scheduler = context.schedulerName,
           last.scheduler == scheduler {
            return last.id
        }
        return uncachedThreadID(context)
    }

    /// `threadID(_:)` when the last virtual thread does not answer.
    @inline(never) func uncachedThreadID(_ context: ProbeContext) -> UInt64 {
        guard virtualScheduler != nil, let scheduler = context.schedulerName else {
            return ThreadInfo.withCurrent { threadID(context, info: $0) }
        }
        let id = ThreadInfo.withCurrent { threadID(context, info: $0) }
        hot.pointee.virtualThread = (scheduler, id)
        return id
    }

    @inline(__always) func threadID(_ context: ProbeContext, info: ThreadInfo) -> UInt64 {
        let cache = info.cache
        // The thread's last answer, kept on the thread: no key built, no hashing. Only this
        // thread touches its `ThreadInfo`, so the lock is not what makes this safe. The main
        // thread is named `main` whatever queue's work it runs, so its queue is not asked.
        if cache.pointee.recorder == serial && cache.pointee.scheduler == context.schedulerName
            && (info.isMain || info.isCached(label: currentQueueLabel())) {
            return cache.pointee.id
        }
        let label = currentQueueLabel()
        let id = threadID(info, name: info.name(queueLabel: label), context)
        cache.pointee.recorder = serial
        cache.pointee.scheduler = context.schedulerName
        info.cache(label: label)
        cache.pointee.id = id
        return id
    }

    func threadID(_ info: ThreadInfo, name: String, _ context: ProbeContext) -> UInt64 {
        let key: ThreadKey
        if isVirtual {
            key = ThreadKey(os: 0, name: context.schedulerName ?? name, scheduler: nil)
        } else {
            key = ThreadKey(os: info.tid, name: name, scheduler: context.schedulerName)
        }
        if let last = lastThread, last.key == key { return last.id }
        let id: UInt64
        if let known = threadIDs[key] {
            id = known
        } else {
            id = UInt64(threadIDs.count + 1)
            threadIDs[key] = id
            append(.thread(ThreadRecord(id: id, name: key.name, scheduler: key.scheduler,
                                        os: isVirtual ? nil : key.os)))
        }
        lastThread = (key, id)
        return id
    }

    func summaryRecord() -> SummaryRecord {
        if let finalSummary { return finalSummary }
        return SummaryRecord(events: sequence, nodes: UInt64(nodeIDs.count), subscriptions: subscriptionCount,
                      threads: UInt64(threadIDs.count), hops: hopCount, marks: markCount, dropped: dropped,
                      duration: started ? now() : 0)
    }
}
