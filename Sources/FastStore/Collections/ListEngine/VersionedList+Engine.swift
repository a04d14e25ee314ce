// Unrecorded access to a list's engine, for the collections built on a
// list (`IdentifiedList`): reads that record nothing and the steps of a
// write, so that they never reach into `_root` themselves. Each caller
// records and journals through `_Tracking` for its own identity.

extension VersionedList {
    /// The element count, not recorded.
    @inlinable var _count: Int { _root.count }

    /// The stamp of the latest write, not recorded.
    @inlinable var _stamp: VersionStamp { _root.stamp }

    /// The element at `position`, not recorded. The position must be valid.
    @inlinable
    func _unrecordedElement(at position: Int) -> Element { _root.element(at: position) }

    /// The slot (identity and last write) of the element at `position`.
    @inlinable
    func _slot(at position: Int) -> _ListSlot { _root.slot(at: position) }

    /// Calls `body` with each leaf, in order, not recorded.
    @inlinable
    func _forEachLeaf(_ body: (_ListNode<Element>) throws -> Void) rethrows { try _root.forEachLeaf(body) }

    /// An iterator over the elements, not recorded.
    @inlinable
    func _unrecordedIterator() -> Iterator { Iterator(root: _root) }

    /// Makes the root unique and stamped `stamp`, for a write under way.
    @inlinable
    mutating func _makeRootUnique(stamp: VersionStamp) { _ListNode.makeUnique(&_root, stamp: stamp) }

    /// Makes the root unique and stamped `stamp` for a write of one element
    /// (then `_uniqueLeaf(containing:stamp:)`): a root branch may borrow
    /// (`_ListNode+Lending.swift`).
    @inlinable @inline(__always)
    mutating func _makeRootUniqueForElementWrite(stamp: VersionStamp) {
        _ListNode._makeRootUniqueForElementWrite(&_root, stamp: stamp)
    }

    /// The leaf holding `position` and the offset in it, with the path to it
    /// made unique and stamped `stamp` (the root must already be).
    @inlinable
    mutating func _uniqueLeaf(containing position: Int, stamp: VersionStamp) -> (leaf: _ListNode<Element>, offset: Int) {
        _root.uniqueLeaf(containing: position, stamp: stamp)
    }

    /// Replaces the whole tree, keeping the identity and the attached folds
    /// (a rebuild).
    @inlinable
    mutating func _replaceTree(_ root: _ListNode<Element>) { _setRoot(root) }

    /// The structural diff from `older`, a version of this list, not
    /// recorded.
    @inlinable
    func _structuralDifference(from older: VersionedList) -> VersionedListChanges {
        older._root === _root ? VersionedListChanges() : _ListNode.difference(from: older._root, to: _root)
    }
}

// Leaf labels (for `IdentifiedList`, see `_ListNode+LeafLabels.swift`).
extension VersionedList {
    /// The leaf holding `position` (`0 ..< count`): its first position,
    /// width and label, not recorded.
    @inlinable
    func _leaf(containing position: Int) -> (start: Int, width: Int, label: UInt64) {
        withExtendedLifetime(_root) {
            let (leaf, start) = _root._leaf(containing: position)
            return leaf._withUnsafeGuaranteedRef { (start, $0.width, $0.label) }
        }
    }

    /// Labels the leaf holding `position`, below a root already made unique
    /// for the write `stamp`.
    @inlinable
    mutating func _setLabel(_ label: UInt64, ofLeafContaining position: Int, stamp: VersionStamp) {
        _root.setLabel(label, ofLeafContaining: position, stamp: stamp)
    }

    /// Calls `body` with the elements of the leaf holding `position`, in
    /// order, not recorded.
    @inlinable
    func _forEachElement(inLeafContaining position: Int, _ body: (Element) throws -> Void) rethrows {
        try withExtendedLifetime(_root) {
            let (leaf, _) = _root._leaf(containing: position)
            try leaf._withUnsafeGuaranteedRef { leaf in
                let elements = leaf._elementsPointer
                for i in 0 ..< leaf.width { try body(elements[i]) }
            }
        }
    }
}

extension VersionedList where Element: Identifiable {
    /// The position of the element with `id` in the leaf labelled `label`,
    /// and its offset in that leaf, if any, not recorded (the element at
    /// `hint` is compared first).
    @inlinable
    func _locate(_ id: Element.ID, inLeafLabelled label: UInt64, hint: Int) -> (position: Int, offset: Int)? {
        _root.locate(id, inLeafLabelled: label, hint: hint)
    }
}
