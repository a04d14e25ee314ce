// Lists in patches: the structural `difference(from:)` gives removals,
// insertions (one `edit` operation) and updates (operations below the
// updated element's position or id); rebuilding applies them to a copy of
// the older persistent list.

extension VersionedList: _PatchNode where Element: Encodable {
    var _patchIdentity: _TrackingIdentity { _trackingIdentity }

    func _patchDiff(from old: any _PatchNode, at path: PatchPath, into operations: inout [PatchOperation]) throws -> Bool {
        guard let old = old as? VersionedList else { return false }
        let changes = difference(from: old)
        let unchanged = try _PatchDiff.unchangedSpan(
            changes, old: { try _plainValue(old._unrecordedElement(at: $0)) }, new: { try _plainValue(_unrecordedElement(at: $0)) })
        if let unchanged {
            // NB: outside the span, kept elements sit at the same positions.
            for (new, older) in zip(changes.updated, changes.updatedInOlder) where !unchanged.contains(new) {
                try _PatchDiff.diff(
                    old._unrecordedElement(at: older), _unrecordedElement(at: new), at: path.appending(.index(new)), into: &operations)
            }
            return true
        }
        if changes.removed.count == old.count && changes.inserted.count == count {
            // NB: nothing kept (another list, a sort, a wholesale
            // replacement): one `set` says it more plainly than an edit.
            operations.append(.set(path: path, old: try old._patchPlain(), new: try _patchPlain()))
            return true
        }
        if !changes.removed.isEmpty || !changes.inserted.isEmpty {
            operations.append(.edit(
                path: path,
                removed: try changes.removed.map { PatchListEntry(offset: $0, value: try _plainValue(old._unrecordedElement(at: $0))) },
                inserted: try changes.inserted.map { PatchListEntry(offset: $0, value: try _plainValue(_unrecordedElement(at: $0))) }))
        }
        for (new, older) in zip(changes.updated, changes.updatedInOlder) {
            try _PatchDiff.diff(
                old._unrecordedElement(at: older), _unrecordedElement(at: new), at: path.appending(.index(new)), into: &operations)
        }
        return true
    }

    func _patchPlain() throws -> PatchValue { try _plainValue(self) }
}

extension VersionedList: _PatchRebuildable where Element: Codable {
    func _patchRebuild(_ decoder: _PatchDecoder) throws -> VersionedList {
        guard let group = decoder.pending else { return self }
        let here = group.here
        var list = self
        if let ending = group.endingHere, case .edit(_, let removed, let inserted) = ending.operation {
            for entry in removed.sorted(by: { $0.offset > $1.offset }) {
                let path = here.appending(.index(entry.offset)).description
                guard entry.offset >= 0 && entry.offset < list.count else { throw PatchError.indexOutOfRange(path: path) }
                guard try _patchOldMatches(_PatchTree.of(list._unrecordedElement(at: entry.offset), lazy: false), entry.value) else {
                    throw PatchError.mismatch(path: path)
                }
                list.remove(at: entry.offset)
            }
            for entry in inserted.sorted(by: { $0.offset < $1.offset }) {
                guard entry.offset >= 0 && entry.offset <= list.count else {
                    throw PatchError.indexOutOfRange(path: here.appending(.index(entry.offset)).description)
                }
                list.insert(try _PatchDecoder.decode(Element.self, from: entry.value), at: entry.offset)
            }
            ending.consume()
            return list
        }
        // NB: no edit of this list is in the pass (its path would be a
        // prefix of these), so positions are the list's own.
        try decoder.forEachPendingStep { component, _ in
            guard case .index(let position) = component else { return }
            guard position >= 0 && position < list.count else {
                throw PatchError.indexOutOfRange(path: here.appending(.index(position)).description)
            }
            let child = try decoder.child(
                component, base: _PatchTree.of(list._unrecordedElement(at: position), lazy: true),
                key: _PatchEncoder._Key(intValue: position))
            list[position] = try Element(from: child)
        }
        return list
    }
}

extension IdentifiedList: _PatchNode where Element: Encodable, Element.ID: Encodable {
    var _patchIdentity: _TrackingIdentity { _trackingIdentity }

    func _patchDiff(from old: any _PatchNode, at path: PatchPath, into operations: inout [PatchOperation]) throws -> Bool {
        guard let old = old as? IdentifiedList else { return false }
        let changes = difference(from: old)
        let offsets = changes.offsets
        let unchanged = try _PatchDiff.unchangedSpan(
            offsets, old: { try Self._plainEntry(old._list._unrecordedElement(at: $0)) },
            new: { try Self._plainEntry(_list._unrecordedElement(at: $0)) })
        if let unchanged {
            // NB: outside the span, kept elements sit at the same positions.
            for (k, id) in changes.updated.enumerated() where !unchanged.contains(offsets.updated[k]) {
                try _PatchDiff.diff(
                    old._list._unrecordedElement(at: offsets.updatedInOlder[k]),
                    _list._unrecordedElement(at: offsets.updated[k]),
                    at: path.appending(.id(try _plainValue(id))), into: &operations)
            }
            return true
        }
        if offsets.removed.count == old.count && offsets.inserted.count == count {
            operations.append(.set(path: path, old: try old._patchPlain(), new: try _patchPlain()))
            return true
        }
        if !offsets.removed.isEmpty || !offsets.inserted.isEmpty {
            operations.append(.edit(
                path: path,
                removed: try zip(offsets.removed, changes.removed).map {
                    PatchListEntry(offset: $0, id: try _plainValue($1), value: try _plainValue(old._list._unrecordedElement(at: $0)))
                },
                inserted: try zip(offsets.inserted, changes.inserted).map {
                    PatchListEntry(offset: $0, id: try _plainValue($1), value: try _plainValue(_list._unrecordedElement(at: $0)))
                }))
        }
        for (k, id) in changes.updated.enumerated() {
            try _PatchDiff.diff(
                old._list._unrecordedElement(at: offsets.updatedInOlder[k]),
                _list._unrecordedElement(at: offsets.updated[k]),
                at: path.appending(.id(try _plainValue(id))), into: &operations)
        }
        return true
    }

    func _patchPlain() throws -> PatchValue { try _plainValue(self) }

    /// An element and its id, told apart as patches tell values apart.
    static func _plainEntry(_ element: Element) throws -> PatchValue {
        .array([try _plainValue(element.id), try _plainValue(element)])
    }
}

extension IdentifiedList: _PatchRebuildable where Element: Codable, Element.ID: Codable {
    func _patchRebuild(_ decoder: _PatchDecoder) throws -> IdentifiedList {
        guard let group = decoder.pending else { return self }
        let here = group.here
        var list = self
        if let ending = group.endingHere, case .edit(_, let removed, let inserted) = ending.operation {
            for entry in removed.sorted(by: { $0.offset > $1.offset }) {
                guard let encodedID = entry.id else { throw PatchError.mismatch(path: here.appending(.index(entry.offset)).description) }
                let path = here.appending(.id(encodedID)).description
                let id = try _PatchDecoder.decode(ID.self, from: encodedID)
                guard let element = list[id: id] else { throw PatchError.missingID(path: path) }
                guard try _patchOldMatches(_PatchTree.of(element, lazy: false), entry.value) else { throw PatchError.mismatch(path: path) }
                list.remove(id: id)
            }
            for entry in inserted.sorted(by: { $0.offset < $1.offset }) {
                let element = try _PatchDecoder.decode(Element.self, from: entry.value)
                let path = here.appending(.id(try _plainValue(element.id))).description
                guard !list.contains(id: element.id) else { throw PatchError.duplicateID(path: path) }
                guard entry.offset >= 0 && entry.offset <= list.count else { throw PatchError.indexOutOfRange(path: path) }
                list.insert(element, at: entry.offset)
            }
            ending.consume()
            return list
        }
        try decoder.requireOneStepPerElement(ID.self) { if case .id(let id) = $0 { id } else { nil } }
        try decoder.forEachPendingStep { component, _ in
            guard case .id(let encodedID) = component else { return }
            var path: String { here.appending(.id(encodedID)).description }
            let id = try _PatchDecoder.decode(ID.self, from: encodedID)
            // NB: found once, read and written at its position.
            guard let position = list._position(of: id) else { throw PatchError.missingID(path: path) }
            let element = list._list._unrecordedElement(at: position)
            let child = try decoder.child(
                component, base: _PatchTree.of(element, lazy: true), key: _PatchEncoder._Key(stringValue: "\(encodedID)"))
            let updated = try Element(from: child)
            guard updated.id == id else { throw PatchError.mismatch(path: path) }
            list._update(updated, at: position)
        }
        return list
    }
}
