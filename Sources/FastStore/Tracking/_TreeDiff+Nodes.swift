// How each versioned type diffs two of its versions for the history
// (see `_TreeDiff.swift`): the kinds are those the journal uses for the
// same changes (see "What is journaled" in docs/tracking.md).

extension Versioned: _VersionDiffable {
    /// Field by field (`_TreeDiff.diffValue`); a pass-through when only
    /// the stamp differs (a write of equal contents).
    ///
    /// - Complexity: O(stored fields of `Value`) plus the diffs of the
    ///   versioned fields whose bytes differ.
    @usableFromInline
    func _diffWrites(from older: Versioned, into diff: inout _TreeDiff) {
        if older._box === _box || older._box.version == _box.version { return }
        if !diff.diffValue(of: _box.nodeID, old: older._box.value, new: _box.value) {
            diff.write(_box.nodeID, .passThrough)
        }
    }

    /// A new box with the same value and a fresh stamp.
    @usableFromInline
    func _restamped() -> Versioned? {
        var copy = self
        copy._box = _box.copy()
        copy._box.version = .next()
        return copy
    }
}

extension VersionedList: _VersionDiffable {
    /// `.element(i)` per updated position when no element was inserted or
    /// removed (positions keep their meaning), else `.content`, as the
    /// journal writes structural edits.
    ///
    /// - Complexity: the structural diff, O(c × log n) for c changed leaves.
    @usableFromInline
    func _diffWrites(from older: VersionedList, into diff: inout _TreeDiff) {
        if older._root === _root || older._stamp == _stamp { return }
        diff.visited &+= 1
        let changes = _structuralDifference(from: older)
        if !changes.removed.isEmpty || !changes.inserted.isEmpty {
            diff.write(_nodeID, .content)
        } else if changes.updated.isEmpty {
            diff.write(_nodeID, .passThrough)
        } else {
            for position in changes.updated { diff.write(_nodeID, .element(_ElementKey(position))) }
        }
    }
}

extension IdentifiedList: _VersionDiffable {
    /// `.element(id)` per id removed, inserted (a move is both) or
    /// updated; `.order` when none (readers of positions read `.whole`).
    ///
    /// - Complexity: the structural diff, O(c × log n) for c changes.
    @usableFromInline
    func _diffWrites(from older: IdentifiedList, into diff: inout _TreeDiff) {
        if older._version == _version { return }
        diff.visited &+= 1
        let changes = _difference(from: older) { _, _ in true }
        let node = _list._nodeID
        for id in changes.removed { diff.write(node, .element(_ElementKey(id))) }
        for id in changes.inserted { diff.write(node, .element(_ElementKey(id))) }
        for id in changes.updated { diff.write(node, .element(_ElementKey(id))) }
        if changes.removed.isEmpty && changes.inserted.isEmpty && changes.updated.isEmpty {
            diff.write(node, .order)
        }
    }
}

extension VersionedDictionary: _VersionDiffable {
    /// `.element(key)` per key removed, inserted or updated; a pass-through
    /// when none.
    ///
    /// - Complexity: O(c × log n) for c changed keys.
    @usableFromInline
    func _diffWrites(from older: VersionedDictionary, into diff: inout _TreeDiff) {
        if older._root === _root || older._root.stamp == _root.stamp { return }
        diff.visited &+= 1
        var changes = VersionedDictionaryChanges<Key>()
        _MapNode.difference(
            from: older._root, to: _root, shift: 0, isUpdated: { $0.written != $1.written }, into: &changes)
        for key in changes.removed { diff.write(_nodeID, .element(_ElementKey(key))) }
        for key in changes.inserted { diff.write(_nodeID, .element(_ElementKey(key))) }
        for key in changes.updated { diff.write(_nodeID, .element(_ElementKey(key))) }
        if changes.isEmpty { diff.write(_nodeID, .passThrough) }
    }
}
