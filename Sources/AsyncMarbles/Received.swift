import Locks
import Signals

/// What the taps inside an operator that pulls its upstream from a task of its own reported
/// in that task, kept by the tap right on the operator: the causes of that tap's elements, by
/// the operator's rule (`Rule`).
///
/// The operators of swift-async-algorithms 1.1.4 that do so (`debounce`, `merge`, `zip`,
/// `combineLatest`) start their task in the first pull of the tap on them, which it inherits
/// (`Pull.current`); a tap inside them reports each event it sends to that pull, which passes
/// it here, with the tap's node (see `Pull.add`). What is kept is what the operator received,
/// in the order its taps reported it; each rule says which of it made each element.
///
/// The limits, for every rule: an input is known by its outermost tap, so each input must be
/// tapped once, outermost (`merge(a.marbles("a"), b.marbles("b"))`; a `map` of a tap is fine, a
/// `merge` of two taps inside one input is not, nor, for `zip` and `combineLatest`, one tapped
/// sequence as two inputs): otherwise the elements name no causes. The
/// order is the order in which the taps reported, which is the order in which the operator
/// took the elements when its input tasks do not run at the same instant on two threads: on
/// a `VirtualTimeDriver` always, live nearly always; two inputs reporting at once on two
/// threads may be taken in the other order, and their elements' causes swapped.
@usableFromInline
final class Received: @unchecked Sendable {  // the state only under `lock`
    /// Which received events cause an element of the operator, and which its end.
    @usableFromInline
    enum Rule: Sendable {
        /// A `debounce` passes on the last element of each burst and drops the others, so the
        /// elements it received since it passed on the previous one are the element it passes
        /// now and those it dropped for it, the last one received primary, as a `filter`'s
        /// causes are the elements it read and dropped before the one it passed; its end is
        /// caused by what it received since its last element, its upstream's end among them.
        /// One limit: an element the debounce receives after it passed one on and before the
        /// consumer's task resumes (the same instant, in virtual time) is taken for a cause of
        /// that one.
        case debounce
        /// A `merge` passes on each element of each input once, in the order it took them (it
        /// queues those that arrive while nobody pulls): its k-th element is caused by the
        /// k-th element it received, of whichever input. Its end is caused by its inputs' ends
        /// (or the failure it passes on).
        case merge(inputs: [ObjectIdentifier])
        /// A `zip` asks each input for one element per element of its own: its k-th element is
        /// caused by the k-th element of each input (of each tapped one: an input without a
        /// tap adds none), the one received last primary, having completed the tuple. Its end
        /// is caused by the end of the input that ended it.
        case zip(inputs: [ObjectIdentifier?])
        /// A `combineLatest` makes an element for every element an input sends once every
        /// input has sent one (queuing them while nobody pulls): each is caused by the element
        /// whose arrival made it, primary, and the latest element of each other input. Its
        /// end is caused by its inputs' ends (or the failure it passes on).
        case combineLatest(inputs: [ObjectIdentifier])
    }

    private let rule: Rule
    private var isDebounce: Bool {
        if case .debounce = rule { return true }
        return false
    }
    private let lock = Lock()
    /// `debounce`: what was received since the tap's previous event, in report order.
    private var numbers: [UInt64] = []
    /// The causes of the elements still to come, oldest first, each with its primary last
    /// (`merge`, `combineLatest`).
    private var pending: [[UInt64]] = []
    private var pendingStart = 0
    /// `zip`: each input's elements not yet zipped, by input.
    private var queues: [[UInt64]] = []
    /// `combineLatest`: each input's latest element (0: none yet), by input.
    private var latest: [UInt64] = []
    /// The ends and failures the inputs reported (`merge`, `zip`, `combineLatest`).
    private var ends: [UInt64] = []

    init(_ rule: Rule) {
        self.rule = rule
        switch rule {
        case let .zip(inputs): queues = Array(repeating: [], count: inputs.count)
        case let .combineLatest(inputs): latest = Array(repeating: 0, count: inputs.count)
        case .debounce, .merge: break
        }
    }

    /// The rule for a tap right on `base`, an operator named `name` (`debounce`, `merge`, …):
    /// nil for an operator that pulls in the tap's task, or one whose inputs are not each
    /// tapped once, outermost (what `inputTaps` finds).
    static func rule(named name: String, inputTaps: [[Node]]) -> Rule? {
        switch name {
        case "debounce":
            return .debounce
        case "merge" where !inputTaps.isEmpty && inputTaps.allSatisfy({ $0.count == 1 }):
            return .merge(inputs: inputTaps.map { ObjectIdentifier($0[0]) })
        case "zip" where !inputTaps.isEmpty && inputTaps.allSatisfy({ $0.count <= 1 }) && distinct(inputTaps):
            return .zip(inputs: inputTaps.map { $0.first.map(ObjectIdentifier.init) })
        case "combineLatest" where !inputTaps.isEmpty && inputTaps.allSatisfy({ $0.count == 1 }) && distinct(inputTaps):
            return .combineLatest(inputs: inputTaps.map { ObjectIdentifier($0[0]) })
        default:
            return nil
        }
    }

    /// Whether no tap is the tap of two inputs (`zip(a, a)`): their elements could not be
    /// told apart by input.
    private static func distinct(_ inputTaps: [[Node]]) -> Bool {
        let taps = inputTaps.flatMap { $0.map(ObjectIdentifier.init) }
        return Set(taps).count == taps.count
    }

    /// The operator received the event `sequence`, of kind `kind`, from the tap on `node`
    /// (nil: no tap). An input interrupted is no cause of the operator's end but its effect
    /// (`zip` cancels the others when one ends, `merge` when one fails): only `debounce` keeps it.
    func add(_ sequence: UInt64, from node: Node?, kind: EventKind) {
        let input = node.map(ObjectIdentifier.init)
        let isElement = kind == .value
        if kind == .interrupted, !isDebounce { return }
        lock.withLock {
            switch rule {
            case .debounce:
                numbers.append(sequence)
            case let .merge(inputs):
                guard let input, inputs.contains(input) else { return }
                if isElement { pending.append([sequence]) } else { ends.append(sequence) }
            case let .zip(inputs):
                guard let index = inputs.firstIndex(where: { $0 != nil && $0 == input }) else { return }
                if isElement { queues[index].append(sequence) } else { ends.append(sequence) }
            case let .combineLatest(inputs):
                guard let input, let index = inputs.firstIndex(of: input) else { return }
                guard isElement else {
                    ends.append(sequence)
                    return
                }
                latest[index] = sequence
                if !latest.contains(0) {
                    pending.append(latest.indices.filter { $0 != index }.map { latest[$0] }.sorted() + [sequence])
                }
            }
        }
    }

    /// The causes of the tap's next event, an element when `isElement` (else its end), with
    /// `pulled`, what the taps in the pulling task reported meanwhile: the primary last.
    func causes(ofElement isElement: Bool, pulled: [UInt64]) -> [UInt64] {
        let received: [UInt64] = lock.withLock {
            switch rule {
            case .debounce:
                defer { numbers = [] }
                return numbers
            case .merge, .combineLatest:
                guard isElement else { return ends.sorted() }
                guard pendingStart < pending.count else { return [] }
                defer {
                    pendingStart += 1
                    if pendingStart == pending.count { (pending, pendingStart) = ([], 0) }
                }
                return pending[pendingStart]
            case .zip:
                guard isElement else { return ends.sorted() }
                var zipped: [UInt64] = []
                for index in queues.indices where !queues[index].isEmpty {
                    zipped.append(queues[index].removeFirst())
                }
                return zipped.sorted()
            }
        }
        switch rule {
        case .debounce: return (pulled + received).sorted()
        case .merge, .zip, .combineLatest: return pulled + received
        }
    }
}
