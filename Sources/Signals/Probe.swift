import Locks
import CThreadLocal
import Foundation
import Synchronization
@_exported import TraceKinds

/// One operator, source or sink of a pipeline: a place in the code that makes a stream.
///
/// Nodes are interned: the same operator with the same parameters applied at the same call
/// site to the same upstream nodes is one node, however many times the code runs; each run is
/// a *subscription* of it. That keeps a pipeline diagram the shape of the code, not the shape
/// of its history. One call site run with other arguments (`debounce(interval)` with another
/// interval) is another node, carrying its own parameters; so is one with another label.
///
/// A node never changes once made: its label is given when it is made (`pipe(named:)`, an
/// environment's inputs and calls), or `named(_:)` on a signal, producer or property gives
/// that instance a labelled node of its own (see ``labelled(_:)``).
///
/// ```swift
/// let sensor = Node.make(.source, "sensor", label: "kitchen", file: #fileID, line: #line)
/// let readings = SignalProducer<Double, Never>(node: sensor) { observer, _ in
///     observer.send(value: 21.5)   // each start is one subscription of the node
///     observer.sendCompleted()
/// }
/// print(readings.node.name, readings.node.label ?? "")   // "sensor kitchen"
/// ```
public final class Node: Sendable, Hashable, CustomStringConvertible {
    /// An upstream node and how it feeds this one.
    public struct Edge: Sendable {
        public let node: Node
        public let role: EdgeRole

        /// A link from `node` upstream, in `role`.
        public init(node: Node, role: EdgeRole) {
            self.node = node
            self.role = role
        }
    }

    /// Unique within the process, in creation order. Trace files renumber nodes.
    public let id: UInt64
    public let kind: NodeKind
    /// The operator's name, ReactiveSwift's spelling: `map`, `flatMap`, `observe(on:)`...
    public let name: String
    /// The operator's parameters, formatted once at creation: `0.5s`, `latest`, `on: main`.
    public let parameters: String
    /// The call site, `#fileID`.
    public let file: String
    /// The call site, `#line`.
    public let line: UInt
    public let upstream: [Edge]
    /// A user's name for the node, used to find it in traces and replays. Part of what tells
    /// nodes apart: one call site with two labels is two nodes.
    public let label: String?
    private init(id: UInt64, kind: NodeKind, name: String, parameters: String,
                 file: String, line: UInt, label: String?, upstream: [Edge]) {
        self.id = id
        self.label = label
        self.kind = kind
        self.name = name
        self.parameters = parameters
        self.file = file
        self.line = line
        self.upstream = upstream
    }

    private struct Key: Hashable {
        let kind: NodeKind
        let name: String
        let parameters: String
        let file: String
        let line: UInt
        /// The label given when the node was made.
        let label: String?
        let upstream: [UInt64]
        let roles: [String]
    }

    private static let registry = Protected<(next: UInt64, nodes: [Key: Node])>((1, [:]))

    /// The node for this operator with these parameters at this call site over these
    /// upstream nodes.
    ///
    /// - Parameters:
    ///   - kind: source, operator or sink.
    ///   - name: the operator's name, ReactiveSwift's spelling.
    ///   - parameters: the operator's parameters, formatted (`0.5s, on: main`): how it is
    ///     configured, part of the node's identity. Data (a value sent, an error made per
    ///     request) goes in the events, never here: a node per distinct value would grow the
    ///     registry with the data.
    ///   - label: the node's label, when it has one from the start: two labels at one call
    ///     site are two nodes (two `pipe(named:)` in one helper).
    ///   - upstream: the nodes feeding this one, with their roles.
    ///   - file: the call site, `#fileID`.
    ///   - line: the call site, `#line`.
    public static func make(
        _ kind: NodeKind,
        _ name: String,
        parameters: String = "",
        label: String? = nil,
        upstream: [Edge] = [],
        file: StaticString,
        line: UInt
    ) -> Node {
        make(kind, name, parameters: parameters, label: label, upstream: upstream, file: "\(file)", line: line)
    }

    /// As `make(_:_:parameters:label:upstream:file:line:)`, with the file
    /// as a `String`.
    public static func make(
        _ kind: NodeKind,
        _ name: String,
        parameters: String = "",
        label: String? = nil,
        upstream: [Edge] = [],
        file: String,
        line: UInt
    ) -> Node {
        let key = Key(kind: kind, name: name, parameters: parameters, file: file, line: line,
                      label: label, upstream: upstream.map(\.node.id), roles: upstream.map(\.role.rawValue))
        return registry.modify { state in
            if let node = state.nodes[key] { return node }
            let node = Node(id: state.next, kind: kind, name: name, parameters: parameters,
                            file: file, line: line, label: label, upstream: upstream)
            state.next += 1
            state.nodes[key] = node
            return node
        }
    }

    /// This node with `label` for its label: the same operator, parameters, call site and
    /// upstream, but a node of its own (interned like any other), so a label given at one use
    /// of a call site does not show at its other uses. What `named(_:)` gives an instance.
    public func labelled(_ label: String) -> Node {
        if label == self.label { return self }
        return Node.make(kind, name, parameters: parameters, label: label, upstream: upstream, file: file, line: line)
    }

    public static func == (lhs: Node, rhs: Node) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    public var description: String {
        let params = parameters.isEmpty ? "" : "(\(parameters))"
        let label = self.label.map { " \"\($0)\"" } ?? ""
        return "\(name)\(params)\(label) @\(file):\(line)"
    }
}

/// Receives what instrumented streams report. The recorder of the trace log implements it;
/// tests implement it to see what is reported.
///
/// Calls arrive on whatever thread the stream runs on, possibly concurrently: an
/// implementation must be thread-safe. They are made only while the probe is attached.
///
/// ```swift
/// final class ValueCounter: Probe, @unchecked Sendable {   // called from one thread in this use
///     var values = 0
///     func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64) {}
///     func willSend(_ node: Node, subscription: UInt64, kind: EventKind, value: Any?, causes: Causes) -> UInt64 {
///         if kind == .value { values += 1 }
///         return 1
///     }
///     func didDispose(_ node: Node, subscription: UInt64) {}
///     func hopEnqueued(_ node: Node?, subscription: UInt64, scheduler: String) -> UInt64 { 0 }
///     func hopStarted(_ hop: UInt64) {}
///     func mark(_ label: String) {}
/// }
/// let counter = ValueCounter()
/// Instrumentation.attach(counter)
/// SignalProducer([1, 2, 3]).map { $0 * 2 }.start()
/// Instrumentation.detach(counter)
/// print(counter.values)   // 6: three values from the source, three from map
/// ```
public protocol Probe: AnyObject, Sendable {
    /// A new subscription (a running instance) of `node` began. `parent` is the subscription
    /// of the higher-order operator that started it, or 0.
    func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64)
    /// As `didSubscribe(_:subscription:parent:)`, for a start of a boundary call made with a
    /// request (`Environment.call(_:request:_:)`): `request` is that request. By default the
    /// request is ignored.
    func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64, request: Any)
    /// As `didSubscribe(_:subscription:parent:)`, for a subscription linked to others by
    /// observation when it is reported: `observes` are the subscriptions whose events it
    /// receives (an operator's upstream instances: both inputs of a `combineLatest`),
    /// `observedBy` those already running that receive its events (the `flatMap` that
    /// started it as an inner stream, the property a `<~` binding sets); `request` as in
    /// `didSubscribe(_:subscription:parent:request:)`, or nil. Each was reported before. By
    /// default the links are ignored.
    func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64, request: Any?,
                      observes: [UInt64], observedBy: [UInt64])
    /// An event of `node`'s `subscription` is about to reach its observers. `value` is the
    /// value of a value event and the error of a failure. `causes` are the sequence numbers
    /// of the events that caused it, first the one being delivered when it was sent.
    /// Returns the event's sequence number (non-zero).
    func willSend(_ node: Node, subscription: UInt64, kind: EventKind, value: Any?, causes: Causes) -> UInt64
    /// As `willSend(_:subscription:kind:value:causes:)`, called by the send path with the
    /// sending thread's context, whose `cause` and `otherCauses` are the causes, and the value
    /// lent where it lies as its own type (valid only during the call; nil for an event
    /// without one): a probe that needs the context too (a recorder, for the recording scope
    /// and the scheduler) saves a thread-local lookup and the `Causes` value, and one that
    /// stores plain numbers reads them without a copy into an `Any` or the metadata of an
    /// optional of a generic type. By default it calls that method with the value as `Any`.
    func willSend<Value>(_ node: Node, subscription: UInt64, kind: EventKind, value: UnsafePointer<Value>?,
                         context: ProbeContext) -> UInt64
    /// The subscription ended: disposed, or terminated and released.
    func didDispose(_ node: Node, subscription: UInt64)
    /// An action was enqueued onto `scheduler` by `node` (a thread hop). Returns a hop id.
    func hopEnqueued(_ node: Node?, subscription: UInt64, scheduler: String) -> UInt64
    /// `node`'s timer was armed on `scheduler`, due `delay` nanoseconds from now (a
    /// `debounce`, `throttle`, `delay` or `timeout` waiting): a hop that is due later. Returns
    /// a hop id for `hopStarted`, when the timer runs, or 0 when the probe does not follow
    /// it (the default).
    func timerArmed(_ node: Node, subscription: UInt64, scheduler: String, delay: Int64) -> UInt64
    /// The hop's action started running, on the current thread.
    func hopStarted(_ hop: UInt64)
    /// A user's mark in the timeline.
    func mark(_ label: String)
    /// Whether this probe's `willSend` numbers events for causality (a recorder does): when
    /// several probes are attached, the number the first such probe gives an event is the
    /// cause others see. False by default.
    var numbersEvents: Bool { get }
}

extension Probe {
    public func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64, request: Any) {
        didSubscribe(node, subscription: subscription, parent: parent)
    }

    public func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64, request: Any?,
                             observes: [UInt64], observedBy: [UInt64]) {
        if let request {
            didSubscribe(node, subscription: subscription, parent: parent, request: request)
        } else {
            didSubscribe(node, subscription: subscription, parent: parent)
        }
    }

    public var numbersEvents: Bool { false }

    public func timerArmed(_ node: Node, subscription: UInt64, scheduler: String, delay: Int64) -> UInt64 { 0 }

    public func willSend<Value>(_ node: Node, subscription: UInt64, kind: EventKind, value: UnsafePointer<Value>?,
                                context: ProbeContext) -> UInt64 {
        willSend(node, subscription: subscription, kind: kind, value: value.map { $0.pointee as Any },
                 causes: Causes(primary: context.cause, others: context.otherCauses))
    }
}

/// A signal instance whose subscription may not be reported yet (see `ProbeContext.reportPending()`).
@usableFromInline
protocol PendingSubscription: AnyObject {
    /// The instance's subscription id.
    var subscription: UInt64 { get }
    /// Whether the subscription is still to be reported.
    var isPending: Bool { get }
    /// Reports the subscription to the attached probes if it has not been yet.
    func reportIfPending()
    /// Notes, if the subscription is not reported yet, that it observes `upstream`; returns
    /// whether it was not.
    func addObserved(_ upstream: UInt64) -> Bool
    /// Notes, if the subscription is not reported yet, that the running subscription
    /// `observer` observes it; returns whether it was not.
    func addObserver(_ observer: UInt64) -> Bool
}

/// What a probe keeps on a signal instance between the instance's events: a recorder keeps
/// the trace ids of the instance's node and subscription there, one load and a compare where
/// two cache lookups would be. The instance lends it to the probe through
/// `ProbeContext.instanceIDs` while its event is reported, under its serializer; `owner` is
/// the number of the probe that filled it (0: none), so a probe takes only what it left
/// there itself, and a probe's number is never reused (a recorder's `serial`).
@usableFromInline
package struct InstanceIDs {
    @usableFromInline package var owner: UInt64
    @usableFromInline package var node: UInt64
    @usableFromInline package var subscription: UInt64

    @inlinable
    package init(owner: UInt64 = 0, node: UInt64 = 0, subscription: UInt64 = 0) {
        self.owner = owner
        self.node = node
        self.subscription = subscription
    }
}

/// The sequence numbers of the events that caused an event. Usually one; empty for a
/// source's own events; several for operators that combine the latest of many inputs.
public struct Causes: Sendable, Equatable {
    public var primary: UInt64
    public var others: [UInt64]

    public init(primary: UInt64 = 0, others: [UInt64] = []) {
        self.primary = primary
        self.others = others
    }

    /// All causes, primary first, zeros left out.
    public var all: [UInt64] {
        (primary == 0 ? [] : [primary]) + others.filter { $0 != 0 && $0 != primary }
    }
}

/// Where probes are attached, and the per-thread context that carries causality.
///
/// Several probes may be attached at once (a recorder and a test's probe): each hears every
/// report, and each keeps to what it asked for (a `Recorder` to its recording's scope). The
/// probes are held weakly once attached: a probe released by its owner is freed, attached or
/// not. (A recorder attaches its core instead, held strongly: see `Recorder`.)
/// A probe that is a handle on another, which is what gets attached and detached in its
/// place (a `Recorder` and its core).
package protocol ProbeStandIn: Probe {
    var standsFor: Probe { get }
}

/// Where probes attach: every instrumented stream reports to the probes attached here, and
/// costs one load and one branch per event when none is. A `Recorder` attaches itself with
/// `start()`; attach a probe of your own to see what streams report.
///
/// ```swift
/// let recorder = Recorder(clock: .virtual(TestScheduler()))
/// recorder.start()                                  // attaches it
/// print(Instrumentation.attached.count)             // 1
/// Instrumentation.mark("checkout tapped")           // a mark in the recording's timeline
/// _ = try recorder.stop()                           // detaches it
/// ```
public enum Instrumentation {
    /// The attached probes as one: what `probe` returns. Each attachment and detachment makes
    /// a new set; the one it replaces is freed once no thread can still be reading it (see
    /// `change`). Its members are weak but for a recorder's core, held strongly.
    @usableFromInline
    final class ProbeSet: Probe, @unchecked Sendable {  // immutable but for `hops`, which is Protected
        /// A probe held weakly, or strongly when it was attached `retained`: reading a strong
        /// reference costs no side-table load and release per event.
        private final class Member {
            private weak var held: Probe?
            private let retained: Probe?
            let numbersEvents: Bool
            init(_ probe: Probe, retained: Bool) {
                if retained {
                    self.retained = probe
                } else {
                    self.retained = nil
                    held = probe
                }
                numbersEvents = probe.numbersEvents
            }
            @inline(__always) var probe: Probe? { retained ?? held }
            var isRetained: Bool { retained != nil }
        }

        private let members: [Member]
        /// The only member, when there is one and it is held strongly (a recorder's core):
        /// the send path calls it straight through this `let`, which a set it borrows lends
        /// without a retain and release, where reading a member's reference is a copy.
        @usableFromInline let sole: Probe?
        /// With several members, a hop's id in each member, by the id the set handed out.
        private let hops = Protected<(next: UInt64, ids: [UInt64: [UInt64]])>((1, [:]))

        init(_ probes: [(probe: Probe, retained: Bool)]) {
            members = probes.map { Member($0.probe, retained: $0.retained) }
            sole = probes.count == 1 && probes[0].retained ? probes[0].probe : nil
        }

        func contains(_ probe: Probe) -> Bool { members.contains { $0.probe === probe } }
        var probes: [Probe] { members.compactMap(\.probe) }
        /// The members still alive, and how each is held.
        var held: [(probe: Probe, retained: Bool)] {
            members.compactMap { member in member.probe.map { ($0, member.isRetained) } }
        }

        @usableFromInline var numbersEvents: Bool { members.contains(where: \.numbersEvents) }

        @usableFromInline func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64) {
            ProbeContext.reportPending()
            for member in members { member.probe?.didSubscribe(node, subscription: subscription, parent: parent) }
        }

        @usableFromInline func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64, request: Any) {
            ProbeContext.reportPending()
            for member in members {
                member.probe?.didSubscribe(node, subscription: subscription, parent: parent, request: request)
            }
        }

        @usableFromInline func didSubscribe(_ node: Node, subscription: UInt64, parent: UInt64, request: Any?,
                                            observes: [UInt64], observedBy: [UInt64]) {
            ProbeContext.reportPending()
            for member in members {
                member.probe?.didSubscribe(node, subscription: subscription, parent: parent, request: request,
                                           observes: observes, observedBy: observedBy)
            }
        }

        /// The sequence number of the first member that numbers events (a recorder) and
        /// numbered this one, else of the first that returned one.
        @usableFromInline func willSend(_ node: Node, subscription: UInt64, kind: EventKind, value: Any?, causes: Causes) -> UInt64 {
            if members.count == 1 {
                return members[0].probe?.willSend(node, subscription: subscription, kind: kind, value: value, causes: causes) ?? 0
            }
            return numbering { $0.willSend(node, subscription: subscription, kind: kind, value: value, causes: causes) }
        }

        /// As `willSend(_:subscription:kind:value:causes:)`, passing the context on: what the
        /// send path calls, on the set it borrows from `slot` (see `ProbeContext.beginBorrow`).
        @inlinable @inline(__always)
        func send<Value>(_ node: Node, subscription: UInt64, kind: EventKind, value: UnsafePointer<Value>?,
                         context: ProbeContext) -> UInt64 {
            // Optional chaining on the `let` borrows it; binding it (`if let`) would copy it.
            sole?.willSend(node, subscription: subscription, kind: kind, value: value, context: context)
                ?? willSend(node, subscription: subscription, kind: kind, value: value, context: context)
        }

        /// As `willSend(_:subscription:kind:value:causes:)`, passing the context on. Only a sole
        /// member is lent what it keeps on the instance (`ProbeContext.instanceIDs`): members
        /// attached together would read and overwrite each other's there.
        @usableFromInline func willSend<Value>(_ node: Node, subscription: UInt64, kind: EventKind,
                                               value: UnsafePointer<Value>?, context: ProbeContext) -> UInt64 {
            context.state.pointee.instanceIDs = nil
            if members.count == 1 {
                return members[0].probe?.willSend(node, subscription: subscription, kind: kind, value: value,
                                                  context: context) ?? 0
            }
            return numbering { $0.willSend(node, subscription: subscription, kind: kind, value: value, context: context) }
        }

        /// Reports an event to every member with `send`, and returns the number the first
        /// member that numbers events gave it, else the first number any member gave.
        @usableFromInline func numbering(_ send: (Probe) -> UInt64) -> UInt64 {
            var chosen: UInt64 = 0
            var numbered = false
            for member in members {
                guard let probe = member.probe else { continue }
                let sequence = send(probe)
                if sequence != 0 && (chosen == 0 || (member.numbersEvents && !numbered)) {
                    chosen = sequence
                    numbered = member.numbersEvents
                }
            }
            return chosen
        }

        @usableFromInline func didDispose(_ node: Node, subscription: UInt64) {
            ProbeContext.reportPending()
            for member in members { member.probe?.didDispose(node, subscription: subscription) }
        }

        @usableFromInline func hopEnqueued(_ node: Node?, subscription: UInt64, scheduler: String) -> UInt64 {
            ProbeContext.reportPending()
            return hop { $0.hopEnqueued(node, subscription: subscription, scheduler: scheduler) }
        }

        /// Reports nothing pending first, unlike the other calls: an operator arms its first
        /// timer while it is made (a timeout's deadline), before it observes its upstream, and
        /// reporting its subscription then would leave out what it observes.
        @usableFromInline func timerArmed(_ node: Node, subscription: UInt64, scheduler: String, delay: Int64) -> UInt64 {
            hop { $0.timerArmed(node, subscription: subscription, scheduler: scheduler, delay: delay) }
        }

        /// The id of a hop each member numbers with `enqueue`: a member's own with one member,
        /// else the set's, standing for the members' (0 when none follows it).
        private func hop(_ enqueue: (Probe) -> UInt64) -> UInt64 {
            if members.count == 1 { return members[0].probe.map(enqueue) ?? 0 }
            let ids = members.map { $0.probe.map(enqueue) ?? 0 }
            guard ids.contains(where: { $0 != 0 }) else { return 0 }
            return hops.modify { state in
                defer { state.next += 1 }
                state.ids[state.next] = ids
                return state.next
            }
        }

        @usableFromInline func hopStarted(_ hop: UInt64) {
            ProbeContext.reportPending()
            if members.count == 1 {
                members[0].probe?.hopStarted(hop)
                return
            }
            guard let ids = hops.modify({ $0.ids.removeValue(forKey: hop) }) else { return }
            for (member, id) in zip(members, ids) where id != 0 { member.probe?.hopStarted(id) }
        }

        @usableFromInline func mark(_ label: String) {
            ProbeContext.reportPending()
            for member in members { member.probe?.mark(label) }
        }
    }

    /// The set attached now, unretained, or 0 (relaxed: whether one is attached). Read
    /// without a retain on the send path, in a borrow (`ProbeContext.beginBorrow`), so that a
    /// set replaced meanwhile is not freed under it. A C global (`marbles_probe_slot`), read in
    /// one load by every send, attached or not: a Swift global is reached from another module
    /// through its initialiser's accessor, a call at every read.
    @inlinable @inline(__always)
    static func slot(sequentiallyConsistent: Bool) -> UInt {
        UInt(sequentiallyConsistent ? marbles_probe_slot_load() : marbles_probe_slot_load_relaxed())
    }
    /// Counts the changes of `slot` (`marbles_probe_epoch`, from 1): a borrow announces the
    /// count it began under, and a set replaced at count `r` is freed only once no borrow that
    /// began at or before `r` is left.
    @inlinable @inline(__always)
    static func epoch(sequentiallyConsistent: Bool) -> UInt64 {
        sequentiallyConsistent ? marbles_probe_epoch_load() : marbles_probe_epoch_load_acquire()
    }

    /// The set in `slot`, which this keeps alive, and the sets it replaced that a borrow may
    /// still be reading, each with the `epoch` it was replaced at.
    private struct Sets {
        var current: ProbeSet?
        var retired: [(set: ProbeSet, epoch: UInt64)] = []
    }
    private static let sets = Protected(Sets())

    /// Whether any probe is attached: one load and one branch, nothing borrowed.
    @inlinable @inline(__always)
    public static var isAttached: Bool { slot(sequentiallyConsistent: false) != 0 }

    /// Notes that `observer` observes `observed`, on whichever of the two subscriptions is
    /// reported later: the observer's report lists the observed (reported first, so that its
    /// id is defined before it is used), or else the observed one's lists the observer.
    /// Nothing when both are reported already.
    @usableFromInline
    static func link(observer: PendingSubscription, observed: PendingSubscription) {
        guard observer !== observed else { return }
        if observer.isPending {
            observed.reportIfPending()
            if observer.addObserved(observed.subscription) { return }
        }
        _ = observed.addObserver(observer.subscription)
    }

    /// The attached probes as one probe, or nil when none is attached. With none attached
    /// this is one load and one branch (inlinable, so that it is one in the caller's module
    /// too, not a call); with some, the set is retained inside a borrow.
    @inlinable @inline(__always)
    public static var probe: Probe? {
        if slot(sequentiallyConsistent: false) == 0 { return nil }
        return retainedSet()
    }

    /// The set in `slot`, retained before the borrow it was read in ends.
    @usableFromInline
    static func retainedSet() -> ProbeSet? {
        ProbeContext.withCurrent { context in
            context.beginBorrow()
            let raw = slot(sequentiallyConsistent: true)
            guard raw != 0 else {
                context.endBorrow()
                return nil
            }
            let set = Unmanaged<ProbeSet>.fromOpaque(UnsafeRawPointer(bitPattern: raw)!).retain()
            context.endBorrow()
            return set.takeRetainedValue()
        }
    }

    /// The probes attached now, in the order they were attached.
    public static var attached: [Probe] {
        sets.current.current?.probes ?? []
    }

    /// How many replaced sets wait to be freed: a test's view of `change`'s reclamation.
    package static var setsAwaitingReclamation: Int {
        sets.current.retired.count
    }

    /// Attaches `probe` beside any others already attached (attaching one twice does nothing).
    /// A probe that stands for another (a `Recorder`) attaches that one.
    public static func attach(_ probe: Probe) {
        attach(probe, retained: false)
    }

    /// Attaches `probe`, held strongly when `retained`: every set made while it is attached
    /// keeps it, until that set is replaced and no thread reads it any more (see `change`).
    package static func attach(_ probe: Probe, retained: Bool) {
        let probe = (probe as? ProbeStandIn)?.standsFor ?? probe
        change { probes in
            if !probes.contains(where: { $0.probe === probe }) { probes.append((probe, retained)) }
        }
    }

    /// Detaches `probe` (or the probe it stands for); the others stay attached. The signal
    /// made last on this thread, if it is not reported yet, is reported first.
    public static func detach(_ probe: Probe) {
        ProbeContext.reportPending()
        let probe = (probe as? ProbeStandIn)?.standsFor ?? probe
        change { probes in probes.removeAll { $0.probe === probe } }
    }

    /// Replaces the attached set by one with `edit`'s probes, and frees the sets replaced
    /// before that no thread can still be reading.
    ///
    /// A thread reads `slot` inside a borrow (`ProbeContext.beginBorrow`): it stores the
    /// `epoch` it began at in its context, then reads `slot`; this stores `slot`, then reads
    /// `epoch` as the replaced set's, then scans every context. A thread that read the replaced
    /// set announced an epoch no later than the set's before it read it, and so before this
    /// scan, which then sees it: the stores and loads are sequentially consistent, or on Linux
    /// the borrow's store is plain and this issues `membarrier` between its store and its scan
    /// (the asymmetric form of the same fence). A replaced set is freed once no context
    /// announces an epoch at or before its own; one still read waits for a later change.
    /// (Before, every set was kept for the process, and with it every recorder's core: about
    /// 2 KB a recording, unbounded in a server that records a window now and then.)
    private static func change(_ edit: (inout [(probe: Probe, retained: Bool)]) -> Void) {
        let freed: [ProbeSet] = sets.modify { sets in
            var probes = sets.current?.held ?? []
            edit(&probes)
            let set = probes.isEmpty ? nil : ProbeSet(probes)
            marbles_probe_slot_store(set.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) } ?? 0)
            if let replaced = sets.current {
                sets.retired.append((replaced, epoch(sequentiallyConsistent: true)))
            }
            marbles_probe_epoch_increment()
            sets.current = set
            guard !sets.retired.isEmpty else { return [] }
            #if os(Linux)
            // The borrows announced themselves with plain stores: a barrier on every thread
            // first, or nothing is freed (a system without `membarrier` keeps the sets).
            guard marbles_membarrier() == 0 else { return [] }
            #endif
            let oldestBorrow = ProbeContext.oldestBorrowEpoch()
            let free = sets.retired.filter { $0.epoch < oldestBorrow }.map(\.set)
            sets.retired.removeAll { $0.epoch < oldestBorrow }
            return free
        }
        // Freed here, outside the lock: a set may hold the last reference to a recorder's core.
        withExtendedLifetime(freed) {}
    }

    private static let nextSubscription = Synchronization.Atomic<UInt64>(1)

    /// A new process-unique subscription id.
    @inline(__always)
    package static func newSubscription() -> UInt64 {
        nextSubscription.add(1, ordering: .relaxed).oldValue
    }

    /// A mark in the timeline (`Recorder.mark` calls this): "keystroke burst".
    public static func mark(_ label: String) {
        probe?.mark(label)
    }
}

/// An object a probe keeps for a thread (`ProbeContext.setProbeLocal`) that is told when the
/// thread ends while it still keeps it: a recorder's per-thread ring, which the recorder can
/// then let go of once drained.
package protocol ThreadLocalObject: AnyObject {
    /// Called on the ending thread, after the last thing it recorded.
    func threadEnded()
}

/// Per-thread state the probe needs: the event being delivered (the cause of whatever is sent
/// meanwhile), the subscription running (the parent of inner streams started meanwhile), and
/// the scheduler whose action is running (the logical thread).
public final class ProbeContext {
    /// The context's state, behind a pointer: a class's stored `var`s are checked for
    /// exclusive access at run time on every access from another module (the recorder reads
    /// the scope, the send path saves and restores the cause: about 75 instructions each), a
    /// pointer's pointee is not. Only the context's own thread touches it.
    @usableFromInline
    struct State {
        @usableFromInline var cause: UInt64 = 0
        @usableFromInline var otherCauses: [UInt64] = []
        @usableFromInline var parentSubscription: UInt64 = 0
        @usableFromInline var schedulerName: String?
        @usableFromInline var scope: UInt64 = 0
        /// The last signal instance made on this thread while a probe was attached, until it
        /// is reported.
        @usableFromInline var pending: PendingSubscription?
        /// One object a probe keeps for this thread (a recorder's per-thread buffer),
        /// retained, with the number its probe gave it; see `probeLocal(for:)`.
        @usableFromInline var local: (owner: UInt64, object: UnsafeMutableRawPointer?) = (0, nil)
        /// Whether `pending` holds one: what the send path checks, twice per recorded event
        /// (a plain load; reading the existential itself would retain and release it).
        @usableFromInline var hasPending = false
        /// What the probes keep on the signal instance whose event is being reported, during
        /// the report only (see `InstanceIDs`, `instanceIDs`); nil otherwise.
        @usableFromInline var instanceIDs: UnsafeMutablePointer<InstanceIDs>?
        /// How many borrows of the probe set this thread is inside (see `beginBorrow`).
        @usableFromInline var borrows = 0
        /// The signal instance being made on this thread, and the event being delivered
        /// when its making began (see `constructing(_:_:)`).
        @usableFromInline var constructing: (instance: PendingSubscription, cause: UInt64)?
        @usableFromInline init() {}
    }

    @usableFromInline let state: UnsafeMutablePointer<State>
    /// The `Instrumentation.epoch` this thread's outermost borrow of the probe set began at,
    /// or 0 outside any: what `Instrumentation.change` scans before it frees a replaced set.
    @usableFromInline let borrowEpoch = Synchronization.Atomic<UInt64>(0)

    /// Begins a borrow: until `endBorrow`, a probe set this thread reads from
    /// `Instrumentation.slot` after this call is not freed, retained or not. Borrows nest;
    /// the outermost announces the epoch, the others only count.
    ///
    /// On Linux the announcement is a plain store that the compiler keeps before the read of
    /// the slot, and the side that frees sets makes it visible with `membarrier` (every running
    /// thread passes a full barrier) before it scans: nothing on the send path but the store.
    /// Elsewhere, or where `membarrier` is refused, see `Instrumentation.change`.
    @inlinable @inline(__always)
    package func beginBorrow() {
        let borrows = state.pointee.borrows
        state.pointee.borrows = borrows + 1
        if borrows == 0 {
            #if os(Linux)
            borrowEpoch.store(Instrumentation.epoch(sequentiallyConsistent: false), ordering: .relaxed)
            marbles_compiler_barrier()
            #else
            borrowEpoch.store(Instrumentation.epoch(sequentiallyConsistent: true), ordering: .sequentiallyConsistent)
            #endif
        }
    }

    /// Ends the borrow `beginBorrow` began.
    @inlinable @inline(__always)
    package func endBorrow() {
        let borrows = state.pointee.borrows - 1
        state.pointee.borrows = borrows
        if borrows == 0 { borrowEpoch.store(0, ordering: .releasing) }
    }

    /// Every thread's context, unretained: a context leaves as its thread ends (`deinit`).
    private static let contexts = Protected<[ObjectIdentifier: Unmanaged<ProbeContext>]>([:])

    /// The earliest epoch any thread's borrow began at, or `UInt64.max` when none borrows.
    static func oldestBorrowEpoch() -> UInt64 {
        contexts.modify { contexts in
            var oldest = UInt64.max
            for context in contexts.values {
                let epoch = context._withUnsafeGuaranteedRef { $0.borrowEpoch.load(ordering: .sequentiallyConsistent) }
                if epoch != 0 && epoch < oldest { oldest = epoch }
            }
            return oldest
        }
    }

    /// The sequence number of the event being delivered on this thread, or 0.
    @inlinable public var cause: UInt64 {
        get { state.pointee.cause }
        set { state.pointee.cause = newValue }
    }
    /// Further causes an operator adds (the latest values `combineLatest` combines).
    @inlinable public var otherCauses: [UInt64] {
        get { state.pointee.otherCauses }
        set { state.pointee.otherCauses = newValue }
    }
    /// The subscription that is starting inner streams, or 0.
    @inlinable public var parentSubscription: UInt64 {
        get { state.pointee.parentSubscription }
        set { state.pointee.parentSubscription = newValue }
    }
    /// The name of the scheduler running the current action, or nil outside any.
    @inlinable public var schedulerName: String? {
        get { state.pointee.schedulerName }
        set { state.pointee.schedulerName = newValue }
    }
    /// The recording the work on this thread belongs to now, or 0 for none: a recording
    /// claims the thread that starts it, a virtual one also every thread while it drives the
    /// recording's `TestScheduler` (see `TestScheduler.recordingScope`), and a signal instance
    /// delivers in the scope it was made in; so two recordings made at once do not see each
    /// other's events.
    @inlinable public var scope: UInt64 {
        get { state.pointee.scope }
        set { state.pointee.scope = newValue }
    }

    private init() {
        state = .allocate(capacity: 1)
        state.initialize(to: State())
    }

    deinit {
        _ = Self.contexts.modify { $0.removeValue(forKey: ObjectIdentifier(self)) }
        // The thread ends (its context goes with it): its fast way to the context goes first,
        // so that whatever the thread still sends makes a new context rather than reach this one.
        if marbles_probe_context_get() == Unmanaged.passUnretained(self).toOpaque() { marbles_probe_context_set(nil) }
        // The object kept for the thread hears that it ends.
        if let object = state.pointee.local.object {
            let held = Unmanaged<AnyObject>.fromOpaque(object)
            (held.takeUnretainedValue() as? ThreadLocalObject)?.threadEnded()
            held.release()
        }
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// The object a probe numbered `owner` keeps for this thread (`setProbeLocal`), unretained:
    /// the context keeps it until the thread ends or another takes its place. One load and a
    /// compare.
    @inlinable @inline(__always)
    package func probeLocal(for owner: UInt64) -> UnsafeMutableRawPointer? {
        let local = state.pointee.local
        return local.owner == owner ? local.object : nil
    }

    /// What the probe keeps on the signal instance whose event it is told of now, in
    /// `willSend`, when it is the only probe attached; nil otherwise. Valid only during that
    /// call, and only for that event's node and subscription.
    @inlinable @inline(__always)
    package var instanceIDs: UnsafeMutablePointer<InstanceIDs>? {
        state.pointee.instanceIDs
    }

    /// Keeps `object` for this thread on behalf of the probe numbered `owner`, in place of
    /// whatever another probe kept (one slot: probes attached at once take turns).
    package func setProbeLocal(_ object: AnyObject, for owner: UInt64) {
        let old = state.pointee.local.object
        state.pointee.local = (owner, Unmanaged.passRetained(object).toOpaque())
        if let old { Unmanaged<AnyObject>.fromOpaque(old).release() }
    }

    /// The thread-specific key of the contexts, plus one (0 until the first context is made):
    /// it keeps each thread's context and lets go of it when the thread ends (lookups go
    /// through the C thread-local variable instead, see `withCurrent`).
    private static let keySlot = Synchronization.Atomic<UInt32>(0)

    static var key: pthread_key_t {
        let raw = keySlot.load(ordering: .acquiring)
        return raw != 0 ? pthread_key_t(raw - 1) : makeKey()
    }

    /// Creates the key the first time; a thread that loses the race to publish its own
    /// deletes it and uses the winner's.
    private static func makeKey() -> pthread_key_t {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<ProbeContext>.fromOpaque(pointer).release() }
        }
        let (exchanged, winner) = keySlot.compareExchange(expected: 0, desired: UInt32(key) + 1,
                                                          ordering: .acquiringAndReleasing)
        if exchanged { return key }
        pthread_key_delete(key)
        return pthread_key_t(winner - 1)
    }

    /// Runs `body` with this thread's context, which the thread keeps alive until it ends:
    /// without the retain and release that `current` costs its caller. The context is read
    /// from a C thread-local variable (a load, where `pthread_getspecific` is a call of about
    /// 20 instructions: once per recorded event); `current` makes it the first time.
    @inlinable @inline(__always)
    public static func withCurrent<R>(_ body: (ProbeContext) throws -> R) rethrows -> R {
        guard let pointer = marbles_probe_context_get() else { return try body(current) }
        return try Unmanaged<ProbeContext>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }

    /// This thread's context, unretained (the thread keeps it until it ends): one load of the
    /// C thread-local variable, and a call only the first time on a thread.
    @inlinable @inline(__always)
    static var unretainedCurrent: Unmanaged<ProbeContext> {
        if let pointer = marbles_probe_context_get() { return Unmanaged.fromOpaque(pointer) }
        return makeCurrent()
    }

    /// Makes this thread's context (see `current`), unretained.
    @usableFromInline
    static func makeCurrent() -> Unmanaged<ProbeContext> {
        Unmanaged.passUnretained(current)
    }

    /// Reports the signal instance made last on this thread, if it is not reported yet: what
    /// every report from this thread does first, so subscriptions are reported in the order
    /// they were made, each before anything that follows it.
    @inlinable @inline(__always)
    public func reportPending() {
        if state.pointee.hasPending { reportPendingNow() }
    }

    @usableFromInline
    func reportPendingNow() {
        let pending = state.pointee.pending
        state.pointee.pending = nil
        state.pointee.hasPending = false
        pending?.reportIfPending()
    }

    /// Makes `subscription` the one made last on this thread, reporting the one before.
    @usableFromInline
    func setPending(_ subscription: PendingSubscription) {
        reportPending()
        state.pointee.pending = subscription
        state.pointee.hasPending = true
    }

    /// Reports the signal instance made last on the current thread, if it is not reported
    /// yet: before time moves on (a `TestScheduler` advancing) or a recording ends.
    public static func reportPending() {
        withCurrent { $0.reportPending() }
    }

    /// Whether an operator added further causes (`otherCauses` is not empty): read without
    /// a copy of the array.
    @inlinable public var hasOtherCauses: Bool { !state.pointee.otherCauses.isEmpty }

    /// This thread's context. The `pthread` key holds it (retained) and lets go of it when
    /// the thread ends; the C thread-local variable `withCurrent` reads points to it too.
    public static var current: ProbeContext {
        if let pointer = marbles_probe_context_get() {
            return Unmanaged<ProbeContext>.fromOpaque(pointer).takeUnretainedValue()
        }
        let context = ProbeContext()
        contexts.modify { $0[ObjectIdentifier(context)] = .passUnretained(context) }
        let pointer = Unmanaged.passRetained(context).toOpaque()
        pthread_setspecific(key, pointer)
        marbles_probe_context_set(pointer)
        return context
    }

    /// What is carried from where an action is scheduled to where it runs.
    public struct Captured: Sendable {
        public let cause: UInt64
        public let parentSubscription: UInt64
        /// The recording scope the action was scheduled in (0: none).
        public let scope: UInt64

        public init(cause: UInt64, parentSubscription: UInt64, scope: UInt64 = 0) {
            self.cause = cause
            self.parentSubscription = parentSubscription
            self.scope = scope
        }
    }

    /// Captures the cause, parent and scope, to restore them when a scheduled action runs.
    public func capture() -> Captured {
        Captured(cause: cause, parentSubscription: parentSubscription, scope: scope)
    }

    /// Runs `body` with a captured cause (and a scheduler name) in place, then restores. The
    /// captured scope applies when it names one: work scheduled inside a recording stays in it.
    public func with<R>(_ captured: Captured, scheduler: String? = nil, _ body: () throws -> R) rethrows -> R {
        let saved = (cause, parentSubscription, schedulerName, scope)
        cause = captured.cause
        parentSubscription = captured.parentSubscription
        if let scheduler { schedulerName = scheduler }
        if captured.scope != 0 { scope = captured.scope }
        defer {
            // What the action made is reported in its scope, at its time.
            reportPending()
            (cause, parentSubscription, schedulerName, scope) = saved
        }
        return try body()
    }

    /// Runs `body` in the recording scope `scope` (none when 0: the thread's own stays).
    public func inScope<R>(_ scope: UInt64, _ body: () throws -> R) rethrows -> R {
        guard scope != 0 else { return try body() }
        let saved = self.scope
        self.scope = scope
        defer { self.scope = saved }
        return try body()
    }

    /// Runs `body`, the making of `instance` (its generator, or the work its start begins), so
    /// that the observations made in it are the instance's (`noteObservation(of:)`).
    @usableFromInline
    func constructing<R>(_ instance: PendingSubscription, _ body: () throws -> R) rethrows -> R {
        let saved = state.pointee.constructing
        state.pointee.constructing = (instance, cause)
        defer { state.pointee.constructing = saved }
        return try body()
    }

    /// Notes that the instance being made on this thread observes `observed`
    /// (`Instrumentation.link`). Not inside a delivery that began after its making did: a
    /// value its start sent synchronously may start work elsewhere (a `flatMap`'s inner
    /// stream), whose observations are not the instance's.
    @usableFromInline
    func noteObservation(of observed: PendingSubscription) {
        guard let (instance, began) = state.pointee.constructing, began == cause else { return }
        Instrumentation.link(observer: instance, observed: observed)
    }

    /// Runs `body` as the given subscription (so inner streams started in it get it as parent).
    public func asParent<R>(_ subscription: UInt64, _ body: () throws -> R) rethrows -> R {
        let saved = parentSubscription
        parentSubscription = subscription
        defer { parentSubscription = saved }
        return try body()
    }

    /// Runs `body` with extra causes for whatever it sends.
    public func withOtherCauses<R>(_ causes: [UInt64], _ body: () throws -> R) rethrows -> R {
        let saved = otherCauses
        otherCauses = causes
        defer { otherCauses = saved }
        return try body()
    }
}
