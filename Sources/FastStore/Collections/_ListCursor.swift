/// A walk over a list tree in order, one subtree at a time: the front
/// subtree can be skipped as a whole (`advance`) or opened (`descend`).
/// Used by comparison and diffing to skip the subtrees two versions share.
@usableFromInline
internal struct _ListCursor<Element> {
    /// The ancestors of `front`, with the index of the child taken in each.
    @usableFromInline var stack: ContiguousArray<(node: _ListNode<Element>, index: Int)>
    /// The subtree at the front, nil at the end.
    @usableFromInline var front: _ListNode<Element>?
    /// The offset of `front`'s first element in the whole list.
    @usableFromInline var offset: Int
    /// Elements of a front leaf already consumed (comparison only).
    @usableFromInline var inLeaf: Int

    @inlinable
    init(root: _ListNode<Element>) {
        stack = []
        stack.reserveCapacity(root.height)
        front = root.count == 0 ? nil : root
        offset = 0
        inLeaf = 0
    }

    /// Replaces the front (a branch) with its first child.
    @inlinable
    mutating func descend() {
        let node = front.unsafelyUnwrapped
        stack.append((node, 0))
        front = node.children[0]
    }

    /// Moves past the front subtree.
    @inlinable
    mutating func advance() {
        inLeaf = 0
        guard !stack.isEmpty else {
            offset += front.unsafelyUnwrapped.count
            front = nil
            return
        }
        offset += stack[stack.count - 1].node.counts[stack[stack.count - 1].index]
        while !stack.isEmpty {
            let top = stack.count - 1
            let next = stack[top].index + 1
            if next < stack[top].node.children.count {
                stack[top].index = next
                front = stack[top].node.children[next]
                return
            }
            stack.removeLast()
        }
        front = nil
    }
}
