import BenchCore
import Observation

/// The state as `@Observable` classes, for the observation strategies: the
/// same shape and contents as ``AppState``, mutated in place.
@Observable
public final class ItemModel: EntityFields {
    public let id: Int
    public var title: String
    public var done: Bool
    public var count: Int
    /// Set when the item leaves the list, so that a row holding the object
    /// learns it is gone (as a deleted SwiftData model reports `isDeleted`).
    public var isRemoved = false

    init(id: Int, title: String, done: Bool, count: Int) {
        self.id = id
        self.title = title
        self.done = done
        self.count = count
    }

    /// The item's values.
    var value: Item { Item(id: id, title: title, done: done, count: count) }
}

@Observable
public final class TreeModel {
    public var value: Int
    public var label: String
    public var children: [TreeModel]

    init(_ node: TreeNode) {
        value = node.value
        label = node.label
        children = node.children.map(TreeModel.init)
    }
}

@Observable
public final class AppModel {
    public var items: [ItemModel]
    /// The items by id, when actions insert, remove, move or sort items;
    /// `nil` when ids are positions for the whole run. Bookkeeping, not
    /// observed: membership is observed through `items`.
    @ObservationIgnored var byID: [Int: ItemModel]?
    public var tree: TreeModel
    public var counter: Int
    public var title: String
    /// The selected row's id, if any.
    public var selected: Int?
    /// Whether some row holds its item's object and must learn when it
    /// leaves the list (``ObservationLazyStrategy`` sets it): then a
    /// replacement or a clear flags every object it drops, as a removal
    /// does. Bookkeeping, not observed.
    @ObservationIgnored var rowsHoldObjects = false

    init(_ workload: Workload) {
        let length = workload.titleLength
        let items = (0..<workload.entities).map { ItemModel(id: $0, title: makeText("item-\($0)-", length), done: $0 % 3 == 0, count: 0) }
        self.items = items
        byID = workload.idsArePositions ? nil : Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0) })
        tree = TreeModel(AppState.makeTree(depth: workload.tree.depth, fanOut: workload.tree.fanOut, labelLength: workload.tree.labelLength, index: 0))
        counter = 0
        title = "FastStore"
        selected = nil
    }

    /// The item with `id`, or nil once it is removed. Reads `items` (so the
    /// caller depends on the list's structure, as a lookup by id in the
    /// array would), then the unobserved index.
    func item(id: Int) -> ItemModel? {
        guard let byID else { return items[id] }
        _ = items
        return byID[id]
    }

    /// The object of the item with `id` now, without observing anything
    /// (what a list hands the row it creates).
    func object(id: Int) -> ItemModel? {
        if let byID { return byID[id] }
        return items[id]
    }

    /// The same reducer as ``reduce(_:_:)``, in place on the models.
    func apply(_ action: WorkloadAction) {
        switch action.kind {
        case .setField:
            counter &+= 1
        case .updateEntities(let field, let ids):
            for id in ids {
                guard let item = object(id: id) else { continue }
                switch field {
                case .done: item.done.toggle()
                case .count: item.count &+= 1
                case .title: item.title = action.title
                }
            }
        case .updateTreeLeaf(let path):
            var node = tree
            for i in path { node = node.children[i] }
            node.value &+= 1
        case .insertEntities(let placements):
            for p in placements {
                let item = ItemModel(id: p.id, title: action.title, done: false, count: 0)
                items.insert(item, at: min(p.position, items.count))
                byID![p.id] = item
            }
        case .removeEntities(let ids):
            for id in ids {
                guard let item = byID!.removeValue(forKey: id) else { continue }
                items.remove(at: position(of: item))
                item.isRemoved = true
            }
        case .moveEntities(let placements):
            for p in placements {
                guard let item = byID![p.id] else { continue }
                items.remove(at: position(of: item))
                items.insert(item, at: min(p.position, items.count))
            }
        case .sortEntities(let field, let ascending):
            items.sort { $0.precedes($1, by: field, ascending: ascending) }
        case .selectEntity(let id):
            selected = id
        case .replaceEntities(let first, let count):
            let fresh = (first..<first + count).map { ItemModel(id: $0, title: action.title, done: false, count: 0) }
            let gone = rowsHoldObjects ? items : []
            items = fresh
            byID = Dictionary(uniqueKeysWithValues: fresh.map { ($0.id, $0) })
            if rowsHoldObjects { for item in gone { item.isRemoved = true } }
            selected = nil
        case .appendEntities(let first, let count):
            let fresh = (first..<first + count).map { ItemModel(id: $0, title: action.title, done: false, count: 0) }
            items.append(contentsOf: fresh)
            for item in fresh { byID![item.id] = item }
        case .clearEntities:
            let gone = rowsHoldObjects ? items : []
            items = []
            byID!.removeAll()
            if rowsHoldObjects { for item in gone { item.isRemoved = true } }
            selected = nil
        case .swapEntities:
            let i = 1, j = items.count - 2
            guard i < j else { break }
            items.swapAt(i, j)
        }
    }

    /// Where `item` is in `items`: a scan by identity, as an array of
    /// objects offers (O(n), like the removal that follows).
    private func position(of item: ItemModel) -> Int {
        guard let i = items.firstIndex(where: { $0 === item }) else { preconditionFailure("item \(item.id) indexed but not listed") }
        return i
    }

    /// The digest of the whole model (see ``ContentDigest``).
    func contentDigest() -> Int {
        var d = ContentDigest()
        for item in items { d.item(item) }
        d.counter(counter)
        d.selected(selected)
        func walk(_ node: TreeModel) {
            d.treeValue(node.value)
            for child in node.children { walk(child) }
        }
        walk(tree)
        return d.finalize()
    }
}
