/// An unordered collection whose elements are removed by the token their insertion gave
/// (ReactiveSwift's `Bag`): what keeps a list of observers or handlers that may repeat.
///
/// ```swift
/// var handlers = Bag<() -> Void>()
/// let token = handlers.insert { print("first") }
/// handlers.insert { print("second") }
/// handlers.remove(using: token)
/// handlers.forEach { $0() }   // prints "second"
/// ```
public struct Bag<Element>: RandomAccessCollection {
    /// Identifies one insertion; removing with it removes that element only.
    public struct Token: Hashable {
        fileprivate let id: UInt64
    }

    private var elements: ContiguousArray<Element> = []
    private var ids: ContiguousArray<UInt64> = []
    private var nextID: UInt64 = 0

    /// An empty bag.
    public init() {}

    /// A bag holding `elements`.
    public init<S: Sequence>(_ elements: S) where S.Element == Element {
        for element in elements { insert(element) }
    }

    /// Adds `element`; returns the token that removes it.
    @discardableResult
    public mutating func insert(_ element: Element) -> Token {
        let id = nextID
        nextID += 1
        elements.append(element)
        ids.append(id)
        return Token(id: id)
    }

    /// Removes the element `token` was given for; returns it, or nil if it was removed
    /// already.
    @discardableResult
    public mutating func remove(using token: Token) -> Element? {
        // Tokens are handed out in increasing order and elements kept in insertion order,
        // so the ids are sorted: a binary search finds the element.
        var low = 0, high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < token.id { low = middle + 1 } else { high = middle }
        }
        guard low < ids.count, ids[low] == token.id else { return nil }
        ids.remove(at: low)
        return elements.remove(at: low)
    }

    public var startIndex: Int { elements.startIndex }
    public var endIndex: Int { elements.endIndex }
    public subscript(position: Int) -> Element { elements[position] }
}
