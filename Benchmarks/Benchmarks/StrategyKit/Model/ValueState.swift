/// The plain value-type state the full-copy and reswift-like strategies use:
/// what an app writes today with ReSwift or ReSwiftConsumer.
public struct Item: Equatable, Sendable {
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
    public var tree: TreeNode
    public var counter: Int
    public var title: String

    /// The initial state of `workload`.
    public init(_ workload: Workload) {
        let length = workload.titleLength
        items = (0..<workload.entities).map { Item(id: $0, title: makeText("item-\($0)-", length), done: $0 % 3 == 0, count: 0) }
        tree = AppState.makeTree(depth: workload.tree.depth, fanOut: workload.tree.fanOut, labelLength: workload.tree.labelLength, index: 0)
        counter = 0
        title = "FastStore"
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
    case .updateEntities(let field, let indices):
        for i in indices {
            switch field {
            case .done: state.items[i].done.toggle()
            case .count: state.items[i].count &+= 1
            case .title: state.items[i].title = action.title
            }
        }
    case .updateTreeLeaf(let path):
        updateLeaf(&state.tree, path[...])
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

/// Selectors over the value state, one per ``Selection`` kind.
public enum ValueSelectors {
    @inlinable public static func field(_ s: AppState) -> Int { s.counter }
    @inlinable public static func entity(_ s: AppState, _ k: Int) -> Item { s.items[k] }
    @inlinable public static func list(_ s: AppState) -> [Item] { s.items }
    @inlinable public static func derived(_ s: AppState) -> Int {
        var n = 0
        for item in s.items where item.done { n += 1 }
        return n
    }
    @inlinable public static func treeLeaf(_ s: AppState, _ path: [Int]) -> Int {
        var node = s.tree
        for i in path { node = node.children[i] }
        return node.value
    }
}

/// What a consumer callback folds into the strategy's checksum: cheap, and
/// equal across strategies that deliver the same values.
public enum Digest {
    @inlinable public static func of(_ v: Int) -> Int { v }
    @inlinable public static func of(_ item: Item) -> Int { item.id &* 31 &+ item.count &* 7 &+ (item.done ? 1 : 0) &+ item.title.utf8.count }
    @inlinable public static func ofList(count: Int) -> Int { count &* 1_000_003 }
}
