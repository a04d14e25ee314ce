import FastStore

/// A FastStore value the difference walks by its structure: skipped when
/// both sides have the same identity and stamp (same contents, by
/// ``VersionedValue``'s promise), else only its changed parts visited.
internal protocol _StructuralDiffing: VersionedValue {
    /// Records into `difference` where `actual` differs from `self` (the
    /// expected value), under `path`.
    func _difference(to actual: Any, path: String, into difference: inout _StateDifference)
}

extension _StructuralDiffing {
    /// `actual` as this type, recording a change when it is another type or
    /// nil when both are the same version (nothing to walk).
    ///
    /// - Complexity: O(1): identities and stamps, no contents.
    fileprivate func _counterpart(_ actual: Any, path: String, into difference: inout _StateDifference) -> Self? {
        guard let actual = actual as? Self else {
            difference.record(path, expected: self, actual: actual)
            return nil
        }
        // NB: `_trackingIdentity` is read without recording a read, unlike
        // `version`; the walk must not make a test's selector depend on it.
        guard _trackingIdentity != actual._trackingIdentity else {
            difference.skipped += 1
            return nil
        }
        return actual
    }
}

extension Versioned: _StructuralDiffing {
    func _difference(to actual: Any, path: String, into difference: inout _StateDifference) {
        guard let actual = _counterpart(actual, path: path, into: &difference) else { return }
        difference.walk(value, actual.value, path: path)
    }
}

extension VersionedList: _StructuralDiffing {
    /// Versions of one list: the structural diff, then the updated elements
    /// walked. Unrelated lists: offset by offset.
    func _difference(to actual: Any, path: String, into difference: inout _StateDifference) {
        guard let actual = _counterpart(actual, path: path, into: &difference) else { return }
        guard nodeID == actual.nodeID else {
            let common = Swift.min(count, actual.count)
            for offset in 0..<common {
                difference.walk(self[offset], actual[offset], path: "\(path)[\(offset)]")
            }
            for offset in common..<count {
                difference.record("\(path)[\(offset)]", expected: self[offset], actual: nil)
            }
            for offset in common..<actual.count {
                difference.record("\(path)[\(offset)]", expected: nil, actual: actual[offset])
            }
            return
        }
        let changes = actual.difference(from: self)
        for offset in changes.removed {
            difference.record("\(path)[\(offset)]", expected: self[offset], actual: nil)
        }
        for offset in changes.inserted {
            difference.record("\(path)[\(offset)]", expected: nil, actual: actual[offset])
        }
        for (offset, olderOffset) in zip(changes.updated, changes.updatedInOlder) {
            difference.walk(self[olderOffset], actual[offset], path: "\(path)[\(offset)]")
        }
    }
}

extension IdentifiedList: _StructuralDiffing {
    /// The ids the list diff reports: removed and inserted rows as one change
    /// each, moved rows as a change of position, updated rows walked.
    func _difference(to actual: Any, path: String, into difference: inout _StateDifference) {
        guard let actual = _counterpart(actual, path: path, into: &difference) else { return }
        let changes = actual.difference(from: self)
        let insertedIDs = Set(changes.inserted)
        let removedIDs = Set(changes.removed)
        func rowPath(_ id: ID) -> String { "\(path)[id: \(String(reflecting: id))]" }
        for (offset, id) in zip(changes.offsets.removed, changes.removed) {
            if insertedIDs.contains(id), let actualOffset = actual.index(id: id) {
                // NB: moved (the list diff reports a move as a removal and an
                // insertion): its position, then its contents.
                difference.record(rowPath(id) + " (offset)", expected: offset, actual: actualOffset)
                difference.walk(self[offset], actual[actualOffset], path: rowPath(id))
            } else {
                difference.record(rowPath(id), expected: self[offset], actual: nil)
            }
        }
        for (offset, id) in zip(changes.offsets.inserted, changes.inserted) where !removedIDs.contains(id) {
            difference.record(rowPath(id), expected: nil, actual: actual[offset])
        }
        for (offset, id) in zip(changes.offsets.updated, changes.updated) {
            guard let expectedRow = self[id: id] else { continue }
            difference.walk(expectedRow, actual[offset], path: rowPath(id))
        }
    }
}

extension VersionedDictionary: _StructuralDiffing {
    /// The keys the dictionary diff reports, in the order of their
    /// descriptions: removed and inserted values as one change each, updated
    /// values walked.
    func _difference(to actual: Any, path: String, into difference: inout _StateDifference) {
        guard let actual = _counterpart(actual, path: path, into: &difference) else { return }
        let changes = actual.difference(from: self)
        let keys = (changes.removed.map { ($0, _KeyChange.removed) }
            + changes.inserted.map { ($0, _KeyChange.inserted) }
            + changes.updated.map { ($0, _KeyChange.updated) })
            .map { (key: $0.0, kind: $0.1, description: String(reflecting: $0.0)) }
            .sorted { $0.description < $1.description }
        for key in keys {
            let elementPath = "\(path)[\(key.description)]"
            switch key.kind {
            case .removed: difference.record(elementPath, expected: self[key.key], actual: nil)
            case .inserted: difference.record(elementPath, expected: nil, actual: actual[key.key])
            case .updated:
                guard let expectedValue = self[key.key], let actualValue = actual[key.key] else { continue }
                difference.walk(expectedValue, actualValue, path: elementPath)
            }
        }
    }
}

/// How a dictionary key changed, to sort the three kinds together.
private enum _KeyChange { case removed, inserted, updated }
