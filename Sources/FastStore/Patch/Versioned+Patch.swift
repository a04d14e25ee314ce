// How the versioned types take part in patches: each is a `_PatchNode`
// (identity and stamp, a diff against its older version, its plain
// encoding) and `_PatchRebuildable` (its older version with an operation
// applied below it). Their `encode(to:)` and `init(from:)` call
// `_patchEncodeNode` and `_patchDecodeNode` first.

extension Versioned: _PatchNode where Value: Encodable {
    var _patchIdentity: _TrackingIdentity { _trackingIdentity }

    func _patchDiff(from old: any _PatchNode, at path: PatchPath, into operations: inout [PatchOperation]) throws -> Bool {
        guard let old = old as? Versioned else { return false }
        if old._box === _box { return true }
        // NB: one level: the children of both values stay references.
        try _PatchDiff.diff(old._box.value, _box.value, at: path, into: &operations)
        return true
    }

    func _patchPlain() throws -> PatchValue { try _plainValue(self) }
}

extension Versioned: _PatchRebuildable where Value: Codable {
    func _patchRebuild(_ decoder: _PatchDecoder) throws -> Versioned {
        let tree = try _PatchTree.of(_box.value, lazy: true)
        let value = try Value(from: _PatchDecoder(tree: tree, pending: decoder.pending, codingPath: decoder.codingPath))
        // NB: the same node, written: it keeps its identity, so the result
        // still shares structure (and diffs in O(changes)) with `self`.
        var node = self
        node.value = value
        return node
    }
}

extension VersionedDictionary: _PatchNode where Key: Encodable, Value: Encodable {
    var _patchIdentity: _TrackingIdentity { _trackingIdentity }

    func _patchDiff(from old: any _PatchNode, at path: PatchPath, into operations: inout [PatchOperation]) throws -> Bool {
        guard let old = old as? VersionedDictionary else { return false }
        let changes = difference(from: old)
        for key in changes.removed {
            operations.append(.set(path: path.appending(.key(try _plainValue(key))), old: try old[key].map(_plainValue), new: nil))
        }
        for key in changes.inserted {
            operations.append(.set(path: path.appending(.key(try _plainValue(key))), old: nil, new: try self[key].map(_plainValue)))
        }
        for key in changes.updated {
            guard let a = old[key], let b = self[key] else { continue }
            try _PatchDiff.diff(a, b, at: path.appending(.key(try _plainValue(key))), into: &operations)
        }
        return true
    }

    func _patchPlain() throws -> PatchValue { try _plainValue(self) }
}

extension VersionedDictionary: _PatchRebuildable where Key: Codable, Value: Codable {
    func _patchRebuild(_ decoder: _PatchDecoder) throws -> VersionedDictionary {
        guard let group = decoder.pending else { return self }
        var result = self
        try decoder.requireOneStepPerElement(Key.self) { if case .key(let key) = $0 { key } else { nil } }
        try decoder.forEachPendingStep { component, below in
            guard case .key(let encodedKey) = component else { return }
            let key = try _PatchDecoder.decode(Key.self, from: encodedKey)
            if let ending = below.endingHere, case .set(_, let old, let new) = ending.operation {
                let current = try self[key].map { try _PatchTree.of($0, lazy: false) }
                guard try _patchOldMatches(current, old) else {
                    let path = group.here.appending(.key(encodedKey)).description
                    throw current == nil ? PatchError.missingKey(path: path) : PatchError.mismatch(path: path)
                }
                result[key] = try new.map { try _PatchDecoder.decode(Value.self, from: $0) }
                ending.consume()
                return
            }
            guard let value = self[key] else {
                throw PatchError.missingKey(path: group.here.appending(.key(encodedKey)).description)
            }
            let child = try decoder.child(component, base: _PatchTree.of(value, lazy: true), key: _PatchEncoder._Key(stringValue: "\(encodedKey)"))
            result[key] = try Value(from: child)
        }
        return result
    }
}
