import BenchCore
import FastStore

/// The versioned state: the same shape and contents as ``AppState``, for
/// workloads whose ids are positions (rows read by position).
public struct FSStateFields {
    public var items: VersionedList<Item>
    public var tree: Versioned<FSTreeFields>
    public var counter: Int
    public var title: String
    /// The selected row's id, if any.
    public var selected: Int?
}

public struct FSTreeFields {
    // NB: not `value`: `Versioned.value` is the node's whole value.
    public var number: Int
    public var label: String
    public var children: VersionedList<Versioned<FSTreeFields>>
}

public typealias FSState = Versioned<FSStateFields>

/// The items that are done, as a fold the versioned lists keep per tree
/// node (updated in O(log n) per write, read in O(1)): what the faststore
/// strategy's derived consumer reads. The 'remaining' count of the
/// profiles is the items minus these.
public enum DoneCount: CountingSummary {
    public static func counts(_ item: Item) -> Bool { item.done }

    /// The fold, when `workload` has a derived consumer; none otherwise
    /// (an app attaches the folds it reads: the others would cost every
    /// write its update).
    static func folds(for workload: Workload) -> [any ListSummary<Item>.Type] {
        workload.selections.contains(.derived) ? [DoneCount.self] : []
    }
}

/// The versioned state for workloads that insert, remove, move or sort
/// items: the items in an `IdentifiedList` (lookup by id, O(log n) insert,
/// remove and move), the rest as in ``FSStateFields``.
public struct FSEditableFields {
    public var items: IdentifiedList<Item>
    public var tree: Versioned<FSTreeFields>
    public var counter: Int
    public var title: String
    /// The selected row's id, if any.
    public var selected: Int?
}

public typealias FSEditableState = Versioned<FSEditableFields>

extension Versioned<FSTreeFields> {
    init(_ node: TreeNode) {
        self.init(FSTreeFields(number: node.value, label: node.label, children: VersionedList(node.children.map(Versioned<FSTreeFields>.init))))
    }
}

extension Versioned where Value == FSStateFields {
    init(_ workload: Workload) {
        precondition(workload.idsArePositions, "FSState holds rows by position; use FSEditableState for structural actions")
        let plain = AppState(workload)
        self.init(FSStateFields(items: VersionedList(plain.items, folds: DoneCount.folds(for: workload)), tree: Versioned<FSTreeFields>(plain.tree), counter: plain.counter, title: plain.title, selected: plain.selected))
    }
}

extension Versioned where Value == FSEditableFields {
    init(_ workload: Workload) {
        let plain = AppState(workload)
        self.init(FSEditableFields(items: IdentifiedList(plain.items, folds: DoneCount.folds(for: workload)), tree: Versioned<FSTreeFields>(plain.tree), counter: plain.counter, title: plain.title, selected: plain.selected))
    }
}

/// The same reducer as ``reduce(_:_:)``, written against the versioned
/// state: the reducer text is unchanged (`state.items[i].done.toggle()`).
func fastStoreReduce(_ state: inout FSState, _ action: WorkloadAction) {
    switch action.kind {
    case .setField:
        state.counter &+= 1
    case .updateEntities(let field, let indices):
        for i in indices {
            switch field {
            case .done: state.items[i].done.toggle()
            case .count: state.items[i].count &+= 1
            case .title: state.items[i].title = action.title
            }
        }
    case .updateTreeLeaf(let path):
        updateVersionedLeaf(&state.tree, path[...])
    case .selectEntity(let id):
        state.selected = id
    case .insertEntities, .removeEntities, .moveEntities, .sortEntities,
         .replaceEntities, .appendEntities, .clearEntities, .swapEntities:
        preconditionFailure("FSState holds rows by position; a structural action needs FSEditableState")
    }
}

/// The reducer over ``FSEditableState``: rows by id, and the structural
/// actions as `IdentifiedList` operations.
func fastStoreEditableReduce(_ state: inout FSEditableState, _ action: WorkloadAction) {
    switch action.kind {
    case .setField:
        state.counter &+= 1
    case .updateEntities(let field, let ids):
        for id in ids {
            switch field {
            case .done: state.items[id: id]?.done.toggle()
            case .count: state.items[id: id]?.count &+= 1
            case .title: state.items[id: id]?.title = action.title
            }
        }
    case .updateTreeLeaf(let path):
        updateVersionedLeaf(&state.tree, path[...])
    case .insertEntities(let placements):
        for p in placements {
            state.items.insert(Item(id: p.id, title: action.title, done: false, count: 0), at: min(p.position, state.items.count))
        }
    case .removeEntities(let ids):
        for id in ids { state.items.remove(id: id) }
    case .moveEntities(let placements):
        for p in placements {
            guard let from = state.items.index(id: p.id) else { continue }
            state.items.move(from: from, to: min(p.position, state.items.count - 1))
        }
    case .sortEntities(let field, let ascending):
        state.items.sort { $0.precedes($1, by: field, ascending: ascending) }
    case .selectEntity(let id):
        state.selected = id
    case .replaceEntities(let first, let count):
        // NB: `replaceAll(with:)`, not `items = IdentifiedList(...)`: the
        // list keeps its identity and its folds (FastStore's docs).
        state.items.replaceAll(with: (first..<first + count).lazy.map { Item(id: $0, title: action.title, done: false, count: 0) })
        state.selected = nil
    case .appendEntities(let first, let count):
        state.items.append(contentsOf: (first..<first + count).lazy.map { Item(id: $0, title: action.title, done: false, count: 0) })
    case .clearEntities:
        state.items.removeAll()
        state.selected = nil
    case .swapEntities:
        // No `swapAt` on IdentifiedList: two moves (the row at 1 to
        // count − 2, then the one that was there, now at count − 3, to 1).
        let i = 1, j = state.items.count - 2
        guard i < j else { break }
        state.items.move(from: i, to: j)
        state.items.move(from: j - 1, to: i)
    }
}

func updateVersionedLeaf(_ node: inout Versioned<FSTreeFields>, _ path: ArraySlice<Int>) {
    if let first = path.first {
        updateVersionedLeaf(&node.children[first], path.dropFirst())
    } else {
        node.number &+= 1
    }
}

extension ContentDigest {
    /// The digest of a versioned state (see ``ContentDigest``).
    static func of<Items: Sequence<Item>>(items: Items, tree: Versioned<FSTreeFields>, counter: Int, selected: Int?) -> Int {
        var d = ContentDigest()
        for item in items { d.item(item) }
        d.counter(counter)
        d.selected(selected)
        func walk(_ node: Versioned<FSTreeFields>) {
            d.treeValue(node.number)
            for child in node.children { walk(child) }
        }
        walk(tree)
        return d.finalize()
    }
}
