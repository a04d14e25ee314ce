import Observation

/// The state as `@Observable` classes, for the observation strategy: the
/// same shape and contents as ``AppState``, mutated in place.
@Observable
public final class ItemModel {
    public let id: Int
    public var title: String
    public var done: Bool
    public var count: Int

    init(id: Int, title: String, done: Bool, count: Int) {
        self.id = id
        self.title = title
        self.done = done
        self.count = count
    }
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
    public var tree: TreeModel
    public var counter: Int
    public var title: String

    init(_ workload: Workload) {
        let length = workload.titleLength
        items = (0..<workload.entities).map { ItemModel(id: $0, title: makeText("item-\($0)-", length), done: $0 % 3 == 0, count: 0) }
        tree = TreeModel(AppState.makeTree(depth: workload.tree.depth, fanOut: workload.tree.fanOut, labelLength: workload.tree.labelLength, index: 0))
        counter = 0
        title = "FastStore"
    }

    /// The same reducer as ``reduce(_:_:)``, in place on the models.
    func apply(_ action: WorkloadAction) {
        switch action.kind {
        case .setField:
            counter &+= 1
        case .updateEntities(let field, let indices):
            for i in indices {
                let item = items[i]
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
        }
    }
}
