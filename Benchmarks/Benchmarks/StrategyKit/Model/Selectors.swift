import BenchCore
/// Selectors over the value state, one per ``Selection`` kind.
public enum ValueSelectors {
    @inlinable public static func field(_ s: AppState) -> Int { s.counter }
    /// The item at position `k`: the item with id `k` while ids are positions.
    @inlinable public static func entity(_ s: AppState, _ k: Int) -> Item { s.items[k] }
    /// The item with id `id`, through the position index; `nil` once removed.
    @inlinable public static func entity(_ s: AppState, id: Int) -> Item? {
        guard let i = s.positions?[id] else { return nil }
        return s.items[i]
    }
    @inlinable public static func list(_ s: AppState) -> [Item] { s.items }
    @inlinable public static func derived(_ s: AppState) -> Int {
        var n = 0
        for item in s.items where item.done { n += 1 }
        return n
    }
    /// Whether the entity with `id` is the selected one (a row's highlight).
    @inlinable public static func rowSelected(_ s: AppState, _ id: Int) -> Bool { s.selected == id }
    @inlinable public static func treeLeaf(_ s: AppState, _ path: [Int]) -> Int {
        var node = s.tree
        for i in path { node = node.children[i] }
        return node.value
    }
}

/// What a consumer callback folds into the strategy's checksum: cheap, and
/// equal across strategies that deliver the same values.
public enum Digest {
    /// What a row consumer delivers when its entity is gone (never the
    /// digest of an item: those are not negative).
    public static let absent = -1
    @inlinable public static func of(_ v: Int) -> Int { v }
    @inlinable public static func of(_ item: Item) -> Int { item.id &* 31 &+ item.count &* 7 &+ (item.done ? 1 : 0) &+ item.title.utf8.count }
    @inlinable public static func of(_ item: Item?) -> Int { item.map(of) ?? absent }
    @inlinable public static func ofList(count: Int) -> Int { count &* 1_000_003 }
    /// A row's highlight: its id and whether it is the selected one.
    @inlinable public static func ofHighlight(_ id: Int, _ isSelected: Bool) -> Int { id &* 2 &+ (isSelected ? 1 : 0) }
}

/// The fields a sort compares, on values and on observable models alike.
public protocol EntityFields {
    var id: Int { get }
    var title: String { get }
    var done: Bool { get }
    var count: Int { get }
}

extension Item: EntityFields {}

extension EntityFields {
    /// The order of a `sortEntities` action: by `field` (`false` before
    /// `true`), ties by id, all reversed when descending. A total order, so
    /// every strategy gets the same list whatever its sort algorithm.
    @inlinable
    public func precedes(_ other: Self, by field: EntityField, ascending: Bool) -> Bool {
        let less: Bool, greater: Bool
        switch field {
        case .done: (less, greater) = (!done && other.done, done && !other.done)
        case .count: (less, greater) = (count < other.count, count > other.count)
        case .title: (less, greater) = (title < other.title, title > other.title)
        }
        if less || greater { return ascending ? less : greater }
        return ascending ? id < other.id : id > other.id
    }
}

/// A digest of a whole state (items in order with their fields, the
/// counter, the tree's values depth-first), for the self-test: every
/// strategy must end a run with the same one. Hashing is seeded per
/// process, so compare digests within one process.
public struct ContentDigest {
    private var hasher = Hasher()
    public init() {}

    public mutating func item<E: EntityFields>(_ e: E) {
        hasher.combine(e.id)
        hasher.combine(e.title)
        hasher.combine(e.done)
        hasher.combine(e.count)
    }
    public mutating func counter(_ value: Int) {
        hasher.combine(-1)
        hasher.combine(value)
    }
    public mutating func treeValue(_ value: Int) { hasher.combine(value) }
    public mutating func selected(_ id: Int?) {
        hasher.combine(-2)
        hasher.combine(id)
    }

    public func finalize() -> Int { hasher.finalize() }

    /// The digest of a value state.
    public static func of(_ s: AppState) -> Int {
        var d = ContentDigest()
        for item in s.items { d.item(item) }
        d.counter(s.counter)
        d.selected(s.selected)
        func walk(_ node: TreeNode) {
            d.treeValue(node.value)
            for child in node.children { walk(child) }
        }
        walk(s.tree)
        return d.finalize()
    }
}
