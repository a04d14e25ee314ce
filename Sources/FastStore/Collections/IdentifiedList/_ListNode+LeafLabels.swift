// Leaves found by label, for `IdentifiedList`: its id index maps each id to
// the label of the leaf holding the element, and labels increase along the
// list, so a descent comparing labels finds the leaf, and a scan of the
// leaf the element. No per-element bookkeeping: a leaf's label lives in
// its header (`_ListNodeHeader.label`).

extension _ListNode {
    /// The `k`th child of this branch, unretained: the walks below hold the
    /// root, which holds every node they visit, so they read the tree with
    /// no reference counting.
    @inlinable @inline(__always)
    func _unretainedChild(_ k: Int) -> Unmanaged<_ListNode> {
        UnsafeMutableRawPointer(_childrenPointer).assumingMemoryBound(to: Unmanaged<_ListNode>.self)[k]
    }

    /// The label of this subtree's first leaf.
    @inlinable
    func firstLeafLabel() -> UInt64 {
        var node = Unmanaged.passUnretained(self)
        while node._withUnsafeGuaranteedRef({ $0.height > 0 }) {
            node = node._withUnsafeGuaranteedRef { $0._unretainedChild(0) }
        }
        return node._withUnsafeGuaranteedRef { $0.label }
    }

    /// The leaf holding `index` (`0 ..< count`) and the position of its
    /// first element, unretained: valid while the caller holds this node.
    ///
    /// - Complexity: O(log n).
    @inlinable
    func _leaf(containing index: Int) -> (leaf: Unmanaged<_ListNode>, start: Int) {
        var node = Unmanaged.passUnretained(self)
        var offset = index
        while node._withUnsafeGuaranteedRef({ $0.height > 0 }) {
            node = node._withUnsafeGuaranteedRef { branch in
                let (k, o) = branch.child(containing: offset)
                offset = o
                return branch._unretainedChild(k)
            }
        }
        return (node, index &- offset)
    }

    /// The leaf labelled `label` and the position of its first element, if
    /// any, unretained: valid while the caller holds this node.
    ///
    /// - Complexity: O(log n) levels, each a binary search over the
    ///   children's first labels (O(log n) reads each).
    @inlinable
    func _leaf(labelled label: UInt64) -> (leaf: Unmanaged<_ListNode>, start: Int)? {
        var node = Unmanaged.passUnretained(self)
        var start = 0
        while node._withUnsafeGuaranteedRef({ $0.height > 0 }) {
            node = node._withUnsafeGuaranteedRef { branch in
                var lo = 0, hi = branch.width - 1
                while lo < hi {
                    let mid = (lo + hi + 1) / 2
                    let first = branch._unretainedChild(mid)._withUnsafeGuaranteedRef { $0.firstLeafLabel() }
                    if first <= label { lo = mid } else { hi = mid - 1 }
                }
                let counts = branch._countsPointer
                for k in 0 ..< lo { start &+= counts[k] }
                return branch._unretainedChild(lo)
            }
        }
        guard node._withUnsafeGuaranteedRef({ $0.label == label }) else { return nil }
        return (node, start)
    }

    /// Labels the leaf holding `index` below this (unique, stamped) node,
    /// copying the shared nodes on its path (a leaf keeps its slots'
    /// layout: a label is not a write of an element).
    ///
    /// - Complexity: O(log n); copies at most one node per level.
    @inlinable
    func setLabel(_ label: UInt64, ofLeafContaining index: Int, stamp: VersionStamp) {
        guard height > 0 else {
            self.label = label
            return
        }
        var node = self
        var offset = index
        while node.height > 1 {
            let (k, o) = node.child(containing: offset)
            node = node.uniqueChild(k, stamp: stamp)
            offset = o
        }
        let (k, _) = node.child(containing: offset)
        let children = node._childrenPointer
        if !_ListNode._isUniqueOwner(&children[k]) {
            children[k] = children[k]._hasExplicitSlots
                ? children[k]._copyForWrite(stamp: stamp)
                : children[k]._copyForWriteKeepingImplicitSlots(stamp: stamp)
        }
        children[k].label = label
    }
}

extension _ListNode where Element: Identifiable {
    /// The position of the element with `id` in the leaf labelled `label`,
    /// and its offset in that leaf, if any: the element at `hint` is
    /// compared first, then the others in order.
    ///
    /// - Complexity: O(log n) levels, then a scan of one leaf.
    @inlinable
    func locate(_ id: Element.ID, inLeafLabelled label: UInt64, hint: Int) -> (position: Int, offset: Int)? {
        guard count > 0 else { return nil }
        // NB: `self` (the root, held by the caller) keeps the whole walk
        // alive: the nodes are read unretained.
        return withExtendedLifetime(self) {
            guard let (leaf, start) = _leaf(labelled: label) else { return nil }
            return leaf._withUnsafeGuaranteedRef { leaf -> (Int, Int)? in
                let elements = leaf._elementsPointer
                let width = leaf.width
                if hint < width, elements[hint].id == id { return (start &+ hint, hint) }
                for i in 0 ..< width where i != hint && elements[i].id == id { return (start &+ i, i) }
                return nil
            }
        }
    }
}
