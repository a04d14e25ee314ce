// Path-copying writes of a list tree. Every function here takes the stamp of
// the write it belongs to and gives it to every node it writes: nodes shared
// with another version are copied first, unique ones are written in place.

extension _ListNode {
    /// Makes `node` uniquely referenced (copying it if shared) and stamps it.
    @inlinable @inline(__always)
    static func makeUnique(_ node: inout _ListNode, stamp: VersionStamp) {
        if !isKnownUniquelyReferenced(&node) {
            node = node.copy(stamp: stamp)
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
    /// the element's offset in it.
    ///
    /// - Complexity: O(log n); copies at most one node per level.
    @inlinable
    func uniqueLeaf(containing index: Int, stamp: VersionStamp) -> (leaf: _ListNode, offset: Int) {
        var node = self
        var offset = index
        while node.height > 0 {
            let (k, o) = node.child(containing: offset)
            node = node.uniqueChild(k, stamp: stamp)
            offset = o
        }
        node.materializeSlots()
        return (node, offset)
    }

    // MARK: Insertion

    /// Inserts `element` at `index` below this (unique, stamped) node.
    /// Returns the right half when the node overflowed and split.
    @inlinable
    func insert(_ element: Element, slot: _ListSlot, at index: Int, stamp: VersionStamp) -> _ListNode? {
        count += 1
        if height == 0 {
            materializeSlots()
            elements.insert(element, at: index)
            slots.insert(slot, at: index)
            return elements.count > Self.leafCapacity ? split(stamp: stamp) : nil
        }
        let (k, o) = child(forInsertionAt: index)
        let child = uniqueChild(k, stamp: stamp)
        if let right = child.insert(element, slot: slot, at: o, stamp: stamp) {
            counts[k] = child.count
            children.insert(right, at: k + 1)
            counts.insert(right.count, at: k + 1)
            if folds != nil {
                refreshFolds(child: k)
                insertFolds(child: k + 1)
            }
            if children.count > Self.branchCapacity { return split(stamp: stamp) }
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
            let right = _ListNode(
                leaf: ContiguousArray(elements[mid...]), slots: ContiguousArray(slots[mid...]), stamp: stamp)
            elements.removeSubrange(mid...)
            slots.removeSubrange(mid...)
            count = elements.count
            return right
        }
        let moved = ContiguousArray(children[mid...])
        let movedCounts = ContiguousArray(counts[mid...])
        let movedCount = movedCounts.reduce(0, +)
        children.removeSubrange(mid...)
        counts.removeSubrange(mid...)
        count -= movedCount
        let right = _ListNode(branch: moved, counts: movedCounts, height: height, count: movedCount, stamp: stamp)
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
    @inlinable
    func remove(at index: Int, stamp: VersionStamp) -> Element {
        count -= 1
        if height == 0 {
            materializeSlots()
            slots.remove(at: index)
            return elements.remove(at: index)
        }
        let (k, o) = child(containing: index)
        let element: Element
        let underfull: Bool
        do {
            // NB: scoped so that no local reference keeps the child shared
            // while `fixUnderflow` tests it for uniqueness.
            let child = uniqueChild(k, stamp: stamp)
            element = child.remove(at: o, stamp: stamp)
            underfull = child.width < child.minimum
        }
        if folds != nil { refreshFolds(child: k) }
        counts[k] -= 1
        if underfull { fixUnderflow(at: k, stamp: stamp) }
        return element
    }

    /// Merges underfull child `k` with a neighbour, or moves items from the
    /// neighbour into it when both do not fit in one node.
    @inlinable
    func fixUnderflow(at k: Int, stamp: VersionStamp) {
        guard children.count > 1 else { return }
        let left = k > 0 ? k - 1 : k
        let l = uniqueChild(left, stamp: stamp)
        let r = uniqueChild(left + 1, stamp: stamp)
        l.materializeSlots()
        r.materializeSlots()
        let total = l.width + r.width
        if total <= l.capacity {
            // Merge r into l.
            if l.height == 0 {
                l.elements.append(contentsOf: r.elements)
                l.slots.append(contentsOf: r.slots)
            } else {
                l.children.append(contentsOf: r.children)
                l.counts.append(contentsOf: r.counts)
            }
            l.count += r.count
            counts[left] = l.count
            children.remove(at: left + 1)
            counts.remove(at: left + 1)
            if folds != nil { foldsDidRebalance(left, merged: true) }
            return
        }
        // Redistribute so both halves hold at least the minimum.
        let target = total / 2
        if l.width < target {
            let n = target - l.width
            if l.height == 0 {
                l.elements.append(contentsOf: r.elements[..<n])
                l.slots.append(contentsOf: r.slots[..<n])
                r.elements.removeSubrange(..<n)
                r.slots.removeSubrange(..<n)
                l.count += n
                r.count -= n
            } else {
                let c = r.counts[..<n].reduce(0, +)
                l.children.append(contentsOf: r.children[..<n])
                l.counts.append(contentsOf: r.counts[..<n])
                r.children.removeSubrange(..<n)
                r.counts.removeSubrange(..<n)
                l.count += c
                r.count -= c
            }
        } else {
            let n = l.width - target
            let from = l.width - n
            if l.height == 0 {
                r.elements.insert(contentsOf: l.elements[from...], at: 0)
                r.slots.insert(contentsOf: l.slots[from...], at: 0)
                l.elements.removeSubrange(from...)
                l.slots.removeSubrange(from...)
                l.count -= n
                r.count += n
            } else {
                let c = l.counts[from...].reduce(0, +)
                r.children.insert(contentsOf: l.children[from...], at: 0)
                r.counts.insert(contentsOf: l.counts[from...], at: 0)
                l.children.removeSubrange(from...)
                l.counts.removeSubrange(from...)
                l.count -= c
                r.count += c
            }
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
