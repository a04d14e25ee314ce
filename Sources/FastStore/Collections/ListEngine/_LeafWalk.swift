/// The leaf-to-leaf walk of a list iterator (or, from a given height, the
/// walk over the nodes of that height). Holds the root; every other node it
/// reaches is held unretained (alive through the root).
@usableFromInline
internal final class _LeafWalk<Element> {
    @usableFromInline typealias Ref = Unmanaged<_ListNode<Element>>

    @usableFromInline let root: _ListNode<Element>
    /// The ancestors of the current leaf, with the child taken in each.
    @usableFromInline @exclusivity(unchecked) var path: ContiguousArray<(node: Ref, child: Int)>
    /// The first leaf.
    @usableFromInline let first: Ref

    /// The height of the nodes walked (0: leaves).
    @usableFromInline let height: Int

    @inlinable
    init(root: _ListNode<Element>, height: Int = 0) {
        precondition(height <= root.height)
        self.root = root
        self.height = height
        path = []
        path.reserveCapacity(root.height)
        var node = Ref.passUnretained(root)
        while node._withUnsafeGuaranteedRef({ $0.height }) > height {
            path.append((node, 0))
            node = node._withUnsafeGuaranteedRef { Ref.passUnretained($0.children[0]) }
        }
        first = node
    }

    /// The next leaf (node of the walked height), or nil at the end.
    @inlinable @inline(never)
    func nextLeaf() -> Ref? {
        let height = self.height
        var top = path.count - 1
        while top >= 0 {
            let next = path[top].child + 1
            let child: Ref? = path[top].node._withUnsafeGuaranteedRef { node in
                next < node.children.count ? Ref.passUnretained(node.children[next]) : nil
            }
            if var node = child {
                path[top].child = next
                while node._withUnsafeGuaranteedRef({ $0.height }) > height {
                    path.append((node, 0))
                    node = node._withUnsafeGuaranteedRef { Ref.passUnretained($0.children[0]) }
                }
                return node
            }
            path.removeLast()
            top -= 1
        }
        return nil
    }
}

extension _ListNode {
    /// Calls `body` with each leaf in order until it returns false.
    @inlinable
    @discardableResult
    func forEachLeafWhile(_ body: (_ListNode<Element>) -> Bool) -> Bool {
        if height == 0 { return body(self) }
        for child in children where !child.forEachLeafWhile(body) { return false }
        return true
    }
}
