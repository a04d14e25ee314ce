/// A walk over a list tree in order, one subtree at a time: the front
/// subtree can be skipped as a whole (`advance`) or opened (`descend`).
/// Used by comparison and diffing to skip the subtrees two versions share.
///
/// NB: the cursor holds its nodes unretained (`Unmanaged`): it lives only
/// inside a comparison or diff whose caller holds both roots, so every node
/// it reaches stays alive, and the walk then takes no retain or release per
/// node visited (which was most of the cost of a diff).
@usableFromInline
internal struct _ListCursor<Element> {
    @usableFromInline typealias Ref = Unmanaged<_ListNode<Element>>

    @usableFromInline
    internal struct Frame {
        @usableFromInline var node: Ref
        @usableFromInline var index: Int
        @inlinable init(node: Ref, index: Int) {
            self.node = node
            self.index = index
        }
    }

    /// The ancestors of `front`, with the index of the child taken in each:
    /// `stack[0 ..< depth]`, in storage the caller provides (see
    /// `withCursors`).
    @usableFromInline let stack: UnsafeMutablePointer<Frame>
    @usableFromInline var depth: Int
    /// The subtree at the front, nil at the end.
    @usableFromInline var front: Ref?
    /// The offset of `front`'s first element in the whole list.
    @usableFromInline var offset: Int
    /// Elements of a front leaf already consumed (comparison only).
    @usableFromInline var inLeaf: Int

    /// A cursor at the start of the tree under `root`, which the caller
    /// keeps alive for the cursor's lifetime.
    @inlinable
    init(root: _ListNode<Element>, stack: UnsafeMutablePointer<Frame>) {
        self.stack = stack
        depth = 0
        front = root.count == 0 ? nil : Ref.passUnretained(root)
        offset = 0
        inLeaf = 0
    }

    /// Calls `body` with cursors at the start of `a` and of `b`, their path
    /// stacks in temporary (stack) storage. The caller keeps both roots alive.
    @inlinable
    static func withCursors<R>(
        _ a: _ListNode<Element>, _ b: _ListNode<Element>, _ body: (inout Self, inout Self) -> R
    ) -> R {
        withUnsafeTemporaryAllocation(of: Frame.self, capacity: a.height + b.height + 2) { storage in
            let base = storage.baseAddress.unsafelyUnwrapped
            var ca = Self(root: a, stack: base)
            var cb = Self(root: b, stack: base + a.height + 1)
            return body(&ca, &cb)
        }
    }

    /// Calls `body` with the front node (which must exist).
    @inlinable @inline(__always)
    func withFront<R>(_ body: (_ListNode<Element>) -> R) -> R {
        front.unsafelyUnwrapped._withUnsafeGuaranteedRef(body)
    }

    /// Replaces the front (a branch) with its first child.
    @inlinable
    mutating func descend() {
        let node = front.unsafelyUnwrapped
        (stack + depth).initialize(to: Frame(node: node, index: 0))
        depth += 1
        front = node._withUnsafeGuaranteedRef { Ref.passUnretained($0.children[0]) }
    }

    /// Moves past the front subtree.
    @inlinable
    mutating func advance() {
        inLeaf = 0
        var top = depth - 1
        guard top >= 0 else {
            offset += withFront { $0.count }
            front = nil
            return
        }
        let index = stack[top].index
        offset += stack[top].node._withUnsafeGuaranteedRef { $0.counts[index] }
        while true {
            let next = stack[top].index + 1
            let child: Ref? = stack[top].node._withUnsafeGuaranteedRef { node in
                next < node.children.count ? Ref.passUnretained(node.children[next]) : nil
            }
            if let child {
                stack[top].index = next
                front = child
                return
            }
            depth -= 1
            top -= 1
            if top < 0 { break }
        }
        front = nil
    }
}
