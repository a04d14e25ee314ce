import BenchCore
/// The plain value-type state the full-copy and reswift-like strategies use:
/// what an app writes today with ReSwift or ReSwiftConsumer.
public struct Item: Equatable, Sendable, Identifiable {
    public var id: Int
    public var title: String
    public var done: Bool
    public var count: Int
}

/// A node of the nested tree (depth and fan-out from the profile).
public struct TreeNode: Equatable, Sendable {
    public var value: Int
    public var label: String
    public var children: [TreeNode]
}

public struct AppState: Equatable, Sendable {
    public var items: [Item]
    /// The position of each item by id, when actions insert, remove, move
    /// or sort items (an app with rows by id keeps such an index beside its
    /// array); `nil` when ids are positions for the whole run.
    public var positions: [Int: Int]?
    public var tree: TreeNode
    public var counter: Int
    public var title: String
    /// The selected row's id (js-framework-benchmark's highlighted row), if any.
    public var selected: Int?

    /// The initial state of `workload`.
    public init(_ workload: Workload) {
        let length = workload.titleLength
        items = (0..<workload.entities).map { Item(id: $0, title: makeText("item-\($0)-", length), done: $0 % 3 == 0, count: 0) }
        positions = workload.idsArePositions ? nil : Dictionary(uniqueKeysWithValues: (0..<workload.entities).map { ($0, $0) })
        tree = AppState.makeTree(depth: workload.tree.depth, fanOut: workload.tree.fanOut, labelLength: workload.tree.labelLength, index: 0)
        counter = 0
        title = "FastStore"
        selected = nil
    }

    static func makeTree(depth: Int, fanOut: Int, labelLength: Int, index: Int) -> TreeNode {
        TreeNode(
            value: index, label: makeText("n\(index)-", labelLength),
            children: depth == 0 ? [] : (0..<fanOut).map { makeTree(depth: depth - 1, fanOut: fanOut, labelLength: labelLength, index: index &* fanOut &+ $0 &+ 1) })
    }
}

/// The reducer, written `inout` (the shape FastStore and the full-copy
/// strategy use; the reswift-like strategy wraps it in a copy).
@inlinable
public func reduce(_ state: inout AppState, _ action: WorkloadAction) {
    switch action.kind {
    case .setField:
        state.counter &+= 1
    case .updateEntities(let field, let ids):
        if let positions = state.positions {
            for id in ids {
                guard let i = positions[id] else { continue }
                updateItem(&state.items[i], field, action.title)
            }
        } else {
            for i in ids { updateItem(&state.items[i], field, action.title) }
        }
    case .updateTreeLeaf(let path):
        updateLeaf(&state.tree, path[...])
    case .selectEntity(let id):
        state.selected = id
    case .insertEntities, .removeEntities, .moveEntities, .sortEntities,
         .replaceEntities, .appendEntities, .clearEntities, .swapEntities:
        reduceStructure(&state, action)
    }
}

@inlinable
func updateItem(_ item: inout Item, _ field: EntityField, _ title: String) {
    switch field {
    case .done: item.done.toggle()
    case .count: item.count &+= 1
    case .title: item.title = title
    }
}

@usableFromInline
func updateLeaf(_ node: inout TreeNode, _ path: ArraySlice<Int>) {
    if let first = path.first {
        updateLeaf(&node.children[first], path.dropFirst())
    } else {
        node.value &+= 1
    }
}

/// Inserts, removes, moves or sorts items in the array, and keeps the
/// position index right over the range that moved (O(n) like the array
/// operation itself; a sort re-indexes everything).
@usableFromInline
func reduceStructure(_ state: inout AppState, _ action: WorkloadAction) {
    guard var positions = state.positions.take() else {
        preconditionFailure("a structural action on a state without a position index (the workload said ids are positions)")
    }
    defer { state.positions = positions }
    func reindex(_ range: Range<Int>) {
        for i in range { positions[state.items[i].id] = i }
    }
    switch action.kind {
    case .insertEntities(let placements):
        for p in placements {
            let at = min(p.position, state.items.count)
            state.items.insert(Item(id: p.id, title: action.title, done: false, count: 0), at: at)
            reindex(at..<state.items.count)
        }
    case .removeEntities(let ids):
        for id in ids {
            guard let at = positions.removeValue(forKey: id) else { continue }
            state.items.remove(at: at)
            reindex(at..<state.items.count)
        }
    case .moveEntities(let placements):
        for p in placements {
            guard let from = positions[p.id] else { continue }
            let item = state.items.remove(at: from)
            let to = min(p.position, state.items.count)
            state.items.insert(item, at: to)
            reindex(min(from, to)..<(max(from, to) + 1))
        }
    case .sortEntities(let field, let ascending):
        state.items.sort { $0.precedes($1, by: field, ascending: ascending) }
        reindex(0..<state.items.count)
    case .replaceEntities(let first, let count):
        // As a Redux reducer writes it: a new array in place of the old.
        state.items = (first..<first + count).map { Item(id: $0, title: action.title, done: false, count: 0) }
        positions = Dictionary(uniqueKeysWithValues: (0..<count).map { (first + $0, $0) })
        state.selected = nil
    case .appendEntities(let first, let count):
        let at = state.items.count
        state.items.append(contentsOf: (first..<first + count).lazy.map { Item(id: $0, title: action.title, done: false, count: 0) })
        reindex(at..<state.items.count)
    case .clearEntities:
        state.items = []
        positions = [:]
        state.selected = nil
    case .swapEntities:
        let i = 1, j = state.items.count - 2
        guard i < j else { break }
        state.items.swapAt(i, j)
        positions[state.items[i].id] = i
        positions[state.items[j].id] = j
    case .setField, .updateEntities, .updateTreeLeaf, .selectEntity:
        preconditionFailure("not a structural action")
    }
}
