#if FASTSTORE_INTERNAL_CHECKS
extension _ListNode {
    /// Checks the tree below this node (as a root): storage sizes, counts,
    /// fill factors, equal depth of all leaves, stamps non-decreasing toward
    /// the root, unique element identities.
    ///
    /// - Complexity: O(n).
    @usableFromInline
    func _invariantCheck() {
        var identities = Set<UInt64>()
        identities.reserveCapacity(count)
        _check(isRoot: true, identities: &identities)
        precondition(identities.count == count, "VersionedList: element identities are not unique")
    }

    /// The checks that do not walk the whole tree: the root's own shape and
    /// its children's counts.
    ///
    /// - Complexity: O(branch width).
    @usableFromInline
    func _shallowInvariantCheck() {
        if height == 0 {
            precondition(elements.count == count && (slots.count == count || hasImplicitSlots),
                         "VersionedList: leaf count mismatch")
            precondition(count <= Self.leafCapacity, "VersionedList: overfull root leaf")
            precondition(itemCapacity >= width && itemCapacity <= Self._fullLeafCapacity,
                         "VersionedList: root leaf of capacity \(itemCapacity) holding \(width)")
        } else {
            precondition(children.count >= 2 && children.count <= Self.branchCapacity, "VersionedList: root width")
            precondition(children.reduce(0) { $0 + $1.count } == count, "VersionedList: root count mismatch")
        }
    }

    @usableFromInline
    func _check(isRoot: Bool, identities: inout Set<UInt64>) {
        if height == 0 {
            precondition(elements.count == count, "VersionedList: leaf count \(count) != \(elements.count) elements")
            precondition(slots.count == count || hasImplicitSlots,
                         "VersionedList: leaf has \(slots.count) slots for \(count) elements")
            precondition(count <= Self.leafCapacity, "VersionedList: overfull leaf (\(count))")
            if !isRoot {
                precondition(count >= Self.leafMinimum, "VersionedList: underfull leaf (\(count))")
                precondition(itemCapacity == Self._fullLeafCapacity, "VersionedList: leaf of capacity \(itemCapacity)")
            } else {
                precondition(itemCapacity >= width && itemCapacity <= Self._fullLeafCapacity,
                             "VersionedList: root leaf of capacity \(itemCapacity) holding \(width)")
            }
            precondition(children.isEmpty && counts.isEmpty, "VersionedList: leaf with children")
            if !_hasExplicitSlots {
                let written = Int(_header.pointee.writtenIndex)
                precondition(written == -1 || (0 ..< count).contains(written),
                             "VersionedList: implicit slots with element \(written) written, of \(count)")
            }
            for i in 0 ..< count {
                let slot = self.slot(i)
                identities.insert(slot.identity)
                precondition(slot.written >= slot.identity, "VersionedList: slot written before its insertion")
            }
            return
        }
        precondition(elements.isEmpty && slots.isEmpty, "VersionedList: branch with elements")
        precondition(itemCapacity == Self._branchItemCapacity, "VersionedList: branch of capacity \(itemCapacity)")
        precondition(counts.count == children.count, "VersionedList: \(counts.count) counts for \(children.count) children")
        for (k, child) in children.enumerated() {
            precondition(counts[k] == child.count, "VersionedList: stale count \(counts[k]) for a child of \(child.count)")
        }
        precondition(children.count <= Self.branchCapacity, "VersionedList: overfull branch (\(children.count))")
        if isRoot {
            precondition(children.count >= 2, "VersionedList: root branch with \(children.count) child")
        } else {
            precondition(children.count >= Self.branchMinimum, "VersionedList: underfull branch (\(children.count))")
        }
        var total = 0
        for child in children {
            precondition(child.height == height - 1, "VersionedList: unbalanced tree")
            precondition(child.stamp <= stamp, "VersionedList: child stamp \(child.stamp) newer than parent \(stamp)")
            child._check(isRoot: false, identities: &identities)
            total += child.count
        }
        precondition(total == count, "VersionedList: branch count \(count) != children total \(total)")
    }
}
#endif
