// Path-copying writes of a list tree. Every function here takes the stamp of
// the write it belongs to and gives it to every node it writes: nodes shared
// with another version are copied first, unique ones are written in place.

extension _ListNode {
    /// Makes `node` uniquely referenced (copying it if shared) and stamps
    /// it; a leaf also gets explicit slots (every write of a leaf writes
    /// its slots).
    ///
    /// - Complexity: O(width) and one allocation when shared (none when
    ///   the draining store's recycler has a spare, see `_NodeRecycler`)
    ///   or a leaf with implicit slots, else O(1).
    @inlinable @inline(__always)
    static func makeUnique(_ node: inout _ListNode, stamp: VersionStamp) {
        // NB: a borrower is written through the element path only (see
        // `_ListNode+Lending.swift`): here it is copied, its items retained.
        if !_isUniqueOwner(&node) {
            node = node._copyForWrite(stamp: stamp)
        } else if node.height == 0 && !node._hasExplicitSlots {
            node = node._relocated(stamp: stamp, capacity: node.itemCapacity, explicitSlots: true, moving: true)
        } else {
            node.stamp = stamp
        }
    }

    /// Makes child `k` of this (unique) node unique, stamps it, and returns it.
    @inlinable @inline(__always)
    func uniqueChild(_ k: Int, stamp: VersionStamp) -> _ListNode {
        _ListNode.makeUnique(&children[k], stamp: stamp)
        return children[k]
    }

    /// Walks from this (unique, stamped) node down to the leaf holding
    /// `index`, copying shared nodes on the way, and returns that leaf with
    /// the element's offset in it: for a write of that element alone (its
    /// slot through `setWritten`, its value in place).
    ///
    /// A leaf below the root whose slots are implicit keeps them when no
    /// other element of it was written since it was built (the write is
    /// then recorded in its header, see `setWritten`), so the first write
    /// to a bulk-built leaf needs no slot storage and, in a draining store,
    /// takes a spare of the same layout instead of allocating. In a
    /// draining store, the copies borrow the items of the nodes they
    /// replace (`_ListNode+Lending.swift`).
    ///
    /// - Complexity: O(log n); copies at most one node per level (its
    ///   items' bits and one retain when borrowing, else a retain per
    ///   item).
    @inlinable
    func uniqueLeaf(containing index: Int, stamp: VersionStamp) -> (leaf: _ListNode, offset: Int) {
        var node = self
        var offset = index
        while node.height > 1 {
            let (k, o) = node.child(containing: offset)
            node = node._uniqueChildForElementWrite(k, stamp: stamp)
            offset = o
        }
        guard node.height == 1 else { return (node, offset) }
        let (k, o) = node.child(containing: offset)
        return (node._uniqueLeafForElementWrite(k, offset: o, stamp: stamp), o)
    }

    // MARK: Insertion

    /// Inserts `element` at `index` below this (unique, stamped) node.
    /// Returns the right half when the node overflowed and split.
    @inlinable
    ///
    /// - Parameters:
    ///   - preferringRight: Whether an insertion at a boundary between two
    ///     leaves goes to the start of the right one (the leaf an element
    ///     just removed from there came from) rather than the end of the
    ///     left one.
    ///   - leavesMoved: Set when a leaf split, its upper half moved into a
    ///     new leaf (whose `label` is 0).
    func insert(
        _ element: Element, slot: _ListSlot, at index: Int, stamp: VersionStamp,
        preferringRight: Bool = false, leavesMoved: inout Bool
    ) -> _ListNode? {
        count += 1
        if height == 0 {
            precondition(width < itemCapacity, "VersionedList: insertion into a full leaf")
            _insertElement(element, slot: slot, at: index)
            guard width > Self.leafCapacity else { return nil }
            leavesMoved = true
            return split(stamp: stamp)
        }
        let (k, o) = child(forInsertionAt: index, preferringRight: preferringRight)
        let child = uniqueChild(k, stamp: stamp)
        if let right = child.insert(
            element, slot: slot, at: o, stamp: stamp, preferringRight: preferringRight, leavesMoved: &leavesMoved
        ) {
            counts[k] = child.count
            _insertChild(right, count: right.count, at: k + 1)
            if folds != nil {
                refreshFolds(child: k)
                insertFolds(child: k + 1)
            }
            if width > Self.branchCapacity { return split(stamp: stamp) }
        } else {
            counts[k] += 1
            if folds != nil { refreshFolds(child: k) }
        }
        return nil
    }

    /// Moves the upper half of this overfull node into a new right sibling.
    @inlinable
    func split(stamp: VersionStamp) -> _ListNode {
        let mid = width / 2
        if height == 0 {
            let right = _ListNode._make(height: 0, capacity: Self._fullLeafCapacity, explicitSlots: true, stamp: stamp)
            _moveSuffix(from: mid, appendingTo: right)
            right.count = right.width
            count = width
            return right
        }
        let movedCount = counts[mid...].reduce(0, +)
        let right = _ListNode._make(height: height, capacity: Self._branchItemCapacity, explicitSlots: true, stamp: stamp)
        _moveSuffix(from: mid, appendingTo: right)
        right.count = movedCount
        count -= movedCount
        if let folds {
            // NB: refilled from the children: a branch splits once per
            // (branch capacity / 2) leaf splits, so this is amortized.
            right.adoptFolds(of: folds)
            fillFolds()
        }
        return right
    }

    // MARK: Removal

    /// Removes and returns the element at `index` below this (unique,
    /// stamped) node, rebalancing underfull children.
    ///
    /// - Parameter leavesMoved: Set when an underfull leaf was merged with
    ///   a neighbour or took elements from it.
    @inlinable
    func remove(at index: Int, stamp: VersionStamp, leavesMoved: inout Bool) -> Element {
        count -= 1
        if height == 0 {
            return _removeElement(at: index)
        }
        let (k, o) = child(containing: index)
        let element: Element
        let underfull: Bool
        do {
            // NB: scoped so that no local reference keeps the child shared
            // while `fixUnderflow` tests it for uniqueness.
            let child = uniqueChild(k, stamp: stamp)
            element = child.remove(at: o, stamp: stamp, leavesMoved: &leavesMoved)
            underfull = child.width < child.minimum
        }
        if folds != nil { refreshFolds(child: k) }
        counts[k] -= 1
        if underfull {
            if height == 1 { leavesMoved = true }
            fixUnderflow(at: k, stamp: stamp)
        }
        return element
    }

    /// Merges underfull child `k` with a neighbour, or moves items from the
    /// neighbour into it when both do not fit in one node.
    @inlinable
    func fixUnderflow(at k: Int, stamp: VersionStamp) {
        guard width > 1 else { return }
        let left = k > 0 ? k - 1 : k
        let l = uniqueChild(left, stamp: stamp)
        let r = uniqueChild(left + 1, stamp: stamp)
        let total = l.width + r.width
        if total <= l.maximumWidth {
            // Merge r into l (r is left empty, and released below).
            l.count += r.count
            r._moveSuffix(from: 0, appendingTo: l)
            r.count = 0
            counts[left] = l.count
            _removeChild(at: left + 1)
            if folds != nil { foldsDidRebalance(left, merged: true) }
            return
        }
        // Redistribute so both halves hold at least the minimum.
        let target = total / 2
        if l.width < target {
            let n = target - l.width
            let c = l.height == 0 ? n : r.counts[..<n].reduce(0, +)
            r._movePrefix(n, appendingTo: l)
            l.count += c
            r.count -= c
        } else {
            let n = l.width - target
            let c = l.height == 0 ? n : l.counts[(l.width - n)...].reduce(0, +)
            l._moveSuffix(n, prependingTo: r)
            l.count -= c
            r.count += c
        }
        counts[left] = l.count
        counts[left + 1] = r.count
        if folds != nil { foldsDidRebalance(left, merged: false) }
    }

    /// After `fixUnderflow` merged child `left + 1` into child `left` or
    /// moved items between them: refills the two children's columns (when
    /// branches) and their summaries here.
    ///
    /// NB: refilled, not moved value by value: a rebalance happens once per
    /// (minimum fill) removals from a node, so this is amortized.
    @usableFromInline
    final func foldsDidRebalance(_ left: Int, merged: Bool) {
        if height > 1 {
            children[left].fillFolds()
            if !merged { children[left + 1].fillFolds() }
        }
        if merged {
            var column = folds
            while let c = column {
                c.remove(left + 1)
                column = c.next
            }
        } else {
            refreshFolds(child: left + 1)
        }
        refreshFolds(child: left)
    }
}
